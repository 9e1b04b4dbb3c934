//! `run`: a kernel of the kernel language, proved, compiled and run over NumPy arrays.
//!
//! An array is checked against its tensor's shape and strides (`tessera::kernel::Strided`).
//! Where the array's memory *is* the tensor's buffer (the dtype the tensor's, the strides the
//! layout's, no offset, no negative stride, the last element at the buffer's end; writeable;
//! sharing no memory with another argument), the kernel runs on that memory: the buffer
//! protocol (`pyo3::buffer::PyBuffer`, abi3 from Python 3.11) lends it as cells
//! (`tessera::codegen::kernel::Cells`) over a one-dimensional view of the buffer's span
//! (`np.lib.stride_tricks.as_strided`, inside the array's own elements), and outputs land in
//! the caller's array with no copy. Such a run holds the GIL, so no other Python thread
//! touches the arrays meanwhile. Any other array is copied: its elements read with NumPy's
//! `tobytes(order="F")` (colexicographic order) and scattered to the layout's offsets, and
//! those the kernel changed gathered back and assigned by coordinate (`a[...] = ..`). With
//! `storage=True` an array is the raw buffer (borrowed when contiguous and writeable, else
//! `tobytes(order="A")`, written back through `reshape(-1, order="A")`).

#[allow(unused_imports)]
use crate::*;
use pyo3::buffer::PyBuffer;
use std::collections::HashMap;
use tessera::codegen::kernel::{Buffer, Cells, ElemType};
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

/// A NumPy array's memory lent to the kernel: the buffer protocol's export, held (the array
/// cannot be resized or freed) until the run ends.
enum Lent {
    F32(PyBuffer<f32>),
    F64(PyBuffer<f64>),
    I32(PyBuffer<i32>),
    I64(PyBuffer<i64>),
    /// f16 or bf16, as their bits.
    Bits(PyBuffer<u16>, ElemType),
}

/// The buffer's elements as cells; `None` when it is read-only or not contiguous.
fn cells_of<'a, T: pyo3::buffer::Element>(
    b: &'a PyBuffer<T>,
    _py: Python<'a>,
) -> Option<&'a [std::cell::Cell<T>]> {
    if b.readonly() {
        return None;
    }
    let p = b.as_slice_ptr()?;
    // SAFETY: `p` is the export's memory, valid while `b` lives (the export keeps the array
    // from being resized or freed), of `item_count` elements of `T` whose format, size and
    // alignment `PyBuffer::get` checked; it is writeable (not read-only). The slice borrows `b`
    // and the GIL token, which the caller holds through the whole run, so no Python code runs
    // on another thread meanwhile; `Cell` admits the kernel's writes through this shared
    // borrow.
    Some(unsafe { &*(p.as_ptr() as *const [std::cell::Cell<T>]) })
}

impl Lent {
    /// The lent memory as the kernel's buffer.
    fn cells<'a>(&'a self, py: Python<'a>) -> Option<Cells<'a>> {
        Some(match self {
            Lent::F32(b) => Cells::F32(cells_of(b, py)?),
            Lent::F64(b) => Cells::F64(cells_of(b, py)?),
            Lent::I32(b) => Cells::I32(cells_of(b, py)?),
            Lent::I64(b) => Cells::I64(cells_of(b, py)?),
            Lent::Bits(b, ElemType::F16) => Cells::F16(cells_of(b, py)?),
            Lent::Bits(b, _) => Cells::BF16(cells_of(b, py)?),
        })
    }
}

/// Whether array `a` (accepted for `form`, of `shape`) can lend its memory as the tensor's
/// buffer: its elements span exactly the buffer, its first element at position 0 (no
/// offset, no negative stride, the last element at the buffer's end; with `storage`, a
/// contiguous array of the buffer's length), and it is writeable.
fn lendable(form: &Strided, a: &Bound<'_, PyAny>, storage: bool, shape: &[i64]) -> PyResult<bool> {
    if form.len == 0 || shape.contains(&0) || !a.getattr("flags")?.getattr("writeable")?.is_truthy()? {
        return Ok(false);
    }
    if storage {
        // `read_array` checked contiguity and length.
        return Ok(true);
    }
    if form.offset != 0 || form.leaves.iter().any(|&(n, d)| n > 1 && d < 0) {
        return Ok(false);
    }
    let last = form
        .leaves
        .iter()
        .try_fold(0i64, |m, &(n, d)| m.checked_add((n - 1).max(0).checked_mul(d)?));
    Ok(last.and_then(|l| l.checked_add(1)) == i64::try_from(form.len).ok())
}

/// Lends array `a`'s memory as the buffer of `form`: a one-dimensional view of the buffer's
/// span (which [`lendable`] proved lies within the array's elements), exported through the
/// buffer protocol; `None` when the export refuses (a format the protocol does not match).
fn lend(py: Python<'_>, form: &Strided, a: &Bound<'_, PyAny>) -> PyResult<Option<Lent>> {
    let np = py.import("numpy")?;
    let kw = PyDict::new(py);
    kw.set_item("shape", (form.len,))?;
    kw.set_item("strides", (form.elem.bytes(),))?;
    let flat = np
        .getattr("lib")?
        .getattr("stride_tricks")?
        .call_method("as_strided", (a,), Some(&kw))?;
    Ok(match form.elem {
        ElemType::F32 => PyBuffer::get(&flat).ok().map(Lent::F32),
        ElemType::F64 => PyBuffer::get(&flat).ok().map(Lent::F64),
        ElemType::I32 => PyBuffer::get(&flat).ok().map(Lent::I32),
        ElemType::I64 => PyBuffer::get(&flat).ok().map(Lent::I64),
        e @ (ElemType::F16 | ElemType::BF16) => {
            let bits = flat.call_method1("view", (np.getattr("uint16")?,))?;
            PyBuffer::get(&bits).ok().map(|b| Lent::Bits(b, e))
        }
    })
}

