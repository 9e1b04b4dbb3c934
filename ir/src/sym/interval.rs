//! Closed integer intervals with unbounded ends: the one interval type of Tessera, used for the
//! values of symbolic integers under their facts ([`super::Facts::interval`]), for every node
//! of an index expression ([`crate::index::IndexExpr::intervals`]) and by the verifier to size
//! its bit-vectors.
//!
//! An [`Interval`] holds the `x` with `lo <= x <= hi`, over `i128`. A missing end (`None`) is
//! unbounded: minus infinity below, plus infinity above. The arithmetic is sound (the result
//! holds every value the operation takes on values of the operands) and exact for finite
//! bounds. A bound whose exact value leaves `i128` goes to the loose side: an upper bound above
//! `i128::MAX` (or a lower bound below `i128::MIN`) becomes unbounded, while a lower bound above
//! `i128::MAX` saturates to `i128::MAX` (and an upper bound below `i128::MIN` to `i128::MIN`),
//! which still bounds the values truly.
//!
//! ```
//! use tessera_ir::sym::Interval;
//! let i = Interval::new(Some(0), Some(15));
//! let m = Interval::new(Some(1), None); // M >= 1, no upper bound
//! assert_eq!(i + m, Interval::new(Some(1), None));
//! assert_eq!(i - m, Interval::new(None, Some(14)));
//! assert_eq!(i * Interval::point(-2), Interval::new(Some(-30), Some(0)));
//! assert_eq!(Interval::point(0) * Interval::UNBOUNDED, Interval::point(0));
//! assert!(m.is_at_least(1) && !m.is_at_most(1_000_000));
//! assert_eq!(m.magnitude(), None);
//! assert_eq!((i - Interval::point(20)).magnitude(), Some(20));
//! ```

use std::cmp::Ordering;

/// A closed interval of integers whose ends may be unbounded (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Interval {
    lo: Option<i128>,
    hi: Option<i128>,
}

/// A bound extended with the infinities, to compute one end of a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ext {
    NegInf,
    Fin(i128),
    PosInf,
}

/// Which end of an interval a bound is: it decides where a value beyond `i128` goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    Lo,
    Hi,
}

impl Ext {
    fn of(end: End, b: Option<i128>) -> Ext {
        match (b, end) {
            (Some(v), _) => Ext::Fin(v),
            (None, End::Lo) => Ext::NegInf,
            (None, End::Hi) => Ext::PosInf,
        }
    }

    fn sign(self) -> Ordering {
        match self {
            Ext::NegInf => Ordering::Less,
            Ext::Fin(v) => v.cmp(&0),
            Ext::PosInf => Ordering::Greater,
        }
    }

    fn inf(sign: Ordering) -> Ext {
        if sign == Ordering::Less {
            Ext::NegInf
        } else {
            Ext::PosInf
        }
    }

    /// The bound of `end` that this value gives: a finite value, or the infinity or the
    /// saturated value the module documentation describes.
    fn bound(self, end: End) -> Option<i128> {
        match (self, end) {
            (Ext::Fin(v), _) => Some(v),
            (Ext::NegInf, End::Lo) | (Ext::PosInf, End::Hi) => None,
            (Ext::PosInf, End::Lo) => Some(i128::MAX),
            (Ext::NegInf, End::Hi) => Some(i128::MIN),
        }
    }

    /// `a + b` for bounds of the same `end` (so never `-inf + +inf`; were it asked, the loose
    /// side of `end`).
    fn add(self, o: Ext, end: End) -> Ext {
        match (self, o) {
            (Ext::Fin(a), Ext::Fin(b)) => a.checked_add(b).map_or(Ext::inf(a.cmp(&0)), Ext::Fin),
            (Ext::NegInf, Ext::PosInf) | (Ext::PosInf, Ext::NegInf) => Ext::of(end, None),
            (Ext::NegInf, _) | (_, Ext::NegInf) => Ext::NegInf,
            _ => Ext::PosInf,
        }
    }

    fn neg(self) -> Ext {
        match self {
            Ext::NegInf => Ext::PosInf,
            Ext::PosInf => Ext::NegInf,
            Ext::Fin(v) => v.checked_neg().map_or(Ext::PosInf, Ext::Fin),
        }
    }

    /// `a * b`; zero times an infinity is zero (an end is a value, and zero times any value is
    /// zero).
    fn mul(self, o: Ext) -> Ext {
        if self.sign() == Ordering::Equal || o.sign() == Ordering::Equal {
            return Ext::Fin(0);
        }
        let sign = if self.sign() == o.sign() {
            Ordering::Greater
        } else {
            Ordering::Less
        };
        match (self, o) {
            (Ext::Fin(a), Ext::Fin(b)) => a.checked_mul(b).map_or(Ext::inf(sign), Ext::Fin),
            _ => Ext::inf(sign),
        }
    }
}

impl Interval {
    /// Every integer.
    pub const UNBOUNDED: Interval = Interval { lo: None, hi: None };

    /// `lo <= x <= hi`; `None` leaves that end unbounded.
    pub fn new(lo: Option<i128>, hi: Option<i128>) -> Interval {
        Interval { lo, hi }
    }

