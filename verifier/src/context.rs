//! What every query of one proof shares: the facts, the parameters and the deadline
//! ([`Ctx`]); how a query's answer becomes a verdict, with every counterexample's parameter
//! values checked against the facts and the counterexample re-checked by direct evaluation
//! ([`finish`], [`confirm`]); and the parameter valuations the enumerations visit.

use crate::deadline::Deadline;
use crate::engine::Engine;
use crate::error::{PResult, ProveError};
use crate::func::{Concrete, show_point};
use crate::query::{Outcome, Query, admitted};
use crate::verdict::{Counterexample, Verdict, Witness};
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use tessera_ir::sym::{Facts, Interval, ParamFacts, SymInt};

/// What every query of one proof shares.
#[derive(Clone)]
pub(crate) struct Ctx {
    /// The facts of the parameters.
    pub facts: Arc<Facts>,
    /// Every parameter the property mentions (a counterexample gives each a value).
    pub params: BTreeSet<String>,
    /// The assertion's time limit.
    pub deadline: Deadline,
    /// The engine asking (its counterexamples' messages name it).
    pub engine: Engine,
    /// z3's resource limit for each query (`None`: none but the deadline): a share of the
    /// work counted, not timed, where another method follows z3's giving up, so that which
    /// method answers does not depend on the machine's load.
    pub rlimit: Option<u32>,
}

impl Ctx {
    /// The engine whose counterexample is re-checked, as messages name it.
    pub(crate) fn who(&self) -> &'static str {
        match self.engine {
            Engine::F2 => "the F2 engine",
            Engine::Structural => "the structural engine",
            Engine::Enumeration => "enumeration",
            Engine::Z3 | Engine::Auto => "z3",
        }
    }
}

pub(crate) type Vals = HashMap<String, i64>;

/// The facts of one parameter, as a user would write them.
fn describe(n: &str, f: &ParamFacts) -> String {
    let (lo, hi) = f.bounds();
    let mut s = match hi {
        Some(h) => format!("{lo} <= {n} <= {h}"),
        None => format!("{n} >= {lo}"),
    };
    if let Some(c) = f.congruence_text(n) {
        s.push_str(&format!(", {c}"));
    }
    s
}

/// The counterexamples of the quantified properties are re-checked by enumeration, up to
/// this many points.
pub(crate) const RECHECK_LIMIT: i64 = 1 << 26;

/// The value range of an index below `size`.
pub(crate) fn below(facts: &Facts, size: &SymInt) -> Interval {
    let last = facts.range(size).hi().map(|h| h.saturating_sub(1).max(0));
    Interval::new(Some(0), last)
}

/// One past the largest index of `r`, the size a query compares indices with (`i128::MAX`
/// when unbounded).
pub(crate) fn past_end(r: Interval) -> i128 {
    r.hi().map_or(i128::MAX, |h| h.saturating_add(1))
}

/// Runs a query; on `sat`, checks the parameter values against every fact, then re-checks
/// the counterexample by direct evaluation. A failure of either is an internal error.
pub(crate) fn finish(
    ctx: &Ctx,
    q: &Query,
    recheck: impl FnOnce(&Vals, &Vals) -> PResult<Option<Counterexample>>,
) -> PResult<Verdict> {
    let m = match q.solve()? {
        Outcome::Unsat => return Ok(Verdict::Proved),
        Outcome::Unknown(r) => return Ok(Verdict::Unknown(format!("z3: {r}"))),
        Outcome::Sat(m) => m,
    };
    let params = match q.model_params(&m) {
        Ok(p) => p,
        Err(ProveError::Unknown(why)) => return Ok(Verdict::Unknown(why)),
        Err(e) => return Err(e),
    };
    let named = q.model_indices(&m);
    if named.len() < q.indices.len() {
        return Ok(Verdict::Unknown(
            "z3's counterexample has an index past i64, which no re-check can evaluate".into(),
        ));
    }
    let idx: Vals = named.into_iter().collect();
    confirm(ctx, params, idx, recheck)
}

/// Checks a counterexample's parameter values against every fact, then re-checks it by
/// direct evaluation. A failure of either is an internal error.
pub(crate) fn confirm(
    ctx: &Ctx,
    mut params: Vals,
    idx: Vals,
    recheck: impl FnOnce(&Vals, &Vals) -> PResult<Option<Counterexample>>,
) -> PResult<Verdict> {
    // Parameters the query did not encode (the lowered layouts do not read them): any
    // admitted value, so that the layouts can be evaluated.
    for n in &ctx.params {
        if !params.contains_key(n) {
            params.insert(n.clone(), admitted(&ctx.facts, n)?);
        }
    }
    for (n, v) in &params {
        let f = ctx
            .facts
            .get(n)
            .ok_or_else(|| ProveError::internal(format!("parameter {n} has no declared facts")))?;
        if !f.admits(*v) {
            return Err(ProveError::internal(format!(
                "{}'s counterexample violates the facts: {n} = {v}, but {}",
                ctx.who(),
                describe(n, f)
            )));
        }
    }
    let found = match recheck(&params, &idx) {
        Ok(c) => c,
        Err(ProveError::Unknown(r)) => {
            return Ok(Verdict::Unknown(format!(
                "{}'s counterexample could not be evaluated: {r}",
                ctx.who()
            )));
        }
        Err(e) => return Err(e),
    };
    match found {
        Some(mut c) => {
            let mut ps: Vec<(String, i64)> = params.into_iter().collect();
            ps.sort();
            c.params = ps;
            Ok(Verdict::Refuted(c))
        }
        None => Err(ProveError::internal(format!(
            "{}'s counterexample does not reproduce (params {params:?}, indices {idx:?})",
            ctx.who()
        ))),
    }
}

