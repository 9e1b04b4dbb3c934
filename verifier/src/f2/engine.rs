//! The F2 engine's answers to properties, each refutation re-checked by direct evaluation:
//! collisions and out-of-bounds indices through [`crate::context::confirm`] (the re-check of
//! z3's counterexamples), bank degrees by evaluating the first phase.

use super::{F2Layout, Fragment, NotInFragment, bank_degree, compare, image, outside};
use crate::bank::{self, Analysis, Bank, Cmp, Conflict, phase_cost, shape_of};
use crate::checks::{recheck_in_bounds, recheck_injective};
use crate::context::{Ctx, Vals, confirm};
use crate::error::{PResult, ProveError};
use crate::func::Func;
use crate::property::{Property, funcs};
use crate::verdict::{Counterexample, Verdict};

/// Whether the F2 engine answers this kind of property (on layouts in its fragment): the
/// properties [`answer`] handles.
pub(crate) fn decides(p: &Property) -> bool {
    matches!(
        p,
        Property::Injective(_)
            | Property::Bijective(_)
            | Property::InBounds(..)
            | Property::Surjective(..)
            | Property::Equal(..)
            | Property::Contiguous(_)
            | Property::LeftInverseValid(..)
            | Property::RightInverseValid(..)
            | Property::CompositionValid(..)
            | Property::BankConflictFree(_)
            | Property::ConflictDegree(..)
    )
}

/// The F2 engine's verdict on `p`, or why `p` is outside what it decides: the properties of
/// [`decides`] on concrete functions in the fragment.
pub(crate) fn answer(p: &Property, ctx: &Ctx) -> PResult<Fragment<Verdict>> {
    if !ctx.params.is_empty() {
        return Ok(outside("the property has parameters".into()));
    }
    match p {
        Property::Injective(f) => injective(f, ctx),
        Property::Bijective(f) => bijective(f, ctx),
        Property::BankConflictFree(b) => banks(b, ctx, None),
        Property::ConflictDegree(b, cmp, n) => banks(b, ctx, Some((*cmp, *n))),
        _ => other(p, ctx).map(|r| r.map_err(NotInFragment)),
    }
}

/// The properties of [`super::image`] and [`super::compare`]: their layouts in the fragment,
/// else why not.
fn other(p: &Property, ctx: &Ctx) -> PResult<Result<Verdict, String>> {
    let get = |f: &Func| layout(f).map_err(|e| e.to_string());
    let ls = match funcs(p)
        .into_iter()
        .map(get)
        .collect::<Result<Vec<F2Layout>, String>>()
    {
        Ok(ls) => ls,
        Err(why) => return Ok(Err(why)),
    };
    match (p, ls.as_slice()) {
        (Property::InBounds(f, n), [l]) => image::in_bounds(ctx, f, l, n),
        (Property::Surjective(f, n), [l]) => image::surjective(ctx, f, l, n.as_ref()),
        (Property::Equal(a, b), [la, lb]) => compare::equal(ctx, a, b, la, lb),
        (Property::Contiguous(f), [l]) => compare::contiguous(ctx, f, l),
        (Property::LeftInverseValid(a, b), [la, lb]) => compare::inverse(ctx, (a, la), (b, lb), "R(L(x))"),
        (Property::RightInverseValid(a, b), [la, lb]) => compare::inverse(ctx, (b, lb), (a, la), "L(R(x))"),
        (Property::CompositionValid(a, b, r), [la, lb, lr]) => {
            compare::composition(ctx, (a, la), (b, lb), (r, lr))
        }
        _ => Ok(Err(format!("the F2 engine does not decide {}", p.name()))),
    }
}

fn layout(f: &Func) -> Fragment<F2Layout> {
    F2Layout::from_func(f)
}

