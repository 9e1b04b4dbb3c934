//! `right_inverse` and `left_inverse` of a swizzled layout `Sw o L`.
//!
//! CuTe C++ (`swizzle_layout.hpp`) answers `composition(inverse(L), Sw)`: the inverse of the
//! layout followed by the swizzle. Its `composition(Layout R, Swizzle Sw)` turns that into
//! `Sw' o R`, with the swizzle `Sw'` read from `R`'s values at the swizzle's masks
//! (`make_swizzle<R(yyy), R(zzz)>`): exact when `R` maps the swizzle's bits linearly, and
//! not otherwise (CuTe's own comment: "works in simple cases"): it breaks the definition
//! where the swizzle's bits reach past the layout's domain, or where `R` maps a run of the
//! swizzle's bits onto a run in another order (the masks look right, the bits pair wrongly).
//! Tessera builds CuTe's answer the same way and then proves it: by structure when `R`
//! splits at the swizzle's top bit into concrete leading leaves and the rest (see `Split`;
//! this covers symbolic extents past the swizzle's bits), else at every point of its domain.
//! An answer is never wrong: where CuTe's breaks the definition, the call is an error naming
//! the first point where it does. The CuTe DSL (4.8) refuses both calls.
//!
//! An offset `Sw o off o L` with `off != 0` has the inverse `R o -off o Sw` in CuTe, an
//! offset between a layout and a swizzle that a composed layout (swizzle last) cannot hold:
//! an error. Symbolic extents that the structure does not cover are an error too.

use super::inverse::{left_inverse, right_inverse};
use crate::error::{Error, Result};
use crate::int::Int;
use crate::layout::Layout;
use crate::stride::Stride;
use crate::swizzle::{ComposedLayout, Swizzle};

/// The most points the check of a swizzled inverse visits (`2^22`).
pub const SWIZZLED_INVERSE_CHECK_LIMIT: i64 = 1 << 22;

/// Which inverse.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Side {
    Right,
    Left,
}

impl Side {
    fn op(self) -> &'static str {
        match self {
            Side::Right => "right_inverse",
            Side::Left => "left_inverse",
        }
    }
}

/// The right inverse of a swizzled layout `F = Sw o L`: CuTe's `Sw' o right_inverse(L)`,
/// checked pointwise.
///
/// The result is a composed layout with offset 0; its swizzle is `None` when CuTe's answer
/// is the plain layout `right_inverse(L)` (an identity swizzle `Sw<0,M,S>`, as CuTe drops it).
///
/// # Pre-conditions
///
/// * `F`'s offset is 0 (else [`Error::Condition`]: CuTe's answer `R o -off o Sw` puts an
///   offset between a layout and a swizzle);
/// * `right_inverse(L)` is defined (its own pre-conditions);
/// * `R(yyy)` and `R(zzz)` are runs of the same number of bits, as CuTe's `make_swizzle`
///   requires (else [`Error::Condition`] naming both);
/// * the answer is proved by structure (`R` splits at the swizzle's top bit, see the module
///   docs), or its size is a constant of at most [`SWIZZLED_INVERSE_CHECK_LIMIT`] and it is
///   checked at every point (else [`Error::NotConstant`] or [`Error::Condition`]).
///
/// # Post-conditions
///
/// For every `k` in `[0, size(G))`: `0 <= G(k) < size(F)` and `F(G(k)) == k`. Where CuTe's
/// answer breaks this, [`Error::Condition`] names the first such `k`.
///
/// # Example
///
/// ```
/// use tessera_ir::{ComposedLayout, Swizzle, parse_layout};
/// use tessera_ir::algebra::right_inverse_swizzled;
/// let f = ComposedLayout::new(Swizzle::new(3, 0, 3).unwrap(), 0, parse_layout("(8,8):(8,1)").unwrap());
/// let g = right_inverse_swizzled(&f).unwrap();
/// assert_eq!(g.to_string(), "Sw<3,0,-3> o (8,8):(8,1)");
/// for k in 0..64 {
///     assert_eq!(f.eval_index(&g.eval_index(&k).unwrap()).unwrap(), k);
/// }
/// ```
pub fn right_inverse_swizzled<I: Int>(f: &ComposedLayout<I>) -> Result<ComposedLayout<I>> {
    inverse(f, Side::Right)
}

