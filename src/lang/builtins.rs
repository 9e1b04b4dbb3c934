//! The built-in functions of the expression language.

use super::{Env, Value, at, eval_expr};
use tessera_ir::algebra::{self as alg, Tiler};
use tessera_ir::error::Result;
use tessera_ir::htuple::HTuple;
use tessera_ir::int::Int;
use tessera_ir::layout::Layout;
use tessera_ir::shape;
use tessera_ir::swizzle::ComposedLayout;
use tessera_ir::text::{BinOp, Expr, ExprKind};

/// Every built-in name with its argument summary, for `--help` and error messages.
pub const BUILTINS: &[(&str, &str)] = &[
    ("coalesce", "L [, profile]"),
    ("coalesce_z", "L [, profile]"),
    ("filter", "L"),
    ("composition", "A, B"),
    ("complement", "A [, cotarget]"),
    ("logical_divide", "A, tiler"),
    ("zipped_divide", "A, tiler"),
    ("tiled_divide", "A, tiler"),
    ("flat_divide", "A, tiler"),
    ("logical_product", "A, tiler"),
    ("zipped_product", "A, tiler"),
    ("tiled_product", "A, tiler"),
    ("flat_product", "A, tiler"),
    ("blocked_product", "A, B"),
    ("raked_product", "A, B"),
    ("right_inverse", "L"),
    ("left_inverse", "L"),
    ("nullspace", "L"),
    ("layout_add", "A, B"),
    ("greatest_common_domain", "A, B"),
    ("recast", "L, scale (an integer or p/q)"),
    ("make_layout", "L0, L1, ..."),
    ("make_layout_like", "L"),
    ("make_ordered_layout", "shape, order"),
    ("make_identity_layout", "shape"),
    ("make_basis_like", "shape"),
    ("tiler_to_layout", "tiler"),
    ("max_common_vector", "A, B"),
    ("select", "x, (i, j, ...) | L, dim, i (a view)"),
    ("take", "x, begin, end"),
    ("get", "x, i, j, ..."),
    ("flatten", "x"),
    ("wrap", "x"),
    ("unwrap", "x"),
    ("size", "x"),
    ("cosize", "L"),
    ("rank", "x"),
    ("depth", "x"),
    ("shape", "L"),
    ("stride", "L"),
    ("coshape", "L"),
    ("coprofile", "L"),
    ("product", "t"),
    ("product_each", "t"),
    ("prefix_product", "t [, init]"),
    ("inner_product", "a, b"),
    ("idx2crd", "idx, shape [, stride]"),
    ("crd2idx", "crd, shape [, stride]"),
    ("congruent", "a, b"),
    ("weakly_congruent", "a, b"),
    ("compatible", "a, b"),
    ("common_refinement", "a, b"),
    ("common_coarsening", "a, b"),
    ("fdiv", "a, b (floor division)"),
    ("fmod", "a, b (floor remainder)"),
    ("slice_", "crd, x (the parts under '_')"),
    ("dice_", "crd, x (the parts under integers)"),
    ("unflatten", "flat, profile"),
    ("is_tuple", "x"),
    ("repeat_like", "x, profile"),
    ("lift", "x, i, j, ..."),
    // Views (eval/views.rs): each returns a view `OFF o L`.
    ("tile_view", "L, offset [, shape]"),
    ("narrow", "L, dim, start, len"),
    ("permute", "L, (p0, p1, ...)"),
    ("broadcast", "L, dims"),
    ("diagonal", "L, (a, b) | ((a, b), (c, d), ...)"),
    ("local_tile", "L, tiler, coord"),
    (
        "local_partition",
        "L, threads (layout or shape), thread index or coordinate",
    ),
];

pub(super) fn arity(src: &str, e: &Expr, name: &str, args: &[Expr], lo: usize, hi: usize) -> Result<()> {
    if args.len() < lo || args.len() > hi {
        let want = if lo == hi {
            format!("{lo}")
        } else {
            format!("{lo} to {hi}")
        };
        return Err(at(
            src,
            e,
            format!(
                "{name} takes {want} argument{}, got {}",
                if hi == 1 { "" } else { "s" },
                args.len()
            ),
        ));
    }
    Ok(())
}

/// A layout-like argument: a layout, a bare shape, or a composed layout.
enum LayoutArg<I> {
    Plain(Layout<I>),
    Composed(ComposedLayout<I>),
}

