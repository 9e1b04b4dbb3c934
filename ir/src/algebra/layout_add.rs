//! `layout_add` and `greatest_common_domain`.
//!
//! `layout_add(A, B)` is the layout of `A(i) + B(i)`. It exists when the coalesced shapes of
//! `A` and `B` share a common factorization of the whole domain, which
//! `greatest_common_domain` finds. Each function states its contract on itself.

use super::coalesce::coalesce;
use crate::error::{Error, Result};
use crate::htuple::HTuple;
use crate::int::Int;
use crate::layout::Layout;
use crate::stride::Stride;

/// `R(i) == A(i) + B(i)` for every `i < size(A)`; an error when no layout does that.
///
/// # Pre-conditions
///
/// * `size(A) == size(B)`; otherwise an [`Error::Condition`] of `layout_add` naming both
///   sizes.
/// * The coalesced shapes share a factorization of the whole domain:
///   [`greatest_common_domain`]`(shape(coalesce(A)), shape(coalesce(B)))` has size
///   `size(A)`. Otherwise an [`Error::Condition`] naming the coalesced layouts and their
///   greatest common domain.
///
/// # Post-conditions
///
/// * `size(R) == size(A)` and `R(i) == A(i) + B(i)` for every `i` in `[0, size(A))`;
/// * `R` is coalesced.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::layout_add, parse_layout as l};
/// let add = |a: &str, b: &str| layout_add(&l(a).unwrap(), &l(b).unwrap());
/// assert_eq!(add("(4,3):(1,4)", "(4,3):(3,1)").unwrap().to_string(), "(4,3):(4,5)");
/// assert_eq!(add("(5,3,4):(1,5,15)", "(10,6):(1,10)").unwrap().to_string(), "60:2");
/// assert_eq!(add("5:0", "5:1").unwrap().to_string(), "5:1");
/// // (5,3) and (3,5) have no common factor in leaf order.
/// let e = add("(5,3):(1,10)", "(3,5):(1,6)").unwrap_err().to_string();
/// assert!(e.contains("have no common factorization of size 15"));
/// let e = add("4:1", "5:1").unwrap_err().to_string();
/// assert_eq!(e, "layout_add: size mismatch: size(4:1) = 4, size(5:1) = 5");
/// ```
pub fn layout_add<I: Int>(a: &Layout<I>, b: &Layout<I>) -> Result<Layout<I>> {
    let (sa, sb) = (a.size()?, b.size()?);
    if !sa.eq_val(&sb)? {
        return Err(Error::cond(
            "layout_add",
            format!("size mismatch: size({a}) = {sa}, size({b}) = {sb}"),
        ));
    }
    let ac = coalesce(a)?;
    let bc = coalesce(b)?;
    let g = greatest_common_domain(ac.shape(), bc.shape())?;
    if !g.size()?.eq_val(&sa)? {
        return Err(Error::cond(
            "layout_add",
            format!("{ac} and {bc} have no common factorization of size {sa} (greatest common domain {g})"),
        ));
    }
    let mut strides = Vec::with_capacity(g.flat_shape().len());
    for d in g.flat_stride() {
        let idx = d.as_int().cloned().unwrap_or_else(I::zero);
        strides.push(ac.eval_index(&idx)?.add(&bc.eval_index(&idx)?)?);
    }
    let r = Layout::from_parts(
        g.shape().clone(),
        HTuple::unflatten(strides, g.shape().profile())?,
    );
    coalesce(&r)
}

