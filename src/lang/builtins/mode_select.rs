//! Mode selection (`get`, `select`, `take`, `flatten`) on int tuples, layouts and functions.
//!
//! On a composed layout `F = Sw o off o L` (a function whose domain is `L`'s) each selects
//! from the domain and keeps the function: `get(F, i) = Sw o off o get(L, i)`, CuTe's
//! `get<I>(ComposedLayout)` / `layout<I>(ComposedLayout)` and PyCuTe's `ComposedLayout[i]`.
//! A mode that does not exist is an error with a caret at the argument that names it.

use super::Call;
use crate::lang::{Value, at_col};
use tessera_ir::{ComposedLayout, Error, HTuple, Int, Layout, Result, Stride};

/// What modes are selected from: a tuple, a layout, or a function's domain.
enum Source<I> {
    Tuple(HTuple<I>),
    Layout(Layout<I>),
    Composed(ComposedLayout<I>),
}

impl<I: Int> Source<I> {
    fn of(v: &Value<I>) -> Result<Self> {
        Ok(match v {
            Value::Layout(l) => Source::Layout(l.clone()),
            Value::Composed(c) => Source::Composed(c.clone()),
            v => Source::Tuple(v.to_int_tuple()?),
        })
    }

    /// The layout modes are taken from (a function's domain).
    fn layout(&self) -> Option<&Layout<I>> {
        match self {
            Source::Layout(l) => Some(l),
            Source::Composed(c) => Some(&c.inner),
            Source::Tuple(_) => None,
        }
    }

    /// The same kind of value around the selected modes: `fl` on a layout (a function's
    /// domain), `ft` on a tuple.
    fn map(
        &self,
        fl: impl FnOnce(&Layout<I>) -> Result<Layout<I>>,
        ft: impl FnOnce(&HTuple<I>) -> Result<HTuple<I>>,
    ) -> Result<Value<I>> {
        Ok(match self {
            Source::Tuple(t) => Value::from_int_tuple(&ft(t)?),
            Source::Layout(l) => Value::Layout(fl(l)?),
            Source::Composed(c) => Value::Composed(c.with_inner(fl(&c.inner)?)),
        })
    }
}

/// The top-level modes of a tuple (a leaf is its own mode 0).
fn rank_of<T: Clone>(t: &HTuple<T>) -> usize {
    t.modes().len()
}

/// A layout from its modes' shapes and strides.
fn layout_of<I: Int>(shape: HTuple<I>, stride: HTuple<Stride<I>>) -> Result<Layout<I>> {
    Layout::new(shape, stride)
}

/// The argument `k` as a mode index, with a caret at it when it is not one.
fn index_at<I: Int>(c: &Call<'_, I>, k: usize) -> Result<usize> {
    c.arg(k)?.to_index().map_err(|e| arg_err(c, k, e.to_string()))
}

/// An error at argument `k`.
fn arg_err<I: Int>(c: &Call<'_, I>, k: usize, msg: impl Into<String>) -> Error {
    at_col(c.src, c.args[k].col, msg)
}

/// The error of mode `i` of `x`, which has `rank` modes.
fn no_mode<I: Int>(c: &Call<'_, I>, k: usize, i: usize, x: &dyn std::fmt::Display, rank: usize) -> Error {
    arg_err(
        c,
        k,
        format!(
            "{}: mode {i} out of range: {x} has {rank} mode{} (0..{rank})",
            c.name,
            if rank == 1 { "" } else { "s" }
        ),
    )
}

/// `get(x, i, j, ...)`: the mode at a path (a leaf is its own mode 0, as CuTe's `get<0>`).
pub(super) fn get<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let src = Source::of(c.arg(0)?)?;
    let path = (1..c.len()).map(|k| index_at(c, k)).collect::<Result<Vec<_>>>()?;
    match src.layout() {
        None => {
            let mut cur = shape_of(&src);
            for (k, &i) in path.iter().enumerate() {
                cur = match cur.mode(i) {
                    Some(m) => m,
                    None => return Err(no_mode(c, k + 1, i, &cur, rank_of(&cur))),
                };
            }
            Ok(Value::from_int_tuple(&cur))
        }
        Some(l) => {
            let mut cur = l.clone();
            for (k, &i) in path.iter().enumerate() {
                cur = match cur.mode(i) {
                    Some(m) => m,
                    None => return Err(no_mode(c, k + 1, i, &cur, rank_of(cur.shape()))),
                };
            }
            src.map(|_| Ok(cur), |t| Ok(t.clone()))
        }
    }
}

/// The indices of `select`'s argument `k`: an index or a tuple of them.
fn index_list<I: Int>(c: &Call<'_, I>, k: usize) -> Result<Vec<usize>> {
    match c.arg(k)? {
        Value::Tuple(items) => items
            .iter()
            .map(|v| v.to_index().map_err(|e| arg_err(c, k, e.to_string())))
            .collect(),
        _ => Ok(vec![index_at(c, k)?]),
    }
}

/// `select(x, (i, j, ...))`: those modes, in that order.
pub(super) fn select<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    if c.len() == 3 {
        return super::views::select(c);
    }
    let src = Source::of(c.arg(0)?)?;
    let idx = index_list(c, 1)?;
    let shape = shape_of(&src);
    let r = rank_of(&shape);
    if let Some(&i) = idx.iter().find(|&&i| i >= r) {
        return Err(no_mode(c, 1, i, &display(&src), r));
    }
    src.map(
        |l| layout_of(l.shape().select(&idx)?, l.stride().select(&idx)?),
        |t| t.select(&idx),
    )
}

/// `take(x, begin, end)`: the modes `begin..end`.
pub(super) fn take<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let src = Source::of(c.arg(0)?)?;
    let (b, e) = (index_at(c, 1)?, index_at(c, 2)?);
    let r = rank_of(&shape_of(&src));
    if e > r {
        return Err(arg_err(
            c,
            2,
            format!(
                "take: the range [{b}, {e}) is out of range: {} has {r} modes",
                display(&src)
            ),
        ));
    }
    if b > e {
        return Err(arg_err(
            c,
            1,
            format!("take: the range [{b}, {e}) begins after it ends"),
        ));
    }
    src.map(
        |l| layout_of(l.shape().take(b, e)?, l.stride().take(b, e)?),
        |t| t.take(b, e),
    )
}

/// `flatten(x)`: the leaves as one flat tuple (a function's domain flattened).
pub(super) fn flatten<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Source::of(c.arg(0)?)?.map(|l| Ok(l.flatten()), |t| Ok(t.flatten()))
}

fn shape_of<I: Int>(src: &Source<I>) -> HTuple<I> {
    match src {
        Source::Tuple(t) => t.clone(),
        Source::Layout(l) | Source::Composed(ComposedLayout { inner: l, .. }) => l.shape().clone(),
    }
}

fn display<I: Int>(src: &Source<I>) -> String {
    match src {
        Source::Tuple(t) => t.to_string(),
        Source::Layout(l) => l.to_string(),
        Source::Composed(c) => c.to_string(),
    }
}