/// A collision of `l` re-checked on `f`; `None` when `l` is injective.
fn collision(ctx: &Ctx, f: &Func, l: &F2Layout) -> PResult<Option<Verdict>> {
    let Some((x, y)) = l.collision() else {
        return Ok(None);
    };
    let idx = Vals::from([("x".to_string(), x as i64), ("y".to_string(), y as i64)]);
    confirm(ctx, Vals::new(), idx, |ps, idx| recheck_injective(f, ps, idx)).map(Some)
}

fn injective(f: &Func, ctx: &Ctx) -> PResult<Fragment<Verdict>> {
    let l = match layout(f) {
        Ok(l) => l,
        Err(e) => return Ok(Err(e)),
    };
    Ok(Ok(collision(ctx, f, &l)?.unwrap_or(Verdict::Proved)))
}

fn bijective(f: &Func, ctx: &Ctx) -> PResult<Fragment<Verdict>> {
    let l = match layout(f) {
        Ok(l) => l,
        Err(e) => return Ok(Err(e)),
    };
    if let Some(v) = collision(ctx, f, &l)? {
        return Ok(Ok(v));
    }
    let n = l.inputs();
    if l.surjective_onto(n) {
        return Ok(Ok(Verdict::Proved));
    }
    // Injective but not onto [0, 2^n): the constant or some column has a bit at or past n,
    // so index 0 or that column's index bit reaches a value past the size.
    let x = if l.constant >> n != 0 {
        0
    } else {
        let j =
            l.matrix.cols().iter().position(|c| c >> n != 0).ok_or_else(|| {
                ProveError::internal("an injective F2 map inside [0, size) that is not onto")
            })?;
        1u64 << j
    };
    let idx = Vals::from([("x".to_string(), x as i64)]);
    let size = f.size()?;
    Ok(Ok(confirm(ctx, Vals::new(), idx, |ps, idx| {
        recheck_in_bounds(f, &size, ps, idx)
    })?))
}

/// A bank question: the degree from the ranks, re-checked by evaluating the first phase
/// (every phase costs the same: see [`super::bank`]); `cmp`: `conflict_degree`, else
/// `bank_conflict_free`.
fn banks(b: &Bank, ctx: &Ctx, cmp: Option<(Cmp, i64)>) -> PResult<Fragment<Verdict>> {
    let d = match bank_degree(b)? {
        Ok(d) => d,
        Err(e) => return Ok(Err(e)),
    };
    let g = shape_of(b)?;
    let mut step = 0;
    let first = phase_cost(b, &g, 0, (0, g.phase.min(g.threads)), &ctx.deadline, &mut step)?;
    if first.degree != d.degree {
        return Err(ProveError::internal(format!(
            "the F2 bank degree {} does not reproduce: the first phase takes {}",
            d.degree, first.degree
        )));
    }
    if let Some((t1, t2)) = d.pair {
        // The rank argument's own witness: threads 0 and z share a bank, not a word.
        let (a1, a2) = (g.address(b, t1, 0)?, g.address(b, t2, 0)?);
        let (w1, w2) = (a1.div_euclid(4), a2.div_euclid(4));
        if w1 == w2 || w1 % 32 != w2 % 32 {
            return Err(ProveError::internal(format!(
                "the F2 bank conflict between threads {t1} and {t2} does not reproduce"
            )));
        }
    }
    let a = Analysis {
        degree: first.degree,
        conflict: first.conflict,
    };
    Ok(Ok(match cmp {
        Some((cmp, n)) => bank::degree_outcome(&a, cmp, n),
        None => conflict_free(&a),
    }))
}

fn conflict_free(a: &Analysis) -> Verdict {
    match &a.conflict {
        None => Verdict::Proved,
        Some(c) => refuted(c, a.degree),
    }
}

fn refuted(c: &Conflict, degree: i64) -> Verdict {
    Verdict::Refuted(Counterexample {
        params: vec![],
        witnesses: bank::conflict_witnesses(c),
        summary: bank::describe(c, Some(degree)),
    })
}