    /// The single value `v`.
    pub fn point(v: i128) -> Interval {
        Interval::new(Some(v), Some(v))
    }

    /// The lower bound; `None` when unbounded below.
    pub fn lo(self) -> Option<i128> {
        self.lo
    }

    /// The upper bound; `None` when unbounded above.
    pub fn hi(self) -> Option<i128> {
        self.hi
    }

    /// The value, when the interval holds exactly one.
    pub fn as_point(self) -> Option<i128> {
        self.lo.filter(|l| Some(*l) == self.hi)
    }

    /// Whether every value is at least `v`.
    pub fn is_at_least(self, v: i128) -> bool {
        self.lo.is_some_and(|l| l >= v)
    }

    /// Whether every value is at most `v`.
    pub fn is_at_most(self, v: i128) -> bool {
        self.hi.is_some_and(|h| h <= v)
    }

    /// Whether `v` lies inside.
    pub fn contains(self, v: i128) -> bool {
        self.lo.is_none_or(|l| l <= v) && self.hi.is_none_or(|h| v <= h)
    }

    /// The largest magnitude `|x|` of a value inside (saturating at `i128::MAX`); `None` when
    /// an end is unbounded.
    pub fn magnitude(self) -> Option<i128> {
        Some(self.lo?.saturating_abs().max(self.hi?.saturating_abs()))
    }

    /// The smallest interval holding both.
    pub fn hull(self, o: Interval) -> Interval {
        Interval::new(min_lo(self.lo, o.lo), max_hi(self.hi, o.hi))
    }

    /// The values in both, or `None` when they share none.
    ///
    /// ```
    /// use tessera_ir::sym::Interval;
    /// let a = Interval::new(Some(0), None);
    /// let b = Interval::new(None, Some(7));
    /// assert_eq!(a.meet(b), Some(Interval::new(Some(0), Some(7))));
    /// assert_eq!(Interval::point(3).meet(Interval::point(4)), None);
    /// ```
    pub fn meet(self, o: Interval) -> Option<Interval> {
        let lo = max_lo(self.lo, o.lo);
        let hi = min_hi(self.hi, o.hi);
        match (lo, hi) {
            (Some(l), Some(h)) if l > h => None,
            _ => Some(Interval::new(lo, hi)),
        }
    }

    /// The values of `min(x, y)`.
    pub fn min(self, o: Interval) -> Interval {
        Interval::new(min_lo(self.lo, o.lo), min_hi(self.hi, o.hi))
    }

    /// The values of `max(x, y)`.
    pub fn max(self, o: Interval) -> Interval {
        Interval::new(max_lo(self.lo, o.lo), max_hi(self.hi, o.hi))
    }

    /// The values of `x * num / den` rounded outwards (the lower end down, the upper end up),
    /// for `den > 0`: the values of a term with a rational coefficient.
    pub fn scale(self, num: i128, den: i128) -> Interval {
        debug_assert!(den > 0, "scale by {num}/{den}");
        let k = Ext::Fin(num);
        // The product is saturated on the tight side before dividing, so the quotient
        // still bounds the values.
        let (lo, hi) = if num >= 0 {
            (Ext::of(End::Lo, self.lo), Ext::of(End::Hi, self.hi))
        } else {
            (Ext::of(End::Hi, self.hi), Ext::of(End::Lo, self.lo))
        };
        Interval::new(
            k.mul(lo).bound(End::Lo).map(|p| p.div_euclid(den)),
            k.mul(hi).bound(End::Hi).map(|p| ceil_div(p, den)),
        )
    }

    /// The values of `floor(x / d)` for a constant `d >= 1`.
    pub fn floor_div(self, d: i128) -> Interval {
        debug_assert!(d >= 1, "floor division by {d}");
        Interval::new(self.lo.map(|l| l.div_euclid(d)), self.hi.map(|h| h.div_euclid(d)))
    }
}

impl std::ops::Add for Interval {
    type Output = Interval;

    /// The values of `x + y`.
    fn add(self, o: Interval) -> Interval {
        let end = |e: End, a: Option<i128>, b: Option<i128>| Ext::of(e, a).add(Ext::of(e, b), e).bound(e);
        Interval::new(end(End::Lo, self.lo, o.lo), end(End::Hi, self.hi, o.hi))
    }
}

impl std::ops::Neg for Interval {
    type Output = Interval;

    /// The values of `-x`.
    fn neg(self) -> Interval {
        Interval::new(
            Ext::of(End::Hi, self.hi).neg().bound(End::Lo),
            Ext::of(End::Lo, self.lo).neg().bound(End::Hi),
        )
    }
}

impl std::ops::Sub for Interval {
    type Output = Interval;

    /// The values of `x - y`.
    fn sub(self, o: Interval) -> Interval {
        self + -o
    }
}

impl std::ops::Mul for Interval {
    type Output = Interval;