impl<I: Int> LayoutArg<I> {
    fn of(v: &Value<I>) -> Result<Self> {
        match v {
            Value::Composed(c) => Ok(LayoutArg::Composed(c.clone())),
            v => Ok(LayoutArg::Plain(v.to_layout()?)),
        }
    }
    fn inner(&self) -> &Layout<I> {
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

/// Calls the built-in `name`.
pub(super) fn call<I: Int>(
    name: &str,
    args: &[Expr],
    vals: &[Result<Value<I>>],
    env: &Env<I>,
    src: &str,
    e: &Expr,
) -> Result<Value<I>> {
    // Arguments arrive evaluated, so that this large function is not on the stack of the
    // recursion over nested calls.
    let ev = |k: usize| vals[k].as_ref().map_err(tessera_ir::Error::clone);
    let ar = |lo: usize, hi: usize| arity(src, e, name, args, lo, hi);
    let tiler_op = |f: fn(&Layout<I>, &Tiler<I>) -> Result<Layout<I>>| -> Result<Value<I>> {
        ar(2, 2)?;
        let a = LayoutArg::of(ev(0)?)?;
        let t = ev(1)?.to_tiler()?;
        a.map(|l| f(l, &t))
    };
    let unary = |f: fn(&Layout<I>) -> Result<Layout<I>>| -> Result<Value<I>> {
        ar(1, 1)?;
        Ok(Value::Layout(f(&ev(0)?.to_layout()?)?))
    };
    let binary = |f: fn(&Layout<I>, &Layout<I>) -> Result<Layout<I>>| -> Result<Value<I>> {
        ar(2, 2)?;
        Ok(Value::Layout(f(&ev(0)?.to_layout()?, &ev(1)?.to_layout()?)?))
    };
    let shape_pred = |f: fn(&HTuple<I>, &HTuple<I>) -> Result<bool>| -> Result<Value<I>> {
        ar(2, 2)?;
        Ok(Value::Bool(f(&ev(0)?.to_shape()?, &ev(1)?.to_shape()?)?))
    };
    match name {
        "coalesce" | "coalesce_z" => {
            ar(1, 2)?;
            let a = LayoutArg::of(ev(0)?)?;
            let prof = if args.len() == 2 {
                Some(ev(1)?.to_profile()?)
            } else {
                None
            };
            let z = name == "coalesce_z";
            a.map(|l| match (&prof, z) {
                (None, false) => alg::coalesce(l),
                (None, true) => alg::coalesce_z(l),
                (Some(p), false) => alg::coalesce_by(l, p),
                (Some(p), true) => alg::coalesce_z_by(l, p),
            })
        }
        "filter" => unary(alg::filter),
        "composition" => {
            ar(2, 2)?;
            let a = LayoutArg::of(ev(0)?)?;
            let t = ev(1)?.to_tiler()?;
            a.map(|l| alg::composition_tiler(l, &t))
        }
        "complement" => {
            ar(1, 2)?;
            let a = ev(0)?.to_layout()?;
            let t = if args.len() == 2 {
                Some(ev(1)?.to_shape()?)
            } else {
                None
            };
            Ok(Value::Layout(alg::complement(&a, t.as_ref())?))
        }
        "logical_divide" => tiler_op(alg::logical_divide),
        "zipped_divide" => tiler_op(alg::zipped_divide),
        "tiled_divide" => tiler_op(alg::tiled_divide),
        "flat_divide" => tiler_op(alg::flat_divide),
        "logical_product" => tiler_op(alg::logical_product),
        "zipped_product" => tiler_op(alg::zipped_product),
        "tiled_product" => tiler_op(alg::tiled_product),
        "flat_product" => tiler_op(alg::flat_product),
        "blocked_product" | "raked_product" => {
            ar(2, 2)?;
            let a = LayoutArg::of(ev(0)?)?;
            let b = ev(1)?.to_layout()?;
            let f = if name == "blocked_product" {
                alg::blocked_product
            } else {
                alg::raked_product
            };
            a.map(|l| f(l, &b))
        }
        "right_inverse" => unary(alg::right_inverse),
        "left_inverse" => unary(alg::left_inverse),
        "nullspace" => unary(alg::nullspace),
        "layout_add" => binary(alg::layout_add),
        "greatest_common_domain" => {
            ar(2, 2)?;
            Ok(Value::Layout(alg::greatest_common_domain(
                &ev(0)?.to_shape()?,
                &ev(1)?.to_shape()?,
            )?))
        }
        "recast" => {
            ar(2, 2)?;
            let a = LayoutArg::of(ev(0)?)?;
            let (p, q) = rational(&args[1], env, src)?;
            a.map(|l| alg::recast(l, p, q))
        }
        "make_layout" => {
            if args.is_empty() {
                return Err(at(src, e, "make_layout takes at least one layout"));
            }
            let vals: Vec<Value<I>> = (0..args.len()).map(|k| ev(k).cloned()).collect::<Result<_>>()?;
            let parts: Vec<Value<I>> = match vals.as_slice() {
                [Value::Tuple(items)] if items.iter().any(|v| matches!(v, Value::Layout(_))) => items.clone(),
                _ => vals,
            };
            let ls: Result<Vec<Layout<I>>> = parts.iter().map(Value::to_layout).collect();
            Ok(Value::Layout(Layout::concat(ls?)))
        }
        "make_layout_like" => unary(alg::make_layout_like),
        "make_ordered_layout" => {
            ar(2, 2)?;
            Ok(Value::Layout(alg::make_ordered_layout(
                &ev(0)?.to_int_tuple()?,
                &ev(1)?.to_int_tuple()?,
            )?))
        }
        "make_identity_layout" => {
            ar(1, 1)?;
            Ok(Value::Layout(alg::identity_layout(&ev(0)?.to_shape()?)?))
        }
        "make_basis_like" => {
            ar(1, 1)?;
            let b = alg::make_basis_like(&ev(0)?.to_shape()?);
            Ok(stride_tuple_value(&b))
        }
        "tiler_to_layout" => {
            ar(1, 1)?;
            Ok(Value::Layout(alg::tiler_to_layout(&ev(0)?.to_tiler()?)?))
        }
        "max_common_vector" => {
            ar(2, 2)?;
            Ok(Value::Int(alg::max_common_vector(
                &ev(0)?.to_layout()?,
                &ev(1)?.to_layout()?,
            )?))
        }
        "select" if args.len() == 3 => super::views::call(name, args, vals, src, e),
        "tile_view" | "narrow" | "permute" | "broadcast" | "diagonal" | "local_tile" | "local_partition" => {
            super::views::call(name, args, vals, src, e)
        }
        "select" => {
            ar(2, 2)?;
            let idx = index_list(ev(1)?)?;
            map_modes(ev(0)?, |m| m.select(&idx), |t| t.select(&idx))
        }
        "take" => {
            ar(3, 3)?;
            let (b, en) = (ev(1)?.to_index()?, ev(2)?.to_index()?);
            map_modes(ev(0)?, |m| m.take(b, en), |t| t.take(b, en))
        }
        "get" => {
            ar(1, usize::MAX)?;
            let path: Vec<usize> = (1..args.len())
                .map(|k| ev(k)?.to_index())
                .collect::<Result<_>>()?;
            let v = ev(0)?;
            let missing = || at(src, e, format!("get: no mode at path {path:?}"));
            match &v {
                Value::Layout(l) => Ok(Value::Layout(l.get(&path).ok_or_else(missing)?)),
                v => Ok(Value::from_int_tuple(
                    &v.to_int_tuple()?.get(&path).ok_or_else(missing)?,
                )),
            }
        }
        "flatten" => {
            ar(1, 1)?;
            match ev(0)? {
                Value::Layout(l) => Ok(Value::Layout(l.flatten())),
                v => Ok(Value::from_int_tuple(&v.to_int_tuple()?.flatten())),
            }
        }
        "wrap" | "unwrap" => {
            ar(1, 1)?;
            let w = name == "wrap";
            match ev(0)? {
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
        "size" => {
            ar(1, 1)?;
            Ok(Value::Int(shape::size(&ev(0)?.to_shape()?)?))
        }
        "cosize" => {
            ar(1, 1)?;
            Ok(Value::Int(ev(0)?.to_layout()?.cosize()?))
        }
        "rank" | "depth" => {
            ar(1, 1)?;
            let s = ev(0)?.to_shape()?;
            let n = if name == "rank" { s.rank() } else { s.depth() };
            Ok(Value::Int(I::lit(n as i64)))
        }
        "shape" => {
            ar(1, 1)?;
            Ok(Value::from_int_tuple(&ev(0)?.to_shape()?))
        }
        "stride" => {
            ar(1, 1)?;
            let v = ev(0)?;
            let l = LayoutArg::of(v)?;
            Ok(stride_tuple_value(l.inner().stride()))
        }
        "coshape" | "coprofile" => {
            ar(1, 1)?;
            let cs = ev(0)?.to_layout()?.coshape()?;
            if name == "coshape" {
                Ok(Value::from_int_tuple(&cs))
            } else {
                Ok(Value::from_int_tuple(&cs.map(|_| I::zero())))
            }
        }
        "product" => {
            ar(1, 1)?;
            Ok(Value::Int(shape::size(&ev(0)?.to_int_tuple()?)?))
        }
        "product_each" => {
            ar(1, 1)?;
            Ok(Value::from_int_tuple(&shape::product_each(
                &ev(0)?.to_int_tuple()?,
            )?))
        }
        "prefix_product" => {
            ar(1, 2)?;
            let init = if args.len() == 2 {
                ev(1)?.to_int()?
            } else {
                I::one()
            };
            Ok(Value::from_int_tuple(&shape::prefix_product(
                &ev(0)?.to_int_tuple()?,
                &init,
            )?))
        }
        "inner_product" => {
            ar(2, 2)?;
            Ok(Value::Int(shape::inner_product(
                &ev(0)?.to_int_tuple()?,
                &ev(1)?.to_int_tuple()?,
            )?))
        }
        "idx2crd" => {
            ar(2, 3)?;
            let (idx, sh) = (ev(0)?.to_int_tuple()?, ev(1)?.to_shape()?);
            Ok(Value::from_int_tuple(&if args.len() == 3 {
                shape::idx2crd_strided(&idx, &sh, &ev(2)?.to_int_tuple()?)?
            } else {
                shape::idx2crd(&idx, &sh)?
            }))
        }
        "crd2idx" => {
            ar(2, 3)?;
            if args.len() == 3 {
                // PyCuTe's crd2idx(crd, shape, stride) is the layout shape:stride at crd.
                let l = Layout::new(ev(1)?.to_shape()?, ev(2)?.to_stride_tuple()?)
                    .map_err(|err| at(src, e, format!("crd2idx: {err}")))?;
                return super::eval_at(&Value::Layout(l), ev(0)?);
            }
            Ok(Value::Int(shape::crd2idx(
                &ev(0)?.to_int_tuple()?,
                &ev(1)?.to_shape()?,
            )?))
        }
        "congruent" => {
            ar(2, 2)?;
            Ok(Value::Bool(ev(0)?.to_shape()?.congruent(&ev(1)?.to_shape()?)))
        }
        "weakly_congruent" => {
            ar(2, 2)?;
            Ok(Value::Bool(
                ev(0)?.to_shape()?.weakly_congruent(&ev(1)?.to_shape()?),
            ))
        }
        "compatible" => shape_pred(shape::compatible),
        "common_refinement" => {
            ar(2, 2)?;
            Ok(Value::from_int_tuple(&shape::common_refinement(
                &ev(0)?.to_shape()?,
                &ev(1)?.to_shape()?,
            )?))
        }
        "common_coarsening" => {
            ar(2, 2)?;
            Ok(Value::from_int_tuple(&shape::common_coarsening(
                &ev(0)?.to_shape()?,
                &ev(1)?.to_shape()?,
            )?))
        }
        "fdiv" | "fmod" => {
            ar(2, 2)?;
            let (a, b) = (ev(0)?.to_int()?, ev(1)?.to_int()?);
            Ok(Value::Int(if name == "fdiv" {
                a.floor_div(&b)?
            } else {
                a.floor_mod(&b)?
            }))
        }
        "slice_" | "dice_" => {
            ar(2, 2)?;
            let (c, b) = (ev(0)?, ev(1)?);
            let mut out = Vec::new();
            slice_dice(c, b, name == "slice_", &mut out).map_err(|m| at(src, e, format!("{name}: {m}")))?;
            Ok(Value::Tuple(out))
        }
        "unflatten" => {
            ar(2, 2)?;
            let flat = ev(0)?.to_int_tuple()?;
            let prof = ev(1)?.to_shape()?;
            Ok(Value::from_int_tuple(&HTuple::unflatten(
                flat.leaves().iter().cloned(),
                prof.profile(),
            )?))
        }
        "is_tuple" => {
            ar(1, 1)?;
            Ok(Value::Bool(matches!(ev(0)?, Value::Tuple(_))))
        }
        "repeat_like" => {
            ar(2, 2)?;
            let x = ev(0)?.to_int()?;
            let p = ev(1)?.to_shape()?;
            Ok(Value::from_int_tuple(&HTuple::repeat_like(x, p.profile())))
        }
        "lift" => {
            ar(2, usize::MAX)?;
            let path: Vec<usize> = (1..args.len())
                .map(|k| ev(k)?.to_index())
                .collect::<Result<_>>()?;
            // Each index pads that many zeros: keep it to tuple sizes the parser accepts.
            if let Some(big) = path.iter().find(|&&i| i >= 4096) {
                return Err(at(
                    src,
                    e,
                    format!("lift: mode index {big} is too large (at most 4095)"),
                ));
            }
            let x = ev(0)?.to_int_tuple()?;
            Ok(Value::from_int_tuple(&x.lift(&path, &I::zero())))
        }
        _ => {
            let hint = closest(name)
                .map(|c| format!("; did you mean '{c}'?"))
                .unwrap_or_default();
            Err(at(
                src,
                e,
                format!("unknown function '{}'{hint}", super::shown(name)),
            ))
        }
    }
}

/// A stride tuple as a value (strides print as literals).
fn stride_tuple_value<I: Int>(t: &HTuple<tessera_ir::stride::Stride<I>>) -> Value<I> {
    if let Some(d) = t.as_leaf() {
        return match d {
            tessera_ir::stride::Stride::Int(v) => Value::Int(v.clone()),
            s => Value::Stride(s.clone()),
        };
    }
    Value::Tuple(t.modes().iter().map(stride_tuple_value).collect())
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

/// `(i, j, ...)` or a single index.
fn index_list<I: Int>(v: &Value<I>) -> Result<Vec<usize>> {
    match v {
        Value::Tuple(items) => items.iter().map(Value::to_index).collect(),
        v => Ok(vec![v.to_index()?]),
    }
}

/// Applies a mode selection to a layout (both shape and stride) or to an int tuple.
fn map_modes<I: Int>(
    v: &Value<I>,
    f: impl Fn(&HTuple<I>) -> Result<HTuple<I>>,
    g: impl Fn(&HTuple<tessera_ir::stride::Stride<I>>) -> Result<HTuple<tessera_ir::stride::Stride<I>>>,
) -> Result<Value<I>> {
    match v {
        Value::Layout(l) => Ok(Value::Layout(Layout::new(f(l.shape())?, g(l.stride())?)?)),
        v => Ok(Value::from_int_tuple(&f(&v.to_int_tuple()?)?)),
    }
}

/// A recast scale: an integer or a fraction `p/q`.
fn rational<I: Int>(e: &Expr, env: &Env<I>, src: &str) -> Result<(i64, i64)> {
    let konst = |x: &Expr| -> Result<i64> {
        eval_expr(x, env, src)?
            .to_int()?
            .as_const()
            .ok_or_else(|| at(src, x, "the recast scale must be a constant"))
    };
    match &e.kind {
        ExprKind::Arith(p, steps) if steps.len() == 1 && steps[0].op == BinOp::Div => {
            Ok((konst(p)?, konst(&steps[0].rhs)?))
        }
        _ => Ok((konst(e)?, 1)),
    }
}

/// The built-in name nearest to a misspelling.
fn closest(name: &str) -> Option<&'static str> {
    // No built-in is within 3 edits of a long name; the distance costs its length.
    if name.len() > 40 {
        return None;
    }
    fn dist(a: &str, b: &str) -> usize {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for i in 1..=a.len() {
            let mut cur = vec![i; b.len() + 1];
            for j in 1..=b.len() {
                let c = if a[i - 1] == b[j - 1] { 0 } else { 1 };
                cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + c);
            }
            prev = cur;
        }
        prev[b.len()]
    }
    BUILTINS
        .iter()
        .map(|(n, _)| (dist(name, n), *n))
        .filter(|(d, _)| *d <= 3)
        .min()
        .map(|(_, n)| n)
}
