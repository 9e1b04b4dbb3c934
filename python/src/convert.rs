//! Python objects to values of the expression language, and back.

#[allow(unused_imports)]
use crate::*;

/// The value of a Python argument: `int`, `None` (`_`), a tuple or list, a `Layout`,
/// `Swizzle` or `ComposedLayout`, a `bool`, a `str` in Tessera's text format, or any object
/// whose `str()` is (a PyCuTe `Layout`, say).
pub(crate) fn to_value(obj: &Bound<'_, PyAny>) -> PyResult<Value<i64>> {
    if let Ok(l) = obj.cast::<Layout>() {
        if let Some(v) = &l.get().sym {
            return Err(bad(format!(
                "the symbolic layout {} cannot be used here (only in the algebra functions, \
                 prove, lower and emit)",
                v.text
            )));
        }
        return Ok(Value::Layout(l.get().inner.clone()));
    }
    if let Ok(s) = obj.cast::<Sym>() {
        return Err(bad(format!(
            "the symbol {} cannot be used here (only in layouts, the algebra functions, prove, \
             lower and emit)",
            s.get().v.text
        )));
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
    if let Ok(a) = obj.cast::<Atom>() {
        return Ok(Value::Atom(a.get().inner.clone()));
    }
    if let Ok(b) = obj.cast::<ScaledBasis>() {
        return Ok(Value::Stride(b.get().inner.clone()));
    }
    if let Ok(f) = obj.cast::<F2>() {
        return Ok(Value::Stride(Stride::F2(f.get().bits)));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return lang::parse_value(&s.to_cow()?).map_err(err);
    }
    // An integer of another type (NumPy's): `__index__`.
    if obj.hasattr("__index__")? {
        return int_of(obj).map(Value::Int);
    }
    let text = foreign_text(obj)?;
    lang::parse_value(&text).map_err(|e| {
        bad(format!(
            "cannot read a {} as a layout, int tuple or swizzle: {e}",
            obj.get_type().name().map(|n| n.to_string()).unwrap_or_default()
        ))
    })
}

/// The text of a foreign layout object (PyCuTe's, the CuTe DSL's `cute.Layout`,
/// `cute.ComposedLayout`, `cute.Swizzle`, ...): its `str()`, with the CuTe DSL's swizzle
/// spelling `S<b,m,s>` read as Tessera's `Sw<b,m,s>`. The DSL is never imported: an object is
/// recognised by its type's module (`cutlass...`).
pub(crate) fn foreign_text(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    let text = obj.str()?.to_cow()?.into_owned();
    let module: String = obj
        .get_type()
        .getattr("__module__")
        .and_then(|m| m.extract())
        .unwrap_or_default();
    if !module.starts_with("cutlass") {
        return Ok(text);
    }
    // `S<` at the start or after a non-identifier character is the DSL's swizzle.
    let mut out = String::with_capacity(text.len() + 4);
    let mut prev: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let boundary = prev.is_none_or(|p| !(p.is_alphanumeric() || p == '_'));
        if c == 'S' && boundary && chars.peek() == Some(&'<') {
            out.push_str("Sw");
        } else {
            out.push(c);
        }
        prev = Some(c);
    }
    if out.contains('?') {
        return Err(bad(format!(
            "the CuTe DSL value {out} has dynamic ('?') extents or strides: only static ones can be read"
        )));
    }
    Ok(out)
}

/// A Python integer as an `i64`, or a `LayoutError` when it does not fit.
pub(crate) fn int_of(obj: &Bound<'_, PyAny>) -> PyResult<i64> {
    obj.extract::<i64>().map_err(|_| {
        let shown = obj.str().map(|s| s.to_string()).unwrap_or_default();
        bad(format!("integer {shown} does not fit in 64 bits"))
    })
}

/// The Python object of a value: `int`, tuple, `Layout`, `ComposedLayout`, `Swizzle`, `bool`,
/// `None` for `_`, and the text (`"1@0"`) of a coordinate or `F2` stride.
pub(crate) fn to_py(py: Python<'_>, v: Value<i64>) -> PyResult<Py<PyAny>> {
    Ok(match v {
        Value::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
        Value::Tuple(vs) => {
            let items = vs
                .into_iter()
                .map(|v| to_py(py, v))
                .collect::<PyResult<Vec<_>>>()?;
            PyTuple::new(py, items)?.into_any().unbind()
        }
        Value::Layout(l) => Py::new(py, Layout::of(l))?.into_any(),
        Value::Composed(c) => Py::new(py, ComposedLayout { inner: c })?.into_any(),
        Value::Swizzle(s) => Py::new(py, Swizzle { inner: s })?.into_any(),
        Value::Bool(b) => PyBool::new(py, b).to_owned().into_any().unbind(),
        Value::Keep => py.None(),
        Value::Stride(s) => stride_to_py(py, &s)?,
        Value::Atom(a) => Py::new(py, Atom { inner: a })?.into_any(),
    })
}

/// A stride leaf: an `int`, a `ScaledBasis` for a coordinate stride, an `F2` for an `F2`
/// stride.
pub(crate) fn stride_to_py(py: Python<'_>, s: &Stride<i64>) -> PyResult<Py<PyAny>> {
    Ok(match s {
        Stride::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
        Stride::Basis(_) => Py::new(py, ScaledBasis { inner: s.clone() })?.into_any(),
        Stride::F2(bits) => Py::new(py, F2 { bits: *bits })?.into_any(),
    })
}

/// A hierarchical tuple as nested Python tuples, its leaves converted by `leaf`.
pub(crate) fn htuple_to_py<T: Clone>(
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
pub(crate) fn int_to_py(py: Python<'_>, v: &i64) -> PyResult<Py<PyAny>> {
    Ok(v.into_pyobject(py)?.into_any().unbind())
}

/// The value of a point reached by a layout: an offset, or a coordinate or `F2` value.
pub(crate) fn point_to_py(py: Python<'_>, s: Stride<i64>) -> PyResult<Py<PyAny>> {
    to_py(py, Value::from_codomain(s))
}

/// The coordinate of a call `L(a, b, ...)`: one argument is an index or a coordinate, several
/// are the coordinate's modes.
pub(crate) fn coord_of(args: &Bound<'_, PyTuple>) -> PyResult<Value<i64>> {
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
pub(crate) fn hash_of(v: &impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    v.hash(&mut h);
    h.finish()
}
