//! `complement(A)` and `complement(A, cotarget)`: the ordered layout of the offsets `A` does
//! not reach, extended to cover a cotarget. The contract is on [`complement`].
//!
//! For a cotarget shape, CuTe and PyCuTe extend leaf by leaf of the shape with rounded-up
//! quotients, which can stop short: `complement(28:1, (8,4,7))` reaches 196 of 224. Tessera
//! keeps that form where it covers the cotarget and otherwise extends by
//! `ceil(size(cotarget) / span)`.

use super::axes::{AxisLeaf, axes, sort_by_stride};
use super::coalesce::{Flat, coalesce_z_in_place};
use super::tiler::{Tiler, tiler_to_layout};
use crate::error::{Error, Result};
use crate::htuple::HTuple;
use crate::int::Int;
use crate::layout::Layout;
use crate::shape;
use crate::stride::Stride;
use smallvec::SmallVec;

/// The complement of `a`, extended to `cotarget` when given: the smallest ordered layout whose
/// offsets (past its first, 0) avoid `a`'s image, with enough copies of `a`'s span to cover
/// the cotarget.
///
/// Without a cotarget the last mode of `R` has extent 1 and absorbs every index past the size,
/// as the last mode of a layout does. With an integer cotarget `n` that mode becomes
/// `ceil(n / span)` copies, as in CuTe; this is the complement the divides use,
/// `complement(B, size(A))`. For a coordinate-valued `a` (strides `v@k`) the complement is
/// taken axis by axis, axis `k` against mode `k` of the cotarget.
///
/// # Pre-conditions
///
/// * The strides of `a` are integers, or single basis vectors `v@k` at depth one; `F2` strides
///   or deeper coordinates are an [`Error::Condition`] naming them.
/// * Sorted by stride, the modes of `a` with extent above 1 and a nonzero stride each start
///   at or past the span of the one before: `d_k >= d_(k-1) * s_(k-1)`, so strides are
///   positive and no two modes overlap (stride-0 and extent-1 modes are ignored). Otherwise
///   an [`Error::Condition`] naming the stride and the span, saying that `a` "has a negative
///   stride" or "has modes that overlap or interleave" (not injective, or injective with
///   interleaved modes such as `(2,2):(2,3)`). (Symbolic strides that cannot be ordered are an
///   [`Error::Undecided`].)
/// * A cotarget is a size: an integer or a shape whose every extent is at least 1; otherwise
///   an [`Error::Condition`] naming the extent (`complement(4:1, 0)`, `complement(4:1, -5)`).
/// * With a cotarget, `(A, R)` must be able to reach every index below `size(cotarget)`: where
///   a stride `d` of `a` is not a multiple of the span `s` of the smaller modes, the index
///   `floor(d/s)*s` is reached by nothing, and if it is below `size(cotarget)` the result is
///   an [`Error::Condition`] naming that index (PyCuTe answers a complement that misses it).
///
/// # Post-conditions
///
/// * ordered: `R(i-1) < R(i)` for every `i` in `[1, size(R))`;
/// * disjoint: `R(i)` is not in the image of `A` for every `i` in `[1, size(R))` (`R(0) == 0`);
/// * when `A` is injective, so is `(A, R)`;
/// * with a cotarget, `(A, R)` reaches every index in `[0, size(cotarget))`; when moreover `A`
///   is injective and its sorted strides form a divisible chain, `(A, R)` is a bijection onto
///   `[0, size((A, R)))`.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::complement, parse_int_tuple, parse_layout, Layout};
/// let a = parse_layout("4:2").unwrap();
/// assert_eq!(complement(&a, None).unwrap().to_string(), "(2,1):(1,8)");
/// let t = parse_int_tuple("20").unwrap();
/// let r = complement(&a, Some(&t)).unwrap();
/// assert_eq!(r.to_string(), "(2,3):(1,8)");
/// // (A, R) reaches every index below the cotarget's size.
/// let both = Layout::concat([a.clone(), r]);
/// let img: Vec<_> = (0..24).map(|i| both.eval_index(&i).unwrap().to_string()).collect();
/// assert!((0..20).all(|x: i64| img.contains(&x.to_string())));
/// let c = |s: &str| complement(&parse_layout(s).unwrap(), None).unwrap().to_string();
/// assert_eq!(c("(2,2):(1,6)"), "(3,1):(2,12)");
/// // A cotarget shape that the leaf-by-leaf extension would not cover.
/// let r = complement(&parse_layout("28:1").unwrap(), Some(&parse_int_tuple("(8,4,7)").unwrap()));
/// assert_eq!(r.unwrap().to_string(), "8:28");
/// // Not injective: stride 1 lies inside the span 4 of the mode 4:1.
/// let e = complement(&parse_layout("(4,2):(1,1)").unwrap(), None).unwrap_err();
/// assert!(e.to_string().starts_with("complement: (4,2):(1,1) has modes that overlap or interleave"));
/// // Index 2 lies between 0,1 and 3,4: no extension reaches it.
/// let e = complement(&parse_layout("(2,2):(1,3)").unwrap(), Some(&t)).unwrap_err();
/// assert!(e.to_string().contains("index 2 is unreachable"));
/// ```
pub fn complement<I: Int>(a: &Layout<I>, cotarget: Option<&HTuple<I>>) -> Result<Layout<I>> {
    let (mut s, mut d) = (Flat::new(), Flat::new());
    if complement_flat(a, cotarget, (&mut s, &mut d))? {
        // Written into the result in place: a leaf for one pair, a flat tuple otherwise.
        return Layout::build(|out| {
            out.push_flat(s.iter().cloned(), d.iter().cloned());
            Ok(())
        });
    }
    // Coordinate codomain: one complement per axis, then each axis gets its basis.
    let ax = axes("complement", a.flat_shape(), a.flat_stride())?;
    let n_axes = ax.groups.len().max(cotarget.map_or(0, |t| t.rank()));
    let target_modes = cotarget.map(|t| t.modes());
    let mut per_axis = Vec::with_capacity(n_axes);
    for k in 0..n_axes {
        let mut g = ax.groups.get(k).cloned().unwrap_or_default();
        let target = target_modes.as_ref().and_then(|m| m.get(k));
        let l = if k < ax.groups.len() {
            let (mut s, mut d) = (Flat::new(), Flat::new());
            complement_axis(&mut g, a, target, (&mut s, &mut d))?;
            Layout::flat_or_leaf(s, d)
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

/// The complement of an integer-valued `a` as flat leaves, written into the empty `out`
/// (`false`, and nothing written, for a coordinate-valued `a`, whose complement is taken axis
/// by axis). The leaves are written where the caller keeps them, not returned: two arrays of
/// 8 inline leaves are 208 bytes to move.
pub(crate) fn complement_flat<I: Int>(
    a: &Layout<I>,
    cotarget: Option<&HTuple<I>>,
    out: FlatOut<'_, I>,
) -> Result<bool> {
    if let Some(t) = cotarget {
        check_cotarget(t)?;
    }
    let mut ax = axes("complement", a.flat_shape(), a.flat_stride())?;
    if ax.coord {
        return Ok(false);
    }
    // The one axis, sorted where it lies (the group is 200 bytes: not moved out).
    let g = ax.groups.first_mut().map_or(&mut [][..], |g| &mut g[..]);
    complement_axis(g, a, cotarget, out)?;
    Ok(true)
}

/// Where a flat complement is written: its shape leaves and stride leaves, empty.
pub(crate) type FlatOut<'a, I> = (&'a mut Flat<I>, &'a mut Flat<Stride<I>>);

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

/// The complement along one axis: the minimal one, whose last mode has size 1 (so that it
/// absorbs any index), or with a cotarget that last mode extended to cover it; written into
/// the empty `(rs, rd)`.
fn complement_axis<I: Int>(
    g: &mut [AxisLeaf<I>],
    a: &Layout<I>,
    cotarget: Option<&HTuple<I>>,
    (rs, rd): FlatOut<'_, I>,
) -> Result<()> {
    sort_by_stride("complement", g)?;
    rd.push(Stride::Int(I::one()));
    let mut last = I::one();
    let mut steps: Steps<I> = SmallVec::new();
    for leaf in g.iter() {
        if leaf.d.is_zero()? || leaf.s.is(1) {
            continue;
        }
        if leaf.d.less(&last).map_err(|e| e.in_op("complement"))? {
            let why = if leaf.d.less(&I::zero())? {
                "has a negative stride"
            } else {
                "has modes that overlap or interleave"
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
        let next = leaf.d.mul(&leaf.s)?;
        steps.push((leaf.d.clone(), std::mem::replace(&mut last, next.clone())));
        rd.push(Stride::Int(next));
    }
    rs.push(I::one());
    coalesce_z_in_place(rs, rd)?;
    if rs.is_empty() {
        rs.push(I::one());
        rd.push(Stride::zero());
        return Ok(());
    }
    let Some(t) = cotarget else {
        return Ok(());
    };
    check_coverage(a, &steps, t)?;
    extend(rs, rd, t)
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

/// Replaces the trailing size-1 mode of a minimal complement `s:d` with enough copies of the
/// covered span to reach `size(target)`.
fn extend<I: Int>(s: &mut Flat<I>, d: &mut Flat<Stride<I>>, target: &HTuple<I>) -> Result<()> {
    s.pop();
    let span = d
        .pop()
        .and_then(|x| x.as_int().cloned())
        .ok_or_else(|| Error::internal("complement: non-integer span"))?;
    let total = shape::size(target)?;
    let reps: SmallVec<[I; 4]> = if target.leaves().len() == 1 {
        // A single target leaf gets exactly ceil(total/span) copies, as CuTe's does.
        smallvec::smallvec![total.div_up(&span)?]
    } else {
        // PyCuTe's and CuTe's leaf-by-leaf rounding, where it covers the target.
        let mut left = span.clone();
        let mut reps: SmallVec<[I; 4]> = SmallVec::new();
        for e in target.leaves() {
            reps.push(e.div_up(&left)?);
            left = left.div_up(e)?;
        }
        if span.mul(&I::product(&reps)?)?.less(&total)? {
            reps = smallvec::smallvec![total.div_up(&span)?];
        }
        reps
    };
    let mut acc = span;
    for r in reps {
        s.push(r.clone());
        d.push(Stride::Int(acc.clone()));
        acc = acc.mul(&r)?;
    }
    coalesce_z_in_place(s, d)?;
    if s.is_empty() {
        s.push(I::one());
        d.push(Stride::zero());
    } else if s.len() > 1 && s.last().is_some_and(|x| x.is(1)) {
        s.pop();
        d.pop();
    }
    Ok(())
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
