//! The common calls answered without the expression language: `composition`, the divides and
//! products, `complement` and `coalesce` on concrete `Layout` objects (with int, `None` and
//! tuple tilers and cotargets), computed by the same algebra function as the built-in from the
//! layouts the objects hold (borrowed, never re-read as text), the result wrapped directly.
//!
//! A fast path only ever answers a call it computed successfully: anything else (a symbolic
//! layout, a swizzle, text, keyword arguments, an integer that does not fit, an error of the
//! algebra) returns `None` and the call takes the general path ([`call_builtin`]), which gives
//! the canonical answer or error. `tests/test_fast_paths.py` checks that both paths agree on
//! the corpus and on random layouts.
//!
//! The functions of these built-ins (`builtins.rs`, [`call_fast`]) take their first two
//! positional arguments as such, so that a call builds no argument tuple.

#[allow(unused_imports)]
use crate::*;

/// The concrete layout a `Layout` object holds (`None` for anything else, or a symbolic one).
fn concrete<'a>(obj: &'a Bound<'_, PyAny>) -> Option<&'a ir::Layout<i64>> {
    let l = obj.cast::<Layout>().ok()?.get();
    if l.sym.is_some() {
        return None;
    }
    Some(&l.inner)
}

/// A Python `int` (not a `bool`) that fits in `i64`.
fn small_int(obj: &Bound<'_, PyAny>) -> Option<i64> {
    if !obj.is_exact_instance_of::<PyInt>() {
        return None;
    }
    obj.extract::<i64>().ok()
}

/// The tiler of a Python object, as `Value::to_tiler` reads its value: `None` keeps a mode, an
/// int `n` is `n:1`, a layout is itself, a tuple or list goes by mode.
fn tiler_of(obj: &Bound<'_, PyAny>) -> Option<Tiler<i64>> {
    if obj.is_none() {
        return Some(Tiler::Keep);
    }
    if let Some(l) = concrete(obj) {
        return Some(Tiler::Layout(l.clone()));
    }
    // `n` is `n:1` (an extent below 1 is left to the general path's error).
    if let Some(n) = small_int(obj) {
        return (n >= 1).then(|| Tiler::Layout(ir::Layout::leaf(n, 1)));
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return t
            .iter_borrowed()
            .map(|x| tiler_of(&x))
            .collect::<Option<_>>()
            .map(Tiler::Tuple);
    }
    if let Ok(t) = obj.cast::<PyList>() {
        return t
            .iter()
            .map(|x| tiler_of(&x))
            .collect::<Option<_>>()
            .map(Tiler::Tuple);
    }
    None
}

/// An int tuple (a cotarget): an int, or a tuple or list of int tuples.
fn int_tuple_of(obj: &Bound<'_, PyAny>) -> Option<HTuple<i64>> {
    if let Some(n) = small_int(obj) {
        return Some(HTuple::leaf(n));
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return t
            .iter_borrowed()
            .map(|x| int_tuple_of(&x))
            .collect::<Option<Vec<_>>>()
            .map(HTuple::from_modes);
    }
    None
}

/// A computed layout as a new `Layout` object, under the depth limit every result meets
/// (`Value::check_depth`'s, checked on the layout in place: no move through a `Value`).
#[inline(always)]
fn wrap(py: Python<'_>, r: ir::Result<ir::Layout<i64>>) -> Option<PyResult<Py<PyAny>>> {
    // Checked in the `Result` and moved once, straight into the new object's value.
    match r {
        Ok(l) => new_object(py, Layout { inner: l, sym: None }),
        Err(_) => None,
    }
}

/// `value` as a new `Layout` object when it is under the depth limit every result meets
/// (`Value::check_depth`'s); `None` (the general path, which says why) otherwise.
#[inline(always)]
fn new_object(py: Python<'_>, value: Layout) -> Option<PyResult<Py<PyAny>>> {
    if lang::fast::too_deep(&value.inner) {
        return None;
    }
    Some(Py::new(py, value).map(Py::into_any))
}

/// The tiler of a Python object read in place ([`TilerView`]: its layouts borrowed from their
/// objects), when it is `None`, an int, a layout, or a tuple of these; `None` otherwise (a
/// nested tuple, a list: [`tiler_of`] reads those). An entry reads as in [`tiler_of`].
fn tiler_view_of<'a>(obj: &'a Bound<'_, PyAny>) -> Option<TilerView<'a, i64>> {
    if let Ok(t) = obj.cast::<PyTuple>() {
        return t
            .iter_borrowed()
            .map(view_entry)
            .collect::<Option<_>>()
            .map(TilerView::Tuple);
    }
    view_entry(obj.as_borrowed())
}

