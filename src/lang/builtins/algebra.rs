//! The algebra and construction built-ins: each takes its evaluated arguments from a
//! [`Call`], whose arity the registry has checked.

use super::Call;
use crate::lang::{Value, at, eval_expr};
use tessera_ir::ComposedLayout;
use tessera_ir::HTuple;
use tessera_ir::Int;
use tessera_ir::Layout;
use tessera_ir::Result;
use tessera_ir::Stride;
use tessera_ir::algebra::{self as alg, Tiler};
use tessera_ir::text::{BinOp, Expr, ExprKind};

/// A layout-like argument: a layout, a bare shape, or a composed layout.
pub(super) enum LayoutArg<I> {
    Plain(Layout<I>),
    Composed(ComposedLayout<I>),
}

impl<I: Int> LayoutArg<I> {
    pub(super) fn of(v: &Value<I>) -> Result<Self> {
        match v {
            Value::Composed(c) => Ok(LayoutArg::Composed(c.clone())),
            v => Ok(LayoutArg::Plain(v.to_layout()?)),
        }
    }
    /// [`LayoutArg::of`], taking the value.
    pub(super) fn take(v: Value<I>) -> Result<Self> {
        match v {
            Value::Composed(c) => Ok(LayoutArg::Composed(c)),
            v => Ok(LayoutArg::Plain(v.into_layout()?)),
        }
    }
    pub(super) fn inner(&self) -> &Layout<I> {
        match self {
            LayoutArg::Plain(l) => l,
            LayoutArg::Composed(c) => &c.inner,
        }
    }
    /// Applies `f` to the layout, keeping a swizzle and offset around it.
    fn map(&self, f: impl FnOnce(&Layout<I>) -> Result<Layout<I>>) -> Result<Value<I>> {
        match self {
            LayoutArg::Plain(l) => Ok(Value::Layout(f(l)?)),
            LayoutArg::Composed(c) => Ok(Value::Composed(c.with_inner(f(&c.inner)?))),
        }
    }
}

/// `f(A, tiler)` on a layout-like `A`, keeping its swizzle and offset.
fn tiler_op<I: Int>(
    c: &mut Call<'_, I>,
    f: fn(&Layout<I>, &Tiler<I>) -> Result<Layout<I>>,
) -> Result<Value<I>> {
    let a = LayoutArg::take(c.take(0)?)?;
    let t = c.take(1)?.into_tiler()?;
    a.map(|l| f(l, &t))
}

/// `f(L)` on a plain layout.
fn unary<I: Int>(c: &mut Call<'_, I>, f: fn(&Layout<I>) -> Result<Layout<I>>) -> Result<Value<I>> {
    Ok(Value::Layout(f(&c.take(0)?.into_layout()?)?))
}

/// `coalesce`/`coalesce_z`, whole or by mode.
fn coalesce_any<I: Int>(c: &mut Call<'_, I>, z: bool) -> Result<Value<I>> {
    let a = LayoutArg::of(c.arg(0)?)?;
    let prof = if c.len() == 2 {
        Some(c.arg(1)?.to_profile()?)
    } else {
        None
    };
    a.map(|l| match (&prof, z) {
        (None, false) => alg::coalesce(l),
        (None, true) => alg::coalesce_z(l),
        (Some(p), false) => alg::coalesce_by(l, p),
        (Some(p), true) => alg::coalesce_z_by(l, p),
    })
}

pub(super) fn coalesce<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    coalesce_any(c, false)
}

pub(super) fn coalesce_z<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    coalesce_any(c, true)
}

pub(super) fn filter<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    unary(c, alg::filter)
}

pub(super) fn composition<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    tiler_op(c, alg::composition_tiler)
}

pub(super) fn complement<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let a = c.arg(0)?.to_layout()?;
    let t = if c.len() == 2 {
        Some(c.arg(1)?.to_shape()?)
    } else {
        None
    };
    Ok(Value::Layout(alg::complement(&a, t.as_ref())?))
}

pub(super) fn logical_divide<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    tiler_op(c, alg::logical_divide)
}

pub(super) fn zipped_divide<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    tiler_op(c, alg::zipped_divide)
}

pub(super) fn tiled_divide<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    tiler_op(c, alg::tiled_divide)
}

pub(super) fn flat_divide<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    tiler_op(c, alg::flat_divide)
}

pub(super) fn logical_product<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    tiler_op(c, alg::logical_product)
}

pub(super) fn zipped_product<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    tiler_op(c, alg::zipped_product)
}

pub(super) fn tiled_product<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    tiler_op(c, alg::tiled_product)
}

pub(super) fn flat_product<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    tiler_op(c, alg::flat_product)
}

/// A rank-sensitive product of a layout-like `A` and a layout `B`.
fn rank_sensitive<I: Int>(
    c: &mut Call<'_, I>,
    f: fn(&Layout<I>, &Layout<I>) -> Result<Layout<I>>,
) -> Result<Value<I>> {
    let a = LayoutArg::of(c.arg(0)?)?;
    let b = c.arg(1)?.to_layout()?;
    a.map(|l| f(l, &b))
}