    /// The values of `x * y`.
    fn mul(self, o: Interval) -> Interval {
        let (a, b) = (Ext::of(End::Lo, self.lo), Ext::of(End::Hi, self.hi));
        let (c, d) = (Ext::of(End::Lo, o.lo), Ext::of(End::Hi, o.hi));
        let corners = [a.mul(c), a.mul(d), b.mul(c), b.mul(d)];
        let lo = corners.iter().min().copied().unwrap_or(Ext::NegInf);
        let hi = corners.iter().max().copied().unwrap_or(Ext::PosInf);
        Interval::new(lo.bound(End::Lo), hi.bound(End::Hi))
    }
}

/// `ceil(p / d)` for `d >= 1`, without overflow.
fn ceil_div(p: i128, d: i128) -> i128 {
    p.div_euclid(d) + i128::from(p.rem_euclid(d) != 0)
}

fn min_lo(a: Option<i128>, b: Option<i128>) -> Option<i128> {
    Some(a?.min(b?))
}

fn max_hi(a: Option<i128>, b: Option<i128>) -> Option<i128> {
    Some(a?.max(b?))
}

/// The smaller of two upper bounds (an unbounded one does not bind).
fn min_hi(a: Option<i128>, b: Option<i128>) -> Option<i128> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) | (None, x) => x,
    }
}

/// The larger of two lower bounds (an unbounded one does not bind).
fn max_lo(a: Option<i128>, b: Option<i128>) -> Option<i128> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, None) | (None, x) => x,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: i128 = i128::MAX;
    const MIN: i128 = i128::MIN;

    fn iv(lo: Option<i128>, hi: Option<i128>) -> Interval {
        Interval::new(lo, hi)
    }

    #[test]
    fn finite_arithmetic_is_exact() {
        let a = iv(Some(-3), Some(5));
        let b = iv(Some(2), Some(4));
        assert_eq!(a + b, iv(Some(-1), Some(9)));
        assert_eq!(a - b, iv(Some(-7), Some(3)));
        assert_eq!(a * b, iv(Some(-12), Some(20)));
        assert_eq!(-a, iv(Some(-5), Some(3)));
        assert_eq!(a.min(b), iv(Some(-3), Some(4)));
        assert_eq!(a.max(b), iv(Some(2), Some(5)));
        assert_eq!(a.hull(b), a);
        assert_eq!(a.scale(1, 2), iv(Some(-2), Some(3)));
        assert_eq!(a.scale(-3, 2), iv(Some(-8), Some(5)));
        assert_eq!(a.scale(0, 1), Interval::point(0));
        assert_eq!(a.floor_div(2), iv(Some(-2), Some(2)));
        assert!(a.contains(0) && !a.contains(6) && a.as_point().is_none());
        assert_eq!(Interval::point(7).as_point(), Some(7));
    }

    #[test]
    fn unbounded_ends() {
        let pos = iv(Some(1), None);
        let neg = iv(None, Some(-2));
        assert_eq!(pos + neg, Interval::UNBOUNDED);
        assert_eq!(pos - neg, iv(Some(3), None));
        assert_eq!(pos * neg, iv(None, Some(-2)));
        assert_eq!(pos * pos, pos);
        assert_eq!(neg * neg, iv(Some(4), None));
        assert_eq!(pos * iv(Some(0), Some(0)), Interval::point(0));
        assert_eq!(pos * iv(Some(-1), Some(1)), Interval::UNBOUNDED);
        assert_eq!(pos * iv(Some(0), Some(3)), iv(Some(0), None));
        assert_eq!(-pos, iv(None, Some(-1)));
        assert_eq!(pos.min(neg), neg);
        assert_eq!(pos.max(neg), pos);
        assert_eq!(pos.min(Interval::point(5)), iv(Some(1), Some(5)));
        assert_eq!(pos.hull(neg), Interval::UNBOUNDED);
        assert_eq!(pos.scale(-1, 3), iv(None, Some(0)));
        assert_eq!(neg.floor_div(4), iv(None, Some(-1)));
        assert!(pos.contains(1 << 100) && !pos.contains(0));
        assert!(pos.is_at_least(1) && !pos.is_at_most(MAX));
        assert!(Interval::UNBOUNDED.contains(MIN));
        assert_eq!(pos.magnitude(), None);
    }

    #[test]
    fn beyond_i128_the_loose_end_is_unbounded_and_the_tight_end_saturates() {
        let big = Interval::point(1 << 100);
        assert_eq!(big * big, iv(Some(MAX), None));
        assert_eq!(big * (-big), iv(None, Some(MIN)));
        assert_eq!(Interval::point(MAX) + Interval::point(1), iv(Some(MAX), None));
        assert_eq!(Interval::point(MIN) - Interval::point(1), iv(None, Some(MIN)));
        assert_eq!(-Interval::point(MIN), iv(Some(MAX), None));
        // Saturated before dividing: the quotient still bounds (2^200 / 2^64 >= 2^127 / 2^64).
        assert_eq!((big * big).scale(1, 1 << 64), iv(Some(MAX >> 64), None));
        assert_eq!(big.scale(1 << 100, 1 << 64), iv(Some(MAX >> 64), None));
        assert_eq!(big.scale(-(1 << 100), 1 << 64), iv(None, Some(MIN >> 64)));
        assert_eq!(Interval::point(MIN).magnitude(), Some(MAX));
    }
}
