//! The classes: `Layout`, `Swizzle`, `ComposedLayout`.

#[allow(unused_imports)]
use crate::*;

/// A layout `shape:stride`, a function from coordinates (or indices) to offsets.
///
/// `Layout(shape, stride=None)`: the shape and stride are ints or nested tuples of ints; no
/// stride is the compact column-major one. `Layout.parse("(8,64):(64,1)")` reads the text
/// format. `L(i)`, `L(coord)` and `L(c0, c1, ...)` evaluate; `L[i]` is mode `i`; `len(L)`
/// is the rank; `str(L)` is CuTe text.
// `freelist`: the objects of up to 64 freed layouts are reused, not returned to the allocator
// (-3 to -6% per call of `coalesce` and `composition`, timeit, same run).
#[pyclass(module = "tessera", frozen, name = "Layout", freelist = 64)]
#[derive(Clone)]
pub struct Layout {
    pub(crate) inner: ir::Layout<i64>,
    /// A symbolic layout (`tessera.params`): its text and parameters; `inner` is then a
    /// placeholder, never read.
    pub(crate) sym: Option<SymVal>,
}

impl Layout {
    /// A concrete layout.
    pub(crate) fn of(inner: ir::Layout<i64>) -> Self {
        Layout { inner, sym: None }
    }

    /// `f(self)` through the session for a symbolic layout (`name(L)` evaluated there).
    fn sym_fn(&self, py: Python<'_>, name: &str) -> Option<PyResult<Py<PyAny>>> {
        let v = self.sym.as_ref()?;
        Some(sym_eval(py, &v.ctx, &format!("{name}({})", v.text)))
    }

    /// The error of an operation that a symbolic layout does not support.
    fn no_sym(&self, what: &str) -> PyResult<()> {
        match &self.sym {
            Some(v) => Err(bad(format!(
                "{what} of the symbolic layout {}: not supported (bind the parameters first)",
                v.text
            ))),
            None => Ok(()),
        }
    }
}