pub(super) fn blocked_product<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    rank_sensitive(c, alg::blocked_product)
}

pub(super) fn raked_product<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    rank_sensitive(c, alg::raked_product)
}

pub(super) fn right_inverse<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    inverse(c, alg::right_inverse, alg::right_inverse_swizzled)
}

pub(super) fn left_inverse<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    inverse(c, alg::left_inverse, alg::left_inverse_swizzled)
}

/// An inverse of a layout, or of a swizzled layout `Sw o L`: CuTe's `Sw' o inverse(L)`,
/// checked pointwise by the algebra (an error where CuTe's answer breaks the definition); a
/// plain layout where CuTe drops an identity swizzle.
fn inverse<I: Int>(
    c: &mut Call<'_, I>,
    plain: fn(&Layout<I>) -> Result<Layout<I>>,
    swizzled: fn(&ComposedLayout<I>) -> Result<ComposedLayout<I>>,
) -> Result<Value<I>> {
    match c.take(0)? {
        Value::Composed(v) => {
            let g = swizzled(&v)?;
            Ok(match g.swizzle {
                None => Value::Layout(g.inner),
                Some(_) => Value::Composed(g),
            })
        }
        v => Ok(Value::Layout(plain(&v.into_layout()?)?)),
    }
}

pub(super) fn nullspace<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    unary(c, alg::nullspace)
}

pub(super) fn layout_add<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(Value::Layout(alg::layout_add(
        &c.arg(0)?.to_layout()?,
        &c.arg(1)?.to_layout()?,
    )?))
}

pub(super) fn greatest_common_domain<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(Value::Layout(alg::greatest_common_domain(
        &c.arg(0)?.to_shape()?,
        &c.arg(1)?.to_shape()?,
    )?))
}

pub(super) fn recast<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let a = LayoutArg::of(c.arg(0)?)?;
    let (p, q) = match &c.args[1].kind {
        // `p/q` is read as written: the division is not evaluated.
        ExprKind::Arith(p, steps) if steps.len() == 1 && steps[0].op == BinOp::Div => {
            let konst = |x: &Expr| constant(&eval_expr(x, c.env, c.src)?, c.src, x);
            (konst(p)?, konst(&steps[0].rhs)?)
        }
        // Any other scale is its value (its expression may have been moved into it).
        _ => (constant(c.arg(1)?, c.src, &c.args[1])?, 1),
    };
    recast_arg(a, p, q)
}

/// `recast` of a layout, or of a composed layout with its offset and swizzle recast too.
fn recast_arg<I: Int>(a: LayoutArg<I>, p: i64, q: i64) -> Result<Value<I>> {
    match a {
        LayoutArg::Plain(l) => Ok(Value::Layout(alg::recast(&l, p, q)?)),
        LayoutArg::Composed(c) => Ok(Value::Composed(alg::recast_composed(&c, p, q)?)),
    }
}

/// A recast scale: a constant integer.
fn constant<I: Int>(v: &Value<I>, src: &str, e: &Expr) -> Result<i64> {
    v.to_int()?
        .as_const()
        .ok_or_else(|| at(src, e, "the recast scale must be a constant"))
}

pub(super) fn max_common_vector<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(Value::Int(alg::max_common_vector(
        &c.arg(0)?.to_layout()?,
        &c.arg(1)?.to_layout()?,
    )?))
}

/// `make_layout`, read as CuTe reads it, by the kinds of its arguments:
/// * every argument a layout: the layouts as the modes, `make_layout(L0, L1, ...)` (one
///   layout `L` gives the rank-1 `(L)`, as CuTe's one-argument overload); one tuple of
///   layouts is its items as the modes (PyCuTe's list form);
/// * no argument a layout: `make_layout(shape)` is the compact column-major layout of the
///   shape (a size-1 mode has stride 0, as CuTe C++ prints it), `make_layout(shape, stride)`
///   is `shape:stride`;
/// * anything else (layouts mixed with integer tuples, three integer tuples) is an error at the
///   argument that breaks the rule, with the text to write.
pub(super) fn make_layout<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let vals: Vec<Value<I>> = (0..c.len()).map(|k| c.arg(k).cloned()).collect::<Result<_>>()?;
    let is_layout = |v: &Value<I>| matches!(v, Value::Layout(_));
    let modes = |vs: &[Value<I>]| -> Result<Value<I>> {
        let ls: Result<Vec<Layout<I>>> = vs.iter().map(Value::to_layout).collect();
        Ok(Value::Layout(Layout::concat(ls?)))
    };
    if let [Value::Tuple(items)] = vals.as_slice()
        && !items.is_empty()
        && items.iter().all(is_layout)
    {
        return modes(items);
    }
    if vals.iter().all(is_layout) {
        return modes(&vals);
    }
    if vals.iter().any(is_layout) {
        let k = vals.iter().position(|v| !is_layout(v)).unwrap_or(0);
        let fix = match vals[k].to_layout() {
            Ok(l) if matches!(vals[k], Value::Int(_) | Value::Tuple(_)) => {
                format!("; as a mode write the layout `{l}`")
            }
            _ => String::new(),
        };
        return Err(at(
            c.src,
            &c.args[k],
            format!(
                "make_layout takes layouts (its modes) or a shape and a stride, not both: this \
                 argument is {} ({}){fix}",
                vals[k].kind(),
                vals[k]
            ),
        ));
    }
    if c.len() > 2 {
        return Err(at(
            c.src,
            &c.args[2],
            "make_layout(shape, stride) takes two integer tuples; to make a layout of modes, \
             give each as a layout (e.g. `4:1`)",
        ));
    }
    let shape = vals[0]
        .to_int_tuple()
        .map_err(|e| at(c.src, &c.args[0], format!("make_layout's shape: {e}")))?;
    let layout = match vals.get(1) {
        None => tessera_ir::atom::cute::compact(&shape),
        Some(d) => {
            let stride = d
                .to_stride_tuple()
                .map_err(|e| at(c.src, &c.args[1], format!("make_layout's stride: {e}")))?;
            tessera_ir::text::make_layout(shape, stride)
        }
    };
    let blame = &c.args[c.len() - 1];
    Ok(Value::Layout(
        layout.map_err(|e| at(c.src, blame, e.to_string()))?,
    ))
}

