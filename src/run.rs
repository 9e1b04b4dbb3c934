//! `tessera run`: proves a kernel of a check file, compiles it with Cranelift and runs it on
//! `.npy` buffers; `--verify` compares with the reference interpreter, `--bench` times it
//! against same-run references (see [`crate::kernel_bench`]); `--target gpu` runs its PTX on a
//! CUDA device instead (`crate::gpu`, the `cuda` feature).

use crate::check;
use crate::exit;
use crate::kernel::Strided;
use crate::kernel_bench;
use crate::npy;
use half::{bf16, f16};
use std::collections::HashMap;
use tessera_codegen::kernel::{Buffer, ElemType, Kernel, Proved, params_of, run, run_with_magnitudes};
use tessera_codegen::{CompiledKernel, GemmMicro, HalfPath, JitOptions, Memo, NoMemo, TransposePath};
use tessera_verifier::{Options, Property, Verdict};

/// The long help of `tessera run`.
pub const RUN_HELP: &str = "\
Before it runs, the kernel's accesses are proved inside their buffers and its outputs written
once, for every parameter value the facts admit, or else (a note says so) at the --bind values
of this run. A refuted proof refuses the kernel (exit 1,
with the counterexample); an unknown one refuses it (exit 2) unless --unchecked is given, and
then a WARNING on stderr says the kernel runs unproved (the compiled code then checks every
offset it cannot prove, and one outside its buffer stops the run with an error; it runs on one
thread). --bind names the file's parameters: an unknown name, or a value that violates a fact
(the fact is named), is an error.

The kernel is compiled with Cranelift for the bound values: rank-2 copies by the copy kernel,
other statements as loop nests over their tiles, four lanes at a time where every access is
proved contiguous along the innermost index; tiles are spread over -j/--jobs threads (alias
--threads; default: every core). The result is bit-identical to the reference interpreter's
(--interpret runs that alone); --verify runs both and compares every output bit for bit.

Arrays are .npy files (format 1 to 3), little-endian, of dtype <f4 (f32), <f8 (f64), <i4 (i32),
<i8 (i64), <f2 (f16) or <u2 (the bits of a bf16), read by shape and strides, never by storage: a
tensor T : f32[L] takes a file whose shape is L's shape (its top-level modes, or its leaves) and
whose strides (C order, or Fortran order with fortran_order: True) are L's, in elements; modes of
extent 1 take any stride. Element a[c] is the tensor's element at coordinate c. Any other file is
refused (exit 3) with the shape and strides expected and the NumPy fix (np.asfortranarray(a),
a.T, a.reshape(..)); a padded or swizzled layout has no contiguous file, and takes its raw
buffer with --storage. The header is checked field by field (a shape whose size overflows, a
truncated file: exit 3). --out NAME=FILE.npy writes a tensor's array in its layout's shape, in C order, or
in Fortran order when the layout is not row-major. --storage makes --input and --out raw
buffers instead: exactly the buffer's length (cosize) elements, any shape, in the file's memory
order. A tensor without --input gets seeded random values (--seed): floats in [-1, 1), integers
in [-100, 100).

Memory: before allocating, the bytes of every buffer (twice, with --verify or --bench, which keep
a copy) are compared with --max-memory (default half the physical memory); a run over it is
refused with the number (exit 3), and an allocation the system refuses is an error, never an
abort.

NaN: a statement that computes its value (an operation, a cast, a +=) stores any NaN as the
canonical quiet NaN (0x7fc00000 in f32, 0x7ff8000000000000 in f64, 0x7e00 in f16, 0x7fc0 in
bf16), on every engine; a plain copy moves bits, NaN payloads included. --verify compares bit for
bit under that rule (reordered sums within 1e-4 of the magnitude they were summed from, |initial|
+ |term_1| + ... + |term_n|, so that a sum that cancels is not a false mismatch; a NaN equals a
NaN); on a mismatch it still writes the --out files, then exits 4.

A kernel proved at the --bind values only (the note says so) is proved for exactly those values:
its accesses in bounds and its outputs written once at that launch, nothing about others. An
--unchecked kernel runs on one thread, in the reference interpreter's order (statements in turn,
each row-major over its target's indices), so even colliding writes leave the interpreter's last
writer; the summary line prints the one thread it used.

