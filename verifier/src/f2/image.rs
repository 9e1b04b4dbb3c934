//! The image of an F2 map `x ↦ M·x ⊕ c`: the affine subspace `c ⊕ span(M)`, and what bounds
//! and coverage questions ask of it.
//!
//! With the column space in reduced echelon form (each basis vector's leading bit set in no
//! other), the largest value of `c ⊕ span` is found greedily from the top pivot down: XOR a
//! basis vector in exactly when its pivot bit is clear in the running value (it sets that
//! bit and touches only lower non-pivot bits); the smallest, when it is set. So `in_bounds`
//! is decided by one elimination.
//!
//! `[0, n)` (`n >= 1`) lies in `c ⊕ span` exactly when `c ∈ span` (0 is reached, so the
//! image is the subspace itself) and every power of two below `n` is in the span (then the
//! span holds every value of that many bits, which covers `[0, n)`). A value that fails is
//! the smallest one no index reaches.

use super::{F2Layout, MAX_BITS};
use crate::checks::recheck_in_bounds;
use crate::context::{Ctx, RECHECK_LIMIT, Vals, confirm};
use crate::error::{PResult, ProveError};
use crate::func::Func;
use crate::verdict::{Counterexample, Verdict};
use tessera_ir::Int;
use tessera_ir::sym::SymInt;

/// The reduced basis of the span, by pivot descending: `(pivot, vector, index bits)`.
fn basis(l: &F2Layout) -> Vec<(u32, u64, u64)> {
    let mut b = l.matrix.echelon().basis;
    b.sort_by_key(|x| std::cmp::Reverse(x.0));
    b
}

/// The largest (`max`) or smallest value of the image, and an index that reaches it.
pub(crate) fn extreme(l: &F2Layout, max: bool) -> (u64, u64) {
    let (mut v, mut x) = (l.constant, 0u64);
    for (p, b, comb) in basis(l) {
        if (v >> p & 1 == 0) == max {
            v ^= b;
            x ^= comb;
        }
    }
    (v, x)
}

/// Whether `v` is a value of the image.
pub(crate) fn reaches(l: &F2Layout, v: u64) -> bool {
    let mut r = v ^ l.constant;
    for (p, b, _) in basis(l) {
        if r >> p & 1 == 1 {
            r ^= b;
        }
    }
    r == 0
}

/// `in_bounds(f, n)`: every value below `n` (concrete), by the largest value.
pub(crate) fn in_bounds(ctx: &Ctx, f: &Func, l: &F2Layout, n: &SymInt) -> PResult<Result<Verdict, String>> {
    let Some(hi) = n.as_const() else {
        return Ok(Err(format!("the bound {n} is not concrete")));
    };
    let (top, x) = extreme(l, true);
    if hi > 0 && top < hi as u64 {
        return Ok(Ok(Verdict::Proved));
    }
    // Values are never negative: the largest one breaks the bound.
    let idx = Vals::from([("x".to_string(), x as i64)]);
    Ok(Ok(confirm(ctx, Vals::new(), idx, |ps, idx| {
        recheck_in_bounds(f, n, ps, idx)
    })?))
}

/// `surjective(f, n)`: every value below `n` (default: the size) is reached.
pub(crate) fn surjective(
    ctx: &Ctx,
    f: &Func,
    l: &F2Layout,
    n: Option<&SymInt>,
) -> PResult<Result<Verdict, String>> {
    let n = match n {
        None => 1i64 << l.inputs(),
        Some(s) => match s.as_const() {
            Some(v) => v,
            None => return Ok(Err(format!("the bound {s} is not concrete"))),
        },
    };
    if n <= 0 {
        return Ok(Ok(Verdict::Proved));
    }
    let bits = 64 - (n as u64 - 1).leading_zeros();
    let missed = std::iter::once(0u64)
        .chain((0..bits.min(MAX_BITS as u32 - 1)).map(|i| 1u64 << i))
        .find(|&v| !reaches(l, v));
    let Some(k) = missed else {
        return Ok(Ok(Verdict::Proved));
    };
    Ok(Ok(confirm(ctx, Vals::new(), Vals::new(), |ps, _| {
        recheck_unreached(f, l, k, ps, ctx)
    })?))
}

/// Re-checks that no index of `f` reaches `k`: by enumerating the layout up to
/// [`RECHECK_LIMIT`] indices; past that, by evaluating the layout at index 0 and at every
/// power-of-two index, which must agree with the F2 map (whose image misses `k`).
fn recheck_unreached(
    f: &Func,
    l: &F2Layout,
    k: u64,
    ps: &Vals,
    ctx: &Ctx,
) -> PResult<Option<Counterexample>> {
    let c = f.at(ps)?;
    let n = c.size()?;
    let unreached = || Counterexample {
        params: vec![],
        witnesses: vec![],
        summary: format!("no index reaches {k}"),
    };
    if n <= RECHECK_LIMIT {
        let offs = match c.offsets()? {
            Some(o) => o,
            None => (0..n).map(|x| c.offset(x)).collect::<tessera_ir::Result<_>>()?,
        };
        ctx.deadline.check()?;
        return Ok((!offs.contains(&(k as i64))).then(unreached));
    }
    for x in std::iter::once(0u64).chain((0..l.inputs()).map(|j| 1u64 << j)) {
        if c.offset(x as i64)? != l.eval(x) as i64 {
            return Err(ProveError::internal(format!(
                "the F2 map of {f} disagrees with the layout at index {x}"
            )));
        }
    }
    Ok(Some(unreached()))
}
