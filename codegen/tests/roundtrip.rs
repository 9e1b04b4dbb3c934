//! Round trips: every case of `support::cases` is emitted in each language, compiled (C with
//! `cc -std=c11 -Wall -Wextra -Werror`, CUDA as C++ with `c++ -std=c++17 -Wall -Werror`, Rust
//! with `rustc --edition 2024 -D warnings` and clippy's lints; without and with optimization), run on every point
//! of its domain, and compared with `IndexExpr::eval`. The PTX is assembled by `ptxas` for sm_80
//! and sm_90 and run by the interpreter in `support::ptx_interp`.
//!
//! The cases are batched into one file per language to keep the number of compiles low.

mod support;

use std::path::PathBuf;
use std::process::Command;
use support::cases::{Case, cases};
use support::{compare, drivers, ptx_interp, run, scratch};
use tessera_codegen::{Lang, emit};

const SEED: u64 = 0x7e55_e7a0;

fn the_cases() -> Vec<Case> {
    let seed = std::env::var("TESSERA_CODEGEN_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(SEED);
    let cs = cases(seed);
    assert!(cs.len() >= 150, "only {} cases", cs.len());
    cs
}

fn compile_and_compare(lang: Lang, src: &str, ext: &str, compilers: &[(&str, Vec<&str>)]) {
    let cs = the_cases();
    let dir = scratch(lang.name());
    let file = dir.join(format!("all.{ext}"));
    std::fs::write(&file, src).unwrap();
    for (k, (cc, flags)) in compilers.iter().enumerate() {
        let exe = dir.join(format!("run{k}"));
        run(Command::new(cc).args(flags).arg(&file).arg("-o").arg(&exe));
        let out = run(&mut Command::new(&exe));
        compare(&cs, &out, &format!("{lang} ({cc} {})", flags.join(" ")));
    }
}

#[test]
fn c_round_trip() {
    let src = drivers::c_like(&the_cases(), Lang::C);
    let base = vec!["-std=c11", "-Wall", "-Wextra", "-Werror"];
    let o2: Vec<&str> = base.iter().copied().chain(["-O2"]).collect();
    let ndebug: Vec<&str> = o2.iter().copied().chain(["-DNDEBUG"]).collect();
    compile_and_compare(Lang::C, &src, "c", &[("cc", base), ("cc", ndebug)]);
    let _ = o2;
}

#[test]
fn cuda_as_cpp_round_trip() {
    let src = drivers::c_like(&the_cases(), Lang::Cuda);
    compile_and_compare(
        Lang::Cuda,
        &src,
        "cpp",
        &[("c++", vec!["-std=c++17", "-Wall", "-Werror", "-x", "c++", "-O1"])],
    );
}

#[test]
fn rust_round_trip() {
    let src = drivers::rust(&the_cases());
    let base = vec!["--edition", "2024", "-D", "warnings"];
    let opt: Vec<&str> = base.iter().copied().chain(["-O"]).collect();
    let mut compilers = vec![("rustc", base.clone()), ("rustc", opt)];
    // Clippy's lints too, where clippy is installed (scripts/test.sh runs it, so it is there).
    let clippy = Command::new("clippy-driver").arg("--version").output();
    if clippy.is_ok_and(|o| o.status.success()) {
        compilers.push(("clippy-driver", base));
    } else {
        eprintln!("clippy-driver not found: the emitted Rust is not linted by clippy");
    }
    compile_and_compare(Lang::Rust, &src, "rs", &compilers);
}

/// `ptxas`: `$TESSERA_PTXAS`, else the one `scripts/setup.sh` installs, else on the `PATH`.
fn ptxas() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("TESSERA_PTXAS") {
        return Some(PathBuf::from(p));
    }
    let local = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.deps/nvcc/nvidia/cuda_nvcc/bin/ptxas");
    if local.is_file() {
        return Some(local);
    }
    Command::new("ptxas")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|_| PathBuf::from("ptxas"))
}

/// One module: the first function's module with the others' functions appended.
fn ptx_module(cs: &[Case]) -> String {
    let mut m = String::new();
    for (k, c) in cs.iter().enumerate() {
        let text = emit(&c.expr, Lang::Ptx, &c.sig).unwrap();
        for l in text.lines() {
            let header =
                l.starts_with(".version") || l.starts_with(".target") || l.starts_with(".address_size");
            if k == 0 || !header {
                m.push_str(l);
                m.push('\n');
            }
        }
    }
    m
}