/// The largest ordered factorization that the shapes `a` and `b` share, as a layout whose
/// strides are the domain index where each common factor starts. `(1):(0)` when none.
///
/// # Pre-conditions
///
/// None: any two shapes have a greatest common domain. The only errors are an
/// [`Error::Overflow`] of an index product and an [`Error::Undecided`] for symbolic extents
/// whose divisibility cannot be decided.
///
/// # Post-conditions
///
/// * `R` is injective, with `0 <= R(i) < min(size(a), size(b))`, and `size(R)` divides
///   `gcd(size(a), size(b))`;
/// * each mode of `R` lies inside one leaf of `a` and inside one leaf of `b`, so that
///   [`composition`](crate::algebra::composition)`(L, R)` exists for every layout `L` of
///   shape `a` or `b` with integer strides;
/// * when `a` and `b` have the same leaves, `size(R) == size(a)`.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::greatest_common_domain, parse_int_tuple as t};
/// let g = |a: &str, b: &str| greatest_common_domain(&t(a).unwrap(), &t(b).unwrap());
/// assert_eq!(g("(5,3,4)", "(10,6)").unwrap().to_string(), "(5,2):(1,30)");
/// assert_eq!(g("(6,35)", "(15,14)").unwrap().to_string(), "(3,7):(1,30)");
/// assert_eq!(g("(16,3)", "(16,3)").unwrap().to_string(), "(16,3):(1,16)");
/// assert_eq!(g("(5,3)", "(3,5)").unwrap().to_string(), "(1):(0)");
/// let e = g("(4294967296,4294967296)", "(4294967296,4294967296)").unwrap_err();
/// assert!(e.to_string().starts_with("integer overflow"));
/// ```
pub fn greatest_common_domain<I: Int>(a: &HTuple<I>, b: &HTuple<I>) -> Result<Layout<I>> {
    let mut av: Vec<I> = a.leaves().to_vec();
    let mut bv: Vec<I> = b.leaves().to_vec();
    let (mut rs, mut rd): (Vec<I>, Vec<Stride<I>>) = (Vec::new(), Vec::new());
    let (mut pa, mut pb) = (I::one(), I::one());
    let (mut i, mut j) = (0usize, 0usize);
    while i < av.len() && j < bv.len() {
        if av[i].is(1) {
            i += 1;
            continue;
        }
        if bv[j].is(1) {
            j += 1;
            continue;
        }
        let l = pa.lcm(&pb)?;
        let (ra, rb) = (l.div_exact(&pa)?, l.div_exact(&pb)?);
        if ra.divides(&av[i])? && rb.divides(&bv[j])? {
            let g = av[i].div_exact(&ra)?.gcd(&bv[j].div_exact(&rb)?)?;
            if !g.is(1) {
                rs.push(g.clone());
                rd.push(Stride::Int(l.clone()));
                av[i] = av[i].div_exact(&ra.mul(&g)?)?;
                bv[j] = bv[j].div_exact(&rb.mul(&g)?)?;
                pa = l.mul(&g)?;
                pb = pa.clone();
                continue;
            }
        }
        // Advance the leaf that ends first (both when neither end divides the other).
        let (ea, eb) = (pa.mul(&av[i])?, pb.mul(&bv[j])?);
        let (qa, qb) = (ea.divides(&eb)?, eb.divides(&ea)?);
        if qa || !qb {
            pa = ea;
            i += 1;
        }
        if qb || !qa {
            pb = eb;
            j += 1;
        }
    }
    if rs.is_empty() {
        return Ok(Layout::from_parts(
            HTuple::flat([I::one()]),
            HTuple::flat([Stride::zero()]),
        ));
    }
    Ok(Layout::from_parts(HTuple::flat(rs), HTuple::flat(rd)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse_int_tuple as t, parse_layout as l};

    #[test]
    fn seed_examples() {
        let g = |a: &str, b: &str| {
            greatest_common_domain(&t(a).unwrap(), &t(b).unwrap())
                .unwrap()
                .to_string()
        };
        assert_eq!(g("(10)", "(10)"), "(10):(1)");
        assert_eq!(g("(16,3)", "(16,3)"), "(16,3):(1,16)");
        assert_eq!(g("(5,3,4)", "(10,6)"), "(5,2):(1,30)");
        assert_eq!(g("(6,35)", "(15,14)"), "(3,7):(1,30)");
        assert_eq!(g("(5,3)", "(3,5)"), "(1):(0)");
        let add = |a: &str, b: &str| layout_add(&l(a).unwrap(), &l(b).unwrap()).unwrap().to_string();
        assert_eq!(add("12:1", "12:1"), "12:2");
        assert_eq!(add("5:0", "5:1"), "5:1");
        assert_eq!(add("(5,3,4):(1,5,15)", "(10,6):(1,10)"), "60:2");
    }
}
