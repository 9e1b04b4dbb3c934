//! The int64 domain of an index function: assumptions under which every intermediate of the
//! emitted code fits in int64.
//!
//! The emitted code computes in `int64_t` / `i64`, where an intermediate past `[-2^63, 2^63)`
//! wraps (undefined behaviour in C). [`fit_int64`] reads the interval of every live operation
//! under the signature's assumptions; when one can leave int64 it tightens the bounds of the
//! arguments until every interval fits, and states the new bounds as assumptions (which the
//! code then checks like the others). Interval analysis is monotone in its inputs' ranges, so
//! the search for the largest common bound is a binary search; each argument's bound is then
//! relaxed alone as far as it can go. The search is counted (64 halvings at most per bound),
//! so the same input gives the same assumptions on any machine.

use crate::error::EmitError;
use crate::signature::{Assumption, Signature};
use std::collections::HashMap;
use tessera_ir::index::{IndexExpr, Node, Op, Var};
use tessera_ir::sym::Interval;

const MIN: i128 = i64::MIN as i128;
const MAX: i128 = i64::MAX as i128;

/// The first live operation (by node; `live` is `e.live()`) whose interval under `ranges` can
/// leave int64, with that interval.
fn overflowing(e: &IndexExpr, live: &[bool], ranges: &HashMap<Var, Interval>) -> Option<(usize, Interval)> {
    let iv = e.intervals(ranges);
    e.nodes().iter().enumerate().find_map(|(k, n)| {
        let fits = iv[k].lo().is_some_and(|l| l >= MIN) && iv[k].hi().is_some_and(|h| h <= MAX);
        (live[k] && matches!(n, Node::Op(..)) && !fits).then_some((k, iv[k]))
    })
}

/// `r` capped to `[-b, b]`, but never below its own lower end nor above its own upper end
/// (so never empty).
fn cap(r: Interval, b: i128) -> Interval {
    let lo = r.lo().unwrap_or(MIN);
    let hi = r.hi().unwrap_or(MAX);
    let h = hi.min(b.max(lo));
    let l = lo.max((-b).min(h));
    Interval::new(Some(l), Some(h))
}

/// The largest `b` in `[lo, hi]` for which `ok(b)` holds (`ok` monotone: true up to some
/// point, false after), or `None` when `ok(lo)` is false.
fn largest(lo: i128, hi: i128, ok: impl Fn(i128) -> bool) -> Option<i128> {
    if !ok(lo) {
        return None;
    }
    let (mut good, mut bad) = (lo, hi + 1);
    while bad - good > 1 {
        let mid = good + (bad - good) / 2;
        if ok(mid) { good = mid } else { bad = mid }
    }
    Some(good)
}