/// The left inverse of an injective swizzled layout `F = Sw o L`: CuTe's
/// `Sw' o left_inverse(L)`, checked pointwise.
///
/// The result is a composed layout with offset 0, its swizzle `None` where CuTe's answer is
/// the plain layout `left_inverse(L)`.
///
/// # Pre-conditions
///
/// As [`right_inverse_swizzled`], with `left_inverse(L)` defined (`L` injective) and, where
/// the structure does not prove the answer, the size of `F` (the points checked) a constant
/// of at most [`SWIZZLED_INVERSE_CHECK_LIMIT`]. A swizzle of no bits gives plain
/// `left_inverse(L)`, with its own post-conditions.
///
/// # Post-conditions
///
/// For every `i` in `[0, size(F))`: `0 <= F(i) < size(G)` and `G(F(i)) == i`. Where CuTe's
/// answer breaks this, [`Error::Condition`] names the first such `i`.
///
/// # Example
///
/// ```
/// use tessera_ir::{ComposedLayout, Swizzle, parse_layout};
/// use tessera_ir::algebra::left_inverse_swizzled;
/// let f = ComposedLayout::new(Swizzle::new(2, 0, 2).unwrap(), 0, parse_layout("(4,4):(1,4)").unwrap());
/// let g = left_inverse_swizzled(&f).unwrap();
/// for i in 0..16 {
///     assert_eq!(g.eval_index(&f.eval_index(&i).unwrap()).unwrap(), i);
/// }
/// ```
pub fn left_inverse_swizzled<I: Int>(f: &ComposedLayout<I>) -> Result<ComposedLayout<I>> {
    inverse(f, Side::Left)
}

fn inverse<I: Int>(f: &ComposedLayout<I>, side: Side) -> Result<ComposedLayout<I>> {
    let op = side.op();
    if !f.offset.is(0) {
        return Err(Error::cond(
            op,
            format!(
                "the inverse of {f} is {op}({}) o {} o the swizzle in CuTe: an offset between a \
                 layout and a swizzle, which a composed layout (swizzle last) cannot hold",
                f.inner,
                neg_text(&f.offset)
            ),
        ));
    }
    let r = match side {
        Side::Right => right_inverse(&f.inner)?,
        Side::Left => left_inverse(&f.inner)?,
    };
    let sw = match f.swizzle {
        Some(sw) if sw.bits > 0 => sw,
        // No swizzle (or one of no bits): the plain inverse, by its own post-conditions.
        _ => {
            return Ok(ComposedLayout {
                swizzle: None,
                offset: I::zero(),
                inner: r,
            });
        }
    };
    let split = Split::of(&r, sw);
    let swizzle = transfer(op, f, &r, sw, split.as_ref())?;
    let g = ComposedLayout {
        swizzle,
        offset: I::zero(),
        inner: r,
    };
    // By structure (for every admitted value of symbolic extents), else at every point.
    let covered = || match side {
        Side::Right => true,
        // `left_inverse(L)(L(i)) == i` needs `L` injective: no stride-0 leaf but of extent 1
        // (its other modes are, by left_inverse's post-condition).
        Side::Left => {
            let injective = f
                .inner
                .flat_shape()
                .iter()
                .zip(f.inner.flat_stride())
                .all(|(s, d)| {
                    s.is(1)
                        || match d {
                            Stride::Int(d) => d.is_zero().is_ok_and(|z| !z),
                            _ => false,
                        }
                });
            injective
                && f.inner
                    .cosize()
                    .and_then(|c| c.less_eq(&g.inner.size()?))
                    .unwrap_or(false)
        }
    };
    if split.is_some_and(|sp| sp.commutes(sw, swizzle)) && covered() {
        return Ok(g);
    }
    // The check runs on i64 values (a symbolic session's constants are slow to evaluate).
    match (as_i64(f), as_i64(&g)) {
        (Some(fc), Some(gc)) => check(&fc, &gc, side)?,
        _ => check(f, &g, side)?,
    }
    Ok(g)
}

/// The same composed layout over `i64`, when every extent, stride and the offset is a
/// constant integer.
fn as_i64<I: Int>(c: &ComposedLayout<I>) -> Option<ComposedLayout<i64>> {
    let shape = c.inner.shape().try_map(|s| s.as_const().ok_or(())).ok()?;
    let stride = c
        .inner
        .stride()
        .try_map(|d| match d {
            Stride::Int(d) => d.as_const().map(Stride::Int).ok_or(()),
            _ => Err(()),
        })
        .ok()?;
    Some(ComposedLayout {
        swizzle: c.swizzle,
        offset: c.offset.as_const()?,
        inner: Layout::new(shape, stride).ok()?,
    })
}

