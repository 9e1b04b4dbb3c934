//! The view builtins of the expression language: the layout-level forms of the tensor views.
//!
//! A view value is an offset and a layout, the composed layout `OFF o L` (with a swizzle
//! `Sw<..> o OFF o L` when the argument was swizzled). A view always prints with its offset,
//! `0 o (4,4):(4,1)` included, and that text parses back to the same value. The functions
//! take a layout, a bare shape (its compact layout) or a view, so they chain:
//!
//! ```
//! use tessera::lang::eval_str;
//! assert_eq!(eval_str("tile_view((4,4):(4,1), (2,0), (2,4))").unwrap(), "8 o (2,4):(4,1)");
//! assert_eq!(eval_str("(4,4):(4,1)[2:4, ::-1]").unwrap(), "11 o (2,4):(4,-1)");
//! assert_eq!(eval_str("select(narrow((6,8), 1, 2, 4), 0, 3)").unwrap(), "15 o (4):(6)");
//! assert_eq!(eval_str("local_tile((6,8):(1,6), (2,2), (1,1))").unwrap(), "14 o (2,2):(1,6)");
//! assert_eq!(eval_str("local_partition((6,8):(1,6), (2,2), 1)").unwrap(), "1 o (3,4):(2,12)");
//! // `_` keeps a mode, as in CuTe.
//! assert_eq!(eval_str("local_tile((6,16):(1,6), (2,2), (1,_))").unwrap(), "2 o (2,2,8):(1,6,12)");
//! assert_eq!(eval_str("local_partition((6,8):(1,6), (2,2), (1,_))").unwrap(), "1 o (2,3,4):(6,2,12)");
//! ```
//!
//! The semantics are those of [`tessera_ir::view`]; these functions only convert the arguments.

use super::Call;
use crate::lang::{Env, Value, eval_expr};
use tessera_ir::ComposedLayout;
use tessera_ir::Int;
use tessera_ir::Layout;
use tessera_ir::Stride;
use tessera_ir::text::{Expr, SliceItem};
use tessera_ir::view::{self, SliceArg, Threads, ViewError, ViewResult};
use tessera_ir::{Error, Result};

/// A constant of the expression.
fn konst<I: Int>(v: &I) -> Result<i64> {
    v.as_const()
        .ok_or_else(|| Error::invalid(format!("views need concrete integers, found {v}")))
}

/// A layout of concrete integers with integer strides.
fn concrete<I: Int>(l: &Layout<I>) -> Result<Layout<i64>> {
    let shape = l.shape().try_map(konst)?;
    let stride = l.stride().try_map(|d| match d {
        Stride::Int(v) => Ok(Stride::Int(konst(v)?)),
        _ => Err(Error::from(ViewError::NonIntegerStride(l.to_string()))),
    })?;
    Layout::new(shape, stride)
}

/// The view of a value: a view (composed layout) as it is, a layout or a shape at offset 0.
fn view_of<I: Int>(v: &Value<I>) -> Result<ComposedLayout<i64>> {
    match v {
        // `(Sw<3,3,3> o L)` in parentheses is a one-element tuple of the view.
        Value::Tuple(items) if items.len() == 1 && is_view_like(&items[0]) => view_of(&items[0]),
        Value::Composed(c) => Ok(ComposedLayout {
            swizzle: c.swizzle,
            offset: konst(&c.offset)?,
            inner: concrete(&c.inner)?,
        }),
        v => Ok(view::unswizzled(0, concrete(&v.to_layout()?)?)),
    }
}

/// A layout or a view (not a bare shape).
fn is_view_like<I: Int>(v: &Value<I>) -> bool {
    match v {
        Value::Layout(_) | Value::Composed(_) => true,
        Value::Tuple(items) => items.len() == 1 && is_view_like(&items[0]),
        _ => false,
    }
}

