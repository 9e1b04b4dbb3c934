//! The PTX backend for kernels: every kernel of `examples/` and of random kernels assembled by
//! `ptxas` for sm_80 and sm_90 (a ptxas error fails the test with the PTX line shown), and run
//! by a PTX interpreter over the whole grid, compared with the reference interpreter.

#[path = "support/cli.rs"]
mod cli;
#[path = "support/kernel_gen.rs"]
mod kernel_gen;
#[path = "support/ptx_run.rs"]
mod ptx_run;
#[path = "support/ptx_vm.rs"]
mod ptx_vm;

use proptest::prelude::*;
use ptx_run::{assemble, ptx_equals_interpreter};
use std::collections::HashMap;
use std::path::PathBuf;
use tessera::check;
use tessera_codegen::kernel::Proved;
use tessera_codegen::{Arch, emit_kernel, emit_module};
use tessera_verifier::Options;

use kernel_gen::examples;

#[test]
fn the_examples_assemble_as_one_module() {
    let cf = check::load("examples/kernels.tess", &examples()).unwrap();
    for arch in [Arch::Sm80, Arch::Sm90] {
        let m = emit_module(&cf.kernels, arch).unwrap();
        assert_eq!(m.entries.len(), cf.kernels.len());
        assert!(m.text.contains(&format!(".target {}", arch.name())));
        assert!(
            m.text.contains("// Offsets of tensor src : f32[(M,N):(1,M)]"),
            "{}",
            m.text
        );
        assemble(&m.text, arch, "examples");
    }
}

