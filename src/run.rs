//! `tessera run`: proves a kernel of a check file, compiles it with Cranelift and runs it on
//! `.npy` buffers; `--verify` compares with the reference interpreter, `--bench` times it
//! against same-run references (see [`crate::kernel_bench`]); `--target gpu` runs its PTX on a
//! CUDA device instead (`crate::gpu`, the `cuda` feature).

use crate::check;
use crate::exit;
use crate::kernel_bench;
use crate::npy;
use half::{bf16, f16};
use std::collections::HashMap;
use tessera_codegen::kernel::{Buffer, ElemType, Proved, params_of, run};
use tessera_codegen::{CompiledKernel, JitOptions};
use tessera_verifier::{Options, Verdict};

/// The long help of `tessera run`.
pub const RUN_HELP: &str = "\
Before it runs, the kernel's accesses are proved inside their buffers and its outputs written
once, for every parameter value the facts admit, or else (a note says so) at the --bind values
of this run. A refuted proof refuses the kernel (exit 1,
with the counterexample); an unknown one refuses it (exit 2) unless --unchecked is given, and
then a WARNING on stderr says the kernel runs unproved (the compiled code then checks every
offset it cannot prove, and one outside its buffer stops the run with an error; it runs on one
thread).

The kernel is compiled with Cranelift for the bound values: rank-2 copies by the copy kernel,
other statements as loop nests over their tiles, four lanes at a time where every access is
proved contiguous along the innermost index; tiles are spread over --threads threads (default:
every core). The result is bit-identical to the reference interpreter's (--interpret runs that
alone); --verify runs both and compares every output bit for bit.

Buffers are .npy files holding the tensor's buffer: cosize elements, flat, little-endian, of
dtype <f4 (f32), <f8 (f64), <i4 (i32), <i8 (i64), <f2 (f16) or <u2 (the bits of a bf16).
A tensor without --input gets seeded random values (--seed): floats in [-1, 1), integers in
[-100, 100). --output writes a tensor's buffer after the run (any tensor of the kernel).

--bench prints key=value lines: the compile, simplify, validate and proof times; the kernel's
median time over repeated runs; its traffic (every buffer read and written once) in GB/s and,
for kernels with a contraction, GFLOP/s; and, measured in the same run, memcpy of the same
number of bytes into an existing buffer (memcpy_gbps) and, for a contraction, the naive loop
over the same layouts (naive_gflops).

--target gpu (a build with `cargo build --features cuda`: the driver, libcuda, is loaded when
the run starts) runs the kernel's PTX on CUDA device 0: emitted for sm_90 on a device of compute
capability 9.0 or newer, else sm_80 (an older device is refused), each entry launched in order
with one CTA per tile, on the same inputs. The outputs are copied back and compared with the
JIT's (with --interpret, the reference interpreter's): bit for bit, except the targets of a
float += with a contraction, within 1e-4 relative; verify=ok (...) says so. --bench then prints
gpu_time_us (median of repeated runs after a warm-up, timed with CUDA events), bytes, gpu_gbps,
memcpy_d2d_gbps (a device-to-device copy of half those bytes in the same run, read and written,
counted like the kernel), ratio_memcpy and, for a contraction, gpu_gflops.

EXIT CODES
  0 ran, 1 refused (refuted), 2 refused (unknown), 3 bad input (file, kernel, binding, .npy)
  or no GPU to run on (--target gpu: a build without the cuda feature, no driver, no device, a
  device older than sm_80, a kernel the PTX backend refuses), 4 internal error (a --verify
  mismatch; on the GPU, a CUDA error or a result that differs from the CPU's)
";

/// What `tessera run` was asked.
pub struct RunArgs<'a> {
    /// The check file.
    pub file: &'a str,
    /// The kernel's name.
    pub kernel: &'a str,
    /// `NAME=VALUE` bindings (each argument may hold several, comma-separated).
    pub binds: &'a [String],
    /// `NAME=FILE.npy` inputs.
    pub inputs: &'a [String],
    /// `NAME=FILE.npy` outputs.
    pub outputs: &'a [String],
    /// Run a kernel whose proof is unknown.
    pub unchecked: bool,
    /// The proof's time limit per obligation, in seconds.
    pub timeout: f64,
    /// The seed of the random inputs.
    pub seed: u64,
    /// Threads (`None`: every core).
    pub threads: Option<usize>,
    /// Compare with the reference interpreter.
    pub verify: bool,
    /// Time the kernel and the references.
    pub bench: bool,
    /// Run the reference interpreter only (on the GPU: compare with it instead of the JIT).
    pub interpret: bool,
    /// Run the kernel's PTX on the GPU (`--target gpu`, the `cuda` feature).
    pub gpu: bool,
}