/// Checks array `a` for tensor `form`: its dtype, and its shape and strides (see
/// `tessera::kernel::Strided`), or, with `storage`, that it is the tensor's raw buffer (a
/// contiguous array of exactly the buffer's length). Its shape.
fn check_array(form: &Strided, a: &Bound<'_, PyAny>, storage: bool) -> PyResult<Vec<i64>> {
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
        let n: usize = a.getattr("size")?.extract()?;
        if n != form.len {
            return Err(bad_arg(format!(
                "storage=True: {n} elements where its buffer holds {}",
                form.len
            )));
        }
        return Ok(shape);
    }
    form.accept(&shape, strides.as_deref())
        .map_err(|e| PyValueError::new_err(format!("run(): {e}")))?;
    Ok(shape)
}

/// Copies array `a` (checked by [`check_array`]) into a buffer for tensor `form`: its
/// elements scattered to the layout's offsets, or, with `storage`, its raw buffer in storage
/// order.
fn copy_in(form: &Strided, a: &Bound<'_, PyAny>, storage: bool, shape: Vec<i64>) -> PyResult<Arg> {
    if storage {
        let bytes: Vec<u8> = a.call_method1("tobytes", ("A",))?.extract()?;
        let buffer = Buffer::from_le_bytes(form.elem, &bytes);
        return Ok(Arg { buffer, bytes, shape });
    }
    // The elements in colexicographic order of their coordinates.
    let bytes: Vec<u8> = a.call_method1("tobytes", ("F",))?.extract()?;
    let buffer = form
        .scatter(&Buffer::from_le_bytes(form.elem, &bytes))
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
/// the kernel writes are updated in place: an array whose memory is the tensor's buffer is
/// run on without a copy (see the module's documentation), any other is copied in and out.
/// Returns, per tensor, `"view"` (run on the array's memory) or `"copy"`. A refuted or
/// unknown proof raises `LayoutError` naming why, and nothing runs. The GIL is released while
/// proving, and while running when every array is copied.
#[pyfunction]
#[pyo3(signature = (file, kernel, bind = None, threads = None, storage = false, **arrays))]
pub(crate) fn run<'py>(
    py: Python<'py>,
    file: std::path::PathBuf,
    kernel: &str,
    bind: Option<HashMap<String, i64>>,
    threads: Option<usize>,
    storage: bool,
    arrays: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
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
    let mut shapes = Vec::new();
    for (n, form) in names.iter().zip(&forms) {
        let a = arrays
            .get_item(n)?
            .ok_or_else(|| PyTypeError::new_err(format!("run(): missing the array of tensor '{n}'")))?;
        shapes.push(check_array(form, &a, storage)?);
        objs.push(a);
    }
    // Each array is lent when its memory is the buffer and it shares no memory with another
    // argument (the proofs hold for distinct buffers); the others are copied.
    let np = py.import("numpy")?;
    let mut lent: Vec<Option<Lent>> = Vec::new();
    let mut args: Vec<Option<Arg>> = Vec::new();
    for (i, ((a, form), shape)) in objs.iter().zip(&forms).zip(shapes).enumerate() {
        let mut alone = true;
        for (j, b) in objs.iter().enumerate() {
            if j != i && np.call_method1("may_share_memory", (a, b))?.is_truthy()? {
                alone = false;
            }
        }
        let l = if alone && lendable(form, a, storage, &shape)? {
            lend(py, form, a)?
        } else {
            None
        };
        match l {
            Some(l) => {
                lent.push(Some(l));
                args.push(None);
            }
            None => {
                lent.push(None);
                args.push(Some(copy_in(form, a, storage, shape)?));
            }
        }
    }
    let threads = threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let how = PyDict::new(py);
    for (n, l) in names.iter().zip(&lent) {
        how.set_item(n, if l.is_some() { "view" } else { "copy" })?;
    }
    let mut buffers: Vec<Option<Buffer>> = args
        .iter_mut()
        .map(|a| {
            a.as_mut()
                .map(|a| std::mem::replace(&mut a.buffer, Buffer::F32(Vec::new())))
        })
        .collect();
    let result = if lent.iter().all(Option::is_none) {
        // The compiled kernel is `Send`, not `Sync`: it moves into the detached closure.
        let mut owned: Vec<Buffer> = buffers.iter_mut().filter_map(Option::take).collect();
        let (r, owned) = py.detach(move || {
            let r = k.run_on(&mut owned, threads);
            (r, owned)
        });
        buffers = owned.into_iter().map(Some).collect();
        r
    } else {
        // Lent memory is borrowed under the GIL, held through the run.
        let mut cells = Vec::new();
        for (l, b) in lent.iter().zip(buffers.iter_mut()) {
            cells.push(match (l, b) {
                (Some(l), _) => l
                    .cells(py)
                    .ok_or_else(|| bad("internal: a lent array refused its memory"))?,
                (None, Some(b)) => Cells::of(b),
                (None, None) => return Err(bad("internal: a tensor with no buffer")),
            });
        }
        k.run_cells(&cells, threads)
    };
    result.map_err(|e| bad(format!("{kernel}: {e}")))?;
    // The copied arrays the kernel changed, each checked writeable before any is written.
    let mut changed = Vec::new();
    for (((a, arg), b), form) in objs.iter().zip(&args).zip(&buffers).zip(&forms) {
        let (Some(arg), Some(b)) = (arg, b) else { continue };
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
    Ok(how)
}
