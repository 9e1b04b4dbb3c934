//! `tessera`, the Python module: Tessera's layout algebra under PyCuTe's names.
//!
//! The module holds no algebra of its own. Layouts, swizzles and composed layouts wrap
//! `tessera-ir`'s types, and every function (`composition`, `logical_divide`, `idx2crd`, ...)
//! converts its Python arguments to values of Tessera's expression language and calls the
//! built-in of the same name through `tessera::lang::call`, the dispatch of `tessera eval`:
//! the same results and the same error messages as the command line. Errors are raised as
//! `tessera.LayoutError`, a `ValueError`.

use pyo3::create_exception;
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyString, PyTuple};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use tessera::ir::algebra::{self as alg, Tiler};
use tessera::ir::{self, HTuple, Stride};
use tessera::lang::{self, Value};

create_exception!(
    tessera,
    LayoutError,
    PyValueError,
    "An error of Tessera's layout algebra or text format: a failed pre-condition, an overflow, \
     a malformed layout. A ValueError, with Tessera's message."
);

/// The Python exception of a Tessera error.
fn err(e: ir::Error) -> PyErr {
    LayoutError::new_err(e.to_string())
}

/// A `LayoutError` with a message.
fn bad(msg: impl Into<String>) -> PyErr {
    LayoutError::new_err(msg.into())
}

/// The value of a Python argument: `int`, `None` (`_`), a tuple or list, a `Layout`,
/// `Swizzle` or `ComposedLayout`, a `bool`, a `str` in Tessera's text format, or any object
/// whose `str()` is (a PyCuTe `Layout`, say).
fn to_value(obj: &Bound<'_, PyAny>) -> PyResult<Value<i64>> {
    if let Ok(l) = obj.cast::<Layout>() {
        return Ok(Value::Layout(l.get().inner.clone()));
    }
    if obj.is_instance_of::<PyBool>() {
        return Ok(Value::Bool(obj.extract::<bool>()?));
    }
    if obj.is_instance_of::<PyInt>() {
        return int_of(obj).map(Value::Int);
    }
    if obj.is_none() {
        return Ok(Value::Keep);
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return t
            .iter()
            .map(|x| to_value(&x))
            .collect::<PyResult<_>>()
            .map(Value::Tuple);
    }
    if let Ok(t) = obj.cast::<PyList>() {
        return t
            .iter()
            .map(|x| to_value(&x))
            .collect::<PyResult<_>>()
            .map(Value::Tuple);
    }
    if let Ok(c) = obj.cast::<ComposedLayout>() {
        return Ok(Value::Composed(c.get().inner.clone()));
    }
    if let Ok(s) = obj.cast::<Swizzle>() {
        return Ok(Value::Swizzle(s.get().inner));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return lang::parse_value(&s.to_cow()?).map_err(err);
    }
    // An integer of another type (NumPy's): `__index__`.
    if obj.hasattr("__index__")? {
        return int_of(obj).map(Value::Int);
    }
    let text = obj.str()?;
    lang::parse_value(&text.to_cow()?).map_err(|e| {
        bad(format!(
            "cannot read a {} as a layout, int tuple or swizzle: {e}",
            obj.get_type().name().map(|n| n.to_string()).unwrap_or_default()
        ))
    })
}

/// A Python integer as an `i64`, or a `LayoutError` when it does not fit.
fn int_of(obj: &Bound<'_, PyAny>) -> PyResult<i64> {
    obj.extract::<i64>().map_err(|_| {
        let shown = obj.str().map(|s| s.to_string()).unwrap_or_default();
        bad(format!("integer {shown} does not fit in 64 bits"))
    })
}

/// The Python object of a value: `int`, tuple, `Layout`, `ComposedLayout`, `Swizzle`, `bool`,
/// `None` for `_`, and the text (`"1@0"`) of a coordinate or `F2` stride.
fn to_py(py: Python<'_>, v: Value<i64>) -> PyResult<Py<PyAny>> {
    Ok(match v {
        Value::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
        Value::Tuple(vs) => {
            let items = vs
                .into_iter()
                .map(|v| to_py(py, v))
                .collect::<PyResult<Vec<_>>>()?;
            PyTuple::new(py, items)?.into_any().unbind()
        }
        Value::Layout(l) => Py::new(py, Layout { inner: l })?.into_any(),
        Value::Composed(c) => Py::new(py, ComposedLayout { inner: c })?.into_any(),
        Value::Swizzle(s) => Py::new(py, Swizzle { inner: s })?.into_any(),
        Value::Bool(b) => PyBool::new(py, b).to_owned().into_any().unbind(),
        Value::Keep => py.None(),
        Value::Stride(s) => stride_to_py(py, &s)?,
    })
}

