//! Offsets are `i64` also over parameters: where a layout has parameters, z3 (whose integers
//! are unbounded) and the structural engine (which reasons on the leaves) prove a property
//! for every admitted valuation, also one at which the machine's `i64` offsets overflow. After
//! such a proof, one more z3 query (within [`INT64_RLIMIT`], counted, not timed) asks whether
//! some admitted valuation and index make an offset, the size, or an intermediate of the
//! lowered index arithmetic (what the encodings compute) leave `i64` (the interval analysis
//! first, then direct evaluation at the extreme valuations, then z3; every witness re-checked
//! by evaluation):
//!
//! * none (or the interval analysis already bounds every node): the proof stands as it is;
//! * one, and every parameter of that layout is bounded: the user's bounds admit a valuation
//!   past `i64`, which is bad input naming it (what enumeration says at that valuation, and
//!   what a concrete layout past `i64` gives, [`crate::offset_range`]);
//! * one over an unbounded parameter: the proof holds for every admitted valuation at which
//!   the offsets fit in `i64`, which the verdict states as an assumption with the witness
//!   valuation (`proved, assuming offsets fit in int64 (they leave it at N = ..., index ...)`);
//! * z3 undecided within its limit (or the assertion's time limit passed): the same
//!   assumption, saying that it was not decided.

use crate::context::{Ctx, below, past_end};
use crate::error::{PResult, ProveError};
use crate::func::Func;
use crate::property::{Property, funcs};
use crate::query::{Outcome, Query, Scope};
use std::collections::HashMap;
use tessera_ir::index::{Var, lower_sym};
use tessera_ir::sym::{Interval, SymInt};
use tessera_ir::{Codomain, Int};
use z3::ast::Bool;

/// z3's resource limit (its deterministic count, `rlimit`) for the query of one layout.
pub const INT64_RLIMIT: u32 = 5_000_000;

/// What the machine's `i64` arithmetic admits of a proof over parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Int64Domain {
    /// Every offset and intermediate fits in `i64` at every admitted valuation and index.
    Fits,
    /// The proof holds where the offsets fit in `i64`; the assumption as reports print it.
    Assumed(String),
}

/// The `i64` domain of `p`'s layouts with parameters (a concrete one was checked before any
/// engine ran); bad input where bounded parameters admit an offset past `i64`.
///
/// @pre `p` was validated. @post `Fits` only if z3 or the interval analysis found every
/// offset, size and intermediate of every parameterised layout of `p` inside `i64` at every
/// admitted valuation; `Err(Invalid)` names a valuation and index past `i64`.
pub(crate) fn domain(p: &Property, ctx: &Ctx) -> PResult<Int64Domain> {
    let mut notes = Vec::new();
    for f in funcs(p) {
        // Bad input stands; any other failure of the query leaves the assumption undecided.
        let note = match witness(ctx, f) {
            Ok(n) => n,
            Err(e @ ProveError::Invalid(_)) => return Err(e),
            Err(e) => Some(format!("z3 could not decide whether {f} always fits: {e}")),
        };
        if let Some(n) = note
            && !notes.contains(&n)
        {
            notes.push(n);
        }
    }
    Ok(if notes.is_empty() {
        Int64Domain::Fits
    } else {
        Int64Domain::Assumed(format!("offsets fit in int64 ({})", notes.join("; ")))
    })
}

/// The note of the assumption `f` needs, if any; bad input where `f`'s parameters are all
/// bounded and still admit a value past `i64`.
fn witness(ctx: &Ctx, f: &Func) -> PResult<Option<String>> {
    if f.syms().iter().all(|s| s.as_const().is_some()) {
        return Ok(None);
    }
    if !matches!(f.codomain(), Ok(Codomain::Int | Codomain::F2)) {
        return Ok(None);
    }
    let (e, size) = match (f.lower(), f.size()) {
        (Ok(e), Ok(s)) => (e, s),
        (Err(err), _) | (_, Err(err)) => {
            return Ok(Some(format!(
                "{f} could not be lowered to check that it fits: {err}"
            )));
        }
    };
    let se = lower_sym(&size)?;
    let r = below(&ctx.facts, &size);
    let i64_range = Interval::new(Some(i64::MIN.into()), Some(i64::MAX.into()));
    let fits = |iv: &Interval| iv.meet(i64_range) == Some(*iv);
    let mut ranges: HashMap<Var, Interval> = HashMap::new();
    let mut names = std::collections::BTreeSet::new();
    for s in f.syms() {
        crate::func::params_of(&s, &mut names);
    }
    for n in &names {
        if let Some(pf) = ctx.facts.get(n) {
            ranges.insert(Var::Param(n.clone()), pf.interval());
        }
    }
    let mut with_index = ranges.clone();
    with_index.insert(Var::Index, r);
    if e.intervals(&with_index).iter().all(fits) && se.intervals(&ranges).iter().all(fits) {
        return Ok(None);
    }
    let (ps, at) = match probe(ctx, f, &names) {
        Some(found) => found,
        None => match solve(ctx, f, (&e, &se, &size), r)? {
            Ok(found) => found,
            Err(note) => return Ok(note),
        },
    };
    report(ctx, f, &e, &se, ps, at)
}

