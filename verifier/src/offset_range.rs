//! Offsets are `i64`: one semantics for every engine. A concrete layout whose offsets leave
//! `i64` on its domain is bad input ([`ProveError::Invalid`]), named with the index that
//! leaves, before any engine runs; so z3 (whose integers are unbounded), the structural engine
//! (which reasons on the leaves), F2 and enumeration (which evaluates in `i64`) all answer the
//! same question or none.
//!
//! The extremes of `offset + Σ c_k·d_k` over `0 <= c_k < s_k` are taken leaf by leaf
//! (`c_k = s_k - 1` where `d_k > 0` for the largest, where `d_k < 0` for the smallest), in
//! `i128`, so the index that reaches each is known. An `F2` stride's values are the XOR of
//! its leaves' `c_k·d_k`: each leaf's largest term must fit, and then so does their XOR. A
//! swizzle moves bits of the (in-range) value down, never past its highest bit. Layouts with
//! parameters are checked at each valuation enumeration visits ([`check_at`], bad input
//! naming the valuation; a stride or size past `i64` too); after a proof by any other engine,
//! z3 asks for such a valuation ([`crate::int64_domain`]).

use crate::error::{PResult, ProveError};
use crate::func::{Concrete, Func};
use std::collections::HashMap;
use tessera_ir::{Codomain, Int, Stride};

/// Checks that `f`'s offsets fit in `i64` at every index of its domain; bad input naming the
/// first index that leaves otherwise. Functions with parameters and coordinate-valued ones
/// pass unchecked.
///
/// @pre none. @post `Ok` only if every offset of a concrete integer-valued `f` is an `i64`.
///
/// ```ignore
/// // (2,3):(2^62, 3074457345618258602) reaches 2^62 + 2·3074457345618258602 > i64::MAX.
/// assert!(check(&f("(2,3):(4611686018427387904,3074457345618258602)")).is_err());
/// ```
pub(crate) fn check(what: &str, f: &Func) -> PResult<()> {
    if f.syms().iter().any(|s| s.as_const().is_none()) {
        return Ok(());
    }
    check_at(what, f, &HashMap::new())
}

/// [`check`] at the parameter values `vals` (every parameter of `f` bound); the message
/// names them.
pub(crate) fn check_at(what: &str, f: &Func, vals: &HashMap<String, i64>) -> PResult<()> {
    if !matches!(f.codomain(), Ok(Codomain::Int | Codomain::F2)) {
        return Ok(());
    }
    let mut at: Vec<String> = vals.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    at.sort();
    let at = if at.is_empty() {
        String::new()
    } else {
        format!(" at {}", at.join(", "))
    };
    // A valuation whose strides or size leave i64 is bad input too (indices are i64).
    let past = |e: tessera_ir::Error| match e {
        tessera_ir::Error::Overflow(m) => Err(ProveError::Invalid(format!(
            "{what}: {f}{at} has a stride or size past i64 ({m}; offsets and indices are 64-bit \
             signed integers on every engine)"
        ))),
        _ => Ok(()),
    };
    let c = match f.at(vals) {
        Ok(c) => c,
        Err(e) => return past(e),
    };
    if let Err(e) = c.size() {
        return past(e);
    }
    let (l, offset) = match &c {
        Concrete::Layout(l) => (l, 0i128),
        Concrete::Composed(cl) => (&cl.inner, i128::from(cl.offset)),
    };
    let bad = |idx: i128, value: i128| {
        Err(ProveError::Invalid(format!(
            "{what}: {f}{at} reaches the offset {value} at index {idx}, past i64 (offsets are \
             64-bit signed integers on every engine)"
        )))
    };
    let range = i128::from(i64::MIN)..=i128::from(i64::MAX);
    let (mut hi, mut lo, mut hi_idx, mut lo_idx, mut unit) = (offset, offset, 0i128, 0i128, 1i128);
    let (mut f2, mut or) = (false, 0u128);
    for (s, d) in l.flat_shape().iter().zip(l.flat_stride()) {
        let last = i128::from(*s - 1).max(0);
        match d {
            Stride::Int(d) => {
                let term = last * i128::from(*d);
                if term > 0 {
                    (hi, hi_idx) = (hi + term, hi_idx + last * unit);
                } else {
                    (lo, lo_idx) = (lo + term, lo_idx + last * unit);
                }
            }
            Stride::F2(d) => {
                f2 = true;
                let term = last * i128::from(*d);
                if !range.contains(&(offset + term)) {
                    return bad(last * unit, offset + term);
                }
                or |= term as u128;
            }
            Stride::Basis(_) => return Ok(()),
        }
        unit = unit.saturating_mul(i128::from(*s).max(1));
    }
    if !f2 {
        if !range.contains(&hi) {
            return bad(hi_idx, hi);
        }
        if !range.contains(&lo) {
            return bad(lo_idx, lo);
        }
        return Ok(());
    }
    // F2: each value is an XOR of the leaves' terms (each fits), so below the next power of
    // two past their OR; with an offset added, the indices are visited when that bound leaves
    // i64 (small domains; a larger one is left to evaluation, which errs on overflow).
    let bound = (or + 1).next_power_of_two() as i128 - 1;
    if range.contains(&(offset + bound)) {
        return Ok(());
    }
    let size = c.size().unwrap_or(i64::MAX);
    if size > F2_VISIT {
        return Ok(());
    }
    for i in 0..size {
        if let Ok(Stride::F2(v)) = l.eval_index(&i) {
            let value = offset + i128::from(v);
            if !range.contains(&value) {
                return bad(i128::from(i), value);
            }
        }
    }
    Ok(())
}

/// The most indices of an `F2` layout with an offset visited to find one past `i64`.
const F2_VISIT: i64 = 1 << 22;
