//! Exact rational coefficients with checked arithmetic.

use crate::error::{Error, Result};
use std::cmp::Ordering;
use std::fmt;

/// A reduced fraction `n/d` with `d > 0`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Q {
    n: i64,
    d: i64,
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Q {
    /// The integer `n`.
    pub const fn int(n: i64) -> Q {
        Q { n, d: 1 }
    }

    /// `n/d`, reduced; an error for `d == 0` or when it does not fit.
    pub fn new(n: i128, d: i128) -> Result<Q> {
        if d == 0 {
            return Err(Error::DivisionByZero(format!("{n}/0")));
        }
        let g = gcd(n, d).max(1);
        let (mut n, mut d) = (n / g, d / g);
        if d < 0 {
            n = -n;
            d = -d;
        }
        match (i64::try_from(n), i64::try_from(d)) {
            (Ok(n), Ok(d)) => Ok(Q { n, d }),
            _ => Err(Error::Overflow(format!(
                "coefficient {n}/{d} does not fit in i64"
            ))),
        }
    }

    /// Numerator.
    pub fn num(&self) -> i64 {
        self.n
    }

    /// Denominator (positive).
    pub fn den(&self) -> i64 {
        self.d
    }

    /// `true` when the denominator is 1.
    pub fn is_int(&self) -> bool {
        self.d == 1
    }

    /// `true` for zero.
    pub fn is_zero(&self) -> bool {
        self.n == 0
    }

    /// `self + o`.
    pub fn add(&self, o: &Q) -> Result<Q> {
        Q::new(
            self.n as i128 * o.d as i128 + o.n as i128 * self.d as i128,
            self.d as i128 * o.d as i128,
        )
    }

    /// `self - o`.
    pub fn sub(&self, o: &Q) -> Result<Q> {
        self.add(&Q { n: -o.n, d: o.d })
    }

    /// `self * o`.
    pub fn mul(&self, o: &Q) -> Result<Q> {
        Q::new(self.n as i128 * o.n as i128, self.d as i128 * o.d as i128)
    }

    /// `self / o`.
    pub fn div(&self, o: &Q) -> Result<Q> {
        Q::new(self.n as i128 * o.d as i128, self.d as i128 * o.n as i128)
    }
}

impl PartialOrd for Q {
    fn partial_cmp(&self, o: &Q) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Q {
    fn cmp(&self, o: &Q) -> Ordering {
        (self.n as i128 * o.d as i128).cmp(&(o.n as i128 * self.d as i128))
    }
}

impl fmt::Display for Q {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.d == 1 {
            write!(f, "{}", self.n)
        } else {
            write!(f, "{}/{}", self.n, self.d)
        }
    }
}