#[pymethods]
impl Layout {
    #[new]
    #[pyo3(signature = (shape, stride = None))]
    fn new(shape: &Bound<'_, PyAny>, stride: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        if is_symbolic(shape) || stride.is_some_and(is_symbolic) {
            return sym_layout(shape, stride);
        }
        let s = to_value(shape)?.to_shape().map_err(err)?;
        let inner = match stride {
            None => ir::Layout::compact(&s),
            Some(d) => ir::Layout::new(s, to_value(d)?.to_stride_tuple().map_err(err)?),
        }
        .map_err(err)?;
        Ok(Layout::of(inner))
    }

    /// Reads a layout in Tessera's text format (CuTe's: `(8,64):(64,1)`; a bare shape is the
    /// compact layout) from a string or any object whose `str()` is such text: a PyCuTe
    /// layout, or a CuTe DSL `cute.Layout` with static extents (inside `@cute.jit`).
    #[staticmethod]
    fn parse(text: &Bound<'_, PyAny>) -> PyResult<Self> {
        if let Ok(l) = text.cast::<Layout>() {
            return Ok(l.get().clone());
        }
        let inner = lang::parse_layout(&foreign_text(text)?).map_err(err)?;
        Ok(Layout::of(inner))
    }

    /// The shape: an int or a nested tuple of ints.
    #[getter]
    fn shape(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        if let Some(r) = self.sym_fn(py, "shape") {
            return r;
        }
        htuple_to_py(py, self.inner.shape(), &int_to_py)
    }

    /// The stride, congruent with the shape: ints (or the text of coordinate strides).
    #[getter]
    fn stride(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        if let Some(r) = self.sym_fn(py, "stride") {
            return r;
        }
        htuple_to_py(py, self.inner.stride(), &stride_to_py)
    }

    /// The number of coordinates: the product of the shape (a `Sym` for a symbolic layout).
    fn size(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        if let Some(r) = self.sym_fn(py, "size") {
            return r;
        }
        int_to_py(py, &self.inner.size().map_err(err)?)
    }

    /// One past the largest offset (0 for no offsets; a `Sym` for a symbolic layout).
    fn cosize(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        if let Some(r) = self.sym_fn(py, "cosize") {
            return r;
        }
        int_to_py(py, &self.inner.cosize().map_err(err)?)
    }

    /// The number of top-level modes (1 for an int shape).
    fn rank(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        if let Some(r) = self.sym_fn(py, "rank") {
            return r;
        }
        int_to_py(py, &(self.inner.rank() as i64))
    }

    /// The nesting depth of the shape (0 for an int shape).
    fn depth(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        if let Some(r) = self.sym_fn(py, "depth") {
            return r;
        }
        int_to_py(py, &(self.inner.depth() as i64))
    }

    /// The layout with values bound to parameters (`L.bind(M=256, N=64)`), as `tessera eval
    /// --bind` does: a concrete `Layout` when every parameter it names is bound, else a
    /// symbolic one over the others (which does not mix with the symbols of the `params`
    /// call). A value the facts do not admit raises `LayoutError`; a concrete layout takes no
    /// values and returns itself.
    #[pyo3(signature = (**values))]
    fn bind(slf: &Bound<'_, Self>, values: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
        match &slf.get().sym {
            Some(v) => sym_bind(slf.py(), v, values),
            None if values.is_none_or(|d| d.is_empty()) => Ok(slf.clone().into_any().unbind()),
            None => Err(bad("bind: the layout has no parameters")),
        }
    }

    /// Whether the layout has symbolic extents or strides (built from `tessera.params`).
    #[getter]
    fn symbolic(&self) -> bool {
        self.sym.is_some()
    }

    /// `L(i)`, `L(coord)` or `L(c0, c1, ...)`: the offset of an index or a coordinate.
    #[pyo3(signature = (*args))]
    fn __call__(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
        self.no_sym("evaluation")?;
        let c = coord_of(args)?;
        let codomain = self.inner.codomain().map_err(err)?;
        if codomain == ir::Codomain::Coord {
            // Every component of the codomain, trailing zeros included (`(1, 0)`, as the CLI).
            let v = lang::eval_at(&Value::Layout(self.inner.clone()), &c).map_err(err)?;
            return to_py(py, v);
        }
        let p = match c {
            Value::Int(i) => self.inner.eval_index(&i),
            c => self.inner.eval(&c.to_coord().map_err(err)?),
        }
        .map_err(err)?;
        match p {
            // An F2 layout's offsets are F2 values, its offset 0 included.
            Stride::Int(v) if codomain == ir::Codomain::F2 && v >= 0 => {
                Ok(Py::new(py, F2 { bits: v as u64 })?.into_any())
            }
            p => point_to_py(py, p),
        }
    }

    /// `L[i]`: mode `i` as a layout (negative `i` counts from the end); `L[a:b]` the layout of
    /// those modes (PyCuTe's tuple slice). A symbolic layout's modes are symbolic layouts.
    fn __getitem__(&self, py: Python<'_>, i: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Some(v) = &self.sym else {
            return Ok(Py::new(py, Layout::of(modes_at(&self.inner, i)?))?.into_any());
        };
        let r: isize = sym_eval(py, &v.ctx, &format!("rank({})", v.text))?.extract(py)?;
        let src = match mode_indices(r, i)? {
            Modes::One(k) => format!("get({}, {k})", v.text),
            Modes::Many(ks) if ks.is_empty() => {
                return Ok(Py::new(py, Layout::of(ir::Layout::concat([])))?.into_any());
            }
            Modes::Many(ks) => {
                let ks: Vec<String> = ks.iter().map(usize::to_string).collect();
                format!("select({}, ({}))", v.text, ks.join(","))
            }
        };
        sym_eval(py, &v.ctx, &src)
    }

    /// Pickling: a concrete layout is rebuilt from its text (`Layout.parse`), a symbolic one
    /// from its context and text (`pickle.rs`).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        if let Some(v) = &slf.get().sym {
            let (f, state) = reduce_sym(py, v)?;
            return Ok((f, state.into_pyobject(py)?));
        }
        let parse = py.get_type::<Layout>().getattr("parse")?;
        Ok((parse, (slf.get().inner.to_string(),).into_pyobject(py)?))
    }

    /// A layout is immutable: its copy is itself.
    fn __copy__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    /// A layout is immutable: its deep copy is itself.
    fn __deepcopy__<'py>(slf: Bound<'py, Self>, _memo: &Bound<'py, PyAny>) -> Bound<'py, Self> {
        slf
    }

    fn __len__(&self) -> PyResult<usize> {
        self.no_sym("len")?;
        Ok(self.inner.rank())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Layout>().is_ok_and(|o| {
            let o = o.get();
            match (&o.sym, &self.sym) {
                (None, None) => o.inner == self.inner,
                (Some(a), Some(b)) => std::sync::Arc::ptr_eq(&a.ctx, &b.ctx) && a.text == b.text,
                _ => false,
            }
        })
    }

    fn __hash__(&self) -> u64 {
        match &self.sym {
            Some(v) => hash_of(&v.text),
            None => hash_of(&self.inner),
        }
    }

    fn __str__(&self) -> String {
        match &self.sym {
            Some(v) => v.text.clone(),
            None => self.inner.to_string(),
        }
    }

    /// The layout drawn as SVG (`tessera draw`'s picture), so that Jupyter shows it; `None`
    /// (the text `repr` then) when it cannot be drawn, e.g. past 65,536 cells.
    fn _repr_svg_(&self) -> Option<String> {
        self.sym.is_none().then_some(())?;
        picture(Value::Layout(self.inner.clone())).map(|p| p.svg())
    }

    /// The picture in a minimal HTML page (the SVG inline), for notebooks that prefer HTML.
    fn _repr_html_(&self) -> Option<String> {
        self.sym.is_none().then_some(())?;
        picture(Value::Layout(self.inner.clone())).map(|p| p.html())
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        if let Some(v) = &self.sym {
            return Ok(format!("<symbolic Layout {} where {}>", v.text, v.ctx.decl));
        }
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
    pub(crate) inner: ir::Swizzle,
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

    /// Pickling: rebuilt from its three numbers.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (i64, i64, i64))> {
        let s = slf.get().inner;
        let cls = slf.py().get_type::<Swizzle>().into_any();
        Ok((cls, (i64::from(s.bits), i64::from(s.base), i64::from(s.shift))))
    }

    fn __copy__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    fn __deepcopy__<'py>(slf: Bound<'py, Self>, _memo: &Bound<'py, PyAny>) -> Bound<'py, Self> {
        slf
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
    pub(crate) inner: ir::ComposedLayout<i64>,
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
        match lang::parse_value(&foreign_text(text)?).map_err(err)? {
            Value::Composed(c) => Ok(ComposedLayout { inner: c }),
            v => Err(bad(format!("'{v}' is a {}, not a composed layout", v.kind()))),
        }
    }

    /// Pickling: rebuilt from its text (`ComposedLayout.parse`).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let parse = slf.py().get_type::<ComposedLayout>().getattr("parse")?;
        Ok((parse, (slf.get().inner.to_string(),)))
    }

    fn __copy__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    fn __deepcopy__<'py>(slf: Bound<'py, Self>, _memo: &Bound<'py, PyAny>) -> Bound<'py, Self> {
        slf
    }

    /// `C[i]`: the function on mode `i` of its domain, `swizzle o offset o layout[i]`
    /// (PyCuTe's `ComposedLayout[i]`, CuTe's `get<I>`); `C[a:b]` on those modes.
    fn __getitem__(&self, i: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(ComposedLayout {
            inner: self.inner.with_inner(modes_at(&self.inner.inner, i)?),
        })
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
        Layout::of(self.inner.inner.clone())
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

    /// The layout drawn as SVG (`tessera draw`'s picture), so that Jupyter shows it; `None`
    /// (the text `repr` then) when it cannot be drawn, e.g. past 65,536 cells.
    fn _repr_svg_(&self) -> Option<String> {
        picture(Value::Composed(self.inner.clone())).map(|p| p.svg())
    }

    /// The picture in a minimal HTML page (the SVG inline), for notebooks that prefer HTML.
    fn _repr_html_(&self) -> Option<String> {
        picture(Value::Composed(self.inner.clone())).map(|p| p.html())
    }

    fn __repr__(&self) -> String {
        format!("ComposedLayout.parse({:?})", self.inner.to_string())
    }
}