--bench prints key=value lines: the compile, simplify, validate and proof times; the kernel's
median time over repeated runs; its traffic (every buffer read and written once) in GB/s and,
for kernels with a contraction, GFLOP/s; and, measured in the same run, memcpy of the same
number of bytes into an existing buffer (memcpy_gbps) and, for a contraction, the naive loop
over the same layouts (naive_gflops) and, for a matrix product, its micro-kernel (gemm_micro);
then the preparation time (prep_ms: proof and compilation) and what the preparation cache did
(cache_hits, cache_misses, cache_rejected, cache_writes; or cache=off).

The preparation cache keeps, per question, the kernel's proof, each tensor's simplified and
validated index code and the contiguity proofs on disk, so a second run of the same kernel at
the same values skips z3 and egg (Cranelift still compiles). It lives in $TESSERA_CACHE_DIR, else
$XDG_CACHE_HOME/tessera, else ~/.cache/tessera (delete the folder to clear it); --no-cache or
TESSERA_NO_CACHE=1 turns it off. An entry is used only when it is whole (its SHA-256 checks) and
holds exactly the question asked, for this very executable (another build reads none of it);
only facts are kept (proofs, validated rewrites), never an unknown. Output is the same with and
without it.

f16 and bf16 elements are converted a tile at a time outside the compiled loop (x86's F16C
instructions where the CPU has them); TESSERA_HALF_PATH=software forces the software conversion
a CPU without F16C uses, and =inline the element-by-element conversion in compiled code, to
measure them side by side. Every path gives the reference interpreter's bits.

An f32 matrix product multiplies its packed panels with the widest micro-kernel the CPU runs
(AVX-512, else AVX2 with FMA, else the Cranelift-compiled one; the packing and the update of C
are compiled through the layouts on every choice); TESSERA_GEMM_MICRO=avx512, avx2 or cranelift
picks one (a CPU without it runs the Cranelift kernel), to measure them side by side. Every
choice gives the same bits.

A transpose of 4-byte elements into a target of 4 MiB or more (the source contiguous along one
index, the target along the other, each with a constant step along the other, all proved) is
moved in bands by a helper compiled for AVX2, with streaming stores, where the CPU has AVX2;
TESSERA_TRANSPOSE_PATH=stream or =cached takes the helper at any size, with streaming stores or
without, and =registers the 4 x 4 in-register transposes of compiled code (the path without
AVX2 and for smaller targets), to measure them side by side. Every path copies the same bits.

--target ptx-sim runs the kernel's PTX (sm_80, as tessera build writes it) in Tessera's PTX
interpreter on the same inputs (same --input, --out and --verify semantics; --verify compares
with the reference interpreter bit for bit, the targets of a float += with a contraction within
1e-4), and prints, per entry, the shared-memory wavefronts per warp instruction it measured
beside the bank-conflict degrees the build proved. No GPU has to be present; scripts/gpu_check.sh
stays the check on a real one.

--target gpu (a build with `cargo build --features cuda`: the driver, libcuda, is loaded when
the run starts) runs the kernel's PTX on CUDA device 0: emitted for sm_90 on a device of compute
capability 9.0 or newer, else sm_80 (an older device is refused), each entry launched in order
with one CTA per tile, on the same inputs. The outputs are copied back and compared with the
JIT's (with --interpret, the reference interpreter's): bit for bit, except the targets of a
float += with a contraction, within 1e-4 of their magnitude (as for the CPU; relative to the value
against the JIT, which gives no magnitudes); verify=ok (...) says so. --bench then prints
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
    /// Threads, `-j/--jobs` (`None`: every core).
    pub threads: Option<usize>,
    /// Compare with the reference interpreter.
    pub verify: bool,
    /// Time the kernel and the references.
    pub bench: bool,
    /// Run the reference interpreter only (on the GPU: compare with it instead of the JIT).
    pub interpret: bool,
    /// Run the kernel's PTX on the GPU (`--target gpu`, the `cuda` feature).
    pub gpu: bool,
    /// Run the kernel's PTX in the PTX interpreter (`--target ptx-sim`).
    pub ptx_sim: bool,
    /// Read and write `.npy` files as the tensors' raw buffers (`--storage`) rather than as
    /// arrays by shape and strides.
    pub storage: bool,
    /// The most bytes the run's buffers may take (`--max-memory`; `None`: half the physical
    /// memory).
    pub max_memory: Option<u64>,
    /// Neither read nor write the preparation cache (`--no-cache`; see [`crate::prep_cache`]).
    pub no_cache: bool,
}

