//! `run`: a kernel of the kernel language, proved, compiled and run over NumPy arrays.
//!
//! The arrays are copied: `tessera::jit::Kernel::run` takes owned buffers
//! (`tessera::codegen::kernel::Buffer`, a `Vec` per tensor), and pyo3's buffer protocol API is
//! not part of the abi3 (Python 3.9) build. Each array's memory is read with NumPy's
//! `tobytes(order="A")` (its storage order) and written back, for the arrays the kernel
//! changed, through a flat view of the array (`reshape(-1, order="A")`), so the caller's array
//! object is updated in place.

#[allow(unused_imports)]
use crate::*;
use std::collections::HashMap;
use tessera::codegen::kernel::{Buffer, ElemType};

/// The element type of a NumPy dtype (`dtype.str`, little-endian): float32, float64, int32,
/// int64, float16, and uint16 holding bfloat16 bits.
fn elem_of(dtype: &str) -> Option<ElemType> {
    Some(match dtype {
        "<f4" => ElemType::F32,
        "<f8" => ElemType::F64,
        "<i4" => ElemType::I32,
        "<i8" => ElemType::I64,
        "<f2" => ElemType::F16,
        "<u2" => ElemType::BF16,
        _ => return None,
    })
}

/// One array argument: its buffer, and its bytes as read (to write back only what changed).
struct Arg {
    buffer: Buffer,
    bytes: Vec<u8>,
}

/// Reads array `name`: a contiguous NumPy array (C or Fortran order) of a supported dtype.
fn read_array(name: &str, a: &Bound<'_, PyAny>) -> PyResult<Arg> {
    let bad_arg = |m: String| PyTypeError::new_err(format!("run(): tensor '{name}': {m}"));
    let dtype: String = a
        .getattr("dtype")
        .and_then(|d| d.getattr("str"))
        .and_then(|s| s.extract())
        .map_err(|_| bad_arg("not a NumPy array".into()))?;
    let elem = elem_of(&dtype).ok_or_else(|| {
        bad_arg(format!(
            "dtype {dtype} is not float32, float64, int32, int64, float16 or uint16 (bfloat16 bits), little-endian"
        ))
    })?;
    let flags = a.getattr("flags")?;
    let contiguous =
        flags.getattr("c_contiguous")?.is_truthy()? || flags.getattr("f_contiguous")?.is_truthy()?;
    if !contiguous {
        return Err(bad_arg(
            "the array is not contiguous (pass numpy.ascontiguousarray(a))".into(),
        ));
    }
    let bytes: Vec<u8> = a.call_method1("tobytes", ("A",))?.extract()?;
    Ok(Arg {
        buffer: Buffer::from_le_bytes(elem, &bytes),
        bytes,
    })
}

/// `run(file, kernel, bind=None, threads=None, **arrays)`: proves kernel `kernel` of the check
/// file (for every value its facts admit, or else at the bindings), compiles it for the
/// bindings (`{"M": 64}`) and runs it over the NumPy arrays named after its tensors, each
/// holding the tensor's memory (exactly its cosize elements, C or Fortran contiguous). The
/// arrays the kernel writes are updated in place. A refuted or unknown proof raises
/// `LayoutError` naming why, and nothing runs. The GIL is released while proving and running.
/// The arrays are copied in and out (see the module's documentation).
#[pyfunction]
#[pyo3(signature = (file, kernel, bind = None, threads = None, **arrays))]
pub(crate) fn run(
    py: Python<'_>,
    file: std::path::PathBuf,
    kernel: &str,
    bind: Option<HashMap<String, i64>>,
    threads: Option<usize>,
    arrays: Option<&Bound<'_, PyDict>>,
) -> PyResult<()> {
    let path = file.to_string_lossy().to_string();
    let src = std::fs::read_to_string(&file)
        .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("{path}: {e}")))?;
    let module = tessera::check::load(&path, &src).map_err(|e| bad(e.to_string()))?;
    let bindings = bind.unwrap_or_default();
    let k = py
        .detach(|| tessera::jit::Kernel::compile(&module, kernel, &bindings))
        .map_err(|e| bad(format!("{kernel}: {e}")))?;
    let names: Vec<String> = k.tensors().iter().map(|s| s.to_string()).collect();
    let empty = PyDict::new(py);
    let arrays = arrays.unwrap_or(&empty);
    for key in arrays.keys() {
        let key: String = key.extract()?;
        if !names.contains(&key) {
            return Err(PyTypeError::new_err(format!(
                "run(): kernel '{kernel}' has no tensor '{key}' (its tensors: {})",
                names.join(", ")
            )));
        }
    }
    let mut objs = Vec::new();
    let mut args = Vec::new();
    for n in &names {
        let a = arrays
            .get_item(n)?
            .ok_or_else(|| PyTypeError::new_err(format!("run(): missing the array of tensor '{n}'")))?;
        args.push(read_array(n, &a)?);
        objs.push(a);
    }
    let mut buffers: Vec<Buffer> = args
        .iter_mut()
        .map(|a| std::mem::replace(&mut a.buffer, Buffer::F32(Vec::new())))
        .collect();
    let threads = threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    // The compiled kernel is `Send`, not `Sync`: it moves into the detached closure.
    let (result, buffers) = py.detach(move || {
        let r = k.run_on(&mut buffers, threads);
        (r, buffers)
    });
    result.map_err(|e| bad(format!("{kernel}: {e}")))?;
    // The arrays the kernel changed, each checked writeable before any is written.
    let mut changed = Vec::new();
    for ((a, arg), b) in objs.iter().zip(&args).zip(&buffers) {
        let out = b.to_le_bytes();
        if out != arg.bytes {
            if !a.getattr("flags")?.getattr("writeable")?.is_truthy()? {
                return Err(PyValueError::new_err(
                    "run(): the kernel wrote a read-only array; no array was updated",
                ));
            }
            changed.push((a, out));
        }
    }
    let np = py.import("numpy")?;
    for (a, out) in changed {
        let dtype = a.getattr("dtype")?;
        let fresh = np.call_method1("frombuffer", (pyo3::types::PyBytes::new(py, &out), dtype))?;
        let kw = PyDict::new(py);
        kw.set_item("order", "A")?;
        let flat = a.call_method("reshape", (-1,), Some(&kw))?;
        flat.set_item(pyo3::types::PySlice::full(py), fresh)?;
    }
    Ok(())
}