/// The value of a view.
fn value_of<I: Int>(c: ComposedLayout<i64>) -> Result<Value<I>> {
    let shape = c.inner.shape().map(|&s| I::lit(s));
    let stride = c.inner.stride().try_map(|d| match d {
        Stride::Int(v) => Ok(Stride::Int(I::lit(*v))),
        _ => Err(Error::from(ViewError::NonIntegerStride(c.inner.to_string()))),
    })?;
    Ok(Value::Composed(ComposedLayout {
        swizzle: c.swizzle,
        offset: I::lit(c.offset),
        inner: Layout::new(shape, stride)?,
    }))
}

/// Names the builtin in a view error; algebra errors keep their own form.
fn named(name: &str, e: ViewError) -> Error {
    match e {
        ViewError::Algebra(e) => e,
        e => Error::invalid(format!("{name}: {e}")),
    }
}

/// `(i, j, ...)` or a single index.
fn indices<I: Int>(v: &Value<I>) -> Result<Vec<usize>> {
    match v {
        Value::Tuple(items) => items.iter().map(Value::to_index).collect(),
        v => Ok(vec![v.to_index()?]),
    }
}

/// `(a, b)` or `((a, b), (c, d), ...)`.
fn pairs<I: Int>(v: &Value<I>) -> Result<Vec<(usize, usize)>> {
    let pair = |v: &Value<I>| -> Result<(usize, usize)> {
        match v {
            Value::Tuple(p) if p.len() == 2 => Ok((p[0].to_index()?, p[1].to_index()?)),
            v => Err(Error::invalid(format!(
                "diagonal: expected a pair of axes (a, b), found {v}"
            ))),
        }
    };
    match v {
        Value::Tuple(items) if items.iter().all(|x| matches!(x, Value::Tuple(_))) => {
            items.iter().map(pair).collect()
        }
        v => Ok(vec![pair(v)?]),
    }
}

/// A `tile_view` offset entry: an integer selects, `_` keeps the whole dimension.
fn offset_entry<I: Int>(v: &Value<I>) -> Result<SliceArg> {
    match v {
        Value::Keep => Ok(SliceArg::full()),
        Value::Int(i) => Ok(SliceArg::Index(konst(i)?)),
        v => Err(Error::invalid(format!(
            "tile_view: offset entries are integers or '_', found {v}"
        ))),
    }
}

/// The view of argument 0 and a runner turning a view result into a value named after the call.
fn base<I: Int>(c: &mut Call<'_, I>) -> Result<ComposedLayout<i64>> {
    view_of(c.arg(0)?)
}

fn run<I: Int>(c: &mut Call<'_, I>, r: ViewResult<ComposedLayout<i64>>) -> Result<Value<I>> {
    r.map_err(|err| named(c.name, err)).and_then(value_of)
}

/// `select(L, dim, i)`.
pub(crate) fn select<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let v = base(c)?;
    run(c, view::select(&v, c.arg(1)?.to_index()?, c.arg(2)?.to_index()?))
}

/// `narrow(L, dim, start, len)`.
pub(crate) fn narrow<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let v = base(c)?;
    run(
        c,
        view::narrow(
            &v,
            c.arg(1)?.to_index()?,
            c.arg(2)?.to_index()?,
            c.arg(3)?.to_index()?,
        ),
    )
}

/// `permute(L, (p0, p1, ...))`.
pub(crate) fn permute<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let v = base(c)?;
    run(c, view::permute(&v, &indices(c.arg(1)?)?))
}

/// `broadcast(L, dims)`.
pub(crate) fn broadcast<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let v = base(c)?;
    run(c, view::broadcast(&v, &indices(c.arg(1)?)?))
}

/// `diagonal(L, pairs)`.
pub(crate) fn diagonal<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let v = base(c)?;
    run(c, view::diagonal(&v, &pairs(c.arg(1)?)?))
}