/// The error of `--target gpu` in a build without the `cuda` feature.
pub const NO_CUDA: &str = "--target gpu: this tessera was built without the `cuda` feature; rebuild with `cargo build --features cuda`";

/// The device of `--target gpu`.
#[cfg(feature = "cuda")]
type Device = crate::gpu::Gpu;
/// The device of `--target gpu`: none without the `cuda` feature.
#[cfg(not(feature = "cuda"))]
type Device = std::convert::Infallible;

/// Opens the GPU; the exit code when there is none to run on.
#[cfg(feature = "cuda")]
fn open_gpu() -> Result<Device, i32> {
    crate::gpu::Gpu::open().map_err(|e| {
        eprintln!("error: --target gpu: {e}");
        e.exit_code()
    })
}

/// Without the `cuda` feature there is no GPU to open: bad input.
#[cfg(not(feature = "cuda"))]
fn open_gpu() -> Result<Device, i32> {
    Err(bad(NO_CUDA))
}

/// Runs the kernel on the GPU from `buffers` and compares with the CPU on `threads` threads
/// (see [`crate::gpu::run_kernel`]): the GPU's buffers and a description of the engine, or the
/// exit code.
#[cfg(feature = "cuda")]
fn on_gpu(
    gpu: &Device,
    a: &RunArgs<'_>,
    proved: &Proved,
    bindings: &HashMap<String, i64>,
    buffers: &[Buffer],
    (threads, proof): (usize, std::time::Duration),
) -> Result<(Vec<Buffer>, String), i32> {
    let how = crate::gpu::GpuRun {
        threads,
        interpret: a.interpret,
        bench: a.bench,
        proof,
    };
    match crate::gpu::run_kernel(gpu, proved, bindings, buffers, &how) {
        Ok(b) => Ok((b, format!("its PTX on the GPU, {}", gpu.describe()))),
        Err(e) => {
            eprintln!("error: kernel {}: --target gpu: {e}", proved.kernel().name);
            Err(e.exit_code())
        }
    }
}

fn bad(msg: impl std::fmt::Display) -> i32 {
    eprintln!("error: {msg}");
    exit::BAD_INPUT
}

/// Splits `NAME=VALUE`.
fn pair<'s>(s: &'s str, what: &str) -> Result<(&'s str, &'s str), String> {
    s.split_once('=')
        .map(|(a, b)| (a.trim(), b.trim()))
        .filter(|(a, b)| !a.is_empty() && !b.is_empty())
        .ok_or_else(|| format!("{what}: expected NAME=VALUE, got '{s}'"))
}

/// Seeded random values for a buffer (xorshift64*).
fn random(elem: ElemType, len: usize, seed: u64) -> Buffer {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let mut unit = || (next() >> 40) as f64 / (1u64 << 23) as f64 - 1.0;
    match elem {
        ElemType::F32 => Buffer::F32((0..len).map(|_| unit() as f32).collect()),
        ElemType::F64 => Buffer::F64((0..len).map(|_| unit()).collect()),
        ElemType::I32 => Buffer::I32((0..len).map(|_| (unit() * 100.0).floor() as i32).collect()),
        ElemType::I64 => Buffer::I64((0..len).map(|_| (unit() * 100.0).floor() as i64).collect()),
        ElemType::F16 => Buffer::F16((0..len).map(|_| f16::from_f64(unit())).collect()),
        ElemType::BF16 => Buffer::BF16((0..len).map(|_| bf16::from_f64(unit())).collect()),
    }
}