pub(crate) fn get(idx: &Vals, k: &str) -> PResult<i64> {
    idx.get(k)
        .copied()
        .ok_or_else(|| ProveError::internal(format!("no value for {k} in the model")))
}

/// A witness at index `i` of a concrete function.
pub(crate) fn witness(name: &str, f: &Concrete, i: i64) -> PResult<Witness> {
    Ok(Witness {
        name: name.into(),
        index: i,
        coord: f.coord(i),
        value: show_point(&f.eval(i)?),
    })
}

pub(crate) fn refuted_without_witness(summary: String) -> Verdict {
    Verdict::Refuted(Counterexample {
        params: vec![],
        witnesses: vec![],
        summary,
    })
}

/// Every valuation of `names` admitted by the facts; an error when a parameter is unbounded
/// or undeclared, or when there are more than `limit`.
pub(crate) fn valuations<'a>(
    facts: &Facts,
    names: impl IntoIterator<Item = &'a String>,
    limit: u64,
) -> PResult<Vec<HashMap<String, i64>>> {
    let mut out = vec![HashMap::new()];
    for n in names {
        let f = facts
            .get(n)
            .ok_or_else(|| ProveError::internal(format!("parameter {n} has no declared facts")))?;
        let (lo, hi) = f.bounds();
        let hi = hi.ok_or_else(|| ProveError::Unknown(format!("parameter {n} has no upper bound")))?;
        // `bounds` rounds both ends to the congruence: every `k`-th value from `lo` on.
        let k = f.modulus.max(1) as i128;
        let count = if hi < lo { 0 } else { (hi - lo) / k + 1 };
        if (out.len() as i128).saturating_mul(count) > limit as i128 {
            return Err(ProveError::Unknown(format!("more than {limit} parameter values")));
        }
        let mut next = Vec::with_capacity(out.len() * count as usize);
        for base in &out {
            let mut v = lo;
            while v <= hi {
                let mut m = base.clone();
                m.insert(n.clone(), v as i64);
                next.push(m);
                v += k;
            }
        }
        out = next;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::Scope;

    /// A model whose parameter values break a fact is an internal error, never a report,
    /// even when the property's own re-check would accept it.
    #[test]
    fn a_counterexample_outside_the_facts_is_an_internal_error() {
        crate::deadline::in_own_context(|| {
            let mut loose = Facts::default();
            loose.declare("M").unwrap();
            let loose = Arc::new(loose);
            let mut tight = Facts::default();
            tight.declare("M where 8 <= M <= 64").unwrap();
            let m = SymInt::param("M", &loose);
            let scope = Scope {
                syms: vec![&m],
                ..Scope::default()
            };
            let mut q = Query::new(loose.clone(), &scope, Deadline::none()).unwrap();
            let t = q.sym(&m).unwrap();
            q.assert(&t.eq(&q.konst(100)).unwrap());
            let ctx = Ctx {
                facts: Arc::new(tight),
                params: BTreeSet::from(["M".to_string()]),
                deadline: Deadline::none(),
                engine: Engine::Z3,
                rlimit: None,
            };
            let accept = |_: &Vals, _: &Vals| {
                Ok(Some(Counterexample {
                    params: vec![],
                    witnesses: vec![],
                    summary: "accepted".into(),
                }))
            };
            match finish(&ctx, &q, accept) {
                Err(ProveError::Internal(m)) => {
                    assert!(m.contains("violates the facts: M = 100, but 8 <= M <= 64"), "{m}")
                }
                other => panic!("{other:?}"),
            }
            // The same model under the loose facts is reported.
            let ctx = Ctx { facts: loose, ..ctx };
            assert!(matches!(finish(&ctx, &q, accept), Ok(Verdict::Refuted(_))));
        });
    }

    /// A re-check that cannot evaluate the counterexample names the engine that found it.
    #[test]
    fn a_failed_recheck_names_the_engine() {
        for (engine, who) in [
            (Engine::Structural, "the structural engine"),
            (Engine::F2, "the F2 engine"),
            (Engine::Z3, "z3"),
        ] {
            let ctx = Ctx {
                facts: Arc::new(Facts::default()),
                params: BTreeSet::new(),
                deadline: Deadline::none(),
                engine,
                rlimit: None,
            };
            let v = confirm(&ctx, Vals::new(), Vals::new(), |_, _| {
                Err(ProveError::Unknown("overflow".into()))
            });
            let want = format!("{who}'s counterexample could not be evaluated: overflow");
            assert_eq!(v.unwrap(), Verdict::Unknown(want));
        }
    }
}
