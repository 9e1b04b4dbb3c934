//! Brute force: the same questions answered by enumerating every parameter value and every
//! index. The test oracle for every z3 answer, and the reference for small domains.

use crate::bank_symbolic;
use crate::context::{valuations, witness};
use crate::deadline::Deadline;
use crate::error::{PResult, ProveError};
use crate::func::{Concrete, Func, Point, same_point, show_point};
use crate::property::{Property, facts, params, validate};
use crate::verdict::{Counterexample, Verdict};
use std::collections::{HashMap, HashSet};
use tessera_ir::shape;
use tessera_ir::sym::SymInt;

type Result<T> = PResult<T>;

/// The most parameter valuations times indices brute force visits.
pub const DEFAULT_WORK: u64 = 1 << 24;

fn refuted(summary: String, ws: Vec<crate::verdict::Witness>, params: &HashMap<String, i64>) -> Verdict {
    let mut ps: Vec<(String, i64)> = params.iter().map(|(k, v)| (k.clone(), *v)).collect();
    ps.sort();
    Verdict::Refuted(Counterexample {
        params: ps,
        witnesses: ws,
        summary,
    })
}

/// Answers a property by enumeration of every parameter value the facts admit (for the
/// parameters the property mentions) and every index, visiting at most `work` points in total.
pub fn brute(p: &Property, work: u64) -> Verdict {
    brute_by(p, work, &Deadline::none())
}

/// [`brute`] by a deadline: past it, `unknown: timeout`.
pub fn brute_by(p: &Property, work: u64, deadline: &Deadline) -> Verdict {
    match validate(p).and_then(|()| brute_inner(p, work, deadline)) {
        Ok(v) => v,
        Err(e) => Verdict::from_error(e),
    }
}

/// What an enumeration may still visit: a number of points, and the assertion's deadline.
struct Work {
    left: u64,
    deadline: Deadline,
    step: u64,
}

impl Work {
    /// Takes `n` points from the budget (an `unknown` past it), and checks the deadline.
    fn take(&mut self, n: i64) -> Result<()> {
        let n = n.max(0) as u64;
        if n > self.left {
            return Err(ProveError::Unknown("domain too large for brute force".into()));
        }
        self.left -= n;
        self.deadline.check()
    }

    /// One point visited: checks the deadline now and then.
    fn tick(&mut self) -> Result<()> {
        self.step += 1;
        self.deadline.poll(self.step)
    }
}

fn brute_inner(p: &Property, work: u64, deadline: &Deadline) -> Result<Verdict> {
    match p {
        // Every admitted valuation of the parameters, the exact analysis at each.
        Property::BankConflictFree(b) => return bank_symbolic::brute(b, None, &facts(p), work, deadline),
        Property::ConflictDegree(b, cmp, n) => {
            return bank_symbolic::brute(b, Some((*cmp, *n)), &facts(p), work, deadline);
        }
        Property::Wavefronts(b, cmp, n) => {
            return bank_symbolic::wavefronts(b, (*cmp, *n), &facts(p), work, deadline);
        }
        Property::Compatible(a, b) => {
            return Ok(if shape::compatible(a, b)? {
                Verdict::Proved
            } else {
                Verdict::Refuted(Counterexample {
                    params: vec![],
                    witnesses: vec![],
                    summary: format!("{a} does not coarsen {b}"),
                })
            });
        }
        _ => {}
    }
    let f = facts(p);
    let vals = valuations(&f, &params(p), work)?;
    let mut budget = Work {
        left: work,
        deadline: *deadline,
        step: 0,
    };
    // Every valuation's offsets first: bounds that admit one past i64 make the question bad
    // input whatever its answer at the others.
    for ps in &vals {
        for g in crate::property::funcs(p) {
            crate::offset_range::check_at(p.name(), g, ps)?;
        }
    }
    for ps in &vals {
        if let Some(v) = one(p, ps, &mut budget)? {
            return Ok(v);
        }
    }
    Ok(Verdict::Proved)
}

