//! `complement(A)` and `complement(A, cotarget)`.
//!
//! The complement is the smallest ordered layout whose image fills the holes of `A`'s image:
//! `R(i-1) < R(i)`, and `R(i) != A(j)` for `i >= 1`. With a cotarget it is extended until
//! `(A, R)` covers the cotarget's size. Post-conditions as in seed `004_*`.
//!
//! PyCuTe extends leaf by leaf of the cotarget shape with rounded-up quotients, which can stop
//! short: `complement(28:1, (8,4,7))` reaches 196 of 224. Tessera keeps PyCuTe's form where it
//! covers the cotarget and otherwise extends by `ceil(size(cotarget) / cosize)`, so that
//! `logical_divide((8,4,7):(1,8,32), 28:1)` keeps every element of `A`.
//!
//! ```
//! use tessera_ir::{algebra::complement, parse_layout, parse_int_tuple};
//! let a = parse_layout("4:2").unwrap();
//! assert_eq!(complement(&a, None).unwrap().to_string(), "(2,1):(1,8)");
//! assert_eq!(complement(&a, Some(&parse_int_tuple("20").unwrap())).unwrap().to_string(), "(2,3):(1,8)");
//! ```

use super::axes::{AxisLeaf, axes, sort_by_stride};
use super::coalesce::coalesce_z_flat;
use super::tiler::{Tiler, tiler_to_layout};
use crate::error::{Error, Result};
use crate::htuple::HTuple;
use crate::int::Int;
use crate::layout::Layout;
use crate::shape;
use crate::stride::Stride;
use smallvec::SmallVec;

/// The complement of `a`, extended to `cotarget` when given.
///
/// A cotarget is a size: an integer or a shape whose every extent is at least 1. A zero or
/// negative extent is an error naming it (`complement(4:1, 0)`, `complement(4:1, -5)`).
pub fn complement<I: Int>(a: &Layout<I>, cotarget: Option<&HTuple<I>>) -> Result<Layout<I>> {
    if let Some(t) = cotarget {
        check_cotarget(t)?;
    }
    let ax = axes("complement", a.flat_shape(), a.flat_stride())?;
    if !ax.coord {
        let mut g = ax.groups.into_iter().next().unwrap_or_default();
        let (c, steps) = complement_axis(&mut g, a)?;
        return match cotarget {
            Some(t) => {
                check_coverage(a, &steps, t)?;
                extend(&c, t)
            }
            None => Ok(c),
        };
    }
    // Coordinate codomain: one complement per axis, then each axis gets its basis.
    let n_axes = ax.groups.len().max(cotarget.map_or(0, |t| t.rank()));
    let target_modes = cotarget.map(|t| t.modes());
    let mut per_axis = Vec::with_capacity(n_axes);
    for k in 0..n_axes {
        let mut g = ax.groups.get(k).cloned().unwrap_or_default();
        let target = target_modes.as_ref().and_then(|m| m.get(k));
        let l = if k < ax.groups.len() {
            let (c, steps) = complement_axis(&mut g, a)?;
            match target {
                Some(t) => {
                    check_coverage(a, &steps, t)?;
                    extend(&c, t)?
                }
                None => c,
            }
        } else {
            // An axis that A does not reach: the whole target mode.
            let t = target.ok_or_else(|| Error::cond("complement", "missing cotarget mode"))?;
            Layout::compact(t)?
        };
        per_axis.push(Tiler::Layout(l));
    }
    let r = tiler_to_layout(&Tiler::Tuple(per_axis))?;
    Ok(r)
}

/// Every extent of a cotarget is at least 1.
fn check_cotarget<I: Int>(t: &HTuple<I>) -> Result<()> {
    for x in t.leaves() {
        if !I::one().less_eq(x).map_err(|e| e.in_op("complement"))? {
            return Err(Error::cond(
                "complement",
                format!("the cotarget {t} is not a size: its extent {x} is not at least 1"),
            ));
        }
    }
    Ok(())
}

/// For each mode of `A` that a complement steps over, in stride order, the pair
/// `(stride, span of the smaller modes)`.
type Steps<I> = SmallVec<[(I, I); 4]>;

/// The minimal complement along one axis, with its trailing size-1 mode, and its [`Steps`].
fn complement_axis<I: Int>(g: &mut [AxisLeaf<I>], a: &Layout<I>) -> Result<(Layout<I>, Steps<I>)> {
    sort_by_stride("complement", g)?;
    let mut rs: SmallVec<[I; 8]> = SmallVec::new();
    let mut rd: SmallVec<[I; 8]> = smallvec::smallvec![I::one()];
    let mut steps: Steps<I> = SmallVec::new();
    for leaf in g.iter() {
        if leaf.d.is_zero()? || leaf.s.is(1) {
            continue;
        }
        let last = rd.last().cloned().unwrap_or_else(I::one);
        if leaf.d.less(&last).map_err(|e| e.in_op("complement"))? {
            let why = if leaf.d.less(&I::zero())? {
                "has a negative stride"
            } else {
                "is not injective"
            };
            return Err(Error::cond(
                "complement",
                format!(
                    "{a} {why}: stride {} lies inside the span {last} of the smaller modes",
                    leaf.d
                ),
            ));
        }
        rs.push(leaf.d.floor_div(&last)?);
        rd.push(leaf.d.mul(&leaf.s)?);
        steps.push((leaf.d.clone(), last));
    }
    rs.push(I::one());
    let rd: SmallVec<[Stride<I>; 8]> = rd.into_iter().map(Stride::Int).collect();
    let (s, d) = coalesce_z_flat(&rs, &rd)?;
    if s.is_empty() {
        return Ok((Layout::leaf(I::one(), Stride::zero()), steps));
    }
    Ok((Layout::flat_or_leaf(s, d), steps))
}

