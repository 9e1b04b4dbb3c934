//! The common lines of `tessera eval` answered without values: a call of `composition`, a
//! divide, a product, `complement` or `coalesce` whose arguments are all literals
//! (`composition((6,2):(8,2),(4,3):(3,1))`, `logical_divide(24:1,(2:1,_))`,
//! `complement(4:2,24)`), computed by the same algebra function as the built-in on the
//! literals the parser read (borrowed, never copied into a [`super::Value`]) and printed
//! straight into the output.
//!
//! A fast answer is only ever a computed result: anything else (another call, a name, a
//! symbolic parameter, an argument of another kind, an error of the algebra, a result nested
//! too deep) answers `false` and the line is evaluated as usual, which gives the canonical
//! answer or error. So the fast path never changes an answer; `tests/eval_fast.rs` compares
//! the two on the corpus and on random lines.

use super::Value;
use std::fmt::Write;
use tessera_ir::algebra as alg;
use tessera_ir::algebra::{Tiler, TilerView};
use tessera_ir::text::{Expr, ExprKind, Literal, MAX_DEPTH};
use tessera_ir::{HTuple, Layout, Result, Stride};

/// The algebra function behind a tiler built-in (`composition(A, tiler)`, the divides and
/// the products) applied to a plain layout `A`: the function its registry entry calls
/// (`builtins/algebra.rs`).
pub type TilerFn = fn(&Layout<i64>, &Tiler<i64>) -> Result<Layout<i64>>;

/// [`TilerFn`] of the built-in `name`, if it is a tiler built-in.
///
/// @post `tiler_fn(n).is_some()` exactly for the nine tiler built-ins.
///
/// ```
/// use tessera::lang::fast::tiler_fn;
/// let a = tessera::ir::parse_layout("24:1").unwrap();
/// let t = tessera::ir::algebra::Tiler::Layout(tessera::ir::parse_layout("4:2").unwrap());
/// assert_eq!(tiler_fn("logical_divide").unwrap()(&a, &t).unwrap().to_string(), "(4,(2,3)):(2,(1,8))");
/// assert!(tiler_fn("size").is_none());
/// ```
pub fn tiler_fn(name: &str) -> Option<TilerFn> {
    Some(match name {
        "composition" => alg::composition_tiler,
        "logical_divide" => alg::logical_divide,
        "zipped_divide" => alg::zipped_divide,
        "tiled_divide" => alg::tiled_divide,
        "flat_divide" => alg::flat_divide,
        "logical_product" => alg::logical_product,
        "zipped_product" => alg::zipped_product,
        "tiled_product" => alg::tiled_product,
        "flat_product" => alg::flat_product,
        _ => return None,
    })
}

/// Whether `l` prints nested deeper than [`MAX_DEPTH`] ([`Value::layout_depth`]'s rule). A
/// shape is at most as deep as its profile has tokens, and an integer or `F2` stride adds at
/// most one level: the exact walk is needed only for long profiles or coordinate strides.
///
/// ```
/// let l = tessera::ir::parse_layout("(2,(3,4)):(1,(2,6))").unwrap();
/// assert!(!tessera::lang::fast::too_deep(&l));
/// ```
pub fn too_deep(l: &Layout<i64>) -> bool {
    let short = l.shape().profile().tokens().len() < MAX_DEPTH;
    if short && l.stride().leaves().iter().all(|d| !matches!(d, Stride::Basis(_))) {
        return false;
    }
    Value::layout_depth(l) > MAX_DEPTH
}

/// The layout literal `e` is.
fn layout(e: &Expr) -> Option<&Layout<i64>> {
    match &e.kind {
        ExprKind::Literal(l) => match &**l {
            Literal::Layout(l) => Some(l),
            Literal::Tuple(_) => None,
        },
        _ => None,
    }
}

/// The tiler argument `e` is (`_`, an integer, a layout, an int tuple, or a tuple of these),
/// read in place ([`TilerView`]: its layouts borrowed from the literals; an integer `n >= 1`
/// is `Unit(n)`, the layout `n:1`; an extent below 1 is left to the general path's error).
fn tiler_view(e: &Expr) -> Option<TilerView<'_, i64>> {
    match &e.kind {
        ExprKind::Underscore => Some(TilerView::Keep),
        ExprKind::Int(n) => (*n >= 1).then_some(TilerView::Unit(*n)),
        ExprKind::Literal(l) => match &**l {
            Literal::Layout(l) => Some(TilerView::Layout(l)),
            Literal::Tuple(t) => int_view(t),
        },
        ExprKind::Tuple(items) => items
            .iter()
            .map(tiler_view)
            .collect::<Option<_>>()
            .map(TilerView::Tuple),
        _ => None,
    }
}