/// Checks one valuation; `Some` refutation or `None` when the property holds there.
fn one(p: &Property, ps: &HashMap<String, i64>, budget: &mut Work) -> Result<Option<Verdict>> {
    match p {
        Property::Injective(f) => injective(&f.at(ps)?, ps, budget),
        Property::InBounds(f, n) => in_bounds(&f.at(ps)?, n.eval(ps)?, ps, budget),
        Property::Bijective(f) => {
            let c = f.at(ps)?;
            if let Some(v) = injective(&c, ps, budget)? {
                return Ok(Some(v));
            }
            in_bounds(&c, c.size()?, ps, budget)
        }
        Property::Surjective(f, n) => surjective(f, n.as_ref(), ps, budget),
        Property::Equal(a, b) => equal(a, b, ps, budget),
        Property::LeftInverseValid(l, r) => inverse(&l.at(ps)?, &r.at(ps)?, ps, budget, "R(L(x))"),
        Property::RightInverseValid(l, r) => inverse(&r.at(ps)?, &l.at(ps)?, ps, budget, "L(R(x))"),
        Property::ComplementValid(a, c, n) => complement_valid(a, c, n.as_ref(), ps, budget),
        Property::CompositionValid(a, b, r) => composition_valid(a, b, r, ps, budget),
        Property::Contiguous(f) => contiguous(f, ps, budget),
        Property::Vectorizable(f, v) => vectorizable(f, v, ps, budget),
        Property::Compatible(..)
        | Property::BankConflictFree(_)
        | Property::ConflictDegree(..)
        | Property::Wavefronts(..) => Ok(None),
    }
}

/// Every value below `n` (default: the size) is reached.
fn surjective(
    f: &Func,
    n: Option<&SymInt>,
    ps: &HashMap<String, i64>,
    budget: &mut Work,
) -> Result<Option<Verdict>> {
    let c = f.at(ps)?;
    let n = match n {
        Some(n) => n.eval(ps)?,
        None => c.size()?,
    };
    let size = c.size()?;
    budget.take(size + n)?;
    let mut hit = vec![false; n.max(0) as usize];
    for v in offsets(&c, budget)? {
        if (0..n).contains(&v) {
            hit[v as usize] = true;
        }
    }
    Ok(hit
        .iter()
        .position(|h| !h)
        .map(|k| refuted(format!("no index reaches {k}"), vec![], ps)))
}

/// The same size and the same value at every index.
fn equal(a: &Func, b: &Func, ps: &HashMap<String, i64>, budget: &mut Work) -> Result<Option<Verdict>> {
    let (ca, cb) = (a.at(ps)?, b.at(ps)?);
    let (na, nb) = (ca.size()?, cb.size()?);
    if na != nb {
        return Ok(Some(refuted(
            format!("size(A) = {na} but size(B) = {nb}"),
            vec![],
            ps,
        )));
    }
    budget.take(na)?;
    if let (Some(oa), Some(ob)) = (ca.offsets()?, cb.offsets()?) {
        // Integer values on both sides: compare them in bulk, then report the first index.
        let Some(x) = oa.iter().zip(&ob).position(|(x, y)| x != y) else {
            return Ok(None);
        };
        return Ok(Some(refuted(
            format!("A({x}) = {} but B({x}) = {}", oa[x], ob[x]),
            vec![witness("A at x", &ca, x as i64)?],
            ps,
        )));
    }
    for x in 0..na {
        budget.tick()?;
        let (va, vb) = (ca.eval(x)?, cb.eval(x)?);
        if !same_point(&va, &vb) {
            return Ok(Some(refuted(
                format!("A({x}) = {} but B({x}) = {}", show_point(&va), show_point(&vb)),
                vec![witness("A at x", &ca, x)?],
                ps,
            )));
        }
    }
    Ok(None)
}

/// `C` is ordered, disjoint from `A`'s image, and `(A, C)` reaches every value below `n`.
fn complement_valid(
    a: &Func,
    c: &Func,
    n: Option<&SymInt>,
    ps: &HashMap<String, i64>,
    budget: &mut Work,
) -> Result<Option<Verdict>> {
    let (ca, cc) = (a.at(ps)?, c.at(ps)?);
    let (na, nc) = (ca.size()?, cc.size()?);
    budget.take(na + nc)?;
    let image: HashSet<i64> = offsets(&ca, budget)?.into_iter().collect();
    let mut prev = cc.offset(0)?;
    for i in 1..nc {
        let x = cc.offset(i)?;
        if x <= prev {
            return Ok(Some(refuted(
                format!("C({}) = {prev} >= C({i}) = {x}: not ordered", i - 1),
                vec![],
                ps,
            )));
        }
        if image.contains(&x) {
            return Ok(Some(refuted(
                format!("C({i}) = {x} is also reached by A: not disjoint"),
                vec![],
                ps,
            )));
        }
        prev = x;
    }
    if let Some(n) = n {
        let n = n.eval(ps)?;
        budget.take(na.saturating_mul(nc).saturating_add(n))?;
        let mut hit = vec![false; n.max(0) as usize];
        let oc = offsets(&cc, budget)?;
        for aj in offsets(&ca, budget)? {
            budget.tick()?;
            for &ci in &oc {
                let v = aj + ci;
                if (0..n).contains(&v) {
                    hit[v as usize] = true;
                }
            }
        }
        if let Some(k) = hit.iter().position(|h| !h) {
            return Ok(Some(refuted(format!("(A, C) never reaches {k}"), vec![], ps)));
        }
    }
    Ok(None)
}