/// The extreme valuations tried by direct evaluation before z3 (which takes about 0.15 s over
/// unbounded integers): each parameter of `f` in turn at its largest admitted value (the
/// largest admitted `i64` when unbounded), the others at their smallest; a valuation whose
/// strides or size leave `i64`, or whose last index's offset does.
fn probe(
    ctx: &Ctx,
    f: &Func,
    names: &std::collections::BTreeSet<String>,
) -> Option<(HashMap<String, i64>, Option<i64>)> {
    let end = |n: &str, top: bool| -> Option<i64> {
        let pf = ctx.facts.get(n)?;
        let (m, r) = (i128::from(pf.modulus.max(1)), i128::from(pf.residue));
        let (lo, hi) = pf.bounds();
        let v = if top {
            let h = hi.unwrap_or(i128::from(i64::MAX)).min(i128::from(i64::MAX));
            h - (h - r).rem_euclid(m)
        } else {
            lo + (r - lo).rem_euclid(m)
        };
        let v = i64::try_from(v).ok()?;
        pf.admits(v).then_some(v)
    };
    for top in names {
        let mut ps = HashMap::new();
        for n in names {
            ps.insert(n.clone(), end(n, n == top)?);
        }
        let c = match f.at(&ps) {
            Ok(c) => c,
            Err(tessera_ir::Error::Overflow(_)) => return Some((ps, None)),
            Err(_) => continue,
        };
        match c.size() {
            Err(tessera_ir::Error::Overflow(_)) => return Some((ps, None)),
            Ok(n) if n > 0 && matches!(c.offset(n - 1), Err(tessera_ir::Error::Overflow(_))) => {
                return Some((ps, Some(n - 1)));
            }
            _ => {}
        }
    }
    None
}

/// z3's search for a valuation and index past `i64` (within [`INT64_RLIMIT`]): the witness,
/// `Ok(Err(None))` where there is none, `Ok(Err(Some(note)))` where z3 did not decide.
#[allow(clippy::type_complexity)]
fn solve(
    ctx: &Ctx,
    f: &Func,
    (e, se, size): (
        &tessera_ir::index::IndexExpr,
        &tessera_ir::index::IndexExpr,
        &SymInt,
    ),
    r: Interval,
) -> PResult<Result<(HashMap<String, i64>, Option<i64>), Option<String>>> {
    let empty = HashMap::new();
    let scope = Scope {
        apps: vec![(e, r)],
        exprs: vec![(se, &empty)],
        syms: vec![size],
        extra: vec![past_end(r)],
        quantified: false,
        prefer_int: true,
    };
    let mut q = Query::new(ctx.facts.clone(), &scope, ctx.deadline)?;
    q.int64_semantics();
    q.set_rlimit(INT64_RLIMIT);
    let (sz, size_ok) = q.apply_vars_defined(se, &HashMap::new(), &empty)?;
    let n = sz.into_values().next().unwrap_or_else(|| q.konst(0));
    let zero = q.konst(0);
    let x = q.index("x", &zero, &n)?;
    let dom = HashMap::from([(Var::Index, r)]);
    let (_, offset_ok) = q.apply_vars_defined(e, &HashMap::from([(Var::Index, x)]), &dom)?;
    q.assert(&Bool::and(&[size_ok, offset_ok]).not());
    Ok(match q.solve() {
        Ok(Outcome::Unsat) => Err(None),
        Ok(Outcome::Sat(m)) => {
            let ps = q.model_params(&m)?;
            let x = q
                .model_indices(&m)
                .into_iter()
                .find(|(k, _)| k == "x")
                .map(|(_, v)| v);
            Ok((ps, x))
        }
        Ok(Outcome::Unknown(why)) => Err(Some(format!(
            "z3 did not decide whether {f} always fits within its resource limit: {why}"
        ))),
        // The assertion's time limit passed: the proof stands, its assumption undecided.
        Err(ProveError::Timeout) => Err(Some(format!(
            "the time limit passed before z3 decided whether {f} always fits"
        ))),
        Err(e) => Err(Some(format!("z3 did not decide whether {f} always fits: {e}"))),
    })
}

