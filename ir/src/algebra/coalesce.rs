//! `coalesce`, `coalesce_z` and `filter`: the simplest equivalent layout.
//!
//! Post-conditions (seed `004_*`): `size(R) == size(A)`, `depth(R) <= 1` (or per profile
//! mode), and `R(i) == A(i)` for every `i` in `[0, size(A))`. `coalesce_z` keeps a trailing
//! size-1 mode, so that `R(i) == A(i)` for *every* integer `i`, as the last mode absorbs
//! indices past the size.
//!
//! ```
//! use tessera_ir::{algebra::coalesce, parse_layout};
//! let a = parse_layout("(2,(1,6)):(1,(6,2))").unwrap();
//! assert_eq!(coalesce(&a).unwrap().to_string(), "12:1");
//! ```

use crate::error::{Error, Result};
use crate::htuple::HTuple;
use crate::int::Int;
use crate::layout::Layout;
use crate::stride::Stride;
use smallvec::SmallVec;

/// Flat leaves, inline for the common small layouts.
pub(crate) type Flat<T> = SmallVec<[T; 8]>;

/// A flat layout as its extents and strides.
pub(crate) type FlatLayout<I> = (Flat<I>, Flat<Stride<I>>);

/// Two adjacent modes `(s_a, s_b):(d_a, d_b)` act as the single mode `s_a*s_b:d_a` exactly
/// when the map stays additive across them: `s_a*d_a == d_b`, and (for `F2` strides, whose sum
/// is XOR) `(s_a-1)*d_a + d_b == (2*s_a-1)*d_a`. Undecidable symbolic equalities count as
/// "not mergeable", which keeps the result correct.
fn mergeable<I: Int>(sa: &I, da: &Stride<I>, db: &Stride<I>) -> Result<bool> {
    let first = da.scale(sa)?;
    if !stride_eq(&first, db) {
        return Ok(false);
    }
    if let Stride::F2(_) = da {
        let lhs = da.scale(&sa.sub(&I::one())?)?.add(db)?;
        let rhs = da.scale(&sa.mul(&I::lit(2))?.sub(&I::one())?)?;
        return Ok(stride_eq(&lhs, &rhs));
    }
    Ok(true)
}

/// Provable equality of two strides (structural, or decided for integers).
pub(crate) fn stride_eq<I: Int>(a: &Stride<I>, b: &Stride<I>) -> bool {
    match (a, b) {
        (Stride::Int(x), Stride::Int(y)) => x.eq_val(y).unwrap_or(false),
        _ => a == b,
    }
}

/// The size-1-preserving fold over flat leaves. Size-1 modes vanish unless they end the list.
pub(crate) fn coalesce_z_flat<I: Int>(s: &[I], d: &[Stride<I>]) -> Result<(Flat<I>, Flat<Stride<I>>)> {
    let mut rs: Flat<I> = SmallVec::new();
    let mut rd: Flat<Stride<I>> = SmallVec::new();
    for (sb, db) in s.iter().zip(d) {
        while rs.last().is_some_and(|x| x.is(1)) {
            rs.pop();
            rd.pop();
        }
        if let (Some(sa), Some(da)) = (rs.last(), rd.last())
            && mergeable(sa, da, db)?
        {
            let merged = sa.mul(sb)?;
            if let Some(last) = rs.last_mut() {
                *last = merged;
            }
            continue;
        }
        rs.push(sb.clone());
        rd.push(db.clone());
    }
    Ok((rs, rd))
}

fn build<I: Int>(s: Flat<I>, d: Flat<Stride<I>>, drop_trailing_one: bool) -> Layout<I> {
    if s.is_empty() {
        return Layout::leaf(I::one(), Stride::zero());
    }
    let (mut s, mut d) = (s, d);
    if drop_trailing_one && s.len() > 1 && s.last().is_some_and(|x| x.is(1)) {
        s.pop();
        d.pop();
    }
    Layout::flat_or_leaf(s, d)
}

/// Coalesces the whole layout to depth ≤ 1, dropping a trailing size-1 mode (C++ `coalesce`).
pub fn coalesce<I: Int>(a: &Layout<I>) -> Result<Layout<I>> {
    let (s, d) = coalesce_z_flat(a.flat_shape(), a.flat_stride())?;
    Ok(build(s, d, true))
}