/// `R` is compatible with `B` and `R(i) == A(B(i))`.
fn composition_valid(
    a: &Func,
    b: &Func,
    r: &Func,
    ps: &HashMap<String, i64>,
    budget: &mut Work,
) -> Result<Option<Verdict>> {
    if !shape::compatible(b.shape(), r.shape())? {
        return Ok(Some(refuted(
            format!(
                "shape {} of B does not coarsen shape {} of R",
                b.shape(),
                r.shape()
            ),
            vec![],
            ps,
        )));
    }
    let (ca, cb, cr) = (a.at(ps)?, b.at(ps)?, r.at(ps)?);
    let n = cb.size()?;
    budget.take(n)?;
    for i in 0..n {
        budget.tick()?;
        let bi = cb.offset(i)?;
        if !ca.has_index(bi) {
            return Ok(Some(refuted(
                format!("A(B({i})) is undefined: B({i}) = {bi} is no index of an F2 layout"),
                vec![],
                ps,
            )));
        }
        let (want, got) = (ca.eval(bi)?, cr.eval(i)?);
        if !same_point(&want, &got) {
            return Ok(Some(refuted(
                format!(
                    "R({i}) = {} but A(B({i})) = A({bi}) = {}",
                    show_point(&got),
                    show_point(&want)
                ),
                vec![],
                ps,
            )));
        }
    }
    Ok(None)
}

/// `L(i) == L(0) + i`.
fn contiguous(f: &Func, ps: &HashMap<String, i64>, budget: &mut Work) -> Result<Option<Verdict>> {
    let c = f.at(ps)?;
    let n = c.size()?;
    budget.take(n)?;
    let offs = offsets(&c, budget)?;
    let base = offs.first().copied().unwrap_or(0);
    for (i, &v) in (0..).zip(&offs) {
        // `L(0) + i` may leave i64 (then no offset equals it).
        if base.checked_add(i) != Some(v) {
            return Ok(Some(refuted(
                format!(
                    "L({i}) = {v}, not L(0) + {i} = {}",
                    i128::from(base) + i128::from(i)
                ),
                vec![],
                ps,
            )));
        }
    }
    Ok(None)
}

/// Runs of `v` indices map to `v` consecutive, aligned offsets.
fn vectorizable(f: &Func, v: &i64, ps: &HashMap<String, i64>, budget: &mut Work) -> Result<Option<Verdict>> {
    let c = f.at(ps)?;
    let n = c.size()?;
    if *v < 1 || n % v != 0 {
        return Ok(Some(refuted(
            format!("size {n} is not a multiple of {v}"),
            vec![],
            ps,
        )));
    }
    budget.take(n)?;
    let offs = offsets(&c, budget)?;
    let at = |i: i64| offs[i as usize];
    for b in (0..n).step_by(*v as usize) {
        let x = at(b);
        if x.rem_euclid(*v) != 0 {
            return Ok(Some(refuted(
                format!("L({b}) = {x} is not a multiple of {v}"),
                vec![],
                ps,
            )));
        }
        for j in 1..*v {
            let y = at(b + j);
            if y != x + j {
                return Ok(Some(refuted(
                    format!("L({}) = {y}, not L({b}) + {j} = {}", b + j, x + j),
                    vec![],
                    ps,
                )));
            }
        }
    }
    Ok(None)
}