/// Tightens `sig`'s assumptions so that every intermediate of `e` fits in int64 for every value
/// they admit; returns one comment line per bound it added (empty when the assumptions already
/// suffice).
///
/// @pre `sig` is `e`'s signature (its arguments are `e`'s inputs).
/// @post every live operation of `e` has an interval inside `[-2^63, 2^63)` under the
/// returned signature's assumptions; an argument's admitted values only shrink.
///
/// ```
/// use std::collections::HashMap;
/// use tessera_codegen::{Signature, fit_int64};
/// use tessera_ir::index::{parse_index, Var};
/// use tessera_ir::sym::Interval;
/// let e = parse_index("M + 15").unwrap();
/// let ranges = HashMap::from([(Var::Param("M".into()), Interval::new(Some(1), None))]);
/// let mut sig = Signature::for_expr(&e, "f", &ranges, &HashMap::new()).unwrap();
/// let notes = fit_int64(&e, &mut sig).unwrap();
/// assert_eq!((sig.assumptions[0].lo, sig.assumptions[0].hi), (Some(1), Some(i64::MAX - 15)));
/// assert!(notes[0].contains("M <= 9223372036854775792"), "{notes:?}");
/// // An operation that overflows wherever the arguments lie is an error.
/// let e = parse_index("(7 << 61) + i").unwrap();
/// let ranges = HashMap::from([(Var::Index, Interval::new(Some(0), Some(3)))]);
/// let mut sig = Signature::for_expr(&e, "f", &ranges, &HashMap::new()).unwrap();
/// assert!(fit_int64(&e, &mut sig).is_err());
/// ```
pub fn fit_int64(e: &IndexExpr, sig: &mut Signature) -> Result<Vec<String>, EmitError> {
    let base = sig.ranges()?;
    // Every argument's admitted values (unbounded where nothing is assumed).
    let original: HashMap<Var, Interval> = sig
        .args
        .iter()
        .map(|v| (v.clone(), base.get(v).copied().unwrap_or(Interval::UNBOUNDED)))
        .collect();
    let live = e.live();
    let overflowing = |ranges: &HashMap<Var, Interval>| overflowing(e, &live, ranges);
    if overflowing(&original).is_none() {
        return Ok(Vec::new());
    }
    let capped = |b: i128, at: &HashMap<Var, Interval>| -> HashMap<Var, Interval> {
        at.iter().map(|(v, r)| (v.clone(), cap(*r, b))).collect()
    };
    let common = largest(0, MAX, |b| overflowing(&capped(b, &original)).is_none());
    let Some(common) = common else {
        let (node, iv) = overflowing(&capped(0, &original))
            .ok_or_else(|| EmitError::Internal("an overflow that vanished".into()))?;
        return Err(EmitError::Overflow {
            node,
            op: describe(e, node),
            lo: iv.lo(),
            hi: iv.hi(),
        });
    };
    let mut ranges = capped(common, &original);
    // Each argument alone as far as it can go, the others at their bounds so far, in order.
    let args = sig.args.clone();
    for v in &args {
        let widened = largest(common, MAX, |b| {
            let mut at = ranges.clone();
            at.insert(v.clone(), cap(original[v], b));
            overflowing(&at).is_none()
        })
        .unwrap_or(common);
        ranges.insert(v.clone(), cap(original[v], widened));
    }
    let mut notes = Vec::new();
    for v in &args {
        let (before, after) = (original[v], ranges[v]);
        let lo = after.lo().filter(|l| before.lo().is_none_or(|b| *l > b));
        let hi = after.hi().filter(|h| before.hi().is_none_or(|b| *h < b));
        if lo.is_none() && hi.is_none() {
            continue;
        }
        let as_i64 = |x: i128| i64::try_from(x).map_err(|_| EmitError::Internal(format!("bound {x} of {v}")));
        let added = Assumption {
            var: v.clone(),
            lo: lo.map(as_i64).transpose()?,
            hi: hi.map(as_i64).transpose()?,
            modulus: 1,
        };
        let facts = added.facts(&v.to_string()).join(", ");
        notes.push(format!(
            "Added so that every intermediate fits in int64 (not implied by the facts): {facts}."
        ));
        // Stated in the argument's own assumption where it has one (`1 <= M <= ...`).
        match sig.assumptions.iter_mut().find(|a| a.var == *v) {
            Some(a) => {
                a.lo = added.lo.or(a.lo);
                a.hi = added.hi.or(a.hi);
            }
            None => sig.assumptions.push(added),
        }
    }
    Ok(notes)
}

/// Node `k` as the user reads it: its operator and operands (`t3 = t1 << 61`, constants
/// written out).
fn describe(e: &IndexExpr, k: usize) -> String {
    let Node::Op(op, args) = &e.nodes()[k] else {
        return format!("t{k}");
    };
    let show = |id: &tessera_ir::index::NodeId| match e.node(*id).as_const() {
        Some(c) => c.to_string(),
        None => format!("t{}", id.index()),
    };
    match (op, args.as_slice()) {
        (Op::Min | Op::Max, [a, b]) => format!("{}({}, {})", op.symbol(), show(a), show(b)),
        (_, [a, b]) => format!("{} {} {}", show(a), op.symbol(), show(b)),
        _ => format!("t{k} ({})", op.name()),
    }
}