/// The default of `--max-memory`: half the physical memory (`/proc/meminfo`), or 4 GiB where
/// that cannot be read.
pub fn default_max_memory() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            let line = m.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib.saturating_mul(1024) / 2)
        })
        .unwrap_or(4 << 30)
}

/// Reads a byte count: digits with an optional suffix `K`, `M`, `G` or `T` (powers of 1024).
///
/// ```
/// use tessera::run::parse_bytes;
/// assert_eq!(parse_bytes("4G"), Ok(4 << 30));
/// assert!(parse_bytes("99999999999T").is_err());
/// ```
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (digits, shift) = match t.char_indices().last() {
        Some((i, 'K' | 'k')) => (&t[..i], 10),
        Some((i, 'M' | 'm')) => (&t[..i], 20),
        Some((i, 'G' | 'g')) => (&t[..i], 30),
        Some((i, 'T' | 't')) => (&t[..i], 40),
        _ => (t, 0),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1u64 << shift))
        .ok_or_else(|| format!("--max-memory: '{s}' is not a byte count (e.g. 4G, 512M, 1000000)"))
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

/// The variable that picks how the JIT converts f16 and bf16 ([`HalfPath`]), to measure the
/// ways side by side: `tiles` (the default), `software` (tiles converted in software, as on a
/// CPU without F16C) or `inline` (element by element in Cranelift code). Results are the same
/// bits on every way.
pub const HALF_PATH_ENV: &str = "TESSERA_HALF_PATH";

/// The variable that picks the GEMM's micro-kernel ([`GemmMicro`]), to measure the kernels
/// side by side: `auto` (the default: the widest the CPU runs), `avx512`, `avx2` or
/// `cranelift`. Results are the same bits on every choice.
pub const GEMM_MICRO_ENV: &str = "TESSERA_GEMM_MICRO";

/// The variable that picks how the JIT moves a transpose of 4-byte elements
/// ([`TransposePath`]), to measure the ways side by side: `auto` (the default: the AVX2 helper
/// with streaming stores for a result of 4 MiB or more where the CPU has AVX2), `stream` (the
/// helper at any size, streaming), `cached` (the helper, never streaming) or `registers`
/// (Cranelift's 4 x 4 transposes). Results are the same bits on every way.
pub const TRANSPOSE_PATH_ENV: &str = "TESSERA_TRANSPOSE_PATH";

/// The choice the environment variable `var` names among `choices` (its words, the first the
/// default), unset or empty meaning the first: the paths of `TESSERA_HALF_PATH`,
/// `TESSERA_TRANSPOSE_PATH` and `TESSERA_GEMM_MICRO`.
///
/// @pre `choices` is not empty. @post an error naming the variable and the accepted words for
/// any other text.
fn env_choice<T: Copy>(var: &str, choices: &[(&str, T)]) -> Result<T, String> {
    let got = std::env::var(var).unwrap_or_default();
    if got.is_empty() {
        return Ok(choices[0].1);
    }
    if let Some((_, c)) = choices.iter().find(|(w, _)| *w == got) {
        return Ok(*c);
    }
    let words: Vec<&str> = choices.iter().map(|(w, _)| *w).collect();
    let (last, rest) = words.split_last().expect("choices is not empty");
    Err(format!("{var}={got:?}: expected {} or {last}", rest.join(", ")))
}