/// Coalesces the whole layout, keeping a trailing size-1 mode (`coalesce_z`).
pub fn coalesce_z<I: Int>(a: &Layout<I>) -> Result<Layout<I>> {
    let (s, d) = coalesce_z_flat(a.flat_shape(), a.flat_stride())?;
    Ok(build(s, d, false))
}

/// By-mode coalescing: a leaf of `profile` coalesces that mode of `a` whole, a `false` leaf
/// (`_`) keeps it, a tuple recurses. Modes of `a` past the profile's rank are kept.
pub fn coalesce_by<I: Int>(a: &Layout<I>, profile: &HTuple<bool>) -> Result<Layout<I>> {
    by_profile(a, profile, "coalesce", &coalesce)
}

/// By-mode [`coalesce_z`].
pub fn coalesce_z_by<I: Int>(a: &Layout<I>, profile: &HTuple<bool>) -> Result<Layout<I>> {
    by_profile(a, profile, "coalesce_z", &coalesce_z)
}

fn by_profile<I: Int>(
    a: &Layout<I>,
    profile: &HTuple<bool>,
    op: &'static str,
    whole: &dyn Fn(&Layout<I>) -> Result<Layout<I>>,
) -> Result<Layout<I>> {
    if let Some(&keep_or_go) = profile.as_leaf() {
        return if keep_or_go { whole(a) } else { Ok(a.clone()) };
    }
    if a.rank() < profile.rank() {
        return Err(Error::cond(
            op,
            format!(
                "profile {profile:?} has rank {} but {a} has rank {}",
                profile.rank(),
                a.rank()
            ),
        ));
    }
    let pmodes = profile.modes();
    let mut out = Vec::with_capacity(a.rank());
    for (k, m) in a.modes().into_iter().enumerate() {
        match pmodes.get(k) {
            Some(p) => out.push(by_profile(&m, p, op, whole)?),
            None => out.push(m),
        }
    }
    Ok(Layout::concat(out))
}

/// Removes stride-0 and size-1 modes, then coalesces (`filter`). `filter(A)` enumerates the
/// distinct offsets of a layout whose nonzero modes do not overlap.
pub fn filter<I: Int>(a: &Layout<I>) -> Result<Layout<I>> {
    let mut s = Vec::new();
    let mut d = Vec::new();
    for (x, y) in a.flat_shape().iter().zip(a.flat_stride()) {
        if y.is_zero()? || x.is(1) {
            continue;
        }
        s.push(x.clone());
        d.push(y.clone());
    }
    let (s, d) = coalesce_z_flat(&s, &d)?;
    Ok(build(s, d, true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_layout as l;

    #[test]
    fn seed_examples() {
        let c = |s: &str| coalesce(&l(s).unwrap()).unwrap().to_string();
        assert_eq!(c("(2,(1,6)):(1,(6,2))"), "12:1");
        assert_eq!(c("(2,4,6):(24,6,1)"), "(2,4,6):(24,6,1)");
        assert_eq!(c("(2,1,6,1):(1,7,8,0)"), "(2,6):(1,8)");
        let z = |s: &str| coalesce_z(&l(s).unwrap()).unwrap().to_string();
        assert_eq!(z("(2,1,6,1):(1,7,8,0)"), "(2,6,1):(1,8,0)");
        let p = HTuple::flat([true, true]);
        assert_eq!(
            coalesce_by(&l("(2,(1,6)):(1,(6,2))").unwrap(), &p)
                .unwrap()
                .to_string(),
            "(2,6):(1,2)"
        );
        let p1 = HTuple::flat([false, true]);
        assert_eq!(
            coalesce_by(&l("(3,(2,6)):(1,(3,6))").unwrap(), &p1)
                .unwrap()
                .to_string(),
            "(3,12):(1,3)"
        );
        assert_eq!(
            filter(&l("(2,4,3):(0,1,4)").unwrap()).unwrap().to_string(),
            "12:1"
        );
        assert_eq!(filter(&l("(2,4):(0,0)").unwrap()).unwrap().to_string(), "1:0");
    }
}
