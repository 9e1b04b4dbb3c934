//! Shapes and coordinates: sizes, the compatibility order, and the index/coordinate maps.
//!
//! Coordinates are colexicographical: the leftmost mode varies fastest. `idx2crd` follows
//! CuTe's rule that the last mode absorbs an index past the size.
//!
//! ```
//! use tessera_ir::{parse_int_tuple, shape};
//! let s = parse_int_tuple("(3,(2,4))").unwrap();
//! let c = shape::idx2crd(&parse_int_tuple("7").unwrap(), &s).unwrap();
//! assert_eq!(c.to_string(), "(1,(0,1))");
//! assert_eq!(shape::crd2idx(&c, &s).unwrap(), 7);
//! assert_eq!(shape::prefix_product(&s, &1).unwrap().to_string(), "(1,(3,6))");
//! ```

use crate::error::{Error, Result};
use crate::htuple::HTuple;
use crate::int::Int;

/// Product of all leaves (`size`, `product`).
pub fn size<I: Int>(s: &HTuple<I>) -> Result<I> {
    I::product(s.leaves())
}

/// Product of each top-level mode, as a flat tuple (`product_each`).
pub fn product_each<I: Int>(s: &HTuple<I>) -> Result<HTuple<I>> {
    if s.is_leaf() {
        return Ok(s.clone());
    }
    let modes: Result<Vec<I>> = s.modes().iter().map(size).collect();
    Ok(HTuple::flat(modes?))
}

/// Exclusive prefix product of the leaves, starting at `init`, congruent with `s`.
pub fn prefix_product<I: Int>(s: &HTuple<I>, init: &I) -> Result<HTuple<I>> {
    let mut acc = init.clone();
    s.try_map(|x| {
        let cur = acc.clone();
        acc = acc.mul(x)?;
        Ok(cur)
    })
}

/// Sum of the products of congruent leaves (`inner_product`).
pub fn inner_product<I: Int>(a: &HTuple<I>, b: &HTuple<I>) -> Result<I> {
    if !a.congruent(b) {
        return Err(Error::NotCongruent {
            what: "inner_product: ",
            a: a.to_string(),
            b_is: "",
            b: b.to_string(),
        });
    }
    let mut acc = I::zero();
    for (x, y) in a.leaves().iter().zip(b.leaves()) {
        acc = acc.add(&x.mul(y)?)?;
    }
    Ok(acc)
}