#[test]
fn ptx_computes_what_the_ir_does() {
    let cs = the_cases();
    let module = ptx_module(&cs);
    let funcs = ptx_interp::parse(&module);
    assert_eq!(funcs.len(), cs.len());
    let mut out = String::new();
    for (c, f) in cs.iter().zip(&funcs) {
        assert_eq!(f.name, c.sig.name);
        assert_eq!(f.params.len(), c.sig.args.len());
        out.push_str(&format!("# {}\n", c.sig.name));
        for p in c.points() {
            let v: Vec<String> = f.run(&p).iter().map(i64::to_string).collect();
            out.push_str(&v.join(" "));
            out.push('\n');
        }
    }
    compare(&cs, &out, "ptx (interpreted)");
}

#[test]
fn ptx_assembles_with_ptxas() {
    let Some(ptxas) = ptxas() else {
        if std::env::var("TESSERA_REQUIRE_PTXAS").is_ok_and(|v| v == "1") {
            panic!("ptxas not found and TESSERA_REQUIRE_PTXAS=1: run scripts/setup.sh");
        }
        eprintln!("skipped: ptxas not found (run scripts/setup.sh, or set TESSERA_PTXAS)");
        return;
    };
    let dir = scratch("ptx");
    let file = dir.join("all.ptx");
    std::fs::write(&file, ptx_module(&the_cases())).unwrap();
    for arch in ["sm_80", "sm_90"] {
        let cubin = dir.join(format!("{arch}.cubin"));
        run(Command::new(&ptxas)
            .arg(format!("-arch={arch}"))
            .arg("--warning-as-error")
            .arg(&file)
            .arg("-o")
            .arg(&cubin));
        assert!(std::fs::metadata(&cubin).unwrap().len() > 0);
    }
}

/// Division and remainder by constants through reciprocals, over dividends up to 2^62: the
/// interpreted PTX at the ends of the domain and around multiples of the divisor near them.
#[test]
fn ptx_reciprocals_are_exact_on_large_domains() {
    use std::collections::HashMap;
    use tessera_codegen::Signature;
    use tessera_ir::index::{Builder, Var};
    use tessera_ir::sym::Interval;
    let mut r = support::cases::Rng::new(SEED);
    let mut reciprocals = 0;
    let mut module = String::new();
    for d in [
        3i64,
        5,
        6,
        7,
        10,
        11,
        12,
        13,
        25,
        100,
        641,
        1000,
        65537,
        1_000_000_007,
        (1 << 40) + 1,
    ] {
        for top in [1000i64, 1 << 20, 1 << 33, 1 << 47, (1 << 62) - 1, i64::MAX] {
            let mut b = Builder::new();
            let i = b.var(Var::Index);
            let k = b.konst(d);
            let (q, m) = (b.div(i, k), b.rem(i, k));
            let e = b.finish(vec![("q".into(), q), ("r".into(), m)]);
            let ranges = HashMap::from([(Var::Index, Interval::new(Some(0), Some(i128::from(top))))]);
            let sig = Signature::for_expr(&e, "f", &ranges, &HashMap::new()).unwrap();
            let text = emit(&e, Lang::Ptx, &sig).unwrap();
            reciprocals += usize::from(text.contains("mul.hi.u64"));
            let header = |l: &str| {
                [".version", ".target", ".address_size"]
                    .iter()
                    .any(|h| l.starts_with(h))
            };
            let named = text.replace(") f(", &format!(") f_{d}_{}(", module.len()));
            let first = module.is_empty();
            for l in named.lines().filter(|l| first || !header(l)) {
                module.push_str(l);
                module.push('\n');
            }
            let f = &ptx_interp::parse(&text)[0];
            let mut points = vec![0, 1, top, top - 1, d - 1, d, d + 1];
            for _ in 0..200 {
                let near = (top / d - (r.next() % 4) as i64) * d;
                points.extend([
                    near - 1,
                    near,
                    near.saturating_add(1),
                    (r.next() % (top as u64)) as i64,
                ]);
            }
            for a in points.into_iter().filter(|a| (0..=top).contains(a)) {
                assert_eq!(f.run(&[a]), vec![a / d, a % d], "{a} by {d} (i <= {top})\n{text}");
            }
        }
    }
    assert!(reciprocals > 60, "only {reciprocals} reciprocal divisions");
    // Multipliers of 64 bits included, ptxas takes them.
    if let Some(ptxas) = ptxas() {
        let dir = scratch("reciprocals");
        std::fs::write(dir.join("r.ptx"), &module).unwrap();
        run(Command::new(ptxas)
            .args(["-arch=sm_80", "--warning-as-error"])
            .arg(dir.join("r.ptx"))
            .arg("-o")
            .arg(dir.join("r.cubin")));
    }
}