/// A stride leaf: an `int`, or the text of a coordinate or `F2` stride.
fn stride_to_py(py: Python<'_>, s: &Stride<i64>) -> PyResult<Py<PyAny>> {
    Ok(match s {
        Stride::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
        s => PyString::new(py, &s.to_string()).into_any().unbind(),
    })
}

/// A hierarchical tuple as nested Python tuples, its leaves converted by `leaf`.
fn htuple_to_py<T: Clone>(
    py: Python<'_>,
    t: &HTuple<T>,
    leaf: &dyn Fn(Python<'_>, &T) -> PyResult<Py<PyAny>>,
) -> PyResult<Py<PyAny>> {
    if let Some(v) = t.as_leaf() {
        return leaf(py, v);
    }
    let items = t
        .modes()
        .iter()
        .map(|m| htuple_to_py(py, m, leaf))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(PyTuple::new(py, items)?.into_any().unbind())
}

/// An `int` leaf.
fn int_to_py(py: Python<'_>, v: &i64) -> PyResult<Py<PyAny>> {
    Ok(v.into_pyobject(py)?.into_any().unbind())
}

/// The value of a point reached by a layout: an offset, or a coordinate or `F2` value.
fn point_to_py(py: Python<'_>, s: Stride<i64>) -> PyResult<Py<PyAny>> {
    to_py(py, Value::from_codomain(s))
}

/// The coordinate of a call `L(a, b, ...)`: one argument is an index or a coordinate, several
/// are the coordinate's modes.
fn coord_of(args: &Bound<'_, PyTuple>) -> PyResult<Value<i64>> {
    match args.len() {
        0 => Err(PyTypeError::new_err("a layout takes an index or a coordinate")),
        1 => to_value(&args.get_item(0)?),
        _ => args
            .iter()
            .map(|x| to_value(&x))
            .collect::<PyResult<_>>()
            .map(Value::Tuple),
    }
}

/// A hash of a hashable Rust value, for `__hash__`.
fn hash_of(v: &impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    v.hash(&mut h);
    h.finish()
}

/// A layout `shape:stride`, a function from coordinates (or indices) to offsets.
///
/// `Layout(shape, stride=None)`: the shape and stride are ints or nested tuples of ints; no
/// stride is the compact column-major one. `Layout.parse("(8,64):(64,1)")` reads the text
/// format. `L(i)`, `L(coord)` and `L(c0, c1, ...)` evaluate; `L[i]` is mode `i`; `len(L)`
/// is the rank; `str(L)` is CuTe text.
#[pyclass(module = "tessera", frozen, name = "Layout")]
#[derive(Clone)]
pub struct Layout {
    inner: ir::Layout<i64>,
}

#[pymethods]
impl Layout {
    #[new]
    #[pyo3(signature = (shape, stride = None))]
    fn new(shape: &Bound<'_, PyAny>, stride: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let s = to_value(shape)?.to_shape().map_err(err)?;
        let inner = match stride {
            None => ir::Layout::compact(&s),
            Some(d) => ir::Layout::new(s, to_value(d)?.to_stride_tuple().map_err(err)?),
        }
        .map_err(err)?;
        Ok(Layout { inner })
    }

    /// Reads a layout in Tessera's text format (CuTe's: `(8,64):(64,1)`; a bare shape is the
    /// compact layout) from a string or any object whose `str()` is such text.
    #[staticmethod]
    fn parse(text: &Bound<'_, PyAny>) -> PyResult<Self> {
        if let Ok(l) = text.cast::<Layout>() {
            return Ok(l.get().clone());
        }
        let s = text.str()?;
        let inner = lang::parse_layout(&s.to_cow()?).map_err(err)?;
        Ok(Layout { inner })
    }

    /// The shape: an int or a nested tuple of ints.
    #[getter]
    fn shape(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        htuple_to_py(py, self.inner.shape(), &int_to_py)
    }

    /// The stride, congruent with the shape: ints (or the text of coordinate strides).
    #[getter]
    fn stride(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        htuple_to_py(py, self.inner.stride(), &stride_to_py)
    }

    /// The number of coordinates: the product of the shape.
    fn size(&self) -> PyResult<i64> {
        self.inner.size().map_err(err)
    }

    /// One past the largest offset (0 for no offsets).
    fn cosize(&self) -> PyResult<i64> {
        self.inner.cosize().map_err(err)
    }

    /// The number of top-level modes (1 for an int shape).
    fn rank(&self) -> usize {
        self.inner.rank()
    }

    /// The nesting depth of the shape (0 for an int shape).
    fn depth(&self) -> usize {
        self.inner.depth()
    }

    /// `L(i)`, `L(coord)` or `L(c0, c1, ...)`: the offset of an index or a coordinate.
    #[pyo3(signature = (*args))]
    fn __call__(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
        let p = match coord_of(args)? {
            Value::Int(i) => self.inner.eval_index(&i),
            c => self.inner.eval(&c.to_coord().map_err(err)?),
        }
        .map_err(err)?;
        point_to_py(py, p)
    }

    /// `L[i]`: mode `i` as a layout (negative `i` counts from the end).
    fn __getitem__(&self, i: isize) -> PyResult<Self> {
        let r = self.inner.rank() as isize;
        let k = if i < 0 { i + r } else { i };
        if k < 0 || k >= r {
            return Err(PyIndexError::new_err(format!("mode {i} of a rank-{r} layout")));
        }
        let m = self
            .inner
            .mode(k as usize)
            .ok_or_else(|| PyIndexError::new_err("no such mode"))?;
        Ok(Layout { inner: m })
    }

    fn __len__(&self) -> usize {
        self.inner.rank()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Layout>().is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __hash__(&self) -> u64 {
        hash_of(&self.inner)
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let shape = self.shape(py)?;
        let stride = self.stride(py)?;
        Ok(format!(
            "Layout({}, {})",
            shape.bind(py).repr()?,
            stride.bind(py).repr()?
        ))
    }
}

/// The XOR swizzle `Sw<bits, base, shift>`: `x ^ ((x & mask) >> shift)`, where `mask` has
/// `bits` ones above the `base + max(0, shift)` low bits.
#[pyclass(module = "tessera", frozen, name = "Swizzle")]
#[derive(Clone)]
pub struct Swizzle {
    inner: ir::Swizzle,
}

#[pymethods]
impl Swizzle {
    #[new]
    fn new(bits: i64, base: i64, shift: i64) -> PyResult<Self> {
        Ok(Swizzle {
            inner: ir::Swizzle::new(bits, base, shift).map_err(err)?,
        })
    }

    /// Number of bits XORed.
    #[getter]
    fn bits(&self) -> u32 {
        self.inner.bits
    }

    /// Number of low bits left untouched.
    #[getter]
    fn base(&self) -> u32 {
        self.inner.base
    }

    /// Distance between the source and the target bits (negative: to the left).
    #[getter]
    fn shift(&self) -> i32 {
        self.inner.shift
    }

    /// The swizzled offset of `x`.
    fn __call__(&self, x: i64) -> i64 {
        self.inner.apply(x)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Swizzle>().is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __hash__(&self) -> u64 {
        hash_of(&self.inner)
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "Swizzle({}, {}, {})",
            self.inner.bits, self.inner.base, self.inner.shift
        )
    }
}

/// `swizzle o (offset + layout)`: a layout, then an offset, then a swizzle (`None`: no
/// swizzle). `str()` is Tessera's text: `Sw<3,3,3> o (8,64):(64,1)`.
#[pyclass(module = "tessera", frozen, name = "ComposedLayout")]
#[derive(Clone)]
pub struct ComposedLayout {
    inner: ir::ComposedLayout<i64>,
}

#[pymethods]
impl ComposedLayout {
    #[new]
    #[pyo3(signature = (swizzle, offset, layout))]
    fn new(swizzle: Option<&Bound<'_, Swizzle>>, offset: i64, layout: &Bound<'_, PyAny>) -> PyResult<Self> {
        let l = to_value(layout)?.into_layout().map_err(err)?;
        let inner = match swizzle {
            Some(s) => ir::ComposedLayout::new(s.get().inner, offset, l),
            None => ir::ComposedLayout {
                swizzle: None,
                offset,
                inner: l,
            },
        };
        Ok(ComposedLayout { inner })
    }

    /// Reads a composed layout (`Sw<3,3,3> o (8,64):(64,1)`) from text, or from any object
    /// whose `str()` is such text.
    #[staticmethod]
    fn parse(text: &Bound<'_, PyAny>) -> PyResult<Self> {
        let s = text.str()?;
        match lang::parse_value(&s.to_cow()?).map_err(err)? {
            Value::Composed(c) => Ok(ComposedLayout { inner: c }),
            v => Err(bad(format!("'{v}' is a {}, not a composed layout", v.kind()))),
        }
    }

    /// The swizzle applied last, or `None`.
    #[getter]
    fn swizzle(&self) -> Option<Swizzle> {
        self.inner.swizzle.map(|s| Swizzle { inner: s })
    }

    /// The offset added to the layout's value.
    #[getter]
    fn offset(&self) -> i64 {
        self.inner.offset
    }

    /// The layout applied first.
    #[getter]
    fn layout(&self) -> Layout {
        Layout {
            inner: self.inner.inner.clone(),
        }
    }

    /// The shape of the layout.
    #[getter]
    fn shape(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        htuple_to_py(py, self.inner.inner.shape(), &int_to_py)
    }

    /// The number of coordinates.
    fn size(&self) -> PyResult<i64> {
        self.inner.inner.size().map_err(err)
    }

    /// `C(i)`, `C(coord)` or `C(c0, c1, ...)`: the swizzled offset.
    #[pyo3(signature = (*args))]
    fn __call__(&self, args: &Bound<'_, PyTuple>) -> PyResult<i64> {
        match coord_of(args)? {
            Value::Int(i) => self.inner.eval_index(&i),
            c => self.inner.eval(&c.to_coord().map_err(err)?),
        }
        .map_err(err)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<ComposedLayout>()
            .is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __hash__(&self) -> u64 {
        hash_of(&self.inner)
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        format!("ComposedLayout.parse({:?})", self.inner.to_string())
    }
}

/// The algebra function behind a tiler built-in of `tessera eval` (`composition(A, tiler)`,
/// the divides and the products): the function its registry entry applies to a plain layout
/// `A` (`src/lang/builtins/algebra.rs`).
type TilerFn = fn(&ir::Layout<i64>, &Tiler<i64>) -> ir::Result<ir::Layout<i64>>;

/// [`TilerFn`] of the built-in `name`, if it is a tiler built-in.
fn tiler_fn(name: &str) -> Option<TilerFn> {
    Some(match name {
        "composition" => alg::composition_tiler,
        "logical_divide" => alg::logical_divide,
        "zipped_divide" => alg::zipped_divide,
        "tiled_divide" => alg::tiled_divide,
        "flat_divide" => alg::flat_divide,
        "logical_product" => alg::logical_product,
        "zipped_product" => alg::zipped_product,
        "tiled_product" => alg::tiled_product,
        "flat_product" => alg::flat_product,
        _ => return None,
    })
}

/// The common call `op(A, B)` of a tiler built-in on two `Layout` objects, answered by the same
/// algebra function as the built-in, without building the expression language's values (the
/// layouts are borrowed, not copied). `None` for any other call, which takes the general path;
/// `tests/test_api.py` checks that both paths agree.
fn layout_tiler_call(py: Python<'_>, name: &str, args: &Bound<'_, PyTuple>) -> Option<PyResult<Py<PyAny>>> {
    let f = tiler_fn(name)?;
    if args.len() != 2 {
        return None;
    }
    let a = args.get_borrowed_item(0).ok()?;
    let b = args.get_borrowed_item(1).ok()?;
    let a = a.cast::<Layout>().ok()?;
    let b = b.cast::<Layout>().ok()?;
    let r = f(&a.get().inner, &Tiler::Layout(b.get().inner.clone()))
        .and_then(|l| Value::Layout(l).check_depth())
        .map_err(err);
    Some(r.and_then(|v| to_py(py, v)))
}

/// Calls Tessera's built-in `name` with the positional arguments, and keyword arguments named
/// in `kws` (each position's accepted names, `|`-separated) placed at their positions.
fn call_builtin(
    py: Python<'_>,
    name: &str,
    kws: &[&str],
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    if kwargs.is_none()
        && let Some(r) = layout_tiler_call(py, name, args)
    {
        return r;
    }
    let mut vals: Vec<Option<Value<i64>>> = args
        .iter()
        .map(|a| to_value(&a).map(Some))
        .collect::<PyResult<_>>()?;
    if let Some(kw) = kwargs {
        for (k, v) in kw.iter() {
            let k: String = k.extract()?;
            let Some(pos) = kws.iter().position(|n| n.split('|').any(|x| x == k)) else {
                return Err(PyTypeError::new_err(format!(
                    "{name}() got an unexpected keyword argument '{k}'"
                )));
            };
            if pos < args.len() {
                return Err(PyTypeError::new_err(format!(
                    "{name}() got multiple values for argument '{k}'"
                )));
            }
            if v.is_none() {
                continue;
            }
            if vals.len() <= pos {
                vals.resize(pos + 1, None);
            }
            vals[pos] = Some(to_value(&v)?);
        }
    }
    let vals = vals
        .into_iter()
        .enumerate()
        .map(|(k, v)| {
            v.ok_or_else(|| {
                let n = kws.get(k).copied().unwrap_or("?");
                PyTypeError::new_err(format!("{name}() is missing argument '{n}'"))
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    to_py(py, lang::call(name, vals).map_err(err)?)
}

/// Declares one Python function per built-in: `name (argument names) "text signature" "doc"`.
macro_rules! builtins {
    ($( $name:ident ( $($kw:literal),* ) $sig:literal $doc:literal ; )*) => {
        /// The module's functions of the layout algebra, one per built-in.
        mod fns {
            use super::*;
            $(
                #[doc = $doc]
                #[pyfunction]
                #[pyo3(signature = (*args, **kwargs), text_signature = $sig)]
                pub fn $name(
                    py: Python<'_>,
                    args: &Bound<'_, PyTuple>,
                    kwargs: Option<&Bound<'_, PyDict>>,
                ) -> PyResult<Py<PyAny>> {
                    call_builtin(py, stringify!($name), &[$($kw),*], args, kwargs)
                }
            )*
        }

        /// Adds every built-in's function to the module.
        fn add_builtins(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $( m.add_function(wrap_pyfunction!(fns::$name, m)?)?; )*
            Ok(())
        }
    };
}

builtins! {
    // The algebra.
    coalesce("A", "profile") "(A, profile=None)" "The simplest layout of the same function as A: R(i) == A(i), depth(R) <= 1. With a profile (a tuple), each mode is coalesced on its own.";
    coalesce_z("A", "profile") "(A, profile=None)" "coalesce, keeping a trailing size-1 mode, so that every integer (not only those below size(A)) maps alike.";
    filter("A") "(A)" "coalesce without stride-0 and size-1 modes.";
    composition("A", "B") "(A, B)" "A o B: R(i) == A(B(i)) for every i below size(B), compatible(B, R). B may be a tiler: a tuple of layouts, ints (n:1) or None (the whole mode).";
    complement("A", "cotarget|extend") "(A, cotarget=None)" "The ordered layout that fills A's holes: disjoint from A, extended to cover the cotarget (a shape or an int) when one is given. `extend=` is accepted as PyCuTe's name.";
    logical_divide("A", "tiler") "(A, tiler)" "A o (B, complement(B, size(A))): mode 0 is the tile B, mode 1 the layout of the tiles. The tiler is a layout, an int, or a tuple of them (None: the whole mode).";
    zipped_divide("A", "tiler") "(A, tiler)" "logical_divide with the tiles of every mode gathered: ((tile), (rest)).";
    tiled_divide("A", "tiler") "(A, tiler)" "logical_divide as ((tile), rest0, rest1, ...).";
    flat_divide("A", "tiler") "(A, tiler)" "logical_divide as (tile0, tile1, ..., rest0, rest1, ...).";
    logical_product("A", "tiler") "(A, tiler)" "(A, complement(A) o B): a copy of A at every position of B.";
    zipped_product("A", "tiler") "(A, tiler)" "logical_product gathered by mode: ((A modes), (grid modes)).";
    tiled_product("A", "tiler") "(A, tiler)" "logical_product as ((A), grid0, grid1, ...).";
    flat_product("A", "tiler") "(A, tiler)" "logical_product as (A0, A1, ..., grid0, grid1, ...).";
    blocked_product("A", "B") "(A, B)" "Rank-sensitive product, tile first: mode k is (A_k, grid_k); unequal ranks are padded with 1:0.";
    raked_product("A", "B") "(A, B)" "Rank-sensitive product, grid first: mode k is (grid_k, A_k); unequal ranks are padded with 1:0.";
    right_inverse("A") "(A)" "The largest R with A(R(k)) == k for every k below size(R).";
    left_inverse("A") "(A)" "R with R(A(i)) == i for every i below size(A); A must be injective.";
    nullspace("A") "(A)" "The layout of the indices that A sends to 0.";
    layout_add("A", "B") "(A, B)" "The layout of A(i) + B(i); A and B of equal size.";
    greatest_common_domain("A", "B") "(A, B)" "The largest layout both shapes can index (the common factorisation of their leaves).";
    max_common_vector("A", "B") "(A, B)" "How many leading indices A and B map alike and contiguously.";
    // Construction.
    make_layout() "(*layouts)" "The layout whose modes are the arguments (or the layouts of one list or tuple argument).";
    make_layout_like("A") "(A)" "A compact layout of A's shape, its modes ordered like A's strides.";
    make_ordered_layout("shape", "order") "(shape, order)" "A compact layout of the shape with its modes ordered by 'order'.";
    make_identity_layout("shape") "(shape)" "The layout of each coordinate to itself (coordinate strides, returned as text such as '1@0').";
    make_basis_like("shape") "(shape)" "The unit coordinate strides of a shape (as text such as '1@0').";
    tiler_to_layout("tiler") "(tiler)" "One layout equal to a by-mode tiler.";
    // Tuples and shapes.
    select() "(x, modes)" "Modes i, j, ... of x (a tuple of indices); with three arguments (L, dim, i), the view at index i of dimension dim.";
    take("x", "begin", "end") "(x, begin, end)" "Modes begin..end of x.";
    get() "(x, *path)" "The mode of x at the path i, j, ...";
    flatten("x") "(x)" "The leaves of x as one flat tuple (or layout).";
    wrap("x") "(x)" "x as a one-mode tuple (a tuple stays as it is).";
    unwrap("x") "(x)" "The single mode of a one-mode tuple, recursively.";
    size("x") "(x)" "The product of the extents of a shape or layout.";
    cosize("L") "(L)" "One past the largest offset of a layout.";
    rank("x") "(x)" "The number of top-level modes.";
    depth("x") "(x)" "The nesting depth.";
    shape("L") "(L)" "The shape of a layout.";
    stride("L") "(L)" "The stride of a layout.";
    coshape("L") "(L)" "The shape of the codomain of a layout.";
    coprofile("L") "(L)" "The profile of a layout's codomain (zeros).";
    product("t") "(t)" "The product of the leaves.";
    product_each("t") "(t)" "The product of each top-level mode.";
    prefix_product("t", "init") "(t, init=1)" "Exclusive prefix products of the leaves.";
    inner_product("a", "b") "(a, b)" "The sum of the products of the leaves.";
    idx2crd("idx", "shape", "stride") "(idx, shape, stride=None)" "The coordinate of an index in a shape (with a stride: (idx // stride) % shape).";
    crd2idx("crd", "shape", "stride") "(crd, shape, stride=None)" "The index of a coordinate in a shape (with a stride: the layout shape:stride at crd).";
    congruent("a", "b") "(a, b)" "Whether a and b have the same tree.";
    weakly_congruent("a", "b") "(a, b)" "Whether b refines a's tree.";
    compatible("a", "b") "(a, b)" "Whether every coordinate of shape a is one of shape b.";
    common_refinement("a", "b") "(a, b)" "The coarsest shape refining both.";
    common_coarsening("a", "b") "(a, b)" "The finest shape coarsening both.";
    repeat_like("x", "profile") "(x, profile)" "x at every leaf of the profile.";
    lift() "(x, *path)" "x placed at the path i, j, ... (zeros around it).";
    slice_("crd", "x") "(crd, x)" "The parts of x under None in crd.";
    dice_("crd", "x") "(crd, x)" "The parts of x under integers in crd.";
    unflatten("flat", "profile") "(flat, profile)" "The leaves of flat in the tree of profile.";
    is_tuple("x") "(x)" "Whether x is a tuple.";
    fdiv("a", "b") "(a, b)" "The floor quotient.";
    fmod("a", "b") "(a, b)" "The floor remainder.";
    // Views.
    tile_view("L", "offset", "shape") "(L, offset, shape=None)" "The view at an offset (integers select, None keeps a dimension), of a shape.";
    narrow("L", "dim", "start", "length") "(L, dim, start, length)" "Indices start..start+length of a dimension, as a view.";
    permute("L", "order") "(L, order)" "The dimensions reordered, as a view.";
    broadcast("L", "dims") "(L, dims)" "Stride-0 dimensions to the target dimensions (NumPy's rule), as a view.";
    diagonal("L", "dims") "(L, dims)" "The diagonal of paired dimensions, as a view.";
    local_tile("L", "tiler", "coord") "(L, tiler, coord)" "The tile at coord of zipped_divide(L, tiler), as a view.";
    local_partition("L", "threads", "index") "(L, threads, index)" "The elements one thread works on, as a view.";
}

/// `recast(L, scale)`: `L` for elements `scale` times larger; `scale` is an int or a
/// `fractions.Fraction` (`Fraction(1, 2)`: elements half as large).
#[pyfunction]
fn recast(py: Python<'_>, layout: &Bound<'_, PyAny>, scale: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let l = to_value(layout)?;
    if !scale.is_instance_of::<PyInt>() && scale.hasattr("denominator")? {
        let p = int_of(&scale.getattr("numerator")?)?;
        let q = int_of(&scale.getattr("denominator")?)?;
        return to_py(
            py,
            lang::parse_value(&format!("recast({l},{p}/{q})")).map_err(err)?,
        );
    }
    to_py(py, lang::call("recast", vec![l, to_value(scale)?]).map_err(err)?)
}

/// The text of a Python argument in Tessera's expression language.
fn text_of(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(to_value(obj)?.to_string())
}

/// A witness of a counterexample as a dict: `name`, `index`, `coord`, `value`.
fn witness_to_py<'py>(py: Python<'py>, w: &tessera::verifier::Witness) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", &w.name)?;
    d.set_item("index", w.index)?;
    d.set_item("coord", &w.coord)?;
    d.set_item("value", &w.value)?;
    Ok(d)
}

/// The answer of [`prove`]: the verdict, a counterexample when refuted, the time taken.
#[pyclass(module = "tessera", frozen, name = "Proof")]
pub struct Proof {
    /// `proved`, `refuted`, `unknown` or `internal error`.
    #[pyo3(get)]
    verdict: String,
    /// For a refutation: a dict with `summary` (one line), `params` (a dict of parameter
    /// values) and `witnesses` (a list of dicts: `name`, `index`, `coord`, `value`); else
    /// `None`.
    #[pyo3(get)]
    counterexample: Py<PyAny>,
    /// Why the answer is `unknown` or an internal error (`None` otherwise).
    #[pyo3(get)]
    reason: Option<String>,
    /// Seconds spent proving.
    #[pyo3(get)]
    time: f64,
    /// The assertion proved, as `tessera check` writes it.
    #[pyo3(get)]
    assertion: String,
}

#[pymethods]
impl Proof {
    /// `True` when the property is proved.
    fn __bool__(&self) -> bool {
        self.verdict == "proved"
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let detail = match (&self.reason, self.counterexample.is_none(py)) {
            (Some(r), _) => format!(": {r}"),
            (None, false) => format!(": {}", self.counterexample.bind(py).get_item("summary")?.str()?),
            _ => String::new(),
        };
        Ok(format!(
            "<Proof {}: {}{detail} ({:.3}s)>",
            self.assertion, self.verdict, self.time
        ))
    }
}

/// `prove(property, *args, timeout=60.0, **keywords)`: proves a property of layouts with
/// Tessera's prover (z3, the bank model, enumeration), as `tessera prove` does:
/// `prove("injective", L)`, `prove("equal", A, B)`, `prove("bank_conflict_free", S, T, elem=2,
/// access=16)`. The arguments are layouts, tuples or text; keywords are the property's
/// `NAME=VALUE` options. Returns a [`Proof`]; the GIL is released while proving. A malformed
/// question (an unknown property, a bad argument) raises `LayoutError`.
#[pyfunction]
#[pyo3(signature = (property, *args, timeout = 60.0, **keywords))]
fn prove(
    py: Python<'_>,
    property: &str,
    args: &Bound<'_, PyTuple>,
    timeout: f64,
    keywords: Option<&Bound<'_, PyDict>>,
) -> PyResult<Proof> {
    if !(timeout.is_finite() && timeout > 0.0 && timeout <= 1e9) {
        return Err(bad(format!(
            "timeout must be a positive number of seconds (at most 1e9), not {timeout}"
        )));
    }
    let mut parts = args.iter().map(|a| text_of(&a)).collect::<PyResult<Vec<_>>>()?;
    if let Some(kw) = keywords {
        for (k, v) in kw.iter() {
            parts.push(format!("{}={}", k.str()?, text_of(&v)?));
        }
    }
    let call = format!("{property}({})", parts.join(", "));
    let src = format!("assert {call}\n");
    let opts = tessera::verifier::Options {
        timeout_ms: Some(((timeout * 1000.0).round() as u64).max(1)),
    };
    let outcome = py.detach(|| {
        let cf = tessera::check::load("<python>", &src).map_err(|e| e.msg)?;
        Ok::<_, String>(tessera::check::run(&cf.assertions, &opts, 1).into_iter().next())
    });
    let outcome = outcome
        .map_err(bad)?
        .ok_or_else(|| bad(format!("{call}: nothing to prove")))?;
    use tessera::verifier::Verdict;
    let (counterexample, reason) = match &outcome.verdict {
        Verdict::Refuted(c) => {
            let d = PyDict::new(py);
            d.set_item("summary", &c.summary)?;
            let params = PyDict::new(py);
            for (n, v) in &c.params {
                params.set_item(n, v)?;
            }
            d.set_item("params", params)?;
            let ws = c
                .witnesses
                .iter()
                .map(|w| witness_to_py(py, w))
                .collect::<PyResult<Vec<_>>>()?;
            d.set_item("witnesses", PyList::new(py, ws)?)?;
            (d.into_any().unbind(), None)
        }
        Verdict::Invalid(m) => return Err(bad(format!("{call}: {m}"))),
        Verdict::Unknown(m) | Verdict::Internal(m) => (py.None(), Some(m.clone())),
        Verdict::Proved => (py.None(), None),
    };
    Ok(Proof {
        verdict: outcome.verdict.word().to_string(),
        counterexample,
        reason,
        time: outcome.elapsed.as_secs_f64(),
        assertion: call,
    })
}

/// `lower(L, coords=False)`: the index expression of a layout (or any layout-valued
/// expression) as `tessera lower` prints it: a header line, then the IR.
#[pyfunction]
#[pyo3(signature = (layout, coords = false))]
fn lower(layout: &Bound<'_, PyAny>, coords: bool) -> PyResult<String> {
    let src = text_of(layout)?;
    let session = lang::Session::new(&[], &[]).map_err(err)?;
    tessera::lower::lower_text(&session, &src, coords).map_err(err)
}

/// `emit(L, lang="c", name="offset_of", coords=False)`: the layout's index function as source
/// code in `c`, `rust`, `cuda` or `ptx`, simplified and validated, as `tessera emit` writes
/// it.
#[pyfunction]
#[pyo3(signature = (layout, lang = "c", name = "offset_of", coords = false))]
fn emit(layout: &Bound<'_, PyAny>, lang: &str, name: &str, coords: bool) -> PyResult<String> {
    let src = text_of(layout)?;
    let l: tessera::codegen::Lang = lang.parse().map_err(|e| bad(format!("{e}")))?;
    let session = lang::Session::new(&[], &[]).map_err(err)?;
    tessera::emit::emit_text(&session, &src, l, name, coords).map_err(|e| bad(e.to_string()))
}

/// The names of every built-in function of `tessera eval`, for checking that the module binds
/// them all.
#[pyfunction]
fn _builtin_names() -> Vec<&'static str> {
    lang::builtins::BUILTINS.iter().map(|b| b.name).collect()
}

/// Evaluates one line of Tessera's expression language, as `tessera eval` does, and returns
/// its value as Python data: `eval("composition((6,2):(8,2), (4,3):(3,1))")`.
#[pyfunction]
fn eval(py: Python<'_>, expr: &str) -> PyResult<Py<PyAny>> {
    to_py(py, lang::parse_value(expr).map_err(err)?)
}

/// The Python module `tessera`.
#[pymodule(name = "tessera")]
fn tessera_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("LayoutError", m.py().get_type::<LayoutError>())?;
    m.add_class::<Layout>()?;
    m.add_class::<Swizzle>()?;
    m.add_class::<ComposedLayout>()?;
    add_builtins(m)?;
    m.add_function(wrap_pyfunction!(recast, m)?)?;
    m.add_function(wrap_pyfunction!(eval, m)?)?;
    m.add_class::<Proof>()?;
    m.add_function(wrap_pyfunction!(prove, m)?)?;
    m.add_function(wrap_pyfunction!(lower, m)?)?;
    m.add_function(wrap_pyfunction!(emit, m)?)?;
    m.add_function(wrap_pyfunction!(_builtin_names, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // `__all__`: every name but the dunders, so that the package's `from .tessera import *`
    // (maturin's) re-exports `_builtin_names` too.
    let mut all: Vec<String> = m.dict().keys().iter().map(|k| k.to_string()).collect();
    all.retain(|n| !n.starts_with("__"));
    all.sort();
    m.add("__all__", all)?;
    Ok(())
}
