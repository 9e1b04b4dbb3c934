//! The built-ins that edit top-level modes (`append`, `prepend`, `replace`, `group_modes`):
//! on a layout they edit its shape and stride alike, on anything else its int tuple.

use super::Call;
use crate::lang::Value;
use tessera_ir::algebra::{self as alg, End};
use tessera_ir::{Error, Int, Layout, Result};

/// The argument `k` as an element of `x`: a layout for a layout `x` (`1:0` when absent, as
/// CuTe's default), else an int tuple (required).
fn element<I: Int>(c: &Call<'_, I>, k: usize, layout: bool) -> Result<Value<I>> {
    if k < c.len() {
        return Ok(c.arg(k)?.clone());
    }
    if layout {
        return Ok(Value::Layout(Layout::leaf(I::one(), I::zero())));
    }
    Err(c.err(format!("{}: an int tuple needs the element to add", c.name)))
}

/// `append`/`prepend` (`end`): `(x [, elem [, up_to]])`.
fn extend<I: Int>(c: &mut Call<'_, I>, end: End) -> Result<Value<I>> {
    let up_to = if c.len() == 3 {
        Some(c.arg(2)?.to_index()?)
    } else {
        None
    };
    match c.arg(0)? {
        Value::Layout(l) => {
            let x = element(c, 1, true)?.to_layout()?;
            Ok(Value::Layout(alg::on_layouts(
                l,
                &x,
                |a, b| alg::extend(a, b, up_to, end),
                |a, b| alg::extend(a, b, up_to, end),
            )?))
        }
        v => {
            let x = element(c, 1, false)?.to_int_tuple()?;
            Ok(Value::from_int_tuple(&alg::extend(
                &v.to_int_tuple()?,
                &x,
                up_to,
                end,
            )?))
        }
    }
}

pub(super) fn append<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    extend(c, End::Back)
}

pub(super) fn prepend<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    extend(c, End::Front)
}

pub(super) fn replace<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let i = c.arg(1)?.to_index()?;
    match c.arg(0)? {
        Value::Layout(l) => {
            let x = c.arg(2)?.to_layout()?;
            Ok(Value::Layout(alg::on_layouts(
                l,
                &x,
                |a, b| alg::replace(a, i, b),
                |a, b| alg::replace(a, i, b),
            )?))
        }
        v => {
            let x = c.arg(2)?.to_int_tuple()?;
            Ok(Value::from_int_tuple(&alg::replace(&v.to_int_tuple()?, i, &x)?))
        }
    }
}

/// `group_modes(x, begin [, end])` and its CuTe name `group`.
pub(super) fn group_modes<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let b = c.arg(1)?.to_index()?;
    let e = if c.len() == 3 {
        Some(c.arg(2)?.to_index()?)
    } else {
        None
    };
    match c.arg(0)? {
        Value::Layout(l) => {
            let s = alg::group_modes(l.shape(), b, e)?;
            let d = alg::group_modes(l.stride(), b, e)?;
            Ok(Value::Layout(Layout::new(s, d)?))
        }
        Value::Composed(_) | Value::Swizzle(_) => Err(Error::invalid(format!(
            "{}: expected a layout or an int tuple, found {}",
            c.name,
            c.arg(0)?.kind()
        ))),
        v => Ok(Value::from_int_tuple(&alg::group_modes(
            &v.to_int_tuple()?,
            b,
            e,
        )?)),
    }
}
