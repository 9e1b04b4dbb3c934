//! The built-ins on int tuples, shapes and the modes of layouts.

use super::Call;
use super::algebra::{LayoutArg, stride_tuple_value};
use crate::lang::{Value, eval_at};
use tessera_ir::HTuple;
use tessera_ir::Int;
use tessera_ir::Layout;
use tessera_ir::Result;
use tessera_ir::shape;

/// The indices `i, j, ...` after the first argument.
fn path<I: Int>(c: &mut Call<'_, I>) -> Result<Vec<usize>> {
    (1..c.len()).map(|k| c.arg(k)?.to_index()).collect()
}

/// `wrap` (`w`) or `unwrap` of a layout or an int tuple.
fn wrap_any<I: Int>(c: &mut Call<'_, I>, w: bool) -> Result<Value<I>> {
    match c.arg(0)? {
        Value::Layout(l) => {
            let (s, d) = l.clone().into_parts();
            let (s, d) = if w {
                (s.wrap(), d.wrap())
            } else {
                (s.unwrap_single(), d.unwrap_single())
            };
            Ok(Value::Layout(Layout::new(s, d)?))
        }
        v => {
            let t = v.to_int_tuple()?;
            Ok(Value::from_int_tuple(&if w {
                t.wrap()
            } else {
                t.unwrap_single()
            }))
        }
    }
}

pub(super) fn wrap<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    wrap_any(c, true)
}

pub(super) fn unwrap<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    wrap_any(c, false)
}

pub(super) fn size<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(Value::Int(shape::size(&c.arg(0)?.to_shape()?)?))
}

pub(super) fn cosize<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(Value::Int(c.arg(0)?.to_layout()?.cosize()?))
}

pub(super) fn rank<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(Value::Int(I::lit(c.arg(0)?.to_shape()?.rank() as i64)))
}

pub(super) fn depth<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(Value::Int(I::lit(c.arg(0)?.to_shape()?.depth() as i64)))
}

pub(super) fn shape<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(Value::from_int_tuple(&c.arg(0)?.to_shape()?))
}

pub(super) fn stride<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let l = LayoutArg::of(c.arg(0)?)?;
    Ok(stride_tuple_value(l.inner().stride()))
}

pub(super) fn coshape<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(Value::from_int_tuple(&c.arg(0)?.to_layout()?.coshape()?))
}

pub(super) fn coprofile<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let cs = c.arg(0)?.to_layout()?.coshape()?;
    Ok(Value::from_int_tuple(&cs.map(|_| I::zero())))
}

pub(super) fn product<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(Value::Int(shape::size(&c.arg(0)?.to_int_tuple()?)?))
}

pub(super) fn product_each<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(Value::from_int_tuple(&shape::product_each(
        &c.arg(0)?.to_int_tuple()?,
    )?))
}

pub(super) fn prefix_product<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let init = if c.len() == 2 {
        c.arg(1)?.to_int()?
    } else {
        I::one()
    };
    Ok(Value::from_int_tuple(&shape::prefix_product(
        &c.arg(0)?.to_int_tuple()?,
        &init,
    )?))
}

pub(super) fn inner_product<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(Value::Int(shape::inner_product(
        &c.arg(0)?.to_int_tuple()?,
        &c.arg(1)?.to_int_tuple()?,
    )?))
}

pub(super) fn idx2crd<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let (idx, sh) = (c.arg(0)?.to_int_tuple()?, c.arg(1)?.to_shape()?);
    Ok(Value::from_int_tuple(&if c.len() == 3 {
        shape::idx2crd_strided(&idx, &sh, &c.arg(2)?.to_int_tuple()?)?
    } else {
        shape::idx2crd(&idx, &sh)?
    }))
}

pub(super) fn crd2idx<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    if c.len() == 3 {
        // PyCuTe's crd2idx(crd, shape, stride) is the layout shape:stride at crd.
        let l = Layout::new(c.arg(1)?.to_shape()?, c.arg(2)?.to_stride_tuple()?)
            .map_err(|err| c.err(format!("crd2idx: {err}")))?;
        return eval_at(&Value::Layout(l), c.arg(0)?);
    }
    Ok(Value::Int(shape::crd2idx(
        &c.arg(0)?.to_int_tuple()?,
        &c.arg(1)?.to_shape()?,
    )?))
}

pub(super) fn congruent<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(Value::Bool(
        c.arg(0)?.to_shape()?.congruent(&c.arg(1)?.to_shape()?),
    ))
}