fn injective(c: &Concrete, ps: &HashMap<String, i64>, budget: &mut Work) -> Result<Option<Verdict>> {
    let n = c.size()?;
    budget.take(n)?;
    if let Some(offs) = c.offsets()? {
        budget.deadline.check()?;
        if let Some((y, x)) = repeat_in_bitset(&offs) {
            return Ok(Some(refuted(
                format!("L({y}) == L({x}) == {}", offs[x as usize]),
                vec![witness("x", c, y)?, witness("y", c, x)?],
                ps,
            )));
        }
        if offs.len() < 2 || span_fits(&offs) {
            return Ok(None);
        }
        // Integer values spread too thin for a bitset: sort the (value, index) pairs and
        // look for neighbours.
        let mut v: Vec<(i64, i64)> = offs.into_iter().zip(0..).collect();
        v.sort_unstable();
        if let Some(w) = v.windows(2).find(|w| w[0].0 == w[1].0) {
            let (y, x) = (w[0].1.min(w[1].1), w[0].1.max(w[1].1));
            return Ok(Some(refuted(
                format!("L({y}) == L({x}) == {}", w[0].0),
                vec![witness("x", c, y)?, witness("y", c, x)?],
                ps,
            )));
        }
        return Ok(None);
    }
    let mut seen: HashMap<Point, i64> = HashMap::with_capacity(n as usize);
    for x in 0..n {
        budget.tick()?;
        let v = c.eval(x)?;
        // Normalize away zero outputs so equal points compare equal.
        let v: Point = v.into_iter().filter(|(_, x)| *x != 0).collect();
        if let Some(&y) = seen.get(&v) {
            return Ok(Some(refuted(
                format!("L({y}) == L({x}) == {}", show_point(&v)),
                vec![witness("x", c, y)?, witness("y", c, x)?],
                ps,
            )));
        }
        seen.insert(v, x);
    }
    Ok(None)
}

fn in_bounds(c: &Concrete, hi: i64, ps: &HashMap<String, i64>, budget: &mut Work) -> Result<Option<Verdict>> {
    let n = c.size()?;
    budget.take(n)?;
    let offs = offsets(c, budget)?;
    for (x, v) in (0..).zip(offs) {
        if !(0..hi).contains(&v) {
            return Ok(Some(refuted(
                format!("L({x}) = {v} is outside [0, {hi})"),
                vec![witness("x", c, x)?],
                ps,
            )));
        }
    }
    Ok(None)
}

fn inverse(
    inner: &Concrete,
    outer: &Concrete,
    ps: &HashMap<String, i64>,
    budget: &mut Work,
    what: &str,
) -> Result<Option<Verdict>> {
    let n = inner.size()?;
    budget.take(n)?;
    let fxs = offsets(inner, budget)?;
    let outer_offs = outer.offsets()?;
    for (x, &fx) in (0..).zip(&fxs) {
        budget.tick()?;
        if !outer.has_index(fx) {
            return Ok(Some(refuted(
                format!("{what} is undefined for x = {x}: the inner value {fx} is no index of an F2 layout"),
                vec![witness("x", inner, x)?],
                ps,
            )));
        }
        let back = match &outer_offs {
            Some(o) if (0..o.len() as i64).contains(&fx) => o[fx as usize],
            _ => outer.offset(fx)?,
        };
        if back != x {
            return Ok(Some(refuted(
                format!("{what} = {back} for x = {x} (the inner value is {fx})"),
                vec![witness("x", inner, x)?],
                ps,
            )));
        }
    }
    Ok(None)
}

/// Every offset of an integer-valued function, in index order: the odometer of
/// [`Concrete::offsets`] where it applies, else one evaluation per index.
fn offsets(c: &Concrete, budget: &mut Work) -> Result<Vec<i64>> {
    if let Some(o) = c.offsets()? {
        budget.deadline.check()?;
        return Ok(o);
    }
    let n = c.size()?;
    let mut out = Vec::with_capacity(n.max(0) as usize);
    for x in 0..n {
        budget.tick()?;
        out.push(c.offset(x)?);
    }
    Ok(out)
}

/// The bitset of a set of values spans at most this many bits per value.
const BITS_PER_VALUE: i128 = 64;

/// Whether the values' range is small enough for [`repeat_in_bitset`].
fn span_fits(offs: &[i64]) -> bool {
    let (Some(lo), Some(hi)) = (offs.iter().min(), offs.iter().max()) else {
        return true;
    };
    i128::from(*hi) - i128::from(*lo) < BITS_PER_VALUE * (offs.len() as i128).max(64)
}

/// The first repeated value, as `(first index, repeating index)`, marking the values in a
/// bitset over their range; `None` when none repeats or the range is too wide.
fn repeat_in_bitset(offs: &[i64]) -> Option<(i64, i64)> {
    if !span_fits(offs) {
        return None;
    }
    let lo = *offs.iter().min()?;
    let hi = *offs.iter().max()?;
    let span = (i128::from(hi) - i128::from(lo)) as usize + 1;
    let mut bits = vec![0u64; span.div_ceil(64)];
    for (x, &v) in offs.iter().enumerate() {
        let k = (i128::from(v) - i128::from(lo)) as usize;
        let (w, b) = (k / 64, 1u64 << (k % 64));
        if bits[w] & b != 0 {
            let y = offs.iter().position(|&u| u == v)?;
            return Some((y as i64, x as i64));
        }
        bits[w] |= b;
    }
    None
}
