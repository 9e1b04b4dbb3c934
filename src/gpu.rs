//! `tessera run --target gpu` (the `cuda` feature): a proved kernel's PTX run on a CUDA device.
//!
//! The kernel is emitted for the device (`sm_90` from compute capability 9.0, else `sm_80`;
//! below 8.0 it is refused), loaded by the driver's JIT, and its entries launched in order on
//! buffers copied from the run's inputs: one CTA per tile of the entry's tiled indices, `block`
//! threads each (see [`tessera_codegen::Entry`]). The outputs are copied back and compared with
//! the CPU's on the same inputs (the JIT's, or the reference interpreter's): bit for bit, except
//! the targets of a float `+=` with a contraction, within [`kernel_bench::TOLERANCE`].
//! `--bench` times the entries with CUDA events against a device-to-device copy of the same
//! bytes in the same run.
//!
//! The driver (`libcuda`) is loaded when a run starts, not linked: a machine without it gets
//! [`GpuError::NoDriver`].

// The driver API is C: loading a module, launching it and the raw copies are `unsafe` calls,
// each with its contract stated where it is made.
#![allow(unsafe_code)]

use crate::exit;
use crate::kernel_bench;
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, DriverError, result, sys};
use std::collections::HashMap;
use std::ffi::{CString, c_void};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tessera_codegen::kernel::{Buffer, Kernel, Proved, run_with_magnitudes};
use tessera_codegen::{Arch, CompiledKernel, JitOptions, PtxKernel, emit_kernel};

/// Why a kernel did not run on the GPU, or ran wrong.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No CUDA driver library could be loaded.
    #[error(
        "no CUDA driver: libcuda.so could not be loaded (install the NVIDIA driver, or put its \
         directory on LD_LIBRARY_PATH)"
    )]
    NoDriver,
    /// The driver has no device to offer.
    #[error("no CUDA device: {0}")]
    NoDevice(String),
    /// The device is older than the PTX's targets.
    #[error("{name} has compute capability {major}.{minor}; the PTX needs sm_80 (8.0) or newer")]
    TooOld {
        /// The device's name.
        name: String,
        /// Compute capability, major.
        major: i32,
        /// Compute capability, minor.
        minor: i32,
    },
    /// The kernel cannot be run as asked (the PTX backend refuses it, the grid is too large,
    /// the CPU reference does not compile).
    #[error("{0}")]
    Refused(String),
    /// A CUDA call failed.
    #[error("CUDA: {what}: {err}")]
    Cuda {
        /// What was being done.
        what: String,
        /// The driver's error (name and description).
        err: String,
    },
    /// The GPU's outputs differ from the CPU's.
    #[error("the GPU's result differs from the CPU's: {0}")]
    Mismatch(String),
}

impl GpuError {
    /// The exit code: 3 when the run cannot happen here (no driver, no device, a device older
    /// than sm_80, a kernel the PTX backend refuses); 4 when it went wrong (a CUDA error while
    /// loading or running the PTX, a result that differs from the CPU's).
    pub fn exit_code(&self) -> i32 {
        match self {
            GpuError::NoDriver | GpuError::NoDevice(_) | GpuError::TooOld { .. } | GpuError::Refused(_) => {
                exit::BAD_INPUT
            }
            GpuError::Cuda { .. } | GpuError::Mismatch(_) => exit::INTERNAL,
        }
    }
}

/// The error of a failed CUDA call while doing `what`.
fn cuda(what: impl Into<String>) -> impl FnOnce(DriverError) -> GpuError {
    move |e| GpuError::Cuda {
        what: what.into(),
        err: describe(e),
    }
}

/// A driver error as its name and, where the driver gives one, its description.
fn describe(e: DriverError) -> String {
    match e.error_string() {
        Ok(s) => format!("{:?} ({})", e.0, s.to_string_lossy()),
        Err(_) => format!("{:?}", e.0),
    }
}

/// A CUDA device, its primary context and its default stream.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    name: String,
    arch: Arch,
    capability: (i32, i32),
}

impl Gpu {
    /// Device 0: loads the driver, checks the device is `sm_80` or newer.
    pub fn open() -> Result<Gpu, GpuError> {
        // SAFETY: only tries to open the driver library by its usual names (dlopen).
        if !unsafe { sys::is_culib_present() } {
            return Err(GpuError::NoDriver);
        }
        let ctx = CudaContext::new(0).map_err(|e| GpuError::NoDevice(describe(e)))?;
        let name = ctx.name().map_err(cuda("the device's name"))?;
        let (major, minor) = ctx.compute_capability().map_err(cuda("the compute capability"))?;
        let arch = match major {
            m if m >= 9 => Arch::Sm90,
            8 => Arch::Sm80,
            _ => return Err(GpuError::TooOld { name, major, minor }),
        };
        let stream = ctx.default_stream();
        Ok(Gpu {
            ctx,
            stream,
            name,
            arch,
            capability: (major, minor),
        })
    }