/// The note of a witness `ps`, `at` (re-checked by evaluation), or bad input where every
/// parameter is bounded.
fn report(
    ctx: &Ctx,
    f: &Func,
    e: &tessera_ir::index::IndexExpr,
    se: &tessera_ir::index::IndexExpr,
    ps: HashMap<String, i64>,
    at: Option<i64>,
) -> PResult<Option<String>> {
    let mut vals: Vec<String> = ps.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    vals.sort();
    // Re-checked by evaluation: the size, the offset, or an intermediate of the lowered
    // arithmetic (evaluated in int64, as emitted code computes it) leaves int64 there.
    let mut point: HashMap<Var, i64> = ps.iter().map(|(k, v)| (Var::Param(k.clone()), *v)).collect();
    let direct = f.at(&ps).and_then(|c| {
        c.size()?;
        at.map_or(Ok(0), |x| c.offset(x))
    });
    let lowered = at.map(|x| {
        point.insert(Var::Index, x);
        e.eval_vars(&point).is_err()
    });
    if direct.is_ok() && lowered != Some(true) && se.eval_vars(&point).is_ok() {
        return Ok(Some(format!(
            "z3 found {f} leaving int64 at {}, which evaluation does not reproduce",
            vals.join(", ")
        )));
    }
    let what = match (f.at(&ps).and_then(|c| c.size()), at) {
        (Err(_), _) => "its size or strides".to_string(),
        (Ok(_), Some(x)) => format!("index {x}"),
        (Ok(_), None) => "some index".to_string(),
    };
    let place = format!("{f} leaves int64 at {}, {what}", vals.join(", "));
    let bounded = ps
        .keys()
        .all(|n| ctx.facts.get(n).is_some_and(|pf| pf.bounds().1.is_some()));
    if bounded {
        return Err(ProveError::Invalid(format!(
            "{place}: the parameters' bounds admit offsets past i64 (offsets are 64-bit signed \
             integers on every engine); tighten the bounds"
        )));
    }
    Ok(Some(place))
}

/// Evaluates `e` at `vals`; whether some intermediate leaves `i64` (for tests of the
/// witness).
#[cfg(test)]
fn overflows(e: &tessera_ir::index::IndexExpr, vals: &HashMap<Var, i64>) -> bool {
    e.eval_vars(vals).is_err()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deadline::Deadline;
    use crate::engine::Engine;
    use std::sync::Arc;
    use tessera_ir::sym::Facts;

    fn decl(d: &str) -> Arc<Facts> {
        let mut f = Facts::default();
        f.declare(d).unwrap();
        Arc::new(f)
    }

    fn ctx(facts: &Arc<Facts>) -> Ctx {
        Ctx {
            facts: facts.clone(),
            params: ["N".to_string()].into(),
            deadline: Deadline::after_ms(None),
            engine: Engine::Z3,
            rlimit: None,
        }
    }

    #[test]
    fn an_unbounded_parameter_is_an_assumption_with_its_witness() {
        let facts = decl("N where N >= 1");
        let f = Func::parse("(4,N):(N,1)", &facts).unwrap();
        let Some(note) = witness(&ctx(&facts), &f).unwrap() else {
            panic!("no witness")
        };
        assert!(note.contains("leaves int64 at N = "), "{note}");
        let e = f.lower().unwrap();
        let n: i64 = note
            .split("N = ")
            .nth(1)
            .unwrap()
            .split(',')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        // The witness is the size (4*N past i64) or an index whose offset leaves i64.
        match note.rsplit("index ").next().unwrap().parse::<i64>() {
            Ok(x) => {
                let vals = HashMap::from([(Var::Param("N".into()), n), (Var::Index, x)]);
                assert!(overflows(&e, &vals), "{note}");
            }
            Err(_) => assert!(
                note.ends_with("its size or strides") && n.checked_mul(4).is_none(),
                "{note}"
            ),
        }
    }

    #[test]
    fn bounded_parameters_that_fit_need_nothing_and_past_it_are_bad_input() {
        let facts = decl("N where 1 <= N <= 1073741824");
        let f = Func::parse("(4,N):(N,1)", &facts).unwrap();
        assert_eq!(witness(&ctx(&facts), &f).unwrap(), None);
        let facts = decl("N where 1 <= N <= 4611686018427387904");
        let f = Func::parse("(4,N):(N,1)", &facts).unwrap();
        let e = witness(&ctx(&facts), &f).unwrap_err();
        assert!(
            matches!(e, ProveError::Invalid(ref m) if m.contains("tighten")),
            "{e:?}"
        );
    }

    /// z3's search alone (the probe aside): a witness that evaluation reproduces where one
    /// exists, none where every value fits (the interval analysis cannot tell: N unbounded).
    #[test]
    fn z3_finds_what_the_probe_would() {
        let facts = decl("N where N >= 1");
        let c = ctx(&facts);
        for (src, past) in [
            ("(4,N):(N,1)", true),
            ("(N,2):(0,0)", true),
            ("(1,4):(N,1)", false),
        ] {
            let f = Func::parse(src, &facts).unwrap();
            let (e, size) = (f.lower().unwrap(), f.size().unwrap());
            let se = lower_sym(&size).unwrap();
            let r = below(&facts, &size);
            match solve(&c, &f, (&e, &se, &size), r).unwrap() {
                Ok((ps, at)) => {
                    assert!(past, "{src}: {ps:?} {at:?}");
                    let note = report(&c, &f, &e, &se, ps, at).unwrap().unwrap();
                    assert!(note.contains("leaves int64 at N = "), "{src}: {note}");
                }
                Err(None) => assert!(!past, "{src}: no witness"),
                Err(Some(note)) => panic!("{src}: undecided: {note}"),
            }
        }
    }
}
