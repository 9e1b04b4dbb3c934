//! Proofs by structure, tried before the verifier's z3 queries, for the two obligations of
//! plain layouts (no swizzle, no offset, integer strides). Both are theorems about the sums
//! `offset(c) = sum_k c_k * d_k`, `0 <= c_k < s_k`, whose side conditions are decided on the
//! symbolic values under the facts ([`Int::less`]: true, false, or undecided). An undecided or
//! failing side condition proves nothing: the obligation goes to the verifier, which proves it
//! or finds the counterexample.
//!
//! * In bounds: every extent `s_k >= 1` and every stride `d_k >= 0` give
//!   `0 <= offset(c) <= sum_k (s_k - 1) * d_k = cosize - 1`, the cosize being exactly that sum
//!   plus one (how the front end computes a plain layout's cosize).
//! * Injective: drop the modes of extent 1; if every other stride is positive and, sorted
//!   ascending, each stride exceeds the largest offset of the modes before it
//!   (`d_k > sum_{j<k} (s_j - 1) * d_j`), the coordinates are the digits of a mixed-radix
//!   representation of the offset, so distinct coordinates reach distinct offsets.

use tessera_ir::sym::SymInt;
use tessera_ir::{Int, Layout};
use tessera_verifier::Func;

/// The integer strides and extents of a plain layout (`None` for a composed one or other
/// strides).
fn modes(f: &Func) -> Option<Vec<(SymInt, SymInt)>> {
    let Func::Layout(l) = f else { return None };
    plain(l)
}

fn plain(l: &Layout<SymInt>) -> Option<Vec<(SymInt, SymInt)>> {
    l.flat_shape()
        .iter()
        .zip(l.flat_stride())
        .map(|(s, d)| d.as_int().map(|d| (s.clone(), d.clone())))
        .collect()
}

/// True when `a < b` is decided true.
fn lt(a: &SymInt, b: &SymInt) -> bool {
    a.less(b).unwrap_or(false)
}

/// Whether `f`'s offsets are proved in `[0, cosize)` by structure, `cosize` being `f`'s own
/// cosize.
pub fn in_bounds(f: &Func, cosize: &SymInt) -> bool {
    let Some(ms) = modes(f) else { return false };
    let Func::Layout(l) = f else { return false };
    let same = l.cosize().ok().is_some_and(|c| c.eq_val(cosize).unwrap_or(false));
    same && ms
        .iter()
        .all(|(s, d)| s.less(&SymInt::one()) == Ok(false) && d.less(&SymInt::zero()) == Ok(false))
}

/// Whether `f` is proved injective by structure.
pub fn injective(f: &Func) -> bool {
    let Some(ms) = modes(f) else { return false };
    let mut ms: Vec<(SymInt, SymInt)> = ms.into_iter().filter(|(s, _)| !s.is(1)).collect();
    if !ms
        .iter()
        .all(|(s, d)| s.less(&SymInt::one()) == Ok(false) && lt(&SymInt::zero(), d))
    {
        return false;
    }
    // Insertion sort by stride; an undecided comparison gives up. Equal strides may come in
    // either order: the strict test below refuses them anyway.
    for k in 1..ms.len() {
        let mut j = k;
        while j > 0 {
            // Non-strict comparisons: `1 <= N` is decided where `1 < N` may not be.
            if ms[j].1.less_eq(&ms[j - 1].1) == Ok(true) {
                ms.swap(j, j - 1);
                j -= 1;
            } else if ms[j - 1].1.less_eq(&ms[j].1) == Ok(true) {
                break;
            } else {
                return false;
            }
        }
    }
    let mut span = SymInt::zero();
    for (s, d) in &ms {
        if !lt(&span, d) {
            return false;
        }
        let Ok(next) = s
            .sub(&SymInt::one())
            .and_then(|x| x.mul(d))
            .and_then(|x| x.add(&span))
        else {
            return false;
        };
        span = next;
    }
    true
}