/// With a cotarget, `(A, R)` must reach every index below `size(cotarget)` (the divides rely
/// on it to keep every element of the divided layout).
///
/// Where a stride `d` of `A` is not a multiple of the span `last` of the smaller modes, the
/// complement's mode `floor(d/last):last` stops at `h = floor(d/last)*last < d`, and nothing
/// reaches `h`: the smaller modes and that complement mode stay below it, every other mode
/// steps past it. Only the first such stride matters, as later holes lie above it. When the
/// hole is below the cotarget's size, no extension can fill it and the result is an error
/// (PyCuTe returns a complement that silently misses those indices, and
/// `logical_divide(12:1, (2,2):(1,3))` then drops elements of `A`).
fn check_coverage<I: Int>(a: &Layout<I>, steps: &[(I, I)], target: &HTuple<I>) -> Result<()> {
    for (d, last) in steps {
        if last.divides(d).map_err(|e| e.in_op("complement"))? {
            continue;
        }
        let hole = d.floor_div(last)?.mul(last)?;
        let total = shape::size(target)?;
        if hole.less(&total).map_err(|e| e.in_op("complement"))? {
            return Err(Error::cond(
                "complement",
                format!(
                    "(A, complement) cannot cover the cotarget {target}: stride {d} of {a} is not a \
                     multiple of {last}, the span of the smaller modes, so index {hole} is unreachable"
                ),
            ));
        }
        return Ok(());
    }
    Ok(())
}

/// Replaces the trailing size-1 mode of a minimal complement with enough copies of the
/// covered span to reach `size(target)`.
fn extend<I: Int>(c: &Layout<I>, target: &HTuple<I>) -> Result<Layout<I>> {
    let n = c.flat_shape().len();
    let span = c.flat_stride()[n - 1]
        .as_int()
        .cloned()
        .ok_or_else(|| Error::cond("complement", "non-integer span"))?;
    // PyCuTe's leaf-by-leaf rounding.
    let mut left = span.clone();
    let mut reps: SmallVec<[I; 4]> = SmallVec::new();
    for e in target.leaves() {
        reps.push(e.div_up(&left)?);
        left = left.div_up(e)?;
    }
    // A single target leaf gets exactly ceil(total/span) copies, which always cover it.
    if target.leaves().len() > 1 {
        let total = shape::size(target)?;
        if span.mul(&I::product(&reps)?)?.less(&total)? {
            reps = smallvec::smallvec![total.div_up(&span)?];
        }
    }
    let mut s: SmallVec<[I; 8]> = c.flat_shape()[..n - 1].iter().cloned().collect();
    let mut d: SmallVec<[Stride<I>; 8]> = c.flat_stride()[..n - 1].iter().cloned().collect();
    let mut acc = span;
    for r in reps {
        s.push(r.clone());
        d.push(Stride::Int(acc.clone()));
        acc = acc.mul(&r)?;
    }
    // coalesce(s:d), without building the intermediate layout.
    let (mut s, mut d) = coalesce_z_flat(&s, &d)?;
    if s.is_empty() {
        return Ok(Layout::leaf(I::one(), Stride::zero()));
    }
    if s.len() > 1 && s.last().is_some_and(|x| x.is(1)) {
        s.pop();
        d.pop();
    }
    Ok(Layout::flat_or_leaf(s, d))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse_int_tuple as t, parse_layout as l};

    fn c(a: &str, ext: Option<&str>) -> String {
        let e = ext.map(|x| t(x).unwrap());
        match complement(&l(a).unwrap(), e.as_ref()) {
            Ok(r) => r.to_string(),
            Err(e) => format!("error: {e}"),
        }
    }

    #[test]
    fn seed_examples() {
        assert_eq!(c("4:2", None), "(2,1):(1,8)");
        assert_eq!(c("(2,2):(1,6)", None), "(3,1):(2,12)");
        assert_eq!(c("4:2", Some("20")), "(2,3):(1,8)");
        assert_eq!(c("2:4", Some("12")), "(4,2):(1,8)");
        assert_eq!(c("16:2", None), "(2,1):(1,32)");
        assert_eq!(c("(4,6):(0,0)", None), "1:1");
        assert!(c("(4,2):(1,1)", None).starts_with("error: complement"));
    }

    #[test]
    fn extension_covers_the_target() {
        assert_eq!(c("28:1", Some("(8,4,7)")), "8:28");
    }

    #[test]
    fn holes_below_the_cotarget_are_an_error() {
        // (A, R) would reach {0,1,3,4,6,7,9,10}: 2 is a hole no extension fills.
        assert_eq!(c("(2,2):(1,3)", None), "1:6");
        assert!(c("(2,2):(1,3)", Some("12")).contains("index 2 is unreachable"));
        // A hole at or past the cotarget's size is harmless.
        assert_eq!(c("(2,2):(1,3)", Some("2")), "1:6");
    }

    #[test]
    fn a_cotarget_is_a_positive_size() {
        // Each of these used to answer a layout that does not parse back (or divide by zero).
        for (a, t) in [
            ("4:1", "-5"),
            ("(4,12):(1,4)", "-2"),
            ("28:1", "(8,4,-7)"),
            ("4:1", "0"),
            ("(2,2):(1,6)", "(3,0)"),
        ] {
            let r = c(a, Some(t));
            assert!(
                r.starts_with("error: complement: the cotarget") && r.contains("is not at least 1"),
                "complement({a}, {t}): {r}"
            );
        }
        assert_eq!(c("4:1", Some("1")), "1:4");
    }
}
