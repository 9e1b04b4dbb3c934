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

use crate::deadline::{Deadline, in_own_context};
use crate::error::{PResult, ProveError};
use crate::prove::Options;
use crate::query::{Outcome, Query, Scope, points_equal};
use crate::verdict::{Counterexample, Verdict};
use std::collections::HashMap;
use std::sync::Arc;
use tessera_ir::index::{IndexExpr, Op, Var};
use tessera_ir::sym::{Facts, Interval};

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
    in_own_context(|| {
        let deadline = Deadline::after_ms(opts.timeout_ms);
        match by_cases(a, b, domain, facts, deadline) {
            Ok(v) => v,
            Err(e) => Verdict::from_error(e),
        }
    })
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
const MAX_CASES: u128 = 512;

/// The admitted values of the parameters `names`, every combination, when they are all
/// bounded and the combinations at most [`MAX_CASES`].
fn cases(facts: &Facts, names: &[String]) -> Option<Vec<HashMap<Var, i64>>> {
    let mut all: Vec<HashMap<Var, i64>> = vec![HashMap::new()];
    for n in names {
        let f = facts.get(n)?;
        let (lo, hi) = (f.lo, f.hi?);
        let m = f.modulus.max(1);
        let first = lo + (m - lo.rem_euclid(m)) % m;
        let count = if first > hi {
            0
        } else {
            (i128::from(hi) - i128::from(first)) / i128::from(m) + 1
        };
        if count as u128 * all.len() as u128 > MAX_CASES {
            return None;
        }
        let values: Vec<i64> = (0..count as i64).map(|k| first + k * m).collect();
        all = all
            .into_iter()
            .flat_map(|c| {
                values.iter().map(move |v| {
                    let mut c = c.clone();
                    c.insert(Var::Param(n.clone()), *v);
                    c
                })
            })
            .collect();
    }
    Some(all)
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
        return equivalent(a, b, domain, facts, deadline);
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
        return equivalent(a, b, domain, facts, deadline);
    };
    for c in &all {
        deadline.check()?;
        let (x, y) = (a.bind(c), b.bind(c));
        match equivalent(&x, &y, domain, facts, deadline)? {
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

fn equivalent(
    a: &IndexExpr,
    b: &IndexExpr,
    domain: &HashMap<Var, Interval>,
    facts: &Arc<Facts>,
    deadline: Deadline,
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
    let mut terms = HashMap::new();
    for v in &inputs {
        let t = q.input(&v.to_string(), domain[v])?;
        terms.insert(v.clone(), t);
    }
    let oa = q.apply_vars(a, &terms, domain)?;
    let ob = q.apply_vars(b, &terms, domain)?;
    let same = points_equal(&q, &oa, &ob)?;
    q.assert(&same.not());
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
            if x.as_ref().ok() == y.as_ref().ok() {
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
