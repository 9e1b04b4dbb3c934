//! Translation validation: two index expressions are equal at every point of a domain.
//!
//! The e-graph simplifier's result is trusted only after this proof. The domain gives every
//! non-parameter input (the index, the coordinates) a range; parameters range over their
//! declared facts (bounds and divisibility). z3 answers over bit-vectors sized by the interval
//! analysis, or over integers when a parameter is unbounded (where shifts and masks by
//! constants are encoded as the divisions they are). A counterexample is re-checked by
//! evaluating both expressions at it.
//!
//! ```
//! use std::collections::HashMap;
//! use std::sync::Arc;
//! use tessera_ir::index::{parse_index, Var};
//! use tessera_ir::sym::{Facts, Interval};
//! use tessera_verifier::{prove_equivalent, Options, Verdict};
//! let facts = Arc::new(Facts::default());
//! let dom = HashMap::from([(Var::Index, Interval::new(Some(0), Some(31)))]);
//! let a = parse_index("(i % 4) * 8 + i / 4").unwrap();
//! let b = parse_index("((i & 3) << 3) + (i >> 2)").unwrap();
//! assert_eq!(prove_equivalent(&a, &b, &dom, &facts, &Options::default()), Verdict::Proved);
//! let c = parse_index("((i & 3) << 3) + (i >> 3)").unwrap();
//! assert!(matches!(prove_equivalent(&a, &c, &dom, &facts, &Options::default()), Verdict::Refuted(_)));
//! ```

use crate::context::valuations;
use crate::deadline::{Deadline, in_own_context};
use crate::engine::Engine;
use crate::error::{PResult, ProveError};
use crate::prove::Options;
use crate::query::{Outcome, Query, Scope, points_equal};
use crate::verdict::{Counterexample, Verdict};
use std::collections::HashMap;
use std::sync::Arc;
use tessera_ir::index::{IndexExpr, Op, Program, Var};
use tessera_ir::sym::{Facts, Interval};
use z3::ast::Bool;

/// Proves `a` and `b` equal (every output, by name) at every point of `domain` and every
/// parameter value the facts admit, within `opts.timeout_ms`.
///
/// @pre every non-parameter input of `a` and `b` has a range in `domain`.
/// @post `Proved` only if no point of the domain tells them apart; `Refuted` with a point that
/// does, re-checked by evaluation.
pub fn prove_equivalent(
    a: &IndexExpr,
    b: &IndexExpr,
    domain: &HashMap<Var, Interval>,
    facts: &Arc<Facts>,
    opts: &Options,
) -> Verdict {
    prove_equivalent_by(a, b, domain, facts, opts, Engine::Auto).0
}

/// z3's resource limit for one equivalence query (its deterministic count, see
/// `Query::set_rlimit`): what decides between a validated and a kept expression, so that the
/// emitted text is the same on any machine. About a second of z3's time on this project's
/// machines; the wall-clock deadline stays as an outer safety limit.
pub const VALIDATION_RLIMIT: u32 = 20_000_000;

/// The most points (inputs times parameter values) an enumeration visits.
pub const MAX_ENUMERATION: u128 = 1 << 16;

/// Like [`prove_equivalent`], with the engine chosen (`Auto`, or one forced, to compare them);
/// returns the verdict and the engine that gave it.
pub fn prove_equivalent_by(
    a: &IndexExpr,
    b: &IndexExpr,
    domain: &HashMap<Var, Interval>,
    facts: &Arc<Facts>,
    opts: &Options,
    engine: Engine,
) -> (Verdict, Engine) {
    if matches!(engine, Engine::F2 | Engine::Structural) {
        let v = Verdict::Unknown(format!(
            "the {engine} engine decides layout properties, not equivalences"
        ));
        return (v, engine);
    }
    let deadline = Deadline::after_ms(opts.timeout_ms);
    if engine != Engine::Z3
        && let Some(r) = enumerate(a, b, domain, facts, deadline, engine == Engine::Enumeration)
    {
        return (r.unwrap_or_else(Verdict::from_error), Engine::Enumeration);
    }
    if engine == Engine::Enumeration {
        let v = Verdict::Unknown(format!(
            "the domain is unbounded or has more than {MAX_ENUMERATION} points"
        ));
        return (v, Engine::Enumeration);
    }
    let v = in_own_context(|| match by_cases(a, b, domain, facts, deadline) {
        Ok(v) => v,
        Err(e) => Verdict::from_error(e),
    });
    (v, Engine::Z3)
}

