//! The kernel generator against NumPy (issues 24 and 31): kernels of seven families (copies,
//! transposes, elementwise expressions with casts, reductions, matrix products,
//! multi-statement kernels, staged GPU kernels with `tile`, `threads` and `stage` clauses) over
//! layouts of every kind (row- and column-major, padded, offset, swizzled, negative-stride views
//! with a stated buffer), with NaN (sign and payload), infinities, signed zeros, subnormals,
//! INT_MIN and INT_MAX among their inputs, written by `tests/data/kernel_numpy.py`; each run by
//! `tessera run` on the JIT at 1 and 2 threads (the second with `--verify`), on the reference
//! interpreter alone (`--interpret`) and on its PTX in the PTX interpreter (`--target ptx-sim`),
//! and every output compared with NumPy's result by the same script; `tessera build` writes each
//! kernel's PTX, which ptxas assembles for sm_80 and sm_90. Skipped, with a note, where
//! NumPy is not installed (`scripts/setup.sh` installs it into `.deps/numpy`).

#[path = "support/cli.rs"]
mod cli;
#[path = "support/kernel_gen.rs"]
mod kernel_gen;
#[path = "support/ptx_run.rs"]
mod ptx_run;
#[path = "support/ptx_vm.rs"]
mod ptx_vm;

use cli::python;
use std::process::Command;
use tessera_codegen::Arch;

/// The engines: a name and the flags that choose it.
const TARGETS: [(&str, &[&str]); 4] = [
    ("jit1", &["-j", "1"]),
    ("jit2", &["-j", "2", "--verify"]),
    ("interp", &["--interpret"]),
    ("ptx", &["--target", "ptx-sim"]),
];

fn generated_kernels_against_numpy(seed: u64, per_family: usize) {
    if !cli::has_numpy() {
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/kernel_numpy.py");
    let d = std::env::temp_dir().join(format!("tessera-kernel-numpy-gen-{seed}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let dir = d.display().to_string();
    let (seed, count) = (seed.to_string(), per_family.to_string());
    let o = python(&[script, "gen", &dir, &seed, &count]).unwrap();
    assert!(o.status.success(), "gen: {}", String::from_utf8_lossy(&o.stderr));
    let cases: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("cases.json")).unwrap()).unwrap();
    let mut results = Vec::new();
    // Symbolic kernels `build` proves for every admitted value, of those generated.
    let mut symbolic = (0usize, 0usize);
    let mut ptx_runs: std::collections::BTreeMap<String, usize> = Default::default();
    for case in cases.as_array().unwrap() {
        let s = |k: &str| case[k].as_str().unwrap().to_string();
        let (id, family) = (s("id"), s("family"));
        let (file, kernel, bind) = (s("file"), s("kernel"), s("bind"));
        // `tessera build` proves it (a symbolic kernel for every value its facts admit, else at
        // the run's values with --bind) and writes its PTX, which ptxas assembles for both
        // targets.
        for arch in [Arch::Sm80, Arch::Sm90] {
            let ptx = d.join(format!("{id}-{}.ptx", arch.name())).display().to_string();
            let args = [
                "build",
                &file,
                "--kernel",
                &kernel,
                "--arch",
                arch.name(),
                "-o",
                &ptx,
            ];
            let (mut code, _, mut err) = cli::run(&args);
            if !bind.is_empty() && arch == Arch::Sm80 {
                symbolic.1 += 1;
                symbolic.0 += usize::from(code == 0);
            }
            if code != 0 && !bind.is_empty() {
                (code, _, err) = cli::run(&[&args[..], &["--bind", &bind]].concat());
            }
            assert_eq!(code, 0, "{id}: build: {err}\n{}", s("text"));
            ptx_run::assemble(
                &std::fs::read_to_string(&ptx).unwrap(),
                arch,
                &format!("{id}-{}", arch.name()),
            );
        }
        for (target, flags) in TARGETS {
            let mut args: Vec<String> = vec!["run".into(), s("file"), "--kernel".into(), s("kernel")];
            if !s("bind").is_empty() {
                args.extend(["--bind".into(), s("bind")]);
            }
            if case["storage"].as_bool().unwrap() {
                args.push("--storage".into());
            }
            for (name, path) in case["inputs"].as_object().unwrap() {
                args.extend(["--input".into(), format!("{name}={}", path.as_str().unwrap())]);
            }
            let mut outputs = serde_json::Map::new();
            for name in case["outputs"].as_array().unwrap() {
                let name = name.as_str().unwrap();
                let p = d.join(format!("{id}-{target}-{name}.npy")).display().to_string();
                args.extend(["--out".into(), format!("{name}={p}")]);
                outputs.insert(name.into(), p.into());
            }
            args.extend(flags.iter().map(|f| f.to_string()));
            let o = Command::new(env!("CARGO_BIN_EXE_tessera"))
                .args(&args)
                .env("TESSERA_CACHE_DIR", cli::cache_dir())
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            if target == "ptx" {
                *ptx_runs.entry(family.clone()).or_default() += 1;
            }
            assert_eq!(
                o.status.code(),
                Some(0),
                "{id} on {target}: {}\n{}{err}",
                args.join(" "),
                s("text")
            );
            results.push(serde_json::json!({"id": id, "target": target, "outputs": outputs}));
        }
    }
    std::fs::write(d.join("results.json"), serde_json::to_string(&results).unwrap()).unwrap();
    let o = python(&[script, "check", &dir, &seed, &count]).unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    eprintln!(
        "seed {seed}: {}; PTX runs per family: {ptx_runs:?}; symbolic kernels built for every admitted value: {} of {}",
        out.trim(),
        symbolic.0,
        symbolic.1
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn generated_kernels_on_every_engine_against_numpy() {
    generated_kernels_against_numpy(31, 3);
}

/// More seeds and kernels (`cargo test --test kernel_numpy -- --ignored`).
#[test]
#[ignore]
fn more_generated_kernels_against_numpy() {
    for seed in 1..=2 {
        generated_kernels_against_numpy(seed, 8);
    }
}