/// The JIT's paths the environment names ([`HALF_PATH_ENV`], [`TRANSPOSE_PATH_ENV`],
/// [`GEMM_MICRO_ENV`]), each unset or empty for its default.
///
/// @pre none. @post an error naming the variable and its accepted words for any other text.
fn jit_options() -> Result<JitOptions, String> {
    use HalfPath as H;
    use TransposePath as T;
    let half = env_choice(
        HALF_PATH_ENV,
        &[
            ("tiles", H::Tiles),
            ("software", H::SoftwareTiles),
            ("inline", H::Inline),
        ],
    )?;
    let transpose = env_choice(
        TRANSPOSE_PATH_ENV,
        &[
            ("auto", T::Auto),
            ("stream", T::Stream),
            ("cached", T::Cached),
            ("registers", T::Registers),
        ],
    )?;
    let gemm_micro = env_choice(
        GEMM_MICRO_ENV,
        &[
            ("auto", GemmMicro::Auto),
            ("avx512", GemmMicro::Avx512),
            ("avx2", GemmMicro::Avx2),
            ("cranelift", GemmMicro::Cranelift),
        ],
    )?;
    Ok(JitOptions {
        half,
        transpose,
        gemm_micro,
        ..JitOptions::default()
    })
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

/// Seeded random values for a buffer (xorshift64*), or an error when the memory cannot be had.
fn random(elem: ElemType, len: usize, seed: u64) -> Result<Buffer, String> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let mut unit = || (next() >> 40) as f64 / (1u64 << 23) as f64 - 1.0;
    let mut b = Buffer::try_zeros(elem, len).map_err(|_| format!("cannot allocate {len} elements"))?;
    match &mut b {
        Buffer::F32(v) => v.iter_mut().for_each(|x| *x = unit() as f32),
        Buffer::F64(v) => v.iter_mut().for_each(|x| *x = unit()),
        Buffer::I32(v) => v.iter_mut().for_each(|x| *x = (unit() * 100.0).floor() as i32),
        Buffer::I64(v) => v.iter_mut().for_each(|x| *x = (unit() * 100.0).floor() as i64),
        Buffer::F16(v) => v.iter_mut().for_each(|x| *x = f16::from_f64(unit())),
        Buffer::BF16(v) => v.iter_mut().for_each(|x| *x = bf16::from_f64(unit())),
    }
    Ok(b)
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
    let bindings = match read_binds(a.binds, k) {
        Ok(b) => b,
        Err(e) => return bad(e),
    };
    if !(a.timeout.is_finite() && a.timeout > 0.0) {
        return bad("--timeout must be a positive duration");
    }
    let opts = Options {
        timeout_ms: Some((a.timeout * 1000.0).ceil() as u64),
    };
    // The preparation cache: the proof, the validated index code and the contiguity proofs.
    let cache = crate::prep_cache::PrepCache::from_env(a.no_cache);
    let memo: &dyn Memo = match &cache {
        Some(c) => c,
        None => &NoMemo,
    };
    let proof_start = std::time::Instant::now();
    let proved = match Proved::check_at_memo(k.clone(), &bindings, &opts, a.unchecked, memo) {
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
        let (n, f) = match pair(s, "--out") {
            Ok(p) => p,
            Err(e) => return bad(e),
        };
        match k.tensors.iter().position(|t| t.name == n) {
            Some(t) => outputs.push((t, f)),
            None => return bad(format_args!("--out {n}: kernel {} has no tensor {n}", k.name)),
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
    let mut forms = Vec::with_capacity(k.tensors.len());
    for t in &k.tensors {
        let len = match t.cosize.eval(&bindings) {
            Ok(c) => match usize::try_from(c) {
                Ok(c) => c,
                Err(_) => return bad(format_args!("tensor {}: buffer length {c} is negative", t.name)),
            },
            Err(e) => return bad(format_args!("tensor {}: cosize {}: {e}", t.name, t.cosize)),
        };
        match Strided::of(t, &bindings, len) {
            Ok(f) => forms.push(f),
            Err(e) => return bad(e),
        }
    }
    // The buffers (and, for --verify and --bench, their copies) within the memory limit.
    let copies: u64 = if a.verify || a.bench { 2 } else { 1 };
    let total = forms.iter().try_fold(0u64, |sum, f| {
        (f.len as u64)
            .checked_mul(f.elem.bytes() as u64)
            .and_then(|b| b.checked_mul(copies))
            .and_then(|b| sum.checked_add(b))
    });
    let limit = a.max_memory.unwrap_or_else(default_max_memory);
    match total {
        Some(t) if t <= limit => {}
        _ => {
            let sizes: Vec<String> = forms
                .iter()
                .map(|f| format!("{}: {} elements", f.name, f.len))
                .collect();
            return bad(format_args!(
                "kernel {}: its buffers need {} bytes{} ({}), over the limit of {limit} bytes (--max-memory)",
                k.name,
                total.map_or("more than 2^64".to_string(), |t| t.to_string()),
                if copies == 2 {
                    " with the copies --verify and --bench keep"
                } else {
                    ""
                },
                sizes.join(", ")
            ));
        }
    }
    let mut buffers = Vec::with_capacity(k.tensors.len());
    for (i, (t, form)) in k.tensors.iter().zip(&forms).enumerate() {
        let b = match inputs.get(t.name.as_str()) {
            Some(f) => match std::fs::read(f)
                .map_err(|e| e.to_string())
                .and_then(|x| npy::read(&x, form, a.storage))
            {
                Ok(b) => b,
                Err(e) => return bad(format_args!("--input {}={f}: {e}", t.name)),
            },
            None => match random(t.elem, form.len, a.seed.wrapping_add(i as u64)) {
                Ok(b) => b,
                Err(e) => return bad(format_args!("tensor {}: {e}", t.name)),
            },
        };
        buffers.push(b);
    }
    let threads = a
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads == 0 {
        return bad("-j/--jobs must be at least 1");
    }
    let mut failure = None;
    let engine = if let Some(gpu) = &gpu {
        match on_gpu(gpu, a, &proved, &bindings, &buffers, (threads, proof_time)) {
            Ok((b, engine)) => {
                buffers = b;
                engine
            }
            Err(code) => return code,
        }
    } else if a.ptx_sim {
        match ptx_sim(a, &proved, &bindings, &mut buffers) {
            Ok(Some(e)) => failure = Some(e),
            Ok(None) => {}
            Err(code) => return code,
        }
        "its PTX (sm_80) in the PTX interpreter".to_string()
    } else if a.interpret {
        if let Err(e) = run(&proved, &bindings, &mut buffers) {
            return bad(format_args!("kernel {}: {e}", k.name));
        }
        "the reference interpreter".to_string()
    } else {
        let compile_start = std::time::Instant::now();
        let opts = match jit_options() {
            Ok(o) => o,
            Err(e) => return bad(e),
        };
        let jit = match CompiledKernel::compile_memo(&proved, &bindings, &opts, memo) {
            Ok(j) => j,
            Err(e) => return bad(format_args!("kernel {}: {e}", k.name)),
        };
        // Preparation: the proof and the compilation (lowering, egg, validation, contiguity
        // proofs, Cranelift), without reading or making the buffers.
        let prep_time = proof_time + compile_start.elapsed();
        // The copies a check or a benchmark needs, backed like the buffers (`try_copy`).
        let reference = if a.verify || a.bench {
            let copies = buffers
                .iter()
                .map(Buffer::try_copy)
                .collect::<Result<Vec<_>, _>>();
            let Ok(r) = copies else {
                return bad(format_args!(
                    "kernel {}: cannot allocate its buffers' copies",
                    k.name
                ));
            };
            Some(r)
        } else {
            None
        };
        if let Err(e) = jit.run(&mut buffers, threads) {
            return bad(format_args!("kernel {}: {e}", k.name));
        }
        if a.verify {
            let mut want = reference.clone().unwrap_or_default();
            let mags = match run_with_magnitudes(&proved, &bindings, &mut want) {
                Ok(m) => m,
                Err(e) => return bad(format_args!("kernel {} (reference interpreter): {e}", k.name)),
            };
            match kernel_bench::compare(k, &want, Some(&mags), &buffers, jit.bit_exact()) {
                Ok(how) => println!("verify=ok ({how})"),
                Err(e) => failure = Some(format!("kernel {}: --verify: {e}", k.name)),
            }
        }
        if a.bench && failure.is_none() {
            let mut scratch = reference.unwrap_or_default();
            kernel_bench::report(k, &jit, &mut scratch, threads, &bindings, proof_time);
            println!("prep_ms={:.3}", prep_time.as_secs_f64() * 1e3);
            match &cache {
                Some(c) => {
                    let s = c.stats();
                    println!("cache_hits={}", s.hits);
                    println!("cache_misses={}", s.misses);
                    println!("cache_rejected={}", s.rejected);
                    println!("cache_writes={}", s.writes);
                }
                None => println!("cache=off"),
            }
        }
        let paths: Vec<String> = jit.paths().iter().map(|p| p.to_string()).collect();
        // An unchecked kernel runs on one thread, in the interpreter's order.
        let used = if proved.unchecked().is_some() { 1 } else { threads };
        format!("the JIT on {used} thread(s): {}", paths.join("; "))
    };
    // The outputs asked for are written even when --verify found a difference.
    for (t, f) in outputs {
        let form = &forms[t];
        let bytes = if a.storage {
            npy::write(&buffers[t], &[buffers[t].len() as i64], false)
        } else {
            form.gather(&buffers[t]).and_then(|colex| {
                let (shape, fortran) = form.output_shape();
                let data = if fortran || shape.iter().filter(|d| **d > 1).count() <= 1 {
                    colex
                } else {
                    npy::reorder(&colex, &shape, false)
                };
                npy::write(&data, &shape, fortran)
            })
        };
        let bytes = match bytes {
            Ok(b) => b,
            Err(e) => return bad(format_args!("--out {}: {e}", k.tensors[t].name)),
        };
        if let Err(e) = std::fs::write(f, bytes) {
            return bad(format_args!("--out {}={f}: {e}", k.tensors[t].name));
        }
    }
    if let Some(e) = failure {
        eprintln!("error: {e}");
        return exit::INTERNAL;
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

/// `--target ptx-sim`: runs the kernel's PTX in the interpreter on `buffers`, prints each
/// entry's measured shared-memory wavefronts beside the proved degrees, and with `--verify`
/// compares with the reference interpreter (bit for bit, the targets of a float `+=` with a
/// contraction within the tolerance: the staged GEMM fuses); the mismatch, if any, or the exit
/// code of an error.
fn ptx_sim(
    a: &RunArgs<'_>,
    proved: &Proved,
    bindings: &HashMap<String, i64>,
    buffers: &mut [Buffer],
) -> Result<Option<String>, i32> {
    let k = proved.kernel();
    let reference = a.verify.then(|| buffers.to_vec());
    let runs =
        match tessera_codegen::ptx_sim::run_kernel(proved, bindings, buffers, tessera_codegen::Arch::Sm80) {
            Ok(r) => r,
            Err(e) => return Err(bad(format_args!("kernel {}: --target ptx-sim: {e}", k.name))),
        };
    for r in &runs {
        let deg = |d: Option<i64>| d.map_or("not analysed".to_string(), |d| d.to_string());
        let proved_degrees: Vec<String> = r
            .entry
            .stages
            .iter()
            .map(|s| {
                format!(
                    "{}: stores {}, loads {}",
                    s.tensor,
                    deg(s.store_degree),
                    deg(s.load_degree)
                )
            })
            .collect();
        println!(
            "ptx-sim {}: shared-memory wavefronts per warp instruction measured: stores {}, loads {}; proved: {}",
            r.entry.name,
            r.stats.store_wavefronts,
            r.stats.load_wavefronts,
            if proved_degrees.is_empty() {
                "no stage".to_string()
            } else {
                proved_degrees.join("; ")
            }
        );
    }
    let Some(mut want) = reference else {
        return Ok(None);
    };
    let mags = match run_with_magnitudes(proved, bindings, &mut want) {
        Ok(m) => m,
        Err(e) => {
            return Err(bad(format_args!(
                "kernel {} (reference interpreter): {e}",
                k.name
            )));
        }
    };
    let loose = kernel_bench::reordered_sums(k);
    match kernel_bench::compare_runs(
        k,
        &want,
        Some(&mags),
        buffers,
        &loose,
        ["the reference interpreter", "the PTX interpreter"],
    ) {
        Ok(how) => {
            println!("verify=ok ({how})");
            Ok(None)
        }
        Err(e) => Ok(Some(format!("kernel {}: --verify: {e}", k.name))),
    }
}

/// Reads the `--bind` arguments for kernel `k`: each name a parameter of the kernel, bound
/// once, to an integer its facts admit (an error names the fact it violates).
fn read_binds(binds: &[String], k: &Kernel) -> Result<HashMap<String, i64>, String> {
    // The parameters the file declares (a kernel's tensors carry the file's facts).
    let mut names = params_of(k);
    let mut facts = HashMap::new();
    for t in &k.tensors {
        let f = tessera_verifier::facts(&Property::InBounds(t.layout.clone(), t.cosize.clone()));
        for n in f.names() {
            names.insert(n.to_string());
            if let Some(pf) = f.get(n) {
                facts.entry(n.to_string()).or_insert_with(|| pf.clone());
            }
        }
    }
    let mut bindings: HashMap<String, i64> = HashMap::new();
    for (n, v) in crate::bindings::parse(binds, crate::lang::builtins::is_reserved)? {
        let n = n.as_str();
        if !names.contains(n) {
            let list: Vec<&str> = names.iter().map(String::as_str).collect();
            return Err(format!(
                "--bind {n}: the file of kernel {} declares no parameter {n} (its parameters: {})",
                k.name,
                if list.is_empty() {
                    "none".to_string()
                } else {
                    list.join(", ")
                }
            ));
        }
        if let Some(f) = facts.get(n)
            && !f.admits(v)
        {
            return Err(format!(
                "--bind {n}={v} violates {} (the facts on {n}: {})",
                crate::lang::violated(n, f, v),
                crate::lang::facts_text(n, f)
            ));
        }
        bindings.insert(n.to_string(), v);
    }
    Ok(bindings)
}
