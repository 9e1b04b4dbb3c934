//! Proofs by structure, tried before the verifier's z3 queries, for the two obligations of
//! plain and offset layouts (no swizzle, integer strides). Both are theorems about the sums
//! `offset(c) = o + sum_k c_k * d_k`, `0 <= c_k < s_k`, whose side conditions are decided on
//! the symbolic values under the facts: by the facts' intervals ([`Int::less`]), or else by
//! monotonicity ([`nonnegative`]: with every parameter `P` written `lo_P + P'`, `P' >= 0`, a
//! polynomial whose coefficients are all nonnegative is nonnegative wherever the facts admit
//! its parameters; `M*N - M = M*N' + N'` with `M, N >= 1`). An undecided or failing side
//! condition proves nothing: the obligation goes to the verifier, which proves it or finds
//! the counterexample.
//!
//! * In bounds: every extent `s_k >= 1` and every stride's sign decided give the extreme
//!   offsets `o + sum_{d_k < 0} (s_k - 1) * d_k` and `o + sum_{d_k > 0} (s_k - 1) * d_k`
//!   (each reached: the offset is monotone in each coordinate); the first must be `>= 0`, the
//!   second below the buffer's length (for nonnegative strides and no offset, exactly the
//!   cosize minus one, how the front end computes a plain layout's cosize).
//! * Injective: drop the modes of extent 1; if every other stride is positive and, sorted
//!   ascending, each stride exceeds the largest offset of the modes before it
//!   (`d_k > sum_{j<k} (s_j - 1) * d_j`), the coordinates are the digits of a mixed-radix
//!   representation of the offset, so distinct coordinates reach distinct offsets.

use tessera_ir::sym::{Atom, Poly, Q, SymInt};
use tessera_ir::{Int, Layout};
use tessera_verifier::Func;

/// The integer strides and extents of a plain or offset layout, and its offset (`None` for a
/// swizzled one or other strides).
fn modes(f: &Func) -> Option<Vec<(SymInt, SymInt)>> {
    match f {
        Func::Layout(l) => plain(l),
        Func::Composed(c) if c.swizzle.is_none() => plain(&c.inner),
        Func::Composed(_) => None,
    }
}

/// The offset added to a layout's value (zero for a plain layout).
fn offset(f: &Func) -> SymInt {
    match f {
        Func::Layout(_) => SymInt::zero(),
        Func::Composed(c) => c.offset.clone(),
    }
}

/// Whether `d >= 0` (`strict`: `d >= 1`) for every value the facts admit, by monotonicity:
/// each parameter `P` replaced by `lo_P + P'` with `P' >= 0`, every coefficient of the
/// result is nonnegative (and, when `strict`, the constant term positive: an integer above 0
/// is at least 1). Sound, not complete: `false` proves nothing. A floor quotient, or a
/// parameter without facts, gives `false`.
///
/// ```text
/// M*N - M, with M >= 1, N >= 1:  (1+M')(1+N') - (1+M') = N' + M'N'  >= 0
/// ```
pub(crate) fn nonnegative(d: &SymInt, strict: bool) -> bool {
    if let Some(c) = d.as_const() {
        return if strict { c >= 1 } else { c >= 0 };
    }
    let Some(facts) = d.facts() else { return false };
    let shifted = d
        .poly()
        .terms()
        .iter()
        .try_fold(Poly::default(), |sum, (mono, q)| {
            let mut term = Poly::constant(*q);
            for (atom, e) in mono {
                let Atom::Param(name) = atom else { return None };
                let lo = facts.get(name)?.lo;
                let x = Poly::atom(atom.clone())
                    .add(&Poly::constant(Q::new(i128::from(lo), 1).ok()?))
                    .ok()?;
                for _ in 0..*e {
                    term = term.mul(&x).ok()?;
                }
            }
            sum.add(&term).ok()
        });
    let Some(p) = shifted else { return false };
    let zero = Q::new(0, 1).expect("0/1");
    let constant = p.as_const().unwrap_or_else(|| {
        p.terms()
            .iter()
            .find(|(m, _)| m.is_empty())
            .map_or(zero, |(_, q)| *q)
    });
    p.terms().iter().all(|(_, q)| *q >= zero) && (!strict || constant > zero)
}

/// `a <= b` decided true (by the facts' intervals, or by monotonicity).
fn le(a: &SymInt, b: &SymInt) -> bool {
    a.less_eq(b) == Ok(true) || b.sub(a).is_ok_and(|d| nonnegative(&d, false))
}

fn plain(l: &Layout<SymInt>) -> Option<Vec<(SymInt, SymInt)>> {
    l.flat_shape()
        .iter()
        .zip(l.flat_stride())
        .map(|(s, d)| d.as_int().map(|d| (s.clone(), d.clone())))
        .collect()
}

/// True when `a < b` is decided true (by the facts' intervals, or by monotonicity).
fn lt(a: &SymInt, b: &SymInt) -> bool {
    a.less(b).unwrap_or(false) || b.sub(a).is_ok_and(|d| nonnegative(&d, true))
}

/// Whether `f`'s offsets are proved in `[0, len)` by structure: the smallest and the largest
/// offset (see the module's documentation) decided against the bounds.
pub fn in_bounds(f: &Func, len: &SymInt) -> bool {
    let Some(ms) = modes(f) else { return false };
    let (mut lo, mut hi) = (offset(f), offset(f));
    for (s, d) in &ms {
        if !le(&SymInt::one(), s) {
            return false;
        }
        if s.is(1) {
            continue;
        }
        let Ok(span) = s.sub(&SymInt::one()).and_then(|x| x.mul(d)) else {
            return false;
        };
        let next = if le(&SymInt::zero(), d) {
            hi.add(&span).map(|h| hi = h)
        } else if le(d, &SymInt::zero()) {
            lo.add(&span).map(|l| lo = l)
        } else {
            return false;
        };
        if next.is_err() {
            return false;
        }
    }
    le(&SymInt::zero(), &lo) && lt(&hi, len)
}

/// Whether `f` is proved injective by structure.
pub fn injective(f: &Func) -> bool {
    let Some(ms) = modes(f) else { return false };
    let ms: Vec<(SymInt, SymInt)> = ms.into_iter().filter(|(s, _)| !s.is(1)).collect();
    // A negative stride is its mode reversed: the same offsets, shifted, so injectivity
    // reads its magnitude.
    let mut ms: Vec<(SymInt, SymInt)> = ms
        .into_iter()
        .map(|(s, d)| match d.neg() {
            Ok(n) if lt(&d, &SymInt::zero()) => (s, n),
            _ => (s, d),
        })
        .collect();
    if !ms
        .iter()
        .all(|(s, d)| le(&SymInt::one(), s) && lt(&SymInt::zero(), d))
    {
        return false;
    }
    // Insertion sort by stride; an undecided comparison gives up. Equal strides may come in
    // either order: the strict test below refuses them anyway.
    for k in 1..ms.len() {
        let mut j = k;
        while j > 0 {
            // Non-strict comparisons: `1 <= N` is decided where `1 < N` may not be.
            if le(&ms[j].1, &ms[j - 1].1) {
                ms.swap(j, j - 1);
                j -= 1;
            } else if le(&ms[j - 1].1, &ms[j].1) {
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
