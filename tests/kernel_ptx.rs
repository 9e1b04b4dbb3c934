//! The PTX backend for kernels: every kernel of `examples/` and of random kernels assembled by
//! `ptxas` for sm_80 and sm_90 (a ptxas error fails the test with the PTX line shown), and run
//! by a PTX interpreter over the whole grid, compared with the reference interpreter.

#[path = "support/cli.rs"]
mod cli;
#[path = "support/kernel_gen.rs"]
mod kernel_gen;
#[path = "support/ptx_vm.rs"]
mod ptx_vm;

use half::{bf16, f16};
use proptest::prelude::*;
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use tessera::check;
use tessera_codegen::kernel::{Buffer, ElemType, Proved, run};
use tessera_codegen::{Arch, emit_kernel, emit_module};
use tessera_verifier::Options;

/// `ptxas`: `$TESSERA_PTXAS`, else the one `scripts/setup.sh` installs, else on the `PATH`.
fn ptxas() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("TESSERA_PTXAS") {
        return Some(PathBuf::from(p));
    }
    let local = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".deps/nvcc/nvidia/cuda_nvcc/bin/ptxas");
    if local.exists() {
        return Some(local);
    }
    Command::new("ptxas")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|_| PathBuf::from("ptxas"))
}

/// Assembles `text` for `arch`; a failure shows ptxas's message and the PTX lines it names.
fn assemble(text: &str, arch: Arch, what: &str) {
    let Some(ptxas) = ptxas() else {
        if std::env::var("TESSERA_REQUIRE_PTXAS").is_ok_and(|v| v == "1") {
            panic!("ptxas not found and TESSERA_REQUIRE_PTXAS=1: run scripts/setup.sh");
        }
        eprintln!("skipped: ptxas not found (run scripts/setup.sh, or set TESSERA_PTXAS)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("tessera-kernel-ptx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{what}.ptx"));
    std::fs::write(&file, text).unwrap();
    let o = Command::new(&ptxas)
        .args(["--gpu-name", arch.name(), "-o"])
        .arg(dir.join(format!("{what}.cubin")))
        .arg(&file)
        .output()
        .unwrap();
    if !o.status.success() {
        let err = String::from_utf8_lossy(&o.stderr);
        let lines: Vec<&str> = text.lines().collect();
        let shown: Vec<String> = err
            .lines()
            .filter_map(|l| {
                let n: usize = l
                    .split(", line ")
                    .nth(1)?
                    .split(';')
                    .next()?
                    .trim()
                    .parse()
                    .ok()?;
                Some(format!("{n}: {}", lines.get(n - 1)?))
            })
            .collect();
        panic!(
            "{what} ({}): ptxas failed:\n{err}\n{}",
            arch.name(),
            shown.join("\n")
        );
    }
}

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

/// A buffer's bytes (little-endian) and back.
fn bytes(b: &Buffer) -> Vec<u8> {
    match b {
        Buffer::F32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        Buffer::F64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        Buffer::I32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        Buffer::I64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        Buffer::F16(v) => v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect(),
        Buffer::BF16(v) => v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect(),
    }
}

/// Emits `p`'s kernel, runs every entry in the PTX interpreter over its grid from the seeded
/// buffers, and compares every byte with the reference interpreter's result.
fn ptx_equals_interpreter(p: &Proved, b: &HashMap<String, i64>, seed: u64) -> Result<ptx_vm::Stats, String> {
    ptx_against_interpreter(p, b, seed, None)
}

/// A float element of `bytes` as f64 (an integer compares exactly).
fn element(elem: ElemType, bytes: &[u8]) -> f64 {
    match elem {
        ElemType::F32 => f64::from(f32::from_le_bytes(bytes.try_into().unwrap())),
        ElemType::F64 => f64::from_le_bytes(bytes.try_into().unwrap()),
        ElemType::F16 => f16::from_bits(u16::from_le_bytes(bytes.try_into().unwrap())).to_f64(),
        ElemType::BF16 => bf16::from_bits(u16::from_le_bytes(bytes.try_into().unwrap())).to_f64(),
        ElemType::I32 => f64::from(i32::from_le_bytes(bytes.try_into().unwrap())),
        ElemType::I64 => i64::from_le_bytes(bytes.try_into().unwrap()) as f64,
    }
}

/// As [`ptx_equals_interpreter`]; with `tol`, float elements may differ by `tol * max(1,
/// |want|)` (fused sums), integers still not at all.
fn ptx_against_interpreter(
    p: &Proved,
    b: &HashMap<String, i64>,
    seed: u64,
    tol: Option<f64>,
) -> Result<ptx_vm::Stats, String> {
    let k = p.kernel();
    let m = emit_kernel(k, Arch::Sm80).map_err(|e| e.to_string())?;
    let start: Vec<Buffer> = k
        .tensors
        .iter()
        .enumerate()
        .map(|(i, t)| kernel_gen::buffer(t.elem, t.cosize.eval(b).unwrap() as usize, seed + i as u64))
        .collect();
    let mut want = start.clone();
    run(p, b, &mut want).map_err(|e| format!("interpreter: {e}"))?;
    let module = ptx_vm::Module::parse(&m.text);
    let mut mem = ptx_vm::Memory::new(start.iter().map(bytes).collect());
    let extent = |name: &str| {
        let x = k.indices.iter().find(|x| x.name == name).unwrap();
        x.extent.eval(b).unwrap()
    };
    let mut stats = ptx_vm::Stats::default();
    for e in &m.entries {
        let args: Vec<u64> = e
            .params
            .iter()
            .map(|(kind, n)| match kind.as_str() {
                "t" => mem.buffers[k.tensors.iter().position(|t| &t.name == n).unwrap()].0,
                "p" => b[n] as u64,
                _ => extent(n) as u64,
            })
            .collect();
        let grid: i64 = e.tiles.iter().map(|(x, t)| (extent(x) + t - 1) / t).product();
        let s = ptx_vm::launch(&module, &e.name, grid as u64, e.block as u64, &args, &mut mem);
        stats.load_wavefronts = stats.load_wavefronts.max(s.load_wavefronts);
        stats.store_wavefronts = stats.store_wavefronts.max(s.store_wavefronts);
    }
    for (t, w) in want.iter().enumerate() {
        let (got, w) = (&mem.buffers[t].1, bytes(w));
        let elem = k.tensors[t].elem;
        if let Some(tol) = tol.filter(|_| elem.is_float()) {
            let n = elem.bytes();
            for (e, (g, w)) in got.chunks(n).zip(w.chunks(n)).enumerate() {
                let (g, w) = (element(elem, g), element(elem, w));
                if !((g - w).abs() <= tol * w.abs().max(1.0) || g.is_nan() && w.is_nan()) {
                    return Err(format!(
                        "tensor {} element {e}: PTX {g}, interpreter {w}",
                        k.tensors[t].name
                    ));
                }
            }
            continue;
        }
        if let Some(i) = (0..w.len()).find(|&i| got[i] != w[i]) {
            return Err(format!(
                "tensor {} byte {i}: PTX {:#x}, interpreter {:#x}\n{}",
                k.tensors[t].name, got[i], w[i], m.text
            ));
        }
    }
    Ok(stats)
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

fn staged() -> String {
    std::fs::read_to_string(format!("{}/examples/staged.tess", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The staged transposes: assembled for both targets, run over the grid (barriers included)
/// with partial tiles, equal to the interpreter; and the build reports the degrees the
/// swizzle is there for.
#[test]
fn staged_kernels_assemble_run_and_report_their_bank_degrees() {
    let cf = check::load("examples/staged.tess", &staged()).unwrap();
    for arch in [Arch::Sm80, Arch::Sm90] {
        let m = emit_module(&cf.kernels, arch).unwrap();
        assert!(m.text.contains(".shared .align 16 .b8 smem_src[4096];") && m.text.contains("bar.sync 0;"));
        assemble(&m.text, arch, "staged");
    }
    let b: HashMap<String, i64> = [("M", 64), ("N", 96)]
        .iter()
        .map(|(n, v)| (n.to_string(), *v))
        .collect();
    for k in &cf.kernels {
        let p = Proved::check_at(k.clone(), &b, &Options::default(), false).unwrap();
        let stats = ptx_equals_interpreter(&p, &b, 5).unwrap_or_else(|e| panic!("{}: {e}", k.name));
        let m = emit_kernel(k, Arch::Sm80).unwrap();
        let r = &m.entries[0].stages[0];
        let want = if k.name == "transpose_staged" {
            (1, 1)
        } else {
            (32, 1)
        };
        assert_eq!(
            (r.store_degree, r.load_degree),
            (Some(want.0), Some(want.1)),
            "{}",
            k.name
        );
        assert_eq!(r.bytes, 4096);
        // The interpreter's own count of wavefronts, per warp instruction over the whole grid,
        // agrees with the proved degrees.
        assert_eq!(
            (stats.store_wavefronts as i64, stats.load_wavefronts as i64),
            want,
            "{}",
            k.name
        );
    }
}

/// The reported degrees against a count from the definition, and against the wavefronts the
/// PTX interpreter counts running the transpose (design.md's bank model: 32
/// banks of 4 bytes, a warp of 32 threads one phase for 4-byte accesses, distinct words per
/// bank): the staging copy's warp 0 stores points `t + 256 v` (colexicographic over the
/// tile), the compute phase's warp 0 (threads `j:32` fastest) loads row `i` for each value.
#[test]
fn stage_degrees_match_a_count_from_the_definition() {
    let facts = std::sync::Arc::new(tessera_ir::sym::Facts::default());
    for smem in [
        "(32,32):(32,1)",
        "Sw<5,0,5> o (32,32):(32,1)",
        "(32,32):(33,1)",
        "Sw<3,2,3> o (32,32):(32,1)",
        "(32,32):(1,32)",
        "Sw<2,0,3> o (32,32):(32,1)",
    ] {
        let file = format!(
            "tensor src : f32[(64,64):(1,64)]\ntensor dst : f32[(64,64):(64,1)]\nlet S = {smem}\n\
             kernel t tile i:32, j:32 threads j:32, i:8 {{\n  stage src in S\n  dst[i,j] = src[i,j]\n}}\n"
        );
        let cf = check::load("k.tess", &file).unwrap();
        let m = emit_kernel(&cf.kernels[0], Arch::Sm80).unwrap();
        let r = &m.entries[0].stages[0];
        let f = tessera_verifier::Func::parse(smem, &facts)
            .unwrap()
            .at(&HashMap::new())
            .unwrap();
        let degree = |points: &dyn Fn(i64, i64) -> i64, values: i64| {
            (0..values)
                .map(|v| {
                    let mut words: HashMap<i64, std::collections::BTreeSet<i64>> = HashMap::new();
                    for t in 0..32 {
                        let w = f.offset(points(t, v)).unwrap(); // 4-byte elements: one word each
                        words.entry(w % 32).or_default().insert(w);
                    }
                    words.values().map(|s| s.len() as i64).max().unwrap()
                })
                .max()
                .unwrap()
        };
        // Staging: thread t, value v holds tile point t + 256 v (i = p % 32, j = p / 32).
        let store = degree(&|t, v| t + 256 * v, 4);
        // Compute: thread t = tj + 32 ti (tj fastest); value (a) gives i = ti + 8 a, j = tj.
        let load = degree(&|t, a| (t / 32 + 8 * a) + 32 * (t % 32), 4);
        assert_eq!(
            (r.store_degree, r.load_degree),
            (Some(store), Some(load)),
            "{smem}"
        );
        // And the PTX interpreter measures the same wavefronts running the emitted code.
        let bind = HashMap::new();
        let p = Proved::check_at(cf.kernels[0].clone(), &bind, &Options::default(), false).unwrap();
        let stats = ptx_equals_interpreter(&p, &bind, 1).unwrap();
        assert_eq!(
            (stats.store_wavefronts as i64, stats.load_wavefronts as i64),
            (store, load),
            "{smem}: measured"
        );
        eprintln!("{smem}: staging stores {store}-way, compute loads {load}-way");
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
";

/// `vector W`: granted where contiguity and alignment are proved (then `.vW` accesses, which
/// the PTX interpreter checks aligned, and results equal the interpreter's), refused with the
/// failed fact otherwise.
#[test]
fn vector_accesses_where_proved() {
    let cf = check::load("v.tess", VECTOR).unwrap();
    let b: HashMap<String, i64> = [("M", 8), ("N", 96)]
        .iter()
        .map(|(n, v)| (n.to_string(), *v))
        .collect();
    for name in ["relu", "relu_h", "copy_h", "scale_d"] {
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

/// A stage larger than a CTA's shared memory is refused before its layout is evaluated
/// (a tile of 10^10 elements must not be enumerated).
#[test]
fn an_oversized_stage_is_refused_at_once() {
    let file = "tensor s : f32[(100000,100000):(1,100000)]\ntensor d : f32[(100000,100000):(100000,1)]\n\
                let S = (100000,100000):(100000,1)\n\
                kernel t tile i:100000, j:100000 {\n  stage s in S\n  d[i,j] = s[i,j]\n}\n";
    let cf = check::load("big.tess", file).unwrap();
    let e = emit_kernel(&cf.kernels[0], Arch::Sm90).unwrap_err().to_string();
    assert!(e.contains("exceeds the 49152 bytes of shared memory"), "{e}");
}

/// The static shared memory of an entry: 48 KiB in one stage assembles; two stages of 32 KiB
/// are refused together (ptxas would: "uses too much shared data").
#[test]
fn the_stages_fit_the_static_shared_memory_together() {
    let file = |second: bool| {
        format!(
            "param M, N where 1 <= M <= 65536, 1 <= N <= 65536\n\
             tensor a : f32[(M,N):(1,M)]\ntensor b : f32[(M,N):(1,M)]\ntensor d : f32[(M,N):(N,1)]\n\
             let S = (128,{n}):(1,128)\n\
             kernel t tile i:128, j:{n} threads i:32, j:8 {{\n  stage a in S\n{}  d[i,j] = a[i,j] + b[i,j]\n}}\n",
            if second { "  stage b in S\n" } else { "" },
            n = if second { 64 } else { 96 },
        )
    };
    let one = check::load("one.tess", &file(false)).unwrap();
    let m = emit_kernel(&one.kernels[0], Arch::Sm90).unwrap();
    assert_eq!(m.entries[0].stages[0].bytes, 49152);
    assemble(&m.text, Arch::Sm90, "48 KiB");
    let two = check::load("two.tess", &file(true)).unwrap();
    let e = emit_kernel(&two.kernels[0], Arch::Sm90).unwrap_err().to_string();
    assert!(
        e.contains("stages take 65536 bytes of shared memory together"),
        "{e}"
    );
}

/// A contraction of `elem`s over the k-tiles staged through `sa` (and `sb`, if any): 64 threads
/// (two warps), 8 sums per thread, tiles of different sizes along `i` and `j`.
fn staged_gemm(elem: &str, sa: &str, sb: Option<&str>) -> String {
    let stage_b = sb.map_or(String::new(), |_| "  stage B in SB\n".into());
    format!(
        "param M, N, K where 1 <= M <= 1000, 1 <= N <= 1000, 1 <= K <= 1000\n\
         tensor A : {elem}[(M,K):(1,M)]\ntensor B : {elem}[(N,K):(1,N)]\ntensor C : {elem}[(M,N):(1,M)]\n\
         let SA = {sa}\nlet SB = {}\n\
         kernel g tile i:32, j:16, k:8 threads i:8, j:8 {{\n  stage A in SA\n{stage_b}  C[i,j] += A[i,k] * B[j,k]\n}}\n",
        sb.unwrap_or("(16,8):(1,16)")
    )
}

/// The staged contractions (the shared-memory GEMM): assembled for both targets; run by the
/// PTX interpreter over partial tiles in all three indices (a partial k-tile too), equal to
/// the reference interpreter (integers bit for bit, fused float sums within rounding), no
/// uninitialised shared memory read; and the wavefronts the interpreter counts per warp
/// instruction equal the proved degrees, conflicted layouts included.
#[test]
fn staged_contractions_sum_correctly_at_their_proved_bank_degrees() {
    let b: HashMap<String, i64> = [("M", 40), ("N", 37), ("K", 19)]
        .iter()
        .map(|(n, v)| (n.to_string(), *v))
        .collect();
    for (elem, sa, sb, tol) in [
        ("f32", "(32,8):(1,32)", Some("(16,8):(1,16)"), Some(1e-5)),
        // k-major tiles: the copy's stores conflict 8-way and 4-way, the loads 2-way.
        ("f32", "(32,8):(8,1)", Some("(16,8):(8,1)"), Some(1e-5)),
        // A swizzle and a padding.
        (
            "f32",
            "Sw<2,0,3> o (32,8):(8,1)",
            Some("(16,8):(1,17)"),
            Some(1e-5),
        ),
        ("i32", "(32,8):(1,32)", Some("(16,8):(1,16)"), None),
        ("f16", "(32,8):(1,32)", Some("(16,8):(1,16)"), Some(1e-2)),
        // B unstaged: read from global memory inside the extents only.
        ("f64", "(32,8):(1,32)", None, Some(1e-12)),
    ] {
        let what = format!("{elem} {sa} {sb:?}");
        let cf = check::load("g.tess", &staged_gemm(elem, sa, sb)).unwrap_or_else(|e| panic!("{what}: {e}"));
        let k = &cf.kernels[0];
        let m = emit_kernel(k, Arch::Sm80).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(
            m.text.contains("bar.sync 0") && m.text.contains("ld.shared"),
            "{what}"
        );
        assert_eq!(m.text.contains("fma.rn"), elem != "i32", "{what}");
        for arch in [Arch::Sm80, Arch::Sm90] {
            assemble(&emit_kernel(k, arch).unwrap().text, arch, &what);
        }
        let p = Proved::check_at(k.clone(), &b, &Options::default(), false).unwrap();
        let stats = ptx_against_interpreter(&p, &b, 11, tol).unwrap_or_else(|e| panic!("{what}: {e}"));
        let e = &m.entries[0];
        let proved = |f: &dyn Fn(&tessera_codegen::StageReport) -> Option<i64>| {
            e.stages.iter().map(|r| f(r).unwrap()).max().unwrap()
        };
        assert_eq!(
            (stats.store_wavefronts as i64, stats.load_wavefronts as i64),
            (proved(&|r| r.store_degree), proved(&|r| r.load_degree)),
            "{what}: measured (stores, loads) vs proved"
        );
        eprintln!(
            "{what}: wavefronts per warp instruction: stores {}, loads {}",
            stats.store_wavefronts, stats.load_wavefronts
        );
    }
}

/// `examples/sgemm.tess`, the 128x128x8 shared-memory GEMM (256 threads, 64 sums each): two
/// k-tiles in the interpreter, within rounding of the reference interpreter, conflict-free as
/// proved.
#[test]
fn the_example_sgemm_runs_conflict_free() {
    let path = format!("{}/examples/sgemm.tess", env!("CARGO_MANIFEST_DIR"));
    let cf = check::load("examples/sgemm.tess", &std::fs::read_to_string(path).unwrap()).unwrap();
    let b: HashMap<String, i64> = [("M", 128), ("N", 128), ("K", 16)]
        .iter()
        .map(|(n, v)| (n.to_string(), *v))
        .collect();
    let k = &cf.kernels[0];
    let p = Proved::check_at(k.clone(), &b, &Options::default(), false).unwrap();
    let stats = ptx_against_interpreter(&p, &b, 2, Some(1e-5)).unwrap();
    let m = emit_kernel(k, Arch::Sm80).unwrap();
    for r in &m.entries[0].stages {
        assert_eq!((r.store_degree, r.load_degree), (Some(1), Some(1)), "{r:?}");
    }
    assert_eq!((stats.store_wavefronts, stats.load_wavefronts), (1, 1));
}

/// A one-dimensional kernel small enough to read whole (the first golden PTX).
const SCALE: &str = "param N where 1 <= N <= 1048576\ntensor x : f32[N:1]\ntensor y : f32[N:1]\n\
                     kernel scale tile i:128 { y[i] = x[i] * 2 }\n";

/// Golden PTX, reviewed by hand once: the one-dimensional `scale` and the swizzled staged
/// transpose of `examples/staged.tess`, for sm_80. A change to the emitted text fails here;
/// review the new text, then rewrite the files with `TESSERA_BLESS=1`.
#[test]
fn golden_ptx() {
    let staged_src = staged();
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
