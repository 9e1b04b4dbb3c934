//! `right_inverse` and `left_inverse`.
//!
//! Both work on the coalesced `A`, one codomain axis at a time, following the chain of its
//! strides in increasing order. Each function states its contract on itself.

use super::axes::{AxisLeaf, axes, sort_by_stride};
use super::coalesce::{coalesce, coalesce_z_flat};
use crate::error::{Error, Result};
use crate::int::Int;
use crate::layout::Layout;
use crate::stride::Stride;

/// The coalesced leaves with their domain prefix products.
fn prepared<I: Int>(op: &'static str, a: &Layout<I>) -> Result<(super::axes::Axes<I>, Vec<I>)> {
    let (s, d) = coalesce_z_flat(a.flat_shape(), a.flat_stride())?;
    let mut pps = Vec::with_capacity(s.len());
    let mut acc = I::one();
    for x in &s {
        pps.push(acc.clone());
        acc = acc.mul(x)?;
    }
    Ok((axes(op, &s, &d)?, pps))
}

fn assemble<I: Int>(coord: bool, per_axis: Vec<Layout<I>>) -> Layout<I> {
    if coord {
        Layout::concat(per_axis)
    } else {
        per_axis
            .into_iter()
            .next()
            .unwrap_or_else(|| Layout::leaf(I::one(), Stride::zero()))
    }
}

/// The largest right inverse: `A(R(k)) == k` for every `k < size(R)`.
///
/// It follows the chain of strides `1, s_0, s_0*s_1, ...` through the modes of the coalesced
/// `A`, sorted by stride: each mode whose stride is the span reached so far extends the run of
/// offsets `[0, size(R))` that `A` reaches; zero and negative strides never do.
///
/// # Pre-conditions
///
/// The strides of `A` are integers, or single basis vectors `v@k` at depth one (one inverse
/// per axis, side by side); `F2` strides or deeper coordinates are an
/// [`Error::Condition`] of `right_inverse` naming them. (Symbolic strides that cannot be
/// ordered are an [`Error::Undecided`].)
///
/// # Post-conditions
///
/// * `0 <= R(k) < size(A)` and `A(R(k)) == k` for every `k` in `[0, size(R))`;
/// * when `A` is a bijection onto `[0, size(A))`, `size(R) == size(A)` and `R(A(i)) == i` for
///   every `i` in `[0, size(A))`;
/// * `R` is `1:0` when no mode of the coalesced `A` has stride 1.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::right_inverse, parse_layout};
/// let a = parse_layout("(4,8):(8,1)").unwrap();
/// let r = right_inverse(&a).unwrap();
/// assert_eq!(r.to_string(), "(8,4):(4,1)");
/// for k in 0..32 {
///     let i = *r.eval_index(&k).unwrap().as_int().unwrap();
///     assert_eq!(a.eval_index(&i).unwrap().as_int(), Some(&k));
/// }
/// let ri = |s: &str| right_inverse(&parse_layout(s).unwrap()).map(|r| r.to_string());
/// assert_eq!(ri("(4,8):(1,4)").unwrap(), "32:1");
/// assert_eq!(ri("(4,8):(1,5)").unwrap(), "4:1");
/// assert_eq!(ri("(12,6,7):(0,24,0)").unwrap(), "1:0");
/// let e = ri("(4,8):(F2(1),F2(4))").unwrap_err();
/// assert_eq!(e.to_string(), "right_inverse: F2 strides are not supported here");
/// ```
pub fn right_inverse<I: Int>(a: &Layout<I>) -> Result<Layout<I>> {
    let (ax, pps) = prepared("right_inverse", a)?;
    let mut per_axis = Vec::with_capacity(ax.groups.len());
    for mut g in ax.groups {
        sort_by_stride("right_inverse", &mut g)?;
        let mut rs = Vec::new();
        let mut rd = Vec::new();
        let mut curr = I::one();
        for AxisLeaf { idx, s, d } in g {
            if d.is_zero()? || s.is(1) {
                continue;
            }
            if !d.eq_val(&curr).map_err(|e| e.in_op("right_inverse"))? {
                continue;
            }
            rs.push(s.clone());
            rd.push(Stride::Int(pps[idx].clone()));
            curr = s.mul(&d)?;
        }
        per_axis.push(finish(rs, rd)?);
    }
    Ok(assemble(ax.coord, per_axis))
}

fn finish<I: Int>(rs: Vec<I>, rd: Vec<Stride<I>>) -> Result<Layout<I>> {
    if rs.is_empty() {
        return Ok(Layout::leaf(I::one(), Stride::zero()));
    }
    coalesce(&Layout::flat_or_leaf(rs, rd))
}