    /// The PTX target the kernels are emitted for.
    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// The device, e.g. `NVIDIA H100 (compute capability 9.0, sm_90)`.
    pub fn describe(&self) -> String {
        format!(
            "{} (compute capability {}.{}, {})",
            self.name,
            self.capability.0,
            self.capability.1,
            self.arch.name()
        )
    }
}

/// A loaded PTX module and its entries' functions, in launch order.
struct Module {
    ctx: Arc<CudaContext>,
    module: sys::CUmodule,
    functions: Vec<sys::CUfunction>,
}

impl Module {
    /// Loads `ptx` through the driver's JIT (its error log goes into the error) and looks up
    /// every entry.
    fn load(gpu: &Gpu, ptx: &PtxKernel) -> Result<Module, GpuError> {
        gpu.ctx.bind_to_thread().map_err(cuda("binding the context"))?;
        let text =
            CString::new(ptx.text.as_str()).map_err(|e| GpuError::Refused(format!("PTX text: {e}")))?;
        let mut log = vec![0u8; 16 * 1024];
        let mut options = [
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ];
        let mut values: [*mut c_void; 2] = [log.as_mut_ptr().cast(), log.len() as *mut c_void];
        let mut module: sys::CUmodule = std::ptr::null_mut();
        // SAFETY: `text` is a NUL-terminated PTX string; the two options are the log buffer
        // (alive and `log.len()` bytes long for the call) and its size, passed by value as
        // the driver API asks.
        let r = unsafe {
            sys::cuModuleLoadDataEx(
                &mut module,
                text.as_ptr().cast(),
                options.len() as u32,
                options.as_mut_ptr(),
                values.as_mut_ptr(),
            )
        };
        if let Err(e) = r.result() {
            let end = log.iter().position(|b| *b == 0).unwrap_or(log.len());
            let log = String::from_utf8_lossy(&log[..end]).trim().replace('\n', "; ");
            return Err(GpuError::Cuda {
                what: "loading the PTX module".into(),
                err: if log.is_empty() {
                    describe(e)
                } else {
                    format!("{}: {log}", describe(e))
                },
            });
        }
        let mut m = Module {
            ctx: gpu.ctx.clone(),
            module,
            functions: Vec::new(),
        };
        for e in &ptx.entries {
            let name =
                CString::new(e.name.as_str()).map_err(|e| GpuError::Refused(format!("entry name: {e}")))?;
            // SAFETY: `m.module` was loaded above and is unloaded only when `m` drops.
            let f = unsafe { result::module::get_function(m.module, name) }
                .map_err(cuda(format!("finding entry {}", e.name)))?;
            m.functions.push(f);
        }
        Ok(m)
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_ok() {
            // SAFETY: the module was loaded by `Module::load` and is unloaded once, here; its
            // functions are not used after.
            let _ = unsafe { result::module::unload(self.module) };
        }
    }
}

/// One launch: an entry's function, grid, threads and arguments.
struct Launch {
    function: sys::CUfunction,
    grid: u32,
    block: u32,
    args: Vec<u64>,
}

/// The launches of every entry in order, over the tensors' device buffers.
fn launches(
    k: &Kernel,
    ptx: &PtxKernel,
    module: &Module,
    pointers: &[u64],
    bindings: &HashMap<String, i64>,
) -> Result<Vec<Launch>, GpuError> {
    let extent = |name: &str| -> Result<i64, GpuError> {
        let x = k
            .indices
            .iter()
            .find(|x| x.name == name)
            .ok_or_else(|| GpuError::Cuda {
                what: "building the arguments".into(),
                err: format!("the PTX names an index {name} the kernel does not have"),
            })?;
        x.extent
            .eval(bindings)
            .map_err(|e| GpuError::Refused(format!("index {name}: extent {}: {e}", x.extent)))
    };
    let mut out = Vec::new();
    for (e, &function) in ptx.entries.iter().zip(&module.functions) {
        let mut args = Vec::with_capacity(e.params.len());
        for (kind, n) in &e.params {
            args.push(match kind.as_str() {
                "t" => match k.tensors.iter().position(|t| &t.name == n) {
                    Some(t) => pointers[t],
                    None => {
                        return Err(GpuError::Cuda {
                            what: "building the arguments".into(),
                            err: format!("entry {} names a tensor {n} the kernel does not have", e.name),
                        });
                    }
                },
                // Signed 64-bit values, passed as their bits.
                "p" => match bindings.get(n) {
                    Some(v) => *v as u64,
                    None => return Err(GpuError::Refused(format!("parameter {n} is not bound"))),
                },
                _ => extent(n)? as u64,
            });
        }
        let mut grid: i64 = 1;
        for (x, t) in &e.tiles {
            grid = grid.saturating_mul((extent(x)?.max(0) + t - 1) / t);
        }
        if grid == 0 {
            continue; // an empty domain: nothing to launch
        }
        let grid = u32::try_from(grid)
            .ok()
            .filter(|g| *g <= i32::MAX as u32)
            .ok_or_else(|| {
                GpuError::Refused(format!(
                    "entry {}: a grid of {grid} CTAs is over 2^31 - 1",
                    e.name
                ))
            })?;
        let block = u32::try_from(e.block)
            .map_err(|_| GpuError::Refused(format!("entry {}: block {}", e.name, e.block)))?;
        out.push(Launch {
            function,
            grid,
            block,
            args,
        });
    }
    Ok(out)
}