/// `true` when `a` coarsens `b`: the ranks match where `a` is a tuple, and the sizes match
/// where `a` has a leaf. `compatible(30, (2,15))` holds, the reverse does not.
pub fn compatible<I: Int>(a: &HTuple<I>, b: &HTuple<I>) -> Result<bool> {
    if a.is_leaf() {
        return a.leaves()[0].eq_val(&size(b)?);
    }
    if b.is_leaf() || a.rank() != b.rank() {
        return Ok(false);
    }
    for (x, y) in a.modes().iter().zip(b.modes().iter()) {
        if !compatible(x, y)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The coarsest shape that refines both `a` and `b`; an error when none exists.
pub fn common_refinement<I: Int>(a: &HTuple<I>, b: &HTuple<I>) -> Result<HTuple<I>> {
    match (a.is_tuple(), b.is_tuple()) {
        (true, true) => {
            if a.rank() != b.rank() {
                return Err(Error::invalid(format!(
                    "common_refinement: rank mismatch {a} vs {b}"
                )));
            }
            let modes: Result<Vec<_>> = a
                .modes()
                .iter()
                .zip(b.modes().iter())
                .map(|(x, y)| common_refinement(x, y))
                .collect();
            Ok(HTuple::from_modes(modes?))
        }
        (false, false) => {
            if a.leaves()[0].eq_val(&b.leaves()[0])? {
                Ok(a.clone())
            } else {
                Err(Error::invalid(format!(
                    "common_refinement: incompatible leaves {a} vs {b}"
                )))
            }
        }
        (false, true) | (true, false) => {
            let (leaf, tup) = if a.is_leaf() { (a, b) } else { (b, a) };
            if leaf.leaves()[0].eq_val(&size(tup)?)? {
                Ok(tup.clone())
            } else {
                Err(Error::invalid(format!(
                    "common_refinement: size mismatch {a} vs {b}"
                )))
            }
        }
    }
}

/// The finest shape that coarsens both `a` and `b`; an error when the sizes differ.
pub fn common_coarsening<I: Int>(a: &HTuple<I>, b: &HTuple<I>) -> Result<HTuple<I>> {
    if a.is_tuple() && b.is_tuple() && a.rank() == b.rank() {
        let modes: Result<Vec<_>> = a
            .modes()
            .iter()
            .zip(b.modes().iter())
            .map(|(x, y)| common_coarsening(x, y))
            .collect();
        if let Ok(m) = modes {
            return Ok(HTuple::from_modes(m));
        }
    }
    let (sa, sb) = (size(a)?, size(b)?);
    if sa.eq_val(&sb)? {
        Ok(HTuple::leaf(sa))
    } else {
        Err(Error::invalid(format!(
            "common_coarsening: no common coarsening for {a} vs {b} (sizes {sa} vs {sb})"
        )))
    }
}

/// Maps an index or a coordinate of any form to the natural coordinate of `shape`.
///
/// An integer is split over the leaves of the (sub-)shape colexicographically, and the last
/// leaf keeps the whole quotient, so an index past the size does not wrap.
pub fn idx2crd<I: Int>(idx: &HTuple<I>, shape: &HTuple<I>) -> Result<HTuple<I>> {
    match (idx.is_leaf(), shape.is_leaf()) {
        (true, true) => Ok(idx.clone()),
        (true, false) => {
            let mut rest = idx.leaves()[0].clone();
            let n = shape.leaves().len();
            let mut out = Vec::with_capacity(n);
            for (k, s) in shape.leaves().iter().enumerate() {
                if k + 1 == n {
                    out.push(rest.clone());
                } else {
                    let (q, r) = rest.div_mod(s)?;
                    out.push(r);
                    rest = q;
                }
            }
            HTuple::unflatten(out, shape.profile())
        }
        (false, false) => {
            same_rank(idx, shape)?;
            let modes: Result<Vec<_>> = idx
                .modes()
                .iter()
                .zip(shape.modes().iter())
                .map(|(i, s)| idx2crd(i, s))
                .collect();
            Ok(HTuple::from_modes(modes?))
        }
        (false, true) => Err(Error::invalid(format!(
            "idx2crd: coordinate {idx} is deeper than shape {shape}"
        ))),
    }
}

/// `idx2crd`'s rank check: a tuple coordinate has one mode per mode of the shape.
fn same_rank<I: Int>(idx: &HTuple<I>, shape: &HTuple<I>) -> Result<()> {
    if idx.rank() == shape.rank() {
        return Ok(());
    }
    Err(Error::Rank {
        op: "idx2crd",
        msg: format!(
            "coordinate {idx} has rank {} but shape {shape} has rank {}",
            idx.rank(),
            shape.rank()
        ),
    })
}

/// PyCuTe's `idx2crd(idx, shape, stride)`: leaf `k` of the coordinate is
/// `(idx / stride_k) % shape_k` (floor quotient and remainder). `stride` is congruent with
/// `shape`; an integer `idx` is used for every mode, a tuple `idx` goes mode by mode. Unlike the
/// two-argument form, every leaf (the last one too) is taken modulo its extent.
///
/// ```
/// use tessera_ir::{parse_int_tuple as t, shape::idx2crd_strided};
/// assert_eq!(idx2crd_strided(&t("7").unwrap(), &t("(3,(2,4))").unwrap(), &t("(1,(3,6))").unwrap()).unwrap().to_string(), "(1,(0,1))");
/// assert_eq!(idx2crd_strided(&t("5").unwrap(), &t("(2,4)").unwrap(), &t("(4,1)").unwrap()).unwrap().to_string(), "(1,1)");
/// ```
pub fn idx2crd_strided<I: Int>(idx: &HTuple<I>, shape: &HTuple<I>, stride: &HTuple<I>) -> Result<HTuple<I>> {
    let mismatch = || {
        Error::invalid(format!(
            "idx2crd: stride {stride} is not congruent with shape {shape}"
        ))
    };
    if shape.is_leaf() != stride.is_leaf() || (!shape.is_leaf() && shape.rank() != stride.rank()) {
        return Err(mismatch());
    }
    match (idx.is_leaf(), shape.is_leaf()) {
        (true, true) => {
            let (i, s, d) = (&idx.leaves()[0], &shape.leaves()[0], &stride.leaves()[0]);
            if d.is_zero()? {
                return Err(Error::invalid(format!(
                    "idx2crd: stride 0 (for extent {s}) gives no coordinate: every index has the offset 0"
                )));
            }
            Ok(HTuple::leaf(i.floor_div(d)?.floor_mod(s)?))
        }
        (true, false) => {
            let modes: Result<Vec<_>> = shape
                .modes()
                .iter()
                .zip(stride.modes().iter())
                .map(|(s, d)| idx2crd_strided(idx, s, d))
                .collect();
            Ok(HTuple::from_modes(modes?))
        }
        (false, false) => {
            same_rank(idx, shape)?;
            let modes: Result<Vec<_>> = idx
                .modes()
                .iter()
                .zip(shape.modes().iter())
                .zip(stride.modes().iter())
                .map(|((i, s), d)| idx2crd_strided(i, s, d))
                .collect();
            Ok(HTuple::from_modes(modes?))
        }
        (false, true) => Err(Error::invalid(format!(
            "idx2crd: coordinate {idx} is deeper than shape {shape}"
        ))),
    }
}

/// Maps a coordinate of any form (weakly congruent with `shape`) to its integral index.
pub fn crd2idx<I: Int>(crd: &HTuple<I>, shape: &HTuple<I>) -> Result<I> {
    if !crd.weakly_congruent(shape) {
        return Err(Error::invalid(format!(
            "crd2idx: coordinate {crd} does not match shape {shape}"
        )));
    }
    // The size of the sub-shape under each coordinate leaf, then their prefix products.
    let sizes = sub_sizes(crd, shape)?;
    let mut acc = I::zero();
    let mut stride = I::one();
    for (c, s) in crd.leaves().iter().zip(sizes) {
        acc = acc.add(&c.mul(&stride)?)?;
        stride = stride.mul(&s)?;
    }
    Ok(acc)
}

/// For a coordinate weakly congruent with `shape`, the size of the sub-shape under each leaf.
fn sub_sizes<I: Int>(crd: &HTuple<I>, shape: &HTuple<I>) -> Result<Vec<I>> {
    if crd.is_leaf() {
        return Ok(vec![size(shape)?]);
    }
    let mut out = Vec::new();
    for (c, s) in crd.modes().iter().zip(shape.modes().iter()) {
        out.extend(sub_sizes(c, s)?);
    }
    Ok(out)
}

/// The natural coordinates of `shape` in colexicographical order, for concrete shapes.
pub fn coordinates(shape: &HTuple<i64>) -> Result<impl Iterator<Item = HTuple<i64>> + '_> {
    let n = size(shape)?;
    Ok((0..n).map(move |i| {
        // In range, so idx2crd cannot fail.
        idx2crd(&HTuple::leaf(i), shape).unwrap_or_else(|_| shape.clone())
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_int_tuple as t;

    #[test]
    fn seed_examples() {
        assert_eq!(size(&t("((2,3),4)").unwrap()).unwrap(), 24);
        assert_eq!(
            product_each(&t("((2,3),4,(5,6))").unwrap()).unwrap().to_string(),
            "(6,4,30)"
        );
        assert_eq!(
            prefix_product(&t("(3,2,4)").unwrap(), &1).unwrap().to_string(),
            "(1,3,6)"
        );
        assert_eq!(
            prefix_product(&t("((2,3),(2,1,2),(5,2,1))").unwrap(), &1)
                .unwrap()
                .to_string(),
            "((1,2),(6,12,12),(24,120,240))"
        );
        assert_eq!(
            inner_product(&t("((2,3),4)").unwrap(), &t("((2,1),2)").unwrap()).unwrap(),
            15
        );
        assert_eq!(
            idx2crd(&t("7").unwrap(), &t("(3,(2,4))").unwrap())
                .unwrap()
                .to_string(),
            "(1,(0,1))"
        );
        assert_eq!(
            crd2idx(&t("(1,(0,1))").unwrap(), &t("(3,(2,4))").unwrap()).unwrap(),
            7
        );
        assert_eq!(
            crd2idx(&t("(2,5)").unwrap(), &t("(3,(2,3))").unwrap()).unwrap(),
            17
        );
        assert_eq!(
            idx2crd(&t("42").unwrap(), &t("(3,7,2)").unwrap())
                .unwrap()
                .to_string(),
            "(0,0,2)"
        );
    }

    #[test]
    fn compatibility_order() {
        let c = |a: &str, b: &str| compatible(&t(a).unwrap(), &t(b).unwrap()).unwrap();
        assert!(c("30", "(2,15)"));
        assert!(c("(2,15)", "(2,(3,5))"));
        assert!(c("24", "((2,2),(3,2))"));
        assert!(!c("24", "32"));
        assert!(!c("(4,6)", "((2,3),8)"));
        assert!(!c("(2,(3,5))", "((3,2),5)"));
        assert!(c("24", "(24)"));
        assert!(!c("(24)", "24"));
        let r = |a: &str, b: &str| common_refinement(&t(a).unwrap(), &t(b).unwrap()).map(|x| x.to_string());
        assert_eq!(r("((2,3),20)", "(6,(4,5))").unwrap(), "((2,3),(4,5))");
        assert!(r("(6,5)", "(2,15)").is_err());
        let k = |a: &str, b: &str| common_coarsening(&t(a).unwrap(), &t(b).unwrap()).map(|x| x.to_string());
        assert_eq!(k("(4,(3,5))", "((2,2),15)").unwrap(), "(4,15)");
        assert_eq!(k("(2,3)", "(2,3,1)").unwrap(), "6");
        assert!(k("3", "4").is_err());
    }
}