/// The tiler of an int tuple literal, as the value it evaluates to reads: an integer `n >= 1`
/// is `Unit(n)`, a tuple goes by mode.
fn int_view(t: &HTuple<i64>) -> Option<TilerView<'static, i64>> {
    match t.as_leaf() {
        Some(&n) => (n >= 1).then_some(TilerView::Unit(n)),
        None => t
            .modes()
            .iter()
            .map(int_view)
            .collect::<Option<_>>()
            .map(TilerView::Tuple),
    }
}

/// The int tuple argument `e` is (a cotarget): an integer or an int tuple literal.
fn int_tuple(e: &Expr) -> Option<HTuple<i64>> {
    match &e.kind {
        ExprKind::Int(n) => Some(HTuple::leaf(*n)),
        ExprKind::Literal(l) => match &**l {
            Literal::Tuple(t) => Some(t.clone()),
            Literal::Layout(_) => None,
        },
        _ => None,
    }
}

/// The coalesce profile argument `e` is: an integer coalesces, `_` keeps, a tuple goes by mode.
fn profile(e: &Expr) -> Option<HTuple<bool>> {
    match &e.kind {
        ExprKind::Underscore => Some(HTuple::leaf(false)),
        ExprKind::Int(_) => Some(HTuple::leaf(true)),
        ExprKind::Literal(l) => match &**l {
            Literal::Tuple(t) => Some(t.map(|_| true)),
            Literal::Layout(_) => None,
        },
        ExprKind::Tuple(items) => items
            .iter()
            .map(profile)
            .collect::<Option<Vec<_>>>()
            .map(HTuple::from_modes),
        _ => None,
    }
}

/// The result of the call `name(args)` on literal arguments, if it has a fast path and the
/// algebra computes it (`None` for anything else: the caller evaluates the line as usual).
fn compute(name: &str, args: &[Expr]) -> Option<Layout<i64>> {
    let r = match (name, args) {
        ("complement", [a]) => alg::complement(layout(a)?, None),
        ("complement", [a, t]) => {
            let t = match layout(t) {
                Some(l) => l.shape().clone(),
                None => int_tuple(t)?,
            };
            alg::complement(layout(a)?, Some(&t))
        }
        ("coalesce", [a]) => alg::coalesce(layout(a)?),
        ("coalesce", [a, p]) => alg::coalesce_by(layout(a)?, &profile(p)?),
        // The tiler borrowed from the literals where the algebra reads it so: `composition`
        // (a layout `B` directly) and `logical_divide`.
        ("composition", [a, b]) if layout(b).is_some() => alg::composition(layout(a)?, layout(b)?),
        ("composition", [a, b]) => alg::composition_view(layout(a)?, &tiler_view(b)?),
        ("logical_divide", [a, b]) => alg::logical_divide_view(layout(a)?, &tiler_view(b)?),
        (_, [a, b]) => {
            let f = tiler_fn(name)?;
            f(layout(a)?, &tiler_view(b)?.to_tiler())
        }
        _ => return None,
    };
    r.ok().filter(|l| !too_deep(l))
}

/// Appends the answer to `e` to `out` when `e` is a fast-path call on literals whose result
/// the algebra computes; `false` (and `out` unchanged) otherwise. The caller must have no
/// bound names or parameters (a name could shadow a built-in).
///
/// @pre no name is bound in the session that evaluates `e`.
/// @post when `true`, `out` gained exactly the text the general evaluation prints.
///
/// ```
/// let e = tessera::ir::text::parse_expr("composition((6,2):(8,2),(4,3):(3,1))").unwrap();
/// let mut out = String::new();
/// assert!(tessera::lang::fast::answer(&e, &mut out));
/// assert_eq!(out, "((2,2),3):((24,2),8)");
/// // Not a fast-path call: left to the general evaluation.
/// assert!(!tessera::lang::fast::answer(&tessera::ir::text::parse_expr("size(4:1)").unwrap(), &mut out));
/// ```
pub fn answer(e: &Expr, out: &mut String) -> bool {
    let ExprKind::Call(name, args) = &e.kind else {
        return false;
    };
    let Some(l) = compute(name, args) else {
        return false;
    };
    let before = out.len();
    if write!(out, "{l}").is_err() {
        out.truncate(before);
        return false;
    }
    true
}