fn tessera(args: &[&str]) -> (i32, String, String) {
    let o = cli::tessera(args);
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn tessera_build_proves_then_writes_ptx() {
    let ex = format!("{}/examples/kernels.tess", env!("CARGO_MANIFEST_DIR"));
    let out = std::env::temp_dir().join(format!("tessera-build-{}.ptx", std::process::id()));
    let (code, stdout, err) = tessera(&[
        "build",
        &ex,
        "--target",
        "ptx",
        "--arch",
        "sm_90",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    for line in [
        "kernel transpose:",
        "  dst: written once (injective): proved (Structure)",
        ".entry bias_relu: grid = the tiles i:1, j:256, 256 threads per CTA",
    ] {
        assert!(stdout.lines().any(|l| l == line), "{line}\n{stdout}");
    }
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains(".target sm_90") && text.contains(".visible .entry gemm("));
    assemble(&text, Arch::Sm90, "cli");
    // One kernel to stdout.
    let (code, stdout, _) = tessera(&["build", &ex, "--kernel", "gemm"]);
    assert_eq!(code, 0);
    assert!(stdout.contains(".visible .entry gemm(") && !stdout.contains(".entry transpose("));
    // Bad input, and a refuted kernel.
    assert_eq!(tessera(&["build", &ex, "--arch", "sm_61"]).0, 3);
    assert_eq!(tessera(&["build", &ex, "--target", "c"]).0, 3);
    assert_eq!(tessera(&["build", &ex, "--kernel", "nope"]).0, 3);
    let bad = std::env::temp_dir().join(format!("tessera-build-bad-{}.tess", std::process::id()));
    std::fs::write(
        &bad,
        "tensor s : f32[(4,4):(4,1)]\ntensor d : f32[(4,4):(0,1)]\nkernel k { d[i,j] = s[i,j] }\n",
    )
    .unwrap();
    let (code, _, err) = tessera(&["build", bad.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("kernel k refused"), "{err}");
}

/// Every kernel of every file of `examples/` (the broken ones included: their kernels are
/// well-formed), assembled for both targets.
#[test]
fn the_example_kernels_assemble() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut files: Vec<PathBuf> = ["", "broken"]
        .iter()
        .flat_map(|d| std::fs::read_dir(dir.join(d)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "tess"))
        .collect();
    files.sort();
    let mut kernels = 0;
    for f in &files {
        let cf = check::load(&f.display().to_string(), &std::fs::read_to_string(f).unwrap()).unwrap();
        for k in &cf.kernels {
            for arch in [Arch::Sm80, Arch::Sm90] {
                let m = emit_kernel(k, arch).unwrap();
                assemble(&m.text, arch, &k.name);
            }
            kernels += 1;
        }
    }
    assert!(kernels >= 7, "{kernels} kernels in {files:?}");
}

#[test]
fn the_example_kernels_compute_what_the_interpreter_computes() {
    let cf = check::load("examples/kernels.tess", &examples()).unwrap();
    // Extents that leave partial tiles (N = 96 against tiles of 256 along j).
    let b: HashMap<String, i64> = [("M", 64), ("N", 96), ("K", 32)]
        .iter()
        .map(|(n, v)| (n.to_string(), *v))
        .collect();
    for k in &cf.kernels {
        let p = Proved::check_at(k.clone(), &b, &Options::default(), false).unwrap();
        ptx_equals_interpreter(&p, &b, 3).unwrap_or_else(|e| panic!("{}: {e}", k.name));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Random kernels (the JIT's generator): the PTX assembles for sm_80 and sm_90, and the
    /// PTX interpreter computes what the reference interpreter computes, bit for bit.
    #[test]
    fn random_kernels_assemble_and_compute_what_the_interpreter_computes(file in kernel_gen::kernels(), seed in 0u64..100) {
        let Ok(cf) = check::load("k.tess", &file) else { return Ok(()) };
        let Some(k) = cf.kernels.into_iter().next() else { return Ok(()) };
        let Ok(p) = Proved::check(k, &Options { timeout_ms: Some(60_000) }, false) else { return Ok(()) };
        let m = emit_kernel(p.kernel(), Arch::Sm90).unwrap();
        assemble(&m.text, Arch::Sm90, "random");
        if let Err(e) = ptx_equals_interpreter(&p, &HashMap::new(), seed) {
            prop_assert!(false, "{file}\n{e}");
        }
    }
}

const VECTOR: &str = "param M, N where M % 4 == 0, N % 32 == 0, 4 <= M <= 4096, 32 <= N <= 4096
tensor x : f32[(M,N):(N,1)]
tensor y : f32[(M,N):(N,1)]
tensor b : f32[N:1]
tensor xh : f16[(M,N):(N,1)]
tensor yh : f16[(M,N):(N,1)]
tensor bh : f16[N:1]
tensor xd : f64[(M,N):(N,1)]
tensor yd : f64[(M,N):(N,1)]
tensor xt : f32[(M,N):(1,M)]
tensor xp : f32[(M,N):(N+1,1)]
kernel relu vector 4 { y[i,j] = max(x[i,j] + b[j], 0) }
kernel relu_h vector 4 { yh[i,j] = max(xh[i,j] + bh[j], 0) }
kernel copy_h tile i:2, j:64 vector 4 { yh[i,j] = xh[i,j] }
kernel scale_d vector 2 { yd[i,j] = xd[i,j] * 0.5 + f64(b[j]) }
kernel col vector 4 { y[i,j] = xt[i,j] }
kernel padded vector 4 { y[i,j] = xp[i,j] }
kernel wide vector 4 { yd[i,j] = xd[i,j] }
kernel sum vector 4 { b[j] += x[i,j] }
kernel mapped tile i:4, j:64 threads j:8, i:4 vector 4 { y[i,j] = max(x[i,j] + b[j], 0) }
kernel mapped_h tile i:2, j:32 threads i:2, j:4 vector 4 { yh[i,j] = xh[i,j] }
kernel narrow tile i:4, j:32 threads j:16, i:4 vector 4 { y[i,j] = x[i,j] }
";

/// `vector W`: granted where contiguity and alignment are proved (then `.vW` accesses, which
/// the PTX interpreter checks aligned, and results equal the interpreter's), with the default
/// mapping or a `threads` clause (whose threads take groups of W), refused with the failed fact
/// otherwise.
#[test]
fn vector_accesses_where_proved() {
    let cf = check::load("v.tess", VECTOR).unwrap();
    let b: HashMap<String, i64> = [("M", 8), ("N", 96)]
        .iter()
        .map(|(n, v)| (n.to_string(), *v))
        .collect();
    for name in ["relu", "relu_h", "copy_h", "scale_d", "mapped", "mapped_h"] {
        let k = cf.kernels.iter().find(|k| k.name == name).unwrap();
        for arch in [Arch::Sm80, Arch::Sm90] {
            let m = emit_kernel(k, arch).unwrap_or_else(|e| panic!("{name}: {e}"));
            let w = if name == "scale_d" { "v2" } else { "v4" };
            assert!(
                m.text.contains(&format!("ld.global.{w}.")) && m.text.contains(&format!("st.global.{w}.")),
                "{name}"
            );
            assemble(&m.text, arch, name);
        }
        let p = Proved::check_at(k.clone(), &b, &Options::default(), false).unwrap();
        ptx_equals_interpreter(&p, &b, 9).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    for (name, why) in [
        ("col", "xt is not proved contiguous along j"),
        ("padded", "xp is not proved aligned"),
        ("wide", "4 elements of yd (f64) exceed 16 bytes"),
        ("sum", "a '+=' statement is not vectorised yet"),
        (
            "narrow",
            "the tile j:32 is not a multiple of 4 times its 16 threads",
        ),
    ] {
        let k = cf.kernels.iter().find(|k| k.name == name).unwrap();
        let e = emit_kernel(k, Arch::Sm80).unwrap_err().to_string();
        assert!(e.contains(why), "{name}: {e}");
    }
    // An extent the facts do not make a multiple of the width.
    let cf = check::load("w.tess", "param P where 1 <= P <= 64\ntensor s : f32[P:1]\ntensor d : f32[P:1]\nkernel k vector 4 { d[i] = s[i] * 2 }\n").unwrap();
    let e = emit_kernel(&cf.kernels[0], Arch::Sm80).unwrap_err().to_string();
    assert!(
        e.contains("the extent P of i is not proved a multiple of 4"),
        "{e}"
    );
}

/// A one-dimensional kernel small enough to read whole (the first golden PTX).
const SCALE: &str = "param N where 1 <= N <= 1048576\ntensor x : f32[N:1]\ntensor y : f32[N:1]\n\
                     kernel scale tile i:128 { y[i] = x[i] * 2 }\n";

/// Golden PTX, reviewed by hand once: the one-dimensional `scale` and the swizzled staged
/// transpose of `examples/staged.tess`, for sm_80. A change to the emitted text fails here;
/// review the new text, then rewrite the files with `TESSERA_BLESS=1`.
#[test]
fn golden_ptx() {
    let staged_src =
        std::fs::read_to_string(format!("{}/examples/staged.tess", env!("CARGO_MANIFEST_DIR"))).unwrap();
    for (name, src, kernel) in [
        ("scale", SCALE, "scale"),
        ("transpose_staged", staged_src.as_str(), "transpose_staged"),
    ] {
        let cf = check::load("golden.tess", src).unwrap();
        let k = cf.kernels.iter().find(|k| k.name == kernel).unwrap();
        let text = emit_kernel(k, Arch::Sm80).unwrap().text;
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/{name}.ptx"));
        if std::env::var_os("TESSERA_BLESS").is_some() {
            std::fs::write(&path, &text).unwrap();
        }
        let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if let Some((n, (g, w))) = text
            .lines()
            .zip(want.lines())
            .enumerate()
            .find(|(_, (g, w))| g != w)
        {
            panic!("{name}: line {} differs:\n  emitted: {g}\n  golden:  {w}", n + 1);
        }
        assert_eq!(text.lines().count(), want.lines().count(), "{name}: line count");
        assemble(&text, Arch::Sm80, name);
    }
}

/// `--arch sm_70` (Volta) is a target for kernels that need nothing newer: the examples
/// assemble for it. A bf16 output needs `cvt.rn.bf16.f32`, which sm_70 lacks: an error naming
/// the kernel, the instruction and the architecture it needs (exit 3 from `tessera build`).
#[test]
fn an_arch_the_kernel_needs_more_than_is_an_error() {
    let cf = check::load("examples/kernels.tess", &examples()).unwrap();
    assemble(
        &emit_module(&cf.kernels, Arch::Sm70).unwrap().text,
        Arch::Sm70,
        "sm70",
    );
    let src = "param M where 1 <= M <= 1000\ntensor x : f32[M:1]\ntensor y : bf16[M:1]\n\
               kernel narrow { y[i] = bf16(x[i]) }\n";
    let cf = check::load("bf16.tess", src).unwrap();
    let e = emit_kernel(&cf.kernels[0], Arch::Sm70).unwrap_err().to_string();
    assert_eq!(
        e,
        "kernel narrow: rounding to bf16 (`cvt.rn.bf16.f32`) needs sm_80 or later; --arch sm_70 lacks it"
    );
    assemble(
        &emit_kernel(&cf.kernels[0], Arch::Sm80).unwrap().text,
        Arch::Sm80,
        "bf16",
    );
    let file = std::env::temp_dir().join(format!("tessera-bf16-{}.tess", std::process::id()));
    std::fs::write(&file, src).unwrap();
    let (code, _, err) = tessera(&["build", file.to_str().unwrap(), "--arch", "sm_70"]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("needs sm_80 or later; --arch sm_70 lacks it"),
        "{err}"
    );
}