/// One entry of [`tiler_view_of`]: `None`, a concrete layout, or an int `n >= 1` (`n:1`).
fn view_entry<'a>(x: Borrowed<'a, '_, PyAny>) -> Option<TilerView<'a, i64>> {
    if x.is_none() {
        return Some(TilerView::Keep);
    }
    if let Ok(l) = x.cast::<Layout>() {
        let l = l.get();
        return l.sym.is_none().then_some(TilerView::Layout(&l.inner));
    }
    let n = small_int(&x)?;
    (n >= 1).then_some(TilerView::Unit(n))
}

/// `op(A, B)` of a tiler built-in (`composition`, the divides, the products) on a concrete
/// layout `A`: the tiler read in place where it can be ([`tiler_view_of`]), given to `view`
/// where the algebra has that form and to `f` as the tiler it stands for otherwise; a nested
/// tuple or a list built by [`tiler_of`].
pub(crate) fn tiler_call(
    py: Python<'_>,
    f: TilerFn,
    view: Option<ViewFn>,
    a: &Bound<'_, PyAny>,
    b: Option<&Bound<'_, PyAny>>,
) -> Option<PyResult<Py<PyAny>>> {
    let b = b?;
    let la = concrete(a)?;
    // `_` (None) as the whole tiler leaves A as it is: A itself, as PyCuTe returns it.
    if b.is_none() {
        return Some(Ok(a.clone().unbind()));
    }
    if let Some(t) = tiler_view_of(b) {
        return wrap(
            py,
            match view {
                Some(g) => g(la, &t),
                None => f(la, &t.to_tiler()),
            },
        );
    }
    wrap(py, f(la, &tiler_of(b)?))
}

/// `complement(A)` and `complement(A, cotarget)` with an int or int-tuple cotarget.
pub(crate) fn complement_call(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    t: Option<&Bound<'_, PyAny>>,
) -> Option<PyResult<Py<PyAny>>> {
    let la = concrete(a)?;
    match t {
        None => wrap(py, alg::complement(la, None)),
        Some(t) => {
            let t = match concrete(t) {
                Some(l) => l.shape().clone(),
                None => int_tuple_of(t)?,
            };
            wrap(py, alg::complement(la, Some(&t)))
        }
    }
}

/// A coalesce profile, as `Value::to_profile` reads its value: an int coalesces, `None` keeps,
/// a tuple or list goes by mode.
fn profile_of(obj: &Bound<'_, PyAny>) -> Option<HTuple<bool>> {
    if obj.is_none() {
        return Some(HTuple::leaf(false));
    }
    if small_int(obj).is_some() {
        return Some(HTuple::leaf(true));
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        // A flat tuple of ints and `None` (the common `(1,1)`): one flat profile, without a
        // tuple per mode, read in one pass.
        let flat = HTuple::flat(t.iter_borrowed().map_while(|x| {
            if x.is_none() {
                Some(false)
            } else {
                small_int(&x).map(|_| true)
            }
        }));
        if flat.leaves().len() == t.len() && !t.is_empty() {
            return Some(flat);
        }
        return t
            .iter_borrowed()
            .map(|x| profile_of(&x))
            .collect::<Option<Vec<_>>>()
            .map(HTuple::from_modes);
    }
    None
}

/// `coalesce(A)` and `coalesce(A, profile)`.
pub(crate) fn coalesce_call(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    p: Option<&Bound<'_, PyAny>>,
) -> Option<PyResult<Py<PyAny>>> {
    let la = concrete(a)?;
    let profile = match p {
        None => None,
        Some(p) => Some(profile_of(p)?),
    };
    // Computed into the value the new object is made from: the layout is moved once, into
    // the object (returned through a `Result` and then into the value, it was moved three
    // times, 352 bytes each: 5% of the call).
    let mut r = Layout {
        inner: ir::Layout::leaf(1, 0),
        sym: None,
    };
    alg::coalesce_to(la, profile.as_ref(), &mut r.inner).ok()?;
    new_object(py, r)
}