/// The picture of a layout (index colouring), or `None` where it cannot be drawn.
fn picture(v: Value<i64>) -> Option<tessera::draw::Picture> {
    tessera::draw::layout(&v, tessera::draw::Color::Index).ok()
}

/// The modes a Python index selects: one (an int), or several (a slice).
enum Modes {
    One(usize),
    Many(Vec<usize>),
}

/// The modes `i` (an int, negative from the end, or a slice) selects among `rank`; an
/// `IndexError` naming the rank for a mode that does not exist.
fn mode_indices(rank: isize, i: &Bound<'_, PyAny>) -> PyResult<Modes> {
    if let Ok(sl) = i.cast::<pyo3::types::PySlice>() {
        let ix = sl.indices(rank)?;
        let mut ks = Vec::new();
        let mut k = ix.start;
        while (ix.step > 0 && k < ix.stop) || (ix.step < 0 && k > ix.stop) {
            ks.push(k as usize);
            k += ix.step;
        }
        return Ok(Modes::Many(ks));
    }
    let i: isize = i.extract()?;
    let k = if i < 0 { i + rank } else { i };
    if k < 0 || k >= rank {
        return Err(PyIndexError::new_err(format!(
            "mode {i} of a rank-{rank} layout (modes 0..{rank}, or -{rank}..-1 from the end)"
        )));
    }
    Ok(Modes::One(k as usize))
}

/// The layout of the modes `i` selects (see [`mode_indices`]).
fn modes_at(l: &ir::Layout<i64>, i: &Bound<'_, PyAny>) -> PyResult<ir::Layout<i64>> {
    let mode = |k: usize| {
        l.mode(k)
            .ok_or_else(|| PyIndexError::new_err(format!("no mode {k}")))
    };
    match mode_indices(l.rank() as isize, i)? {
        Modes::One(k) => mode(k),
        Modes::Many(ks) => Ok(ir::Layout::concat(
            ks.into_iter().map(mode).collect::<PyResult<Vec<_>>>()?,
        )),
    }
}