/// A left inverse: `R(A(i)) == i` for every `i < size(A)`; an error when `A` is not
/// injective or its strides do not form a divisible chain.
///
/// # Pre-conditions
///
/// * The strides of `A` are integers, or single basis vectors `v@k` at depth one; otherwise
///   an [`Error::Condition`] of `left_inverse` naming them.
/// * In the coalesced `A`, the nonzero strides of the modes of extent above 1, sorted as
///   `d_0 <= d_1 <= ...` with extents `s_k`, are positive and form a divisible chain:
///   `d_(k-1)` divides `d_k` and `d_k >= d_(k-1) * s_(k-1)`. Otherwise an
///   [`Error::Condition`] saying that `A` "has a negative stride", that its strides "do not
///   form a divisible chain" (`(2,2):(2,3)`, injective as it is), or that it "is not
///   injective". Stride-0 modes carry no information and are skipped, as in PyCuTe.
///
/// # Post-conditions
///
/// * `A(R(A(i))) == A(i)` for every `i` in `[0, size(A))`;
/// * `R(A(i)) == i` for every `i` in `[0, size(A))` when `A` is injective;
/// * the modes of `A` with a nonzero stride, [`filter`](crate::algebra::filter)`(A)`, are
///   injective.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::left_inverse, parse_layout};
/// let a = parse_layout("(10,(2,2)):(4,(2,1))").unwrap();
/// let r = left_inverse(&a).unwrap();
/// assert_eq!(r.to_string(), "(2,2,10):(20,10,1)");
/// for i in 0..40 {
///     let x = *a.eval_index(&i).unwrap().as_int().unwrap();
///     assert_eq!(r.eval_index(&x).unwrap().as_int(), Some(&i));
/// }
/// let li = |s: &str| left_inverse(&parse_layout(s).unwrap()).map(|r| r.to_string());
/// assert_eq!(li("(4,8):(1,5)").unwrap(), "(5,8):(1,4)");
/// let e = li("(2,2):(2,3)").unwrap_err().to_string();
/// assert!(e.ends_with("do not form a divisible chain: 2 does not divide 3"));
/// assert!(li("(2,8):(1,1)").unwrap_err().to_string().contains("is not injective"));
/// ```
pub fn left_inverse<I: Int>(a: &Layout<I>) -> Result<Layout<I>> {
    let (ax, pps) = prepared("left_inverse", a)?;
    let mut per_axis = Vec::with_capacity(ax.groups.len());
    for mut g in ax.groups {
        // Python sorts (stride, size, prefix) tuples; ties on the stride order by size.
        sort_by_stride("left_inverse", &mut g)?;
        for i in 1..g.len() {
            let mut j = i;
            while j > 0 && g[j].d == g[j - 1].d && g[j].s.less(&g[j - 1].s).unwrap_or(false) {
                g.swap(j, j - 1);
                j -= 1;
            }
        }
        let mut rs: Vec<I> = vec![I::one()];
        let mut rd: Vec<Stride<I>> = vec![Stride::zero()];
        let mut curr = I::one();
        for AxisLeaf { idx, s, d } in g {
            if d.is_zero()? || s.is(1) {
                continue;
            }
            if d.less(&I::zero())? {
                return Err(Error::cond(
                    "left_inverse",
                    format!("{a} has a negative stride {d}"),
                ));
            }
            if !curr.divides(&d).map_err(|e| e.in_op("left_inverse"))? {
                return Err(Error::cond(
                    "left_inverse",
                    format!("strides of {a} do not form a divisible chain: {curr} does not divide {d}"),
                ));
            }
            let gap = d.div_exact(&curr)?;
            let prev = rs.last().cloned().unwrap_or_else(I::one);
            if gap.less(&prev).map_err(|e| e.in_op("left_inverse"))? {
                return Err(Error::cond(
                    "left_inverse",
                    format!("{a} is not injective: stride {d} lies inside the span of the smaller modes"),
                ));
            }
            if let Some(last) = rs.last_mut() {
                *last = gap.clone();
            }
            curr = curr.mul(&gap)?;
            rs.push(s);
            rd.push(Stride::Int(pps[idx].clone()));
        }
        let (s, d) = coalesce_z_flat(&rs, &rd)?;
        per_axis.push(if s.is_empty() {
            Layout::leaf(I::one(), Stride::zero())
        } else {
            Layout::flat_or_leaf(s, d)
        });
    }
    Ok(assemble(ax.coord, per_axis))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_layout as l;

    #[test]
    fn seed_examples() {
        let r = |s: &str| right_inverse(&l(s).unwrap()).unwrap().to_string();
        assert_eq!(r("(4,8):(1,4)"), "32:1");
        assert_eq!(r("(4,8):(8,1)"), "(8,4):(4,1)");
        assert_eq!(r("(4,8):(1,5)"), "4:1");
        assert_eq!(r("(12,6,7):(0,24,0)"), "1:0");
        let li = |s: &str| left_inverse(&l(s).unwrap()).map(|x| x.to_string());
        assert_eq!(li("(4,8):(1,4)").unwrap(), "32:1");
        assert_eq!(li("(10,(2,2)):(4,(2,1))").unwrap(), "(2,2,10):(20,10,1)");
        assert!(
            li("(2,8):(1,1)")
                .unwrap_err()
                .to_string()
                .contains("not injective")
        );
        assert!(
            li("(2,2):(2,3)")
                .unwrap_err()
                .to_string()
                .contains("divisible chain")
        );
    }
}