/// An answer layout `A` split at the swizzle's top bit `T`: `A(k) = lo(k mod 2^T) + hi(k div
/// 2^T)`, its leading leaves (of product exactly `2^T`, a leaf split where `2^T` falls inside
/// it) concrete.
///
/// When `Sw'(lo(k)) == lo(Sw(k))` for every `k < 2^T` and every stride of `hi` is a multiple
/// of `2^T'` (`T'` the top bit of `Sw'`), `Sw' o A == A o Sw` on `A`'s whole domain (which
/// `Sw` maps onto itself: `2^T` divides its size), for every value of `hi`'s symbols: `Sw'`
/// reads and writes only bits below `T'`, which adding a multiple of `2^T'` leaves alone. Then
/// `F(G(k)) = Sw(L(A(Sw(k)))) = k` for `A = right_inverse(L)`, and `G(F(i)) =
/// A(Sw(Sw(L(i)))) = i` for `A = left_inverse(L)` when `L`'s offsets lie in `A`'s domain.
struct Split<I> {
    /// `2^T`.
    p: i64,
    /// The leading leaves `(extent, stride)`.
    lo: Vec<(i64, i64)>,
    /// The strides of the other leaves.
    hi: Vec<Stride<I>>,
}

impl<I: Int> Split<I> {
    /// The split of `a` at the top bit of `sw`, or `None` where `a` does not split there
    /// (symbolic leading leaves, no leaf boundary or divisible leaf at `2^T`, `2^T` past the
    /// check's limit).
    fn of(a: &Layout<I>, sw: Swizzle) -> Option<Self> {
        let t = sw.base + sw.bits + sw.shift.unsigned_abs();
        let p = 1i64
            .checked_shl(t)
            .filter(|&p| p <= SWIZZLED_INVERSE_CHECK_LIMIT)?;
        let (mut rem, mut lo, mut hi) = (p, Vec::new(), Vec::new());
        for (s, d) in a.flat_shape().iter().zip(a.flat_stride()) {
            if rem == 1 {
                hi.push(d.clone());
                continue;
            }
            let s = s.as_const()?;
            let d = match d {
                Stride::Int(d) => d.as_const()?,
                _ => return None,
            };
            if s <= 0 {
                return None;
            }
            if rem % s == 0 {
                lo.push((s, d));
                rem /= s;
            } else if s % rem == 0 {
                lo.push((rem, d));
                hi.push(Stride::Int(I::lit(d.checked_mul(rem)?)));
                rem = 1;
            } else {
                return None;
            }
        }
        (rem == 1).then_some(Split { p, lo, hi })
    }

    /// `lo(k)` for `k < 2^T`, `None` on overflow.
    fn lo(&self, mut k: i64) -> Option<i64> {
        let mut acc = 0i64;
        for &(s, d) in &self.lo {
            acc = acc.checked_add((k % s).checked_mul(d)?)?;
            k /= s;
        }
        Some(acc)
    }

    /// Whether `Sw' o A == A o Sw` follows from the structure (see [`Split`]).
    fn commutes(&self, sw: Swizzle, derived: Option<Swizzle>) -> bool {
        let apply = |x: i64| derived.map_or(x, |s| s.apply(x));
        let low_ok = (0..self.p).all(|k| match (self.lo(k), self.lo(sw.apply(k))) {
            (Some(a), Some(b)) => apply(a) == b,
            _ => false,
        });
        let top = derived.map_or(0, |s| s.base + s.bits + s.shift.unsigned_abs());
        let unit = I::lit(1i64 << top);
        low_ok
            && self.hi.iter().all(|d| match d {
                Stride::Int(d) => unit.divides(d).unwrap_or(false),
                _ => false,
            })
    }
}

fn neg_text<I: Int>(x: &I) -> String {
    x.neg()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| format!("-({x})"))
}

/// CuTe's `composition(R, Sw)`: `make_swizzle<R(yyy), R(zzz)>() o R`; `None` for an identity
/// swizzle (no bits), which CuTe drops.
fn transfer<I: Int>(
    op: &'static str,
    f: &ComposedLayout<I>,
    r: &Layout<I>,
    sw: Swizzle,
    split: Option<&Split<I>>,
) -> Result<Option<Swizzle>> {
    if sw.bits == 0 {
        return Ok(None);
    }
    let at = |mask: i64| -> Result<i64> {
        // The masks lie below the split: their values are the leading leaves' alone.
        if let Some(v) = split.and_then(|sp| sp.lo(mask)) {
            return Ok(v);
        }
        match r.eval_index(&I::lit(mask))? {
            Stride::Int(v) => v.as_const().ok_or_else(|| {
                Error::NotConstant(format!(
                    "{op} of {f}: {r} at the swizzle's mask {mask} is symbolic ({v}); the inverse of a \
                     swizzled layout needs concrete extents"
                ))
            }),
            v => Err(Error::cond(
                op,
                format!("{r} at the swizzle's mask {mask} is {v}, not an integer"),
            )),
        }
    };
    let (y, z) = (at(sw.src_mask())?, at(sw.dst_mask())?);
    let made = make_swizzle(y, z).ok_or_else(|| {
        Error::cond(
            op,
            format!(
                "CuTe's answer composes {r} with {sw}: {r} maps the swizzle's bits {:#b} and {:#b} \
                 to {y:#b} and {z:#b}, not two runs of the same number of bits (CuTe's make_swizzle \
                 fails)",
                sw.src_mask(),
                sw.dst_mask()
            ),
        )
    })?;
    Ok(made.filter(|s| s.bits != 0))
}