impl Gpu {
    /// Queues the launches on the stream.
    fn launch(&self, launches: &mut [Launch]) -> Result<(), GpuError> {
        for l in launches {
            let mut params: Vec<*mut c_void> = l.args.iter_mut().map(|a| (a as *mut u64).cast()).collect();
            // SAFETY: the function belongs to a module loaded in this context and still
            // loaded; every parameter of its entry is 8 bytes (.u64 or .s64) and `params`
            // points at one 8-byte value per parameter, alive for the call (the driver copies
            // them); the tensors' pointers are device buffers of their cosize.
            unsafe {
                result::launch_kernel(
                    l.function,
                    (l.grid, 1, 1),
                    (l.block, 1, 1),
                    0,
                    self.stream.cu_stream(),
                    &mut params,
                )
            }
            .map_err(cuda("launching the kernel"))?;
        }
        Ok(())
    }

    /// Waits for the stream.
    fn sync(&self, what: &str) -> Result<(), GpuError> {
        self.stream.synchronize().map_err(cuda(what))
    }

    /// A device buffer holding `bytes` (at least one byte long: CUDA has no empty allocation).
    fn upload(&self, bytes: &[u8]) -> Result<CudaSlice<u8>, GpuError> {
        let mut d = self
            .stream
            .alloc_zeros::<u8>(bytes.len().max(1))
            .map_err(cuda(format!("allocating {} bytes", bytes.len())))?;
        if !bytes.is_empty() {
            self.stream
                .memcpy_htod(bytes, &mut d)
                .map_err(cuda("copying an input to the device"))?;
        }
        Ok(d)
    }

    /// The first `len` bytes of a device buffer.
    fn download(&self, d: &CudaSlice<u8>, len: usize) -> Result<Vec<u8>, GpuError> {
        let mut host = vec![0u8; len];
        if len > 0 {
            self.stream
                .memcpy_dtoh(&d.slice(..len), &mut host[..])
                .map_err(cuda("copying an output back"))?;
        }
        self.sync("copying the outputs back")?;
        Ok(host)
    }

    /// The median time of `f`'s work on the stream, by CUDA events, after one warm-up run
    /// (at least 5 runs, at most 100, about half a second).
    fn time(&self, mut f: impl FnMut() -> Result<(), GpuError>) -> Result<Duration, GpuError> {
        f()?;
        self.sync("the warm-up run")?;
        let event = || {
            self.ctx
                .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(cuda("creating an event"))
        };
        let (start, end) = (event()?, event()?);
        let mut times = Vec::new();
        let wall = Instant::now();
        while times.len() < 5 || (times.len() < 100 && wall.elapsed() < Duration::from_millis(500)) {
            start.record(&self.stream).map_err(cuda("recording an event"))?;
            f()?;
            end.record(&self.stream).map_err(cuda("recording an event"))?;
            let ms = start.elapsed_ms(&end).map_err(cuda("timing the run"))?;
            times.push(f64::from(ms));
        }
        times.sort_by(f64::total_cmp);
        Ok(Duration::from_secs_f64(times[times.len() / 2] / 1e3))
    }
}

/// How a GPU run is checked and timed.
pub struct GpuRun {
    /// Threads of the CPU reference (the JIT).
    pub threads: usize,
    /// Compare with the reference interpreter instead of the JIT.
    pub interpret: bool,
    /// Time the kernel and a same-run device-to-device copy; print key=value lines.
    pub bench: bool,
    /// How long the proof took (reported by `--bench`).
    pub proof: Duration,
}

