//! The integer leaves of shapes, strides and coordinates.
//!
//! The algebra is written once, generically over [`Int`], so that the same code computes with
//! concrete `i64` values and with symbolic extents. Every operation is checked: an `i64`
//! overflow is an [`Error::Overflow`], never a wrap. Every *decision* the algebra takes
//! (is this remainder zero? which stride is smaller?) goes through a method that may answer
//! [`Error::Undecided`] for a symbolic value whose facts do not settle it; for `i64` the
//! decisions always succeed.
//!
//! ```
//! use tessera_ir::Int;
//! assert_eq!(7i64.floor_div(&2).unwrap(), 3);
//! assert_eq!((-7i64).floor_div(&2).unwrap(), -4);
//! assert!(i64::MAX.add(&1).is_err());
//! ```

use crate::error::{Error, Result};
use std::cmp::Ordering;
use std::fmt::{self, Debug, Display};
use std::hash::Hash;

/// An integer of the algebra: a concrete `i64`, or a symbolic extent.
pub trait Int: Clone + PartialEq + Eq + Hash + Debug + Display + Send + Sync + 'static {
    /// The constant `v`.
    fn lit(v: i64) -> Self;
    /// The value, when it is a known constant.
    fn as_const(&self) -> Option<i64>;
    /// `self + rhs`, checked.
    fn add(&self, rhs: &Self) -> Result<Self>;
    /// `self - rhs`, checked.
    fn sub(&self, rhs: &Self) -> Result<Self>;
    /// `self * rhs`, checked.
    fn mul(&self, rhs: &Self) -> Result<Self>;
    /// Floor division (`Python //`); an error for a zero divisor.
    fn floor_div(&self, rhs: &Self) -> Result<Self>;
    /// Floor remainder (`Python %`), with the sign of the divisor.
    fn floor_mod(&self, rhs: &Self) -> Result<Self>;
    /// Compares two values; [`Error::Undecided`] when the facts do not order them.
    fn compare(&self, rhs: &Self) -> Result<Ordering>;
    /// Whether `rhs` is a multiple of `self` (`self | rhs`); decided or an error.
    /// Zero divides only zero.
    fn divides(&self, rhs: &Self) -> Result<bool>;
    /// Greatest common divisor of the magnitudes.
    fn gcd(&self, rhs: &Self) -> Result<Self>;

    /// `true` when this is the constant `v`.
    #[inline]
    fn is(&self, v: i64) -> bool {
        self.as_const() == Some(v)
    }
    /// The constant 0.
    #[inline]
    fn zero() -> Self {
        Self::lit(0)
    }
    /// The constant 1.
    #[inline]
    fn one() -> Self {
        Self::lit(1)
    }
    /// `-self`, checked.
    fn neg(&self) -> Result<Self> {
        Self::zero().sub(self)
    }
    /// Decides `self == 0`.
    fn is_zero(&self) -> Result<bool> {
        Ok(self.compare(&Self::zero())? == Ordering::Equal)
    }
    /// Decides `self == rhs`.
    fn eq_val(&self, rhs: &Self) -> Result<bool> {
        if self == rhs {
            return Ok(true);
        }
        Ok(self.compare(rhs)? == Ordering::Equal)
    }
    /// Decides `self < rhs`.
    fn less(&self, rhs: &Self) -> Result<bool> {
        Ok(self.compare(rhs)? == Ordering::Less)
    }
    /// Decides `self <= rhs`.
    fn less_eq(&self, rhs: &Self) -> Result<bool> {
        Ok(self.compare(rhs)? != Ordering::Greater)
    }
    /// Exact division: an error naming the condition when `rhs` does not divide `self`.
    fn div_exact(&self, rhs: &Self) -> Result<Self> {
        if rhs.divides(self)? {
            self.floor_div(rhs)
        } else {
            Err(Error::cond("division", format!("{rhs} does not divide {self}")))
        }
    }
    /// `ceil(self / rhs)`.
    fn div_up(&self, rhs: &Self) -> Result<Self> {
        // ceil(a/b) == -floor(-a/b)
        self.neg()?.floor_div(rhs)?.neg()
    }
    /// `(self / rhs, self % rhs)` with floor semantics.
    fn div_mod(&self, rhs: &Self) -> Result<(Self, Self)> {
        Ok((self.floor_div(rhs)?, self.floor_mod(rhs)?))
    }
    /// The smaller of two values.
    fn min_val(&self, rhs: &Self) -> Result<Self> {
        Ok(if self.less_eq(rhs)? {
            self.clone()
        } else {
            rhs.clone()
        })
    }
    /// The larger of two values.
    fn max_val(&self, rhs: &Self) -> Result<Self> {
        Ok(if self.less_eq(rhs)? {
            rhs.clone()
        } else {
            self.clone()
        })
    }
    /// Least common multiple of the magnitudes.
    fn lcm(&self, rhs: &Self) -> Result<Self> {
        if self.is_zero()? || rhs.is_zero()? {
            return Ok(Self::zero());
        }
        let g = self.gcd(rhs)?;
        let a = self.div_exact(&g)?.mul(rhs)?;
        a.abs()
    }
    /// `|self|`.
    fn abs(&self) -> Result<Self> {
        if self.less(&Self::zero())? {
            self.neg()
        } else {
            Ok(self.clone())
        }
    }
    /// The product of a sequence, checked.
    fn product<'a>(it: impl IntoIterator<Item = &'a Self>) -> Result<Self> {
        let mut acc = Self::one();
        for x in it {
            acc = acc.mul(x)?;
        }
        Ok(acc)
    }
}