/// CuTe's `make_swizzle<Y, Z>`: the swizzle whose source bits are `Y` and target bits `Z`.
fn make_swizzle(y: i64, z: i64) -> Option<Option<Swizzle>> {
    if y < 0 || z < 0 || y.count_ones() != z.count_ones() {
        return None;
    }
    let bits = y.count_ones();
    if bits == 0 {
        return Some(None);
    }
    let (ty, tz) = (y.trailing_zeros(), z.trailing_zeros());
    let base = ty.min(tz);
    let shift = i64::from(ty) - i64::from(tz);
    let sw = Swizzle::new(i64::from(bits), i64::from(base), shift).ok()?;
    (sw.src_mask() | sw.dst_mask() == y | z && sw.src_mask() == y).then_some(Some(sw))
}

/// The answer against the definition at every point.
fn check<I: Int>(f: &ComposedLayout<I>, g: &ComposedLayout<I>, side: Side) -> Result<()> {
    let op = side.op();
    let size = |l: &Layout<I>, what: &str| -> Result<i64> {
        let n = l.size()?;
        n.as_const().ok_or_else(|| {
            Error::NotConstant(format!(
                "{op} of {f}: the size {n} of {what} is symbolic; the inverse of a swizzled layout \
                 is checked at every point and needs concrete extents"
            ))
        })
    };
    let (nf, ng) = (size(&f.inner, "the layout")?, size(&g.inner, "the inverse")?);
    let (points, domain) = match side {
        Side::Right => (ng, nf),
        Side::Left => (nf, ng),
    };
    if points > SWIZZLED_INVERSE_CHECK_LIMIT {
        return Err(Error::cond(
            op,
            format!(
                "the inverse of {f} is checked at each of its {points} points, past the limit of \
                 {SWIZZLED_INVERSE_CHECK_LIMIT}"
            ),
        ));
    }
    let (first, second) = match side {
        Side::Right => (g, f),
        Side::Left => (f, g),
    };
    let value = |c: &ComposedLayout<I>, k: i64| -> Result<i64> {
        let v = c.eval_index(&I::lit(k))?;
        v.as_const()
            .ok_or_else(|| Error::NotConstant(format!("{op} of {f}: {c} at {k} is symbolic ({v})")))
    };
    for k in 0..points {
        let x = value(first, k)?;
        let back = if (0..domain).contains(&x) {
            Some(value(second, x)?)
        } else {
            None
        };
        if back != Some(k) {
            let (outer, inner) = match side {
                Side::Right => ("F", "G"),
                Side::Left => ("G", "F"),
            };
            let seen = back.map_or_else(
                || format!("{x} is outside [0,{domain})"),
                |b| format!("{outer}({x}) = {b}"),
            );
            return Err(Error::cond(
                op,
                format!(
                    "CuTe's answer G = {g} breaks the definition for F = {f}: {inner}({k}) = {x} and {seen}, \
                     not {k} (CuTe's composition of a layout with a swizzle holds only where the layout \
                     maps the swizzle's bits linearly)"
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn make_swizzle_is_cutes() {
        // make_swizzle<0b1000, 0b0100>() -> Swizzle<1,2,1>; <0b11000000, 0b00000110> -> <2,1,5>.
        assert_eq!(
            make_swizzle(0b1000, 0b0100),
            Some(Some(Swizzle::new(1, 2, 1).unwrap()))
        );
        assert_eq!(
            make_swizzle(0b1100_0000, 0b0000_0110),
            Some(Some(Swizzle::new(2, 1, 5).unwrap()))
        );
        assert_eq!(make_swizzle(0, 0), Some(None));
        assert_eq!(make_swizzle(0b101, 0b11000), None);
        assert_eq!(make_swizzle(0b1, 0b11), None);
    }
}