pub(super) fn weakly_congruent<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(Value::Bool(
        c.arg(0)?.to_shape()?.weakly_congruent(&c.arg(1)?.to_shape()?),
    ))
}

pub(super) fn compatible<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(Value::Bool(shape::compatible(
        &c.arg(0)?.to_shape()?,
        &c.arg(1)?.to_shape()?,
    )?))
}

pub(super) fn common_refinement<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(Value::from_int_tuple(&shape::common_refinement(
        &c.arg(0)?.to_shape()?,
        &c.arg(1)?.to_shape()?,
    )?))
}

pub(super) fn common_coarsening<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(Value::from_int_tuple(&shape::common_coarsening(
        &c.arg(0)?.to_shape()?,
        &c.arg(1)?.to_shape()?,
    )?))
}

pub(super) fn fdiv<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(Value::Int(c.arg(0)?.to_int()?.floor_div(&c.arg(1)?.to_int()?)?))
}

pub(super) fn fmod<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(Value::Int(c.arg(0)?.to_int()?.floor_mod(&c.arg(1)?.to_int()?)?))
}

/// `slice_` (`keep`) or `dice_`.
fn slice_or_dice<I: Int>(c: &mut Call<'_, I>, keep: bool) -> Result<Value<I>> {
    let mut out = Vec::new();
    slice_dice(c.arg(0)?, c.arg(1)?, keep, &mut out).map_err(|m| c.err(format!("{}: {m}", c.name)))?;
    Ok(Value::Tuple(out))
}

pub(super) fn slice_<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    slice_or_dice(c, true)
}

pub(super) fn dice_<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    slice_or_dice(c, false)
}

pub(super) fn unflatten<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let flat = c.arg(0)?.to_int_tuple()?;
    let prof = c.arg(1)?.to_shape()?;
    Ok(Value::from_int_tuple(&HTuple::unflatten(
        flat.leaves().iter().cloned(),
        prof.profile(),
    )?))
}

pub(super) fn is_tuple<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(Value::Bool(matches!(c.arg(0)?, Value::Tuple(_))))
}

pub(super) fn repeat_like<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let x = c.arg(0)?.to_int()?;
    let p = c.arg(1)?.to_shape()?;
    Ok(Value::from_int_tuple(&HTuple::repeat_like(x, p.profile())))
}

pub(super) fn lift<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let path = path(c)?;
    // Each index pads that many zeros: keep it to tuple sizes the parser accepts.
    if let Some(big) = path.iter().find(|&&i| i >= 4096) {
        return Err(c.err(format!("lift: mode index {big} is too large (at most 4095)")));
    }
    let x = c.arg(0)?.to_int_tuple()?;
    Ok(Value::from_int_tuple(&x.lift(&path, &I::zero())))
}

/// PyCuTe's `slice_` (`keep == true`: the parts of `b` under `_` entries of `c`) and `dice_`
/// (the parts under integer entries), gathered into one tuple.
fn slice_dice<I: Int>(
    c: &Value<I>,
    b: &Value<I>,
    keep: bool,
    out: &mut Vec<Value<I>>,
) -> std::result::Result<(), String> {
    match c {
        Value::Keep => {
            if keep {
                out.push(b.clone());
            }
            Ok(())
        }
        Value::Int(_) => {
            if !keep {
                out.push(b.clone());
            }
            Ok(())
        }
        Value::Tuple(cs) => match b {
            Value::Tuple(bs) if bs.len() == cs.len() => {
                for (x, y) in cs.iter().zip(bs) {
                    slice_dice(x, y, keep, out)?;
                }
                Ok(())
            }
            _ => Err(format!("coordinate {c} does not match {b}")),
        },
        _ => Err(format!("expected a coordinate of integers and '_', found {c}")),
    }
}

/// `f(a, b)` on two int tuples.
fn tuple_op<I: Int>(
    c: &mut Call<'_, I>,
    f: fn(&HTuple<I>, &HTuple<I>) -> Result<HTuple<I>>,
) -> Result<Value<I>> {
    Ok(Value::from_int_tuple(&f(
        &c.arg(0)?.to_int_tuple()?,
        &c.arg(1)?.to_int_tuple()?,
    )?))
}

pub(super) fn shape_div<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    tuple_op(c, tessera_ir::algebra::shape_div)
}

pub(super) fn ceil_div<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    tuple_op(c, tessera_ir::algebra::ceil_div)
}

pub(super) fn elem_scale<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    tuple_op(c, tessera_ir::algebra::elem_scale)
}