#[cold]
fn overflow(op: &str, a: i64, b: i64) -> Error {
    Error::Overflow(format!("{a} {op} {b} does not fit in i64"))
}

impl Int for i64 {
    #[inline]
    fn lit(v: i64) -> Self {
        v
    }
    #[inline]
    fn as_const(&self) -> Option<i64> {
        Some(*self)
    }
    #[inline]
    fn add(&self, rhs: &Self) -> Result<Self> {
        self.checked_add(*rhs).ok_or_else(|| overflow("+", *self, *rhs))
    }
    #[inline]
    fn sub(&self, rhs: &Self) -> Result<Self> {
        self.checked_sub(*rhs).ok_or_else(|| overflow("-", *self, *rhs))
    }
    #[inline]
    fn mul(&self, rhs: &Self) -> Result<Self> {
        self.checked_mul(*rhs).ok_or_else(|| overflow("*", *self, *rhs))
    }
    #[inline]
    fn floor_div(&self, rhs: &Self) -> Result<Self> {
        if *rhs == 0 {
            return Err(Error::DivisionByZero(format!("{self} / 0")));
        }
        let q = self.checked_div(*rhs).ok_or_else(|| overflow("/", *self, *rhs))?;
        if (self % rhs != 0) && ((*self < 0) != (*rhs < 0)) {
            Ok(q - 1)
        } else {
            Ok(q)
        }
    }
    #[inline]
    fn floor_mod(&self, rhs: &Self) -> Result<Self> {
        if *rhs == 0 {
            return Err(Error::DivisionByZero(format!("{self} % 0")));
        }
        // checked_rem fails only for MIN % -1, whose remainder is 0.
        let r = self.checked_rem(*rhs).unwrap_or(0);
        if r != 0 && ((r < 0) != (*rhs < 0)) {
            Ok(r + rhs)
        } else {
            Ok(r)
        }
    }
    #[inline]
    fn compare(&self, rhs: &Self) -> Result<Ordering> {
        Ok(self.cmp(rhs))
    }
    #[inline]
    fn divides(&self, rhs: &Self) -> Result<bool> {
        if *self == 0 {
            return Ok(*rhs == 0);
        }
        Ok(rhs.checked_rem(*self).unwrap_or(0) == 0)
    }
    fn gcd(&self, rhs: &Self) -> Result<Self> {
        let (mut a, mut b) = (self.unsigned_abs(), rhs.unsigned_abs());
        while b != 0 {
            (a, b) = (b, a % b);
        }
        i64::try_from(a).map_err(|_| Error::Overflow(format!("gcd({self}, {rhs})")))
    }
    #[inline]
    fn is_zero(&self) -> Result<bool> {
        Ok(*self == 0)
    }
    #[inline]
    fn less(&self, rhs: &Self) -> Result<bool> {
        Ok(self < rhs)
    }
    #[inline]
    fn less_eq(&self, rhs: &Self) -> Result<bool> {
        Ok(self <= rhs)
    }
    #[inline]
    fn eq_val(&self, rhs: &Self) -> Result<bool> {
        Ok(self == rhs)
    }
}