/// Without the `cuda` feature there is no device: unreachable.
#[cfg(not(feature = "cuda"))]
fn on_gpu(
    gpu: &Device,
    _: &RunArgs<'_>,
    _: &Proved,
    _: &HashMap<String, i64>,
    _: &[Buffer],
    _: (usize, std::time::Duration),
) -> Result<(Vec<Buffer>, String), i32> {
    match *gpu {}
}

/// Runs `tessera run`; the exit code.
pub fn run_kernel(a: &RunArgs<'_>) -> i32 {
    let gpu = if a.gpu {
        match open_gpu() {
            Ok(g) => Some(g),
            Err(code) => return code,
        }
    } else {
        None
    };
    let src = match std::fs::read_to_string(a.file) {
        Ok(s) => s,
        Err(e) => return bad(format_args!("{}: {e}", a.file)),
    };
    let cf = match check::load(a.file, &src) {
        Ok(cf) => cf,
        Err(e) => return bad(e),
    };
    let Some(k) = cf.kernels.iter().find(|k| k.name == a.kernel) else {
        let names: Vec<&str> = cf.kernels.iter().map(|k| k.name.as_str()).collect();
        return bad(format_args!(
            "{}: no kernel '{}' (kernels: {})",
            a.file,
            a.kernel,
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        ));
    };
    let mut bindings: HashMap<String, i64> = HashMap::new();
    for b in a.binds.iter().flat_map(|b| b.split(',')) {
        let (n, v) = match pair(b, "--bind") {
            Ok(p) => p,
            Err(e) => return bad(e),
        };
        let Ok(v) = v.parse::<i64>() else {
            return bad(format_args!("--bind {n}: '{v}' is not an integer"));
        };
        if bindings.insert(n.to_string(), v).is_some() {
            return bad(format_args!("--bind {n}: bound twice"));
        }
    }
    if !(a.timeout.is_finite() && a.timeout > 0.0) {
        return bad("--timeout must be a positive number of seconds");
    }
    let opts = Options {
        timeout_ms: Some((a.timeout * 1000.0).ceil() as u64),
    };
    let proof_start = std::time::Instant::now();
    let proved = match Proved::check_at(k.clone(), &bindings, &opts, a.unchecked) {
        Ok(p) => p,
        Err(r) => {
            eprintln!("error: {r}");
            return match r.verdict {
                Verdict::Refuted(_) => exit::REFUTED,
                Verdict::Unknown(_) => {
                    eprintln!("  (--unchecked runs it anyway, unproved)");
                    exit::UNKNOWN
                }
                Verdict::Invalid(_) => exit::BAD_INPUT,
                _ => exit::INTERNAL,
            };
        }
    };
    let proof_time = proof_start.elapsed();
    if let Some(b) = proved.bound() {
        let v: Vec<String> = b.iter().map(|(n, x)| format!("{n}={x}")).collect();
        eprintln!(
            "note: kernel {} is proved at {} only (not for every value the facts admit)",
            k.name,
            v.join(", ")
        );
    }
    if let Some(why) = proved.unchecked() {
        eprintln!(
            "WARNING: kernel {} runs UNCHECKED: its proof is unknown ({why})",
            k.name
        );
    }
    let mut inputs: HashMap<&str, &str> = HashMap::new();
    for s in a.inputs {
        match pair(s, "--input") {
            Ok((n, f)) => {
                inputs.insert(n, f);
            }
            Err(e) => return bad(e),
        }
    }
    let mut outputs: Vec<(usize, &str)> = Vec::new();
    for s in a.outputs {
        let (n, f) = match pair(s, "--output") {
            Ok(p) => p,
            Err(e) => return bad(e),
        };
        match k.tensors.iter().position(|t| t.name == n) {
            Some(t) => outputs.push((t, f)),
            None => return bad(format_args!("--output {n}: kernel {} has no tensor {n}", k.name)),
        }
    }
    if let Some(n) = inputs.keys().find(|n| !k.tensors.iter().any(|t| t.name == **n)) {
        return bad(format_args!("--input {n}: kernel {} has no tensor {n}", k.name));
    }
    let m: Vec<String> = params_of(k)
        .into_iter()
        .filter(|n| !bindings.contains_key(n))
        .collect();
    if !m.is_empty() {
        return bad(format_args!(
            "kernel {}: bind {} (--bind {}=..)",
            k.name,
            m.join(", "),
            m[0]
        ));
    }
    let mut buffers = Vec::with_capacity(k.tensors.len());
    for (i, t) in k.tensors.iter().enumerate() {
        let len = match t.cosize.eval(&bindings) {
            Ok(c) if c >= 0 => c as usize,
            Ok(c) => return bad(format_args!("tensor {}: cosize {c} is negative", t.name)),
            Err(e) => return bad(format_args!("tensor {}: cosize {}: {e}", t.name, t.cosize)),
        };
        let b = match inputs.get(t.name.as_str()) {
            Some(f) => match std::fs::read(f)
                .map_err(|e| e.to_string())
                .and_then(|x| npy::read(&x, t.elem, len))
            {
                Ok(b) => b,
                Err(e) => return bad(format_args!("--input {}={f}: {e}", t.name)),
            },
            None => random(t.elem, len, a.seed.wrapping_add(i as u64)),
        };
        buffers.push(b);
    }
    let threads = a
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads == 0 {
        return bad("--threads must be at least 1");
    }
    let engine = if let Some(gpu) = &gpu {
        match on_gpu(gpu, a, &proved, &bindings, &buffers, (threads, proof_time)) {
            Ok((b, engine)) => {
                buffers = b;
                engine
            }
            Err(code) => return code,
        }
    } else if a.interpret {
        if let Err(e) = run(&proved, &bindings, &mut buffers) {
            return bad(format_args!("kernel {}: {e}", k.name));
        }
        "the reference interpreter".to_string()
    } else {
        let jit = match CompiledKernel::compile(&proved, &bindings, &JitOptions::default()) {
            Ok(j) => j,
            Err(e) => return bad(format_args!("kernel {}: {e}", k.name)),
        };
        let reference = (a.verify || a.bench).then(|| buffers.clone());
        if let Err(e) = jit.run(&mut buffers, threads) {
            return bad(format_args!("kernel {}: {e}", k.name));
        }
        if a.verify {
            let mut want = reference.clone().unwrap_or_default();
            if let Err(e) = run(&proved, &bindings, &mut want) {
                return bad(format_args!("kernel {} (reference interpreter): {e}", k.name));
            }
            match kernel_bench::compare(k, &want, &buffers, jit.bit_exact()) {
                Ok(how) => println!("verify=ok ({how})"),
                Err(e) => {
                    eprintln!("error: kernel {}: --verify: {e}", k.name);
                    return exit::INTERNAL;
                }
            }
        }
        if a.bench {
            let mut scratch = reference.unwrap_or_default();
            kernel_bench::report(k, &jit, &mut scratch, threads, &bindings, proof_time);
        }
        let paths: Vec<String> = jit.paths().iter().map(|p| p.to_string()).collect();
        format!("the JIT on {threads} thread(s): {}", paths.join("; "))
    };
    for (t, f) in outputs {
        let bytes = match npy::write(&buffers[t]) {
            Ok(b) => b,
            Err(e) => return bad(format_args!("--output {}: {e}", k.tensors[t].name)),
        };
        if let Err(e) = std::fs::write(f, bytes) {
            return bad(format_args!("--output {}={f}: {e}", k.tensors[t].name));
        }
    }
    let lens: Vec<String> = k
        .tensors
        .iter()
        .zip(&buffers)
        .map(|(t, b)| format!("{}:{}[{}]", t.name, t.elem.name(), b.len()))
        .collect();
    println!("ran kernel {} with {engine} ({})", k.name, lens.join(", "));
    exit::OK
}