/// `tile_view(L, offset [, shape])`.
pub(crate) fn tile_view<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let v = base(c)?;
    let offset: Vec<SliceArg> = match c.arg(1)? {
        Value::Tuple(items) => items.iter().map(offset_entry).collect::<Result<_>>()?,
        x => vec![offset_entry(x)?],
    };
    let shape = if c.len() == 3 {
        Some(indices(c.arg(2)?)?)
    } else {
        None
    };
    run(c, view::tile_view(&v, &offset, shape.as_deref()))
}

/// `local_tile(L, tiler, coord)`.
pub(crate) fn local_tile<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let v = base(c)?;
    let tiler = tiler_concrete(&c.arg(1)?.to_tiler()?)?;
    if let Some(coord) = keep_coord(c.arg(2)?)? {
        return run(c, view::local_tile_keep(&v, &tiler, &coord));
    }
    let coord = c.arg(2)?.to_int_tuple()?.try_map(konst)?;
    run(c, view::local_tile(&v, &tiler, &coord))
}

/// `local_partition(L, threads, thread)`.
pub(crate) fn local_partition<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let v = base(c)?;
    let threads = match c.arg(1)? {
        Value::Layout(l) => Threads::Layout(concrete(l)?),
        x => Threads::Shape(x.to_int_tuple()?.try_map(konst)?),
    };
    if let Some(thread) = keep_coord(c.arg(2)?)? {
        return run(c, view::local_partition_keep(&v, &threads, &thread));
    }
    let thread = c.arg(2)?.to_int_tuple()?.try_map(konst)?;
    run(c, view::local_partition(&v, &threads, &thread))
}

/// A coordinate with `_` entries at the top level (CuTe's way to keep a mode), one entry per
/// mode (`None` for `_`); `None` when it has no `_` there.
fn keep_coord<I: Int>(v: &Value<I>) -> Result<Option<Vec<Option<tessera_ir::HTuple<i64>>>>> {
    let Value::Tuple(items) = v else {
        return Ok(None);
    };
    if !items.iter().any(|x| matches!(x, Value::Keep)) {
        return Ok(None);
    }
    items
        .iter()
        .map(|x| match x {
            Value::Keep => Ok(None),
            x => Ok(Some(x.to_int_tuple()?.try_map(konst)?)),
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

/// A tiler of concrete layouts.
fn tiler_concrete<I: Int>(t: &tessera_ir::algebra::Tiler<I>) -> Result<tessera_ir::algebra::Tiler<i64>> {
    use tessera_ir::algebra::Tiler;
    Ok(match t {
        Tiler::Keep => Tiler::Keep,
        Tiler::Layout(l) => Tiler::Layout(concrete(l)?),
        Tiler::Tuple(ts) => Tiler::Tuple(ts.iter().map(tiler_concrete).collect::<Result<_>>()?),
    })
}

/// `x[items]`: Python-like slicing of a layout, a shape or a view.
pub(crate) fn slice<I: Int>(
    base: Value<I>,
    items: &[SliceItem],
    env: &Env<I>,
    src: &str,
    col: usize,
) -> Result<Value<I>> {
    if !is_view_like(&base) {
        return Err(crate::lang::at_col(
            src,
            col,
            format!(
                "only layouts and views can be sliced, not {} ({base}); write the layout as shape:stride",
                base.kind()
            ),
        ));
    }
    let part = |x: &Option<Expr>| -> Result<Option<i64>> {
        match x {
            None => Ok(None),
            Some(x) => Ok(Some(konst(&eval_expr(x, env, src)?.to_int()?)?)),
        }
    };
    let args: Vec<SliceArg> = items
        .iter()
        .map(|it| match it {
            SliceItem::Index(x) => Ok(SliceArg::Index(konst(&eval_expr(x, env, src)?.to_int()?)?)),
            SliceItem::Range(a, b, c) => Ok(SliceArg::range(part(a)?, part(b)?, part(c)?)),
        })
        .collect::<Result<_>>()?;
    let v = view_of(&base)?;
    view::slice(&v, &args)
        .map_err(|err| named("slice", err))
        .and_then(value_of)
}