/// The decimal digits of 0, 1, ..., 99, one after the other.
const SMALL: &str = "0123456789101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

/// The decimal text of `v`, as `v.to_string()` writes it, in `buf` (0..100 from a table).
pub(crate) fn decimal(v: i64, buf: &mut [u8; 20]) -> &str {
    if (0..100).contains(&v) {
        let v = v as usize;
        let at = if v < 10 { v } else { 10 + 2 * (v - 10) };
        return &SMALL[at..at + 1 + usize::from(v >= 10)];
    }
    let mut at = buf.len();
    let mut m = v.unsigned_abs();
    loop {
        at -= 1;
        buf[at] = b'0' + (m % 10) as u8;
        m /= 10;
        if m == 0 {
            break;
        }
    }
    if v < 0 {
        // At most 19 digits: the sign fits in the 20 bytes.
        at -= 1;
        buf[at] = b'-';
    }
    // ASCII digits and a sign only: always UTF-8.
    std::str::from_utf8(&buf[at..]).unwrap_or_default()
}

/// Writes an integer as its `Display` does; a constant is written in decimal with one
/// `write_str` (the formatter's padding machinery costs more than the digits when a layout is
/// printed leaf by leaf). With a width, precision or `+` flag set, `Display` writes it.
pub(crate) fn write_int<I: Int>(f: &mut fmt::Formatter<'_>, x: &I) -> fmt::Result {
    match x.as_const() {
        Some(v) if f.width().is_none() && f.precision().is_none() && !f.sign_plus() => {
            f.write_str(decimal(v, &mut [0u8; 20]))
        }
        _ => Display::fmt(x, f),
    }
}

/// Writes `x` into any writer as its `Display` writes it without flags: a constant in decimal
/// with one `write_str`, anything else by its `Display`.
///
/// @post `w` gained `x.to_string()`.
pub(crate) fn write_plain<W: fmt::Write + ?Sized, I: Int>(w: &mut W, x: &I) -> fmt::Result {
    match x.as_const() {
        // One digit as a character: into a `String` a push, not a copy of a slice.
        Some(v @ 0..10) => w.write_char(char::from(b'0' + v as u8)),
        Some(v) => w.write_str(decimal(v, &mut [0u8; 20])),
        None => write!(w, "{x}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_semantics_match_python() {
        for a in -20i64..20 {
            for b in [-7i64, -3, -1, 1, 2, 5] {
                let q = a.floor_div(&b).unwrap();
                let r = a.floor_mod(&b).unwrap();
                assert_eq!(q * b + r, a);
                assert!(r == 0 || (r < 0) == (b < 0));
                assert!(r.abs() < b.abs());
                assert_eq!(a.div_up(&b).unwrap(), -((-a).floor_div(&b).unwrap()));
            }
        }
    }

    #[test]
    fn decimal_writing_matches_display() {
        struct D(i64);
        impl Display for D {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write_int(f, &self.0)
            }
        }
        let mut xs: Vec<i64> = (-150..150).collect();
        xs.extend([i64::MAX, i64::MIN, i64::MIN + 1]);
        xs.extend((0..19).map(|k| 10i64.pow(k)).flat_map(|p| [p - 1, p, -p, 1 - p]));
        for x in xs {
            assert_eq!(D(x).to_string(), x.to_string());
            assert_eq!(format!("{:>24}", D(x)), format!("{x:>24}"));
            assert_eq!(format!("{:+}", D(x)), format!("{x:+}"));
        }
    }

    #[test]
    fn overflow_is_an_error() {
        assert!(i64::MAX.mul(&2).is_err());
        assert!(i64::MIN.floor_div(&-1).is_err());
        assert_eq!(i64::MIN.floor_mod(&-1).unwrap(), 0);
        assert!(i64::MIN.neg().is_err());
        assert!(1i64.floor_div(&0).is_err());
    }

    #[test]
    fn gcd_lcm() {
        assert_eq!(12i64.gcd(&18).unwrap(), 6);
        assert_eq!(12i64.lcm(&18).unwrap(), 36);
        assert_eq!(0i64.gcd(&5).unwrap(), 5);
        assert!(0i64.divides(&0).unwrap());
        assert!(!0i64.divides(&3).unwrap());
    }
}