pub(super) fn make_layout_like<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    unary(c, alg::make_layout_like)
}

pub(super) fn make_ordered_layout<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(Value::Layout(alg::make_ordered_layout(
        &c.arg(0)?.to_int_tuple()?,
        &c.arg(1)?.to_int_tuple()?,
    )?))
}

pub(super) fn make_identity_layout<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(Value::Layout(alg::identity_layout(&c.arg(0)?.to_shape()?)?))
}

pub(super) fn make_basis_like<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(stride_tuple_value(&alg::make_basis_like(&c.arg(0)?.to_shape()?)))
}

pub(super) fn tiler_to_layout<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(Value::Layout(alg::tiler_to_layout(&c.arg(0)?.to_tiler()?)?))
}

/// A stride tuple as a value (strides print as literals).
pub(super) fn stride_tuple_value<I: Int>(t: &HTuple<Stride<I>>) -> Value<I> {
    if let Some(d) = t.as_leaf() {
        return match d {
            Stride::Int(v) => Value::Int(v.clone()),
            s => Value::Stride(s.clone()),
        };
    }
    Value::Tuple(t.modes().iter().map(stride_tuple_value).collect())
}

/// `filter(L [, profile])`.
pub(super) fn filter_any<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    if c.len() == 1 {
        return filter(c);
    }
    let p = c.arg(1)?.to_profile()?;
    Ok(Value::Layout(alg::filter_by(&c.arg(0)?.to_layout()?, &p)?))
}

/// `filter_zeros(L [, profile])`.
pub(super) fn filter_zeros<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let l = c.arg(0)?.to_layout()?;
    Ok(Value::Layout(if c.len() == 2 {
        alg::filter_zeros_by(&l, &c.arg(1)?.to_int_tuple()?)?
    } else {
        alg::filter_zeros(&l)?
    }))
}

/// `composition(A, B)` where `A` may be a swizzle: `Sw<..> o B`, as the operator `o` reads it.
pub(super) fn composition_any<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    if let Value::Swizzle(_) = c.arg(0)? {
        let (a, b) = (c.take(0)?, c.take(1)?);
        return crate::lang::compose(a, b).map_err(|e| c.err(format!("composition: {e}")));
    }
    composition(c)
}

/// `upcast(L, n)` / `downcast(L, n)`: recast by `n` or `1/n`.
fn cast<I: Int>(c: &mut Call<'_, I>, up: bool) -> Result<Value<I>> {
    let a = LayoutArg::of(c.arg(0)?)?;
    let n = constant(c.arg(1)?, c.src, &c.args[1])?;
    if up {
        recast_arg(a, n, 1)
    } else {
        recast_arg(a, 1, n)
    }
}

pub(super) fn upcast<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    cast(c, true)
}

pub(super) fn downcast<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    cast(c, false)
}

pub(super) fn max_common_layout<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    Ok(Value::Layout(alg::max_common_layout(
        &c.arg(0)?.to_layout()?,
        &c.arg(1)?.to_layout()?,
    )?))
}

pub(super) fn tile_to_shape<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let order = if c.len() == 3 {
        Some(c.arg(2)?.to_int_tuple()?)
    } else {
        None
    };
    Ok(Value::Layout(alg::tile_to_shape(
        &c.arg(0)?.to_layout()?,
        &c.arg(1)?.to_shape()?,
        order.as_ref(),
    )?))
}

pub(super) fn make_fragment_like<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    match c.arg(0)? {
        Value::Layout(l) => Ok(Value::Layout(alg::make_fragment_like(l)?)),
        v => Ok(Value::Layout(Layout::compact(&v.to_shape()?)?)),
    }
}
