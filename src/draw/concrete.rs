//! Values at concrete integers: a drawing evaluates every cell, so a layout over symbolic
//! integers must have every parameter bound first (`--bind`), and is then evaluated with
//! plain `i64` arithmetic.

use super::DrawError;
use crate::lang::Value;
use tessera_ir::{ComposedLayout, HTuple, Int, Layout, Stride};

/// The constant of `v`, or an error naming the unbound symbolic value.
pub(crate) fn konst<I: Int>(v: &I) -> Result<i64, DrawError> {
    v.as_const().ok_or_else(|| {
        DrawError::invalid(format!(
            "cannot draw the symbolic value {v}: bind every parameter (--bind M=256)"
        ))
    })
}

/// The sizes of an int tuple's leaves, as constants.
pub(crate) fn leaves<I: Int>(t: &HTuple<I>) -> Result<Vec<i64>, DrawError> {
    t.leaves().iter().map(konst).collect()
}

fn stride<I: Int>(d: &Stride<I>) -> Result<Stride<i64>, DrawError> {
    Ok(match d {
        Stride::Int(v) => Stride::Int(konst(v)?),
        Stride::F2(v) => Stride::F2(*v),
        Stride::Basis(_) => {
            let mut acc = Stride::zero();
            for (p, v) in d.terms() {
                acc = acc.add(&Stride::basis(konst(&v)?, &p))?;
            }
            acc
        }
    })
}

/// The layout at concrete integers.
pub(crate) fn layout<I: Int>(l: &Layout<I>) -> Result<Layout<i64>, DrawError> {
    let shape = l.shape().try_map(konst)?;
    let strides = l.stride().try_map(stride)?;
    Ok(Layout::new(shape, strides)?)
}

/// A drawable value at concrete integers: a layout, a composed (swizzled, offset) layout,
/// or a bare shape (its compact column-major layout). A one-element tuple of such a value
/// (`(Sw<3,3,3> o L)` in parentheses) is the value.
pub(crate) fn value<I: Int>(v: &Value<I>) -> Result<Value<i64>, DrawError> {
    match v {
        Value::Layout(l) => Ok(Value::Layout(layout(l)?)),
        Value::Composed(c) => Ok(Value::Composed(ComposedLayout {
            swizzle: c.swizzle,
            offset: konst(&c.offset)?,
            inner: layout(&c.inner)?,
        })),
        Value::Tuple(items) if items.len() == 1 && !matches!(items[0], Value::Int(_) | Value::Tuple(_)) => {
            value(&items[0])
        }
        Value::Int(_) | Value::Tuple(_) => Ok(Value::Layout(layout(&v.to_layout()?)?)),
        Value::Swizzle(s) => Err(DrawError::invalid(format!(
            "{s} alone has no shape to draw: draw it over a layout, e.g. {s} o (8,64):(64,1)"
        ))),
        other => Err(DrawError::invalid(format!(
            "cannot draw {} ({other}): expected a layout",
            other.kind()
        ))),
    }
}

/// The shape of a drawable value's domain.
pub(crate) fn shape(v: &Value<i64>) -> Result<HTuple<i64>, DrawError> {
    Ok(v.to_shape()?)
}
