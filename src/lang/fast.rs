//! The common lines of `tessera eval` answered without values: a call of `composition`, a
//! divide, a product, `complement` or `coalesce` whose arguments are all literals
//! (`composition((6,2):(8,2),(4,3):(3,1))`, `logical_divide(24:1,(2:1,_))`,
//! `complement(4:2,24)`), computed by the same algebra function as the built-in on the
//! literals the parser read (borrowed, never copied into a [`super::Value`]) and printed
//! straight into the output.
//!
//! A fast answer is a computed result, or the algebra's error for a tiler built-in (whose
//! general evaluation calls the same function on the same arguments and returns that error
//! unchanged); anything else (another call, a name, a symbolic parameter, an argument of
//! another kind, an error of `complement` or `coalesce`, a result nested too deep) is left to
//! the general evaluation, which gives the canonical answer or error. So the fast path never
//! changes an answer; `tests/eval_fast.rs` compares the two on the corpus and on random lines.

use super::Value;
use std::cell::RefCell;
use tessera_ir::algebra as alg;
use tessera_ir::algebra::{Tiler, TilerView};
use tessera_ir::text::{Expr, ExprKind, Literal, MAX_DEPTH, read_literal_call};
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
    let unit = |n: i64| (n >= 1).then_some(TilerView::Unit(n));
    match t.as_leaf() {
        Some(&n) => unit(n),
        // A mode that is a leaf is read in place; only a nested tuple is taken out (the modes
        // collected as tuples of their own cost 950 instructions a tiler).
        None => (t.profile().mode_spans().iter().enumerate())
            .map(|(k, (toks, leaves))| match toks.len() {
                1 => unit(*t.leaves().get(leaves.start)?),
                _ => int_view(&t.mode(k)?),
            })
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

/// The result of the call `name(args)` on literal arguments, if it has a fast path: `None`
/// for anything else (the caller evaluates the line as usual). An error of the algebra is
/// returned only where the built-in gives that same error ([`tiler_errors`]); elsewhere, and
/// for a result nested too deep, the answer is `None`. A result is printed into `out` where
/// it was computed (a layout is 352 bytes; each move through a `Result` was a copy).
fn compute_into(name: &str, args: &[Expr], out: &mut String) -> Option<Result<()>> {
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
    match r {
        Ok(ref l) if too_deep(l) => None,
        Ok(ref l) => {
            tessera_ir::text::push_layout(out, l);
            Some(Ok(()))
        }
        Err(e) if tiler_errors(name, args) => Some(Err(e)),
        Err(_) => None,
    }
}

/// Whether an error of the algebra on the fast path's arguments is the built-in's answer to
/// the line: true for the tiler built-ins on two arguments. The built-in (`tiler_op` in
/// `builtins/algebra.rs`) converts a literal layout and a tiler the fast path read in place
/// without an error of its own (a tiler with an extent below 1 never reaches here:
/// [`tiler_view`] declines it) and calls the same algebra function, whose view forms give
/// the same errors as their owned forms. `complement`'s and `coalesce`'s arguments go through
/// conversions that check them first, so their errors are left to the general evaluation.
fn tiler_errors(name: &str, args: &[Expr]) -> bool {
    args.len() == 2 && tiler_fn(name).is_some()
}

/// The answer to `e` when `e` is a fast-path call on literals: `Some(Ok(()))` with the
/// result appended to `out`, `Some(Err(e))` with the error the general evaluation gives
/// (`out` unchanged), or `None` (`out` unchanged) when the line is left to the general
/// evaluation. The caller must have no bound names or parameters (a name could shadow a
/// built-in).
///
/// @pre no name is bound in the session that evaluates `e`.
/// @post `Some(Ok(()))`: `out` gained exactly the text the general evaluation prints;
/// `Some(Err(e))`: `e` is the error the general evaluation returns.
///
/// ```
/// let e = tessera::ir::text::parse_expr("composition((6,2):(8,2),(4,3):(3,1))").unwrap();
/// let mut out = String::new();
/// assert!(matches!(tessera::lang::fast::answer(&e, &mut out), Some(Ok(()))));
/// assert_eq!(out, "((2,2),3):((24,2),8)");
/// // An error of a tiler built-in is answered too, as the general evaluation words it.
/// let e = tessera::ir::text::parse_expr("composition((4,2):(12,12),2:5)").unwrap();
/// let err = tessera::lang::fast::answer(&e, &mut out).unwrap().unwrap_err();
/// assert!(err.to_string().contains("stride divisibility"));
/// // Not a fast-path call: left to the general evaluation.
/// let e = tessera::ir::text::parse_expr("size(4:1)").unwrap();
/// assert!(tessera::lang::fast::answer(&e, &mut out).is_none());
/// ```
pub fn answer(e: &Expr, out: &mut String) -> Option<Result<()>> {
    let ExprKind::Call(name, args) = &e.kind else {
        return None;
    };
    compute_into(name, args, out)
}

/// What [`answer_line`] made of a line.
pub enum Line {
    /// The fast path's answer, as [`answer`] gives it.
    Answered(Result<()>),
    /// A call of literals the fast path leaves to the general evaluation: the expression the
    /// parser reads for the line (so the line is not read again).
    Declined(Expr),
    /// Not a call of literals: the caller parses the line.
    Other,
}

thread_local! {
    /// The call last read on this thread: its argument list, its literals' boxes and its name
    /// are reused for the next line, so that a batch of calls allocates nothing to read them.
    static CALL: RefCell<Expr> = const {
        RefCell::new(Expr {
            kind: ExprKind::Underscore,
            col: 0,
        })
    };
}

/// [`answer`] for the line `src` when it is a call of literals, read into this thread's
/// reused expression ([`read_literal_call`]) rather than into a new tree.
///
/// @pre no name is bound in the session that evaluates `src` (as for [`answer`]).
/// @post `Answered(r)`: `r` and `out` as [`answer`] on `parse_expr(src)` gives them;
/// `Declined(e)`: `e == parse_expr(src)?` and [`answer`] leaves it; `Other`: `src` is not a
/// call of literals (`out` unchanged).
///
/// ```
/// use tessera::lang::fast::{answer_line, Line};
/// let mut out = String::new();
/// assert!(matches!(answer_line("coalesce((2,(1,6)):(1,(6,2)))", &mut out), Line::Answered(Ok(()))));
/// assert_eq!(out, "12:1");
/// assert!(matches!(answer_line("size(4:1)", &mut out), Line::Declined(_)));
/// assert!(matches!(answer_line("size(A)", &mut out), Line::Other));
/// ```
pub fn answer_line(src: &str, out: &mut String) -> Line {
    // A thread being torn down, or a nested call, has no reusable expression: the caller
    // parses the line.
    CALL.try_with(|call| {
        let Ok(mut e) = call.try_borrow_mut() else {
            return Line::Other;
        };
        if !read_literal_call(src, &mut e) {
            return Line::Other;
        }
        match answer(&e, out) {
            Some(r) => Line::Answered(r),
            None => Line::Declined(e.clone()),
        }
    })
    .unwrap_or(Line::Other)
}
