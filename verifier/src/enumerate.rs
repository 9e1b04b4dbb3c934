//! Coverage (`surjective` onto a bound, the coverage part of `complement_valid`) on bounded
//! domains too large to expand into a quantifier-free query: decided exactly by enumerating
//! the *lowered index expressions* at every admitted parameter valuation. Brute force
//! evaluates the layouts themselves, so the two stay independent; and a value found missing
//! is re-checked on the layouts before it is reported, like any counterexample.
//!
//! Z3's quantifier solver gets the rest (unbounded parameters, larger domains).

use crate::context::{Ctx, valuations};
use crate::error::{PResult, ProveError};
use std::collections::{BTreeSet, HashMap};
use tessera_ir::index::{IndexExpr, Var};
use tessera_ir::sym::SymInt;

/// The most points (valuations times sums) an enumeration visits.
pub const LIMIT: i128 = 1 << 24;

/// Parameter values and a value below the bound that no sum reaches.
pub type Missed = (HashMap<String, i64>, i64);

/// For sums `Σ parts[p].0(x_p)` over `x_p < parts[p].1` (one or two parts): the first
/// admitted valuation and value in `[0, n)` no sum reaches, `Some(None)` when every value is
/// reached at every valuation, `None` when the domain is unbounded or too large to enumerate.
pub fn uncovered(ctx: &Ctx, parts: &[(&IndexExpr, &SymInt)], n: &SymInt) -> PResult<Option<Option<Missed>>> {
    let mut names = BTreeSet::new();
    for (e, s) in parts {
        for v in e.inputs() {
            if let Var::Param(p) = v {
                names.insert(p);
            }
        }
        crate::func::params_of(s, &mut names);
    }
    crate::func::params_of(n, &mut names);
    // Every used parameter bounded, and the whole enumeration within the limit.
    let Ok(vals) = valuations(&ctx.facts, &names, LIMIT as u64) else {
        return Ok(None);
    };
    let mut per: i128 = ctx.facts.range(n).hi().unwrap_or(i128::MAX).max(0);
    let mut prod: i128 = 1;
    for (_, s) in parts {
        let m = ctx.facts.range(s).hi().unwrap_or(i128::MAX).max(0);
        per = per.saturating_add(m);
        prod = prod.saturating_mul(m);
    }
    if (vals.len() as i128).saturating_mul(per.saturating_add(prod)) > LIMIT {
        return Ok(None);
    }
    let mut step = 0u64;
    for v in vals {
        let bound = n.eval(&v)?;
        let mut images: Vec<Vec<i64>> = Vec::new();
        for (e, s) in parts {
            let size = s.eval(&v)?;
            let mut inputs: HashMap<Var, i64> = v.iter().map(|(k, x)| (Var::Param(k.clone()), *x)).collect();
            let mut img = Vec::with_capacity(size.max(0) as usize);
            for x in 0..size {
                ctx.deadline.poll(step)?;
                step += 1;
                inputs.insert(Var::Index, x);
                let out = e.eval_vars(&inputs)?;
                img.push(*out.first().ok_or_else(|| ProveError::internal("no output"))?);
            }
            img.sort_unstable();
            img.dedup();
            images.push(img);
        }
        let mut hit = vec![false; bound.max(0) as usize];
        let mut mark = |x: i64| {
            if (0..bound).contains(&x) {
                hit[x as usize] = true;
            }
        };
        match images.as_slice() {
            [a] => a.iter().for_each(|&x| mark(x)),
            [a, b] => {
                for &x in a {
                    ctx.deadline.poll(step)?;
                    step += 1;
                    for &y in b {
                        if let Some(s) = x.checked_add(y) {
                            mark(s);
                        }
                    }
                }
            }
            _ => return Err(ProveError::internal("coverage of more than two parts")),
        }
        if let Some(k) = hit.iter().position(|h| !h) {
            return Ok(Some(Some((v, k as i64))));
        }
    }
    Ok(Some(None))
}