/// Runs `p` on the GPU from the buffers `start` (one per tensor, each its cosize at
/// `bindings`), compares the outputs with the CPU's on the same inputs (printing `verify=ok
/// (...)`), and with `how.bench` prints the figures; returns the GPU's buffers.
pub fn run_kernel(
    gpu: &Gpu,
    p: &Proved,
    bindings: &HashMap<String, i64>,
    start: &[Buffer],
    how: &GpuRun,
) -> Result<Vec<Buffer>, GpuError> {
    let k = p.kernel();
    let emit_start = Instant::now();
    let ptx =
        emit_kernel(k, gpu.arch).map_err(|e| GpuError::Refused(format!("kernel {}: PTX: {e}", k.name)))?;
    let emit_time = emit_start.elapsed();
    let load_start = Instant::now();
    let module = Module::load(gpu, &ptx)?;
    let load_time = load_start.elapsed();
    let bytes: Vec<Vec<u8>> = start.iter().map(Buffer::to_le_bytes).collect();
    let device: Vec<CudaSlice<u8>> = bytes.iter().map(|b| gpu.upload(b)).collect::<Result<_, _>>()?;
    let pointers: Vec<u64> = device.iter().map(|d| d.device_ptr(&gpu.stream).0).collect();
    let mut runs = launches(k, &ptx, &module, &pointers, bindings)?;
    gpu.launch(&mut runs)?;
    gpu.sync("running the kernel")?;
    let got: Vec<Buffer> = device
        .iter()
        .zip(&bytes)
        .zip(&k.tensors)
        .map(|((d, b), t)| Ok(Buffer::from_le_bytes(t.elem, &gpu.download(d, b.len())?)))
        .collect::<Result<_, GpuError>>()?;
    let mut want = start.to_vec();
    let mut mags = None;
    let reference = if how.interpret {
        mags = Some(
            run_with_magnitudes(p, bindings, &mut want)
                .map_err(|e| GpuError::Refused(format!("kernel {} (reference interpreter): {e}", k.name)))?,
        );
        "the reference interpreter"
    } else {
        let jit = CompiledKernel::compile(p, bindings, &JitOptions::default())
            .map_err(|e| GpuError::Refused(format!("kernel {} (the CPU's JIT): {e}", k.name)))?;
        jit.run(&mut want, how.threads)
            .map_err(|e| GpuError::Refused(format!("kernel {} (the CPU's JIT): {e}", k.name)))?;
        "the JIT"
    };
    let loose = kernel_bench::reordered_sums(k);
    match kernel_bench::compare_runs(k, &want, mags.as_deref(), &got, &loose, [reference, "the GPU"]) {
        Ok(how) => println!("verify=ok ({how})"),
        Err(e) => return Err(GpuError::Mismatch(e)),
    }
    if how.bench {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!("kernel={}", k.name);
        println!("device={}", gpu.describe());
        println!("proof_ms={:.3}", ms(how.proof));
        println!("emit_ms={:.3}", ms(emit_time));
        println!("load_ms={:.3}", ms(load_time));
        let time = gpu.time(|| gpu.launch(&mut runs))?;
        let extents: Vec<i64> = k
            .indices
            .iter()
            .map(|x| x.extent.eval(bindings).unwrap_or(0))
            .collect();
        let (total, ops) = kernel_bench::traffic(k, start, &extents);
        let gbps = total / time.as_secs_f64() / 1e9;
        println!("gpu_time_us={:.3}", time.as_secs_f64() * 1e6);
        println!("bytes={total}");
        println!("gpu_gbps={gbps:.2}");
        let copy = memcpy_d2d(gpu, (total / 2.0) as usize)?;
        let mgbps = total / copy.as_secs_f64() / 1e9;
        println!("memcpy_d2d_gbps={mgbps:.2}");
        println!("ratio_memcpy={:.3}", gbps / mgbps);
        if ops > 0.0 {
            println!("gpu_gflops={:.3}", ops / time.as_secs_f64() / 1e9);
        }
    }
    drop(module);
    Ok(got)
}

/// The median time of a device-to-device copy of `bytes` bytes (each byte read once and
/// written once) between two fresh buffers.
fn memcpy_d2d(gpu: &Gpu, bytes: usize) -> Result<Duration, GpuError> {
    let n = bytes.max(1);
    let alloc = || {
        gpu.stream
            .alloc_zeros::<u8>(n)
            .map_err(cuda(format!("allocating {n} bytes for the copy")))
    };
    let (src, dst) = (alloc()?, alloc()?);
    let (s, d) = (src.device_ptr(&gpu.stream).0, dst.device_ptr(&gpu.stream).0);
    gpu.time(|| {
        // SAFETY: `s` and `d` are distinct device buffers of `n` bytes each, alive (`src`,
        // `dst`) until the timing has synchronized.
        unsafe { result::memcpy_dtod_async(d, s, n, gpu.stream.cu_stream()) }
            .map_err(cuda("the device-to-device copy"))
    })
}
