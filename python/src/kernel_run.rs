//! `run`: a kernel of the kernel language, proved, compiled and run over NumPy arrays.
//!
//! The arrays are copied: `tessera::jit::Kernel::run` takes owned buffers
//! (`tessera::codegen::kernel::Buffer`, a `Vec` per tensor), and pyo3's buffer protocol API is
//! not part of the abi3 (Python 3.9) build. An array is checked against its tensor's shape and
//! strides (`tessera::kernel::Strided`), its elements read with NumPy's `tobytes(order="F")`
//! (colexicographic order) and scattered to the layout's offsets; for the arrays the kernel
//! changed, the elements are gathered back and assigned by coordinate (`a[...] = ..`), so the
//! caller's array object, whatever its strides, is updated in place. With `storage=True` an
//! array is the raw buffer (`tobytes(order="A")`, written back through `reshape(-1,
//! order="A")`).

#[allow(unused_imports)]
use crate::*;
use std::collections::HashMap;
use tessera::codegen::kernel::{Buffer, ElemType};
use tessera::kernel::Strided;

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

/// One array argument: its buffer, its array's elements as read (Fortran order, or the raw
/// storage), to write back only what changed, and its shape.
struct Arg {
    buffer: Buffer,
    bytes: Vec<u8>,
    shape: Vec<i64>,
}

/// The dtype, shape and strides (in elements; `None` when a stride is no whole number of
/// elements) of array `name`.
fn describe(name: &str, a: &Bound<'_, PyAny>) -> PyResult<(ElemType, Vec<i64>, Option<Vec<i64>>)> {
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
    let shape: Vec<i64> = a.getattr("shape")?.extract()?;
    let strides: Vec<i64> = a.getattr("strides")?.extract()?;
    let item = elem.bytes() as i64;
    let strides = strides
        .iter()
        .map(|s| (s % item == 0).then_some(s / item))
        .collect::<Option<Vec<i64>>>();
    Ok((elem, shape, strides))
}

/// Reads array `name` for tensor `form`: by its shape and strides (see
/// `tessera::kernel::Strided`), or, with `storage`, as the tensor's raw buffer (a contiguous
/// array of exactly the buffer's length, read in its storage order).
fn read_array(form: &Strided, a: &Bound<'_, PyAny>, storage: bool) -> PyResult<Arg> {
    let name = &form.name;
    let bad_arg = |m: String| PyTypeError::new_err(format!("run(): tensor '{name}': {m}"));
    let (elem, shape, strides) = describe(name, a)?;
    if elem != form.elem {
        return Err(bad_arg(format!(
            "dtype {} where the tensor's element type {} needs {}",
            tessera::npy::dtype(elem),
            form.elem.name(),
            tessera::npy::dtype(form.elem)
        )));
    }
    if storage {
        let flags = a.getattr("flags")?;
        let contiguous =
            flags.getattr("c_contiguous")?.is_truthy()? || flags.getattr("f_contiguous")?.is_truthy()?;
        if !contiguous {
            return Err(bad_arg(
                "storage=True takes the raw buffer: a contiguous array (this one is a strided view)".into(),
            ));
        }
        let bytes: Vec<u8> = a.call_method1("tobytes", ("A",))?.extract()?;
        let buffer = Buffer::from_le_bytes(elem, &bytes);
        if buffer.len() != form.len {
            return Err(bad_arg(format!(
                "storage=True: {} elements where its buffer holds {}",
                buffer.len(),
                form.len
            )));
        }
        return Ok(Arg { buffer, bytes, shape });
    }
    form.accept(&shape, strides.as_deref())
        .map_err(|e| PyValueError::new_err(format!("run(): {e}")))?;
    // The elements in colexicographic order of their coordinates.
    let bytes: Vec<u8> = a.call_method1("tobytes", ("F",))?.extract()?;
    let buffer = form
        .scatter(&Buffer::from_le_bytes(elem, &bytes))
        .map_err(|e| PyValueError::new_err(format!("run(): {e}")))?;
    Ok(Arg { buffer, bytes, shape })
}

/// `run(file, kernel, bind=None, threads=None, storage=False, **arrays)`: proves kernel
/// `kernel` of the check file (for every value its facts admit, or else at the bindings),
/// compiles it for the bindings (`{"M": 64}`) and runs it over the NumPy arrays named after its
/// tensors. Each array is read by its shape and strides: a tensor `T : f32[L]` takes an array
/// of `L`'s shape (its top-level modes, or its leaves) whose strides in elements are `L`'s; any
/// other array raises `ValueError` with the expected shape and strides and the NumPy fix
/// (`np.asfortranarray(a)`, `a.T`, `a.reshape(..)`). With `storage=True` each array is the
/// tensor's raw buffer instead (contiguous, exactly its length, in storage order). The arrays
/// the kernel writes are updated in place. A refuted or unknown proof raises `LayoutError`
/// naming why, and nothing runs. The GIL is released while proving and running. The arrays
/// are copied in and out (see the module's documentation).
#[pyfunction]
#[pyo3(signature = (file, kernel, bind = None, threads = None, storage = false, **arrays))]
pub(crate) fn run(
    py: Python<'_>,
    file: std::path::PathBuf,
    kernel: &str,
    bind: Option<HashMap<String, i64>>,
    threads: Option<usize>,
    storage: bool,
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
    let forms = k.arrays().map_err(|e| bad(format!("{kernel}: {e}")))?;
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
    for (n, form) in names.iter().zip(&forms) {
        let a = arrays
            .get_item(n)?
            .ok_or_else(|| PyTypeError::new_err(format!("run(): missing the array of tensor '{n}'")))?;
        args.push(read_array(form, &a, storage)?);
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
    for (((a, arg), b), form) in objs.iter().zip(&args).zip(&buffers).zip(&forms) {
        let out = if storage {
            b.to_le_bytes()
        } else {
            form.gather(b)
                .map_err(|e| bad(format!("{kernel}: {e}")))?
                .to_le_bytes()
        };
        if out != arg.bytes {
            if !a.getattr("flags")?.getattr("writeable")?.is_truthy()? {
                return Err(PyValueError::new_err(
                    "run(): the kernel wrote a read-only array; no array was updated",
                ));
            }
            changed.push((a, out, &arg.shape));
        }
    }
    let np = py.import("numpy")?;
    for (a, out, shape) in changed {
        let dtype = a.getattr("dtype")?;
        let fresh = np.call_method1("frombuffer", (pyo3::types::PyBytes::new(py, &out), dtype))?;
        let kw = PyDict::new(py);
        if storage {
            // The raw buffer, in the array's storage order.
            kw.set_item("order", "A")?;
            let flat = a.call_method("reshape", (-1,), Some(&kw))?;
            flat.set_item(pyo3::types::PySlice::full(py), fresh)?;
        } else {
            // The elements in Fortran order, put back by coordinate (any strides).
            kw.set_item("order", "F")?;
            let shaped = fresh.call_method("reshape", (PyTuple::new(py, shape)?,), Some(&kw))?;
            a.set_item(py.Ellipsis(), shaped)?;
        }
    }
    Ok(())
}