/// Every point of the domain, when it is finite and small enough (`forced`: up to
/// [`crate::enumerate::LIMIT`] points); `None` otherwise.
fn enumerate(
    a: &IndexExpr,
    b: &IndexExpr,
    domain: &HashMap<Var, Interval>,
    facts: &Facts,
    deadline: Deadline,
    forced: bool,
) -> Option<PResult<Verdict>> {
    let limit = if forced {
        crate::enumerate::LIMIT as u128
    } else {
        MAX_ENUMERATION
    };
    let mut vars: Vec<Var> = a.inputs().into_iter().chain(b.inputs()).collect();
    vars.sort();
    vars.dedup();
    let (params, inputs): (Vec<Var>, Vec<Var>) = vars.into_iter().partition(|v| matches!(v, Var::Param(_)));
    let names: Vec<String> = params.iter().map(|v| v.to_string()).collect();
    let all = cases(facts, &names)?;
    let mut ranges = Vec::new();
    let mut points = all.len() as u128;
    for v in &inputs {
        let r = domain.get(v)?;
        let (lo, hi) = (i64::try_from(r.lo()?).ok()?, i64::try_from(r.hi()?).ok()?);
        points = points.checked_mul((i128::from(hi) - i128::from(lo) + 1).max(0) as u128)?;
        ranges.push((lo, hi));
    }
    if points > limit || a.outputs().len() != b.outputs().len() {
        return None;
    }
    let order: Vec<Var> = inputs.iter().chain(&params).cloned().collect();
    let (pa, pb) = (Program::new(a, &order), Program::new(b, &order));
    let n = a.outputs().len();
    let (mut x, mut y) = (vec![0i64; n], vec![0i64; n]);
    let mut at = vec![0i64; order.len()];
    let mut step = 0u64;
    for c in &all {
        for (k, p) in params.iter().enumerate() {
            at[inputs.len() + k] = c[p];
        }
        if ranges.iter().any(|(lo, hi)| lo > hi) {
            continue;
        }
        for (k, (lo, _)) in ranges.iter().enumerate() {
            at[k] = *lo;
        }
        loop {
            step += 1;
            if let Err(e) = deadline.poll(step) {
                return Some(Err(e));
            }
            if pa.run(&at, &mut x).is_ok() && (pb.run(&at, &mut y).is_err() || x != y) {
                let point: Vec<String> = order.iter().zip(&at).map(|(v, x)| format!("{v}={x}")).collect();
                let got = match pb.run(&at, &mut y) {
                    Ok(()) => format!("{y:?}"),
                    Err(e) => format!("an error ({e})"),
                };
                let mut ps: Vec<(String, i64)> = c.iter().map(|(v, x)| (v.to_string(), *x)).collect();
                ps.sort();
                return Some(Ok(Verdict::Refuted(Counterexample {
                    params: ps,
                    witnesses: Vec::new(),
                    summary: format!("at {}: {x:?} but {got}", point.join(", ")),
                })));
            }
            // The next point (odometer, first input fastest).
            let mut k = 0;
            loop {
                if k == ranges.len() {
                    break;
                }
                if at[k] < ranges[k].1 {
                    at[k] += 1;
                    break;
                }
                at[k] = ranges[k].0;
                k += 1;
            }
            if k == ranges.len() {
                break;
            }
        }
    }
    Some(Ok(Verdict::Proved))
}

/// Whether `e` multiplies two non-constant values (and has no XOR, which integers cannot
/// encode): such queries go to z3's non-linear integer arithmetic, which proves polynomial
/// identities that bit-blasting a multiplier does not.
fn nonlinear(e: &IndexExpr) -> bool {
    let live = e.live();
    let ops = e
        .nodes()
        .iter()
        .enumerate()
        .filter(|(k, _)| live[*k])
        .map(|(_, n)| n);
    let mut products = false;
    for n in ops {
        match n.op() {
            Some(Op::Xor) => return false,
            Some(Op::Mul) => products |= n.children().iter().all(|c| e.node(*c).as_const().is_none()),
            _ => {}
        }
    }
    products
}

/// The most parameter values the case split enumerates.
const MAX_CASES: u64 = 512;

/// The admitted values of the parameters `names`, every combination, when they are all
/// bounded and the combinations at most [`MAX_CASES`].
fn cases(facts: &Facts, names: &[String]) -> Option<Vec<HashMap<Var, i64>>> {
    let all = valuations(facts, names, MAX_CASES).ok()?;
    Some(
        all.into_iter()
            .map(|c| c.into_iter().map(|(n, v)| (Var::Param(n), v)).collect())
            .collect(),
    )
}

/// Products of a variable and a parameter are proved one admitted parameter value at a time
/// (each case linear, proved over bit-vectors) when there are few values; otherwise in one
/// query.
fn by_cases(
    a: &IndexExpr,
    b: &IndexExpr,
    domain: &HashMap<Var, Interval>,
    facts: &Arc<Facts>,
    deadline: Deadline,
) -> PResult<Verdict> {
    if !(nonlinear(a) || nonlinear(b)) {
        return equivalent(a, b, domain, facts, deadline, VALIDATION_RLIMIT);
    }

    let mut names: Vec<String> = a
        .inputs()
        .into_iter()
        .chain(b.inputs())
        .filter_map(|v| match v {
            Var::Param(n) => Some(n),
            _ => None,
        })
        .collect();
    names.sort();
    names.dedup();
    let Some(all) = cases(facts, &names) else {
        return equivalent(a, b, domain, facts, deadline, VALIDATION_RLIMIT);
    };
    // The cases share one resource budget (each case at least a small one).
    let share = (VALIDATION_RLIMIT / all.len().max(1) as u32).max(MIN_CASE_RLIMIT);
    for c in &all {
        deadline.check()?;
        let (x, y) = (a.bind(c), b.bind(c));
        match equivalent(&x, &y, domain, facts, deadline, share)? {
            Verdict::Proved => {}
            Verdict::Refuted(mut ce) => {
                ce.params = c.iter().map(|(v, x)| (v.to_string(), *x)).collect();
                ce.params.sort();
                return Ok(Verdict::Refuted(ce));
            }
            other => return Ok(other),
        }
    }
    Ok(Verdict::Proved)
}

/// The least resource limit of one case of [`by_cases`].
const MIN_CASE_RLIMIT: u32 = 200_000;

/// `a` and `b` agree, in int64, wherever `a` is defined, within z3's resource limit `rlimit`.
fn equivalent(
    a: &IndexExpr,
    b: &IndexExpr,
    domain: &HashMap<Var, Interval>,
    facts: &Arc<Facts>,
    deadline: Deadline,
    rlimit: u32,
) -> PResult<Verdict> {
    let names = |e: &IndexExpr| e.outputs().iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    if names(a) != names(b) {
        return Err(ProveError::invalid(format!(
            "different outputs: {:?} and {:?}",
            names(a),
            names(b)
        )));
    }
    let mut inputs: Vec<Var> = a.inputs();
    inputs.extend(b.inputs());
    inputs.sort();
    inputs.dedup();
    inputs.retain(|v| !matches!(v, Var::Param(_)));
    for v in &inputs {
        if !domain.contains_key(v) {
            return Err(ProveError::invalid(format!("input {v} has no range")));
        }
    }
    let scope = Scope {
        exprs: vec![(a, domain), (b, domain)],
        prefer_int: nonlinear(a) || nonlinear(b),
        ..Scope::default()
    };
    let mut q = Query::new(facts.clone(), &scope, deadline)?;
    q.int64_semantics();
    q.set_rlimit(rlimit);
    let mut terms = HashMap::new();
    for v in &inputs {
        let t = q.input(&v.to_string(), domain[v])?;
        terms.insert(v.clone(), t);
    }
    // What the machine computes: wherever every intermediate of `a` fits in int64 (and no
    // divisor is 0), every intermediate of `b` must fit too, and the outputs agree.
    let (oa, defined_a) = q.apply_vars_defined(a, &terms, domain)?;
    let (ob, defined_b) = q.apply_vars_defined(b, &terms, domain)?;
    let same = points_equal(&q, &oa, &ob)?;
    q.assert(&defined_a);
    q.assert(&Bool::and(&[defined_b, same]).not());
    match q.solve()? {
        Outcome::Unsat => Ok(Verdict::Proved),
        Outcome::Unknown(r) => Ok(Verdict::Unknown(r)),
        Outcome::Sat(m) => {
            let mut at: HashMap<Var, i64> = HashMap::new();
            for (n, v) in q.model_params(&m)? {
                at.insert(Var::Param(n), v);
            }
            let named = q.model_indices(&m);
            for v in &inputs {
                let val = named
                    .iter()
                    .find(|(n, _)| *n == v.to_string())
                    .map(|(_, x)| *x)
                    .ok_or_else(|| ProveError::internal(format!("no value of {v} in the model")))?;
                at.insert(v.clone(), val);
            }
            let (x, y) = (a.eval_vars(&at), b.eval_vars(&at));
            if x.is_err() || x.as_ref().ok() == y.as_ref().ok() {
                return Err(ProveError::internal(format!(
                    "z3's counterexample {at:?} does not reproduce: {x:?} and {y:?}"
                )));
            }
            let mut params: Vec<(String, i64)> = at
                .iter()
                .filter(|(v, _)| matches!(v, Var::Param(_)))
                .map(|(v, x)| (v.to_string(), *x))
                .collect();
            params.sort();
            let mut point: Vec<String> = named.iter().map(|(n, v)| format!("{n}={v}")).collect();
            point.sort();
            let show = |r: tessera_ir::Result<Vec<i64>>| match r {
                Ok(v) => format!("{v:?}"),
                Err(e) => format!("an error ({e})"),
            };
            Ok(Verdict::Refuted(Counterexample {
                params,
                witnesses: Vec::new(),
                summary: format!("at {}: {} but {}", point.join(", "), show(x), show(y)),
            }))
        }
    }
}
