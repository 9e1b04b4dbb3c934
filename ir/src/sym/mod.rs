//! Symbolic extents: integers that are polynomials in named parameters.
//!
//! A [`SymInt`] is a polynomial with rational coefficients over parameters and floor
//! quotients, kept in a normal form, so equality of two extents is decided on the normal form.
//! Exact division (`M/128` where `M % 128 == 0` is known) stays polynomial; a division whose
//! exactness is not known becomes a floor quotient `fdiv(a,b)`. Every value carries the
//! [`Facts`] of its parameters, and the decisions of the [`Int`] trait (ordering,
//! divisibility) consult them: each answers true, false, or [`Error::Undecided`] naming the
//! assumption that would settle it. No decision is ever guessed.
//!
//! ```
//! use std::sync::Arc;
//! use tessera_ir::{Int, sym::{Facts, SymInt}};
//! let mut f = Facts::default();
//! f.declare("M, N where M % 128 == 0").unwrap();
//! let f = Arc::new(f);
//! let (m, n) = (SymInt::param("M", &f), SymInt::param("N", &f));
//! let q = m.floor_div(&SymInt::lit(128)).unwrap();
//! assert_eq!(q.to_string(), "M/128");
//! assert_eq!(q.mul(&SymInt::lit(128)).unwrap(), m);
//! assert!(SymInt::lit(16).divides(&m).unwrap());
//! assert!(SymInt::lit(16).divides(&n).is_err()); // needs N % 16 == 0
//! assert!(m.less(&SymInt::lit(128)).unwrap() == false);
//! ```

mod declaration;
mod division;
mod facts;
mod interval;
mod poly;
mod rational;

pub use declaration::{Cmp, Declaration, Fact, Name, Operand};
pub use facts::{Facts, ParamFacts};
pub use interval::Interval;
pub use poly::{Atom, Poly};
pub use rational::Q;

use crate::error::{Error, Result};
use crate::int::Int;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// A symbolic integer under the facts of its parameters.
#[derive(Clone)]
pub struct SymInt {
    p: Arc<Poly>,
    facts: Option<Arc<Facts>>,
}

impl PartialEq for SymInt {
    fn eq(&self, o: &Self) -> bool {
        self.p == o.p
    }
}
impl Eq for SymInt {}
impl Hash for SymInt {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.p.hash(h)
    }
}
impl fmt::Display for SymInt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.p)
    }
}
impl fmt::Debug for SymInt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SymInt({})", self.p)
    }
}

fn undecided(cond: String) -> Error {
    Error::Undecided { op: "symbolic", cond }
}

/// Wraps a non-atomic expression in parentheses for messages (they group in the language).
fn paren(s: &SymInt) -> String {
    let t = s.to_string();
    if t.chars().any(|c| "+-*/".contains(c)) && s.as_const().is_none() {
        format!("({t})")
    } else {
        t
    }
}

impl SymInt {
    /// The parameter `name` under `facts`.
    pub fn param(name: &str, facts: &Arc<Facts>) -> SymInt {
        SymInt {
            p: Arc::new(Poly::atom(Atom::Param(name.into()))),
            facts: Some(facts.clone()),
        }
    }

    /// The normal form.
    pub fn poly(&self) -> &Poly {
        &self.p
    }

    /// The facts this value is decided under.
    pub fn facts(&self) -> Option<&Arc<Facts>> {
        self.facts.as_ref()
    }

    fn make(&self, o: &SymInt, p: Poly) -> SymInt {
        SymInt {
            p: Arc::new(p),
            facts: self.facts.clone().or_else(|| o.facts.clone()),
        }
    }

    fn with_poly(&self, p: Poly) -> SymInt {
        SymInt {
            p: Arc::new(p),
            facts: self.facts.clone(),
        }
    }

    fn facts_or_default(&self, o: &SymInt) -> Arc<Facts> {
        self.facts.clone().or_else(|| o.facts.clone()).unwrap_or_default()
    }

    /// The value at concrete parameter values; an error for a missing parameter or a
    /// non-integer result (an exact division whose assumption the values violate).
    pub fn eval(&self, vals: &HashMap<String, i64>) -> Result<i64> {
        if let Some(c) = self.as_const() {
            return Ok(c);
        }
        let v = eval_poly(&self.p, vals)?;
        if !v.is_int() {
            return Err(Error::invalid(format!("{self} is not an integer at {vals:?}")));
        }
        Ok(v.num())
    }

    /// Substitutes concrete values for some parameters, re-normalizing.
    pub fn substitute(&self, vals: &HashMap<String, i64>) -> Result<SymInt> {
        subst_poly(&self.p, vals, self)
    }

    /// Whether the term `q*m`, divided by `c`, is an integer for every admitted valuation.
    fn term_multiple_of(&self, facts: &Facts, m: &poly::Mono, q: &Q, c: &Q) -> Result<bool> {
        let mut k = Q::int(1);
        for (a, e) in m {
            let md = Q::int(facts.divisor(a));
            for _ in 0..*e {
                k = k.mul(&md)?;
            }
        }
        Ok(q.mul(&k)?.div(c)?.is_int())
    }

    /// The sign of `self`: decided from the interval of values.
    fn sign(&self, facts: &Facts) -> Option<Ordering> {
        if let Some(q) = self.p.as_const() {
            return Some(q.cmp(&Q::int(0)));
        }
        let iv = facts.interval(&self.p);
        if iv.is_at_least(1) {
            Some(Ordering::Greater)
        } else if iv.is_at_most(-1) {
            Some(Ordering::Less)
        } else if iv.as_point() == Some(0) {
            Some(Ordering::Equal)
        } else {
            None
        }
    }
}

fn eval_poly(p: &Poly, vals: &HashMap<String, i64>) -> Result<Q> {
    let mut acc = Q::int(0);
    for (m, q) in p.terms() {
        let mut t = *q;
        for (a, e) in m {
            let v = match a {
                Atom::Param(n) => Q::int(
                    *vals
                        .get(&**n)
                        .ok_or_else(|| Error::invalid(format!("no value for parameter {n}")))?,
                ),
                Atom::FloorDiv(x, y) => {
                    let (x, y) = (eval_poly(x, vals)?, eval_poly(y, vals)?);
                    if !x.is_int() || !y.is_int() {
                        return Err(Error::internal("non-integer operand of a floor division"));
                    }
                    Q::int(x.num().floor_div(&y.num())?)
                }
            };
            for _ in 0..*e {
                t = t.mul(&v)?;
            }
        }
        acc = acc.add(&t)?;
    }
    Ok(acc)
}

fn subst_poly(p: &Poly, vals: &HashMap<String, i64>, ctx: &SymInt) -> Result<SymInt> {
    let mut acc = ctx.with_poly(Poly::default());
    for (m, q) in p.terms() {
        let mut t = ctx.with_poly(Poly::constant(*q));
        for (a, e) in m {
            let v = match a {
                Atom::Param(n) => match vals.get(&**n) {
                    Some(v) => SymInt::lit(*v),
                    None => ctx.with_poly(Poly::atom(a.clone())),
                },
                Atom::FloorDiv(x, y) => subst_poly(x, vals, ctx)?.floor_div(&subst_poly(y, vals, ctx)?)?,
            };
            for _ in 0..*e {
                t = t.mul(&v)?;
            }
        }
        acc = acc.add(&t)?;
    }
    Ok(acc)
}

impl Int for SymInt {
    fn lit(v: i64) -> Self {
        SymInt {
            p: Arc::new(Poly::constant(Q::int(v))),
            facts: None,
        }
    }

    fn as_const(&self) -> Option<i64> {
        self.p.as_const().filter(Q::is_int).map(|q| q.num())
    }

    fn add(&self, rhs: &Self) -> Result<Self> {
        if let (Some(a), Some(b)) = (self.as_const(), rhs.as_const()) {
            return Ok(SymInt::lit(a.add(&b)?));
        }
        Ok(self.make(rhs, self.p.add(&rhs.p)?))
    }

    fn sub(&self, rhs: &Self) -> Result<Self> {
        if let (Some(a), Some(b)) = (self.as_const(), rhs.as_const()) {
            return Ok(SymInt::lit(a.sub(&b)?));
        }
        Ok(self.make(rhs, self.p.add(&rhs.p.scale(&Q::int(-1))?)?))
    }

    fn mul(&self, rhs: &Self) -> Result<Self> {
        if let (Some(a), Some(b)) = (self.as_const(), rhs.as_const()) {
            return Ok(SymInt::lit(a.mul(&b)?));
        }
        Ok(self.make(rhs, self.p.mul(&rhs.p)?))
    }

    fn floor_div(&self, rhs: &Self) -> Result<Self> {
        let facts = self.facts_or_default(rhs);
        if let (Some(a), Some(b)) = (self.as_const(), rhs.as_const()) {
            return Ok(SymInt::lit(a.floor_div(&b)?));
        }
        if rhs.p.as_const().is_some_and(|q| q.is_zero()) {
            return Err(Error::DivisionByZero(format!("{self} / 0")));
        }
        // A divisor that may be zero (a parameter stated `>= 0`, `M - 8`): the quotient is
        // undefined there, so no symbolic quotient holds for every admitted value.
        if rhs.p.as_const().is_none() {
            let iv = facts.interval(&rhs.p);
            if iv.contains(0) {
                return Err(undecided(format!("a fact that {rhs} != 0 (dividing by it)")));
            }
        }
        if let Ok(true) = rhs.divides(self) {
            if let Some(c) = rhs.p.as_const() {
                return Ok(self.make(rhs, self.p.scale(&Q::int(1).div(&c)?)?));
            }
            if let Some(q) = division::exact_div(&self.p, &rhs.p) {
                return Ok(self.make(rhs, q));
            }
        }
        if let Some(c) = rhs.p.as_const().filter(|c| c.is_int() && c.num() > 0) {
            // Split off the terms that are multiples of c; floor only the rest.
            let mut whole = Vec::new();
            let mut rest = Vec::new();
            for (m, q) in self.p.terms() {
                if self.term_multiple_of(&facts, m, q, &c)? {
                    whole.push((m.clone(), *q));
                } else {
                    rest.push((m.clone(), *q));
                }
            }
            let whole = Poly::from_terms(whole)?.scale(&Q::int(1).div(&c)?)?;
            let rest = Poly::from_terms(rest)?;
            let iv = facts.interval(&rest);
            let tail = if iv.is_at_least(0) && iv.is_at_most(i128::from(c.num()) - 1) {
                Poly::default()
            } else if let Some(r) = rest.as_const().filter(Q::is_int) {
                Poly::constant(Q::int(r.num().floor_div(&c.num())?))
            } else {
                Poly::atom(Atom::FloorDiv(Arc::new(rest), Arc::new(Poly::constant(c))))
            };
            return Ok(self.make(rhs, whole.add(&tail)?));
        }
        // A polynomial divisor: a = q*b + r gives floor(a/b) = q + floor(r/b) when q is
        // integer-valued, and floor(r/b) = 0 when 0 <= r < b.
        if let Some((q, r)) = division::div_rem(&self.p, &rhs.p) {
            let one = Q::int(1);
            let mut integral = !q.terms().is_empty();
            for (m, c) in q.terms() {
                integral &= self.term_multiple_of(&facts, m, c, &one)?;
            }
            if integral {
                let r = self.with_poly(r);
                let q = self.make(rhs, q);
                let r_in_range = r.p.terms().is_empty()
                    || (SymInt::lit(0).less_eq(&r).unwrap_or(false) && r.less(rhs).unwrap_or(false));
                if r_in_range {
                    return Ok(q);
                }
                // -b <= r < 0: floor(r/b) = -1.
                if r.less(&SymInt::lit(0)).unwrap_or(false)
                    && SymInt::lit(0).less_eq(&r.add(rhs)?).unwrap_or(false)
                {
                    return q.sub(&SymInt::lit(1));
                }
                let tail = Poly::atom(Atom::FloorDiv(r.p.clone(), rhs.p.clone()));
                return Ok(self.make(rhs, q.p.add(&tail)?));
            }
        }
        Ok(self.make(rhs, Poly::atom(Atom::FloorDiv(self.p.clone(), rhs.p.clone()))))
    }

    fn div_up(&self, rhs: &Self) -> Result<Self> {
        if let Ok(true) = rhs.divides(self) {
            return self.floor_div(rhs);
        }
        // ceil(a/b) = floor((a+b-1)/b) for b > 0, which normalizes to fdiv(a+b-1, b).
        if SymInt::lit(0).less(rhs)? {
            self.add(rhs)?.sub(&SymInt::lit(1))?.floor_div(rhs)
        } else {
            self.neg()?.floor_div(rhs)?.neg()
        }
    }

    fn floor_mod(&self, rhs: &Self) -> Result<Self> {
        let q = self.floor_div(rhs)?;
        self.sub(&rhs.mul(&q)?)
    }

    fn compare(&self, rhs: &Self) -> Result<Ordering> {
        if let (Some(a), Some(b)) = (self.as_const(), rhs.as_const()) {
            return Ok(a.cmp(&b));
        }
        if self.p == rhs.p {
            return Ok(Ordering::Equal);
        }
        let facts = self.facts_or_default(rhs);
        self.sub(rhs)?
            .sign(&facts)
            .ok_or_else(|| undecided(format!("a fact deciding how {self} compares with {rhs}")))
    }

    fn less(&self, rhs: &Self) -> Result<bool> {
        if let (Some(a), Some(b)) = (self.as_const(), rhs.as_const()) {
            return Ok(a < b);
        }
        let facts = self.facts_or_default(rhs);
        let d = rhs.sub(self)?;
        let iv = facts.interval(&d.p);
        if iv.is_at_least(1) {
            Ok(true)
        } else if iv.is_at_most(0) {
            Ok(false)
        } else {
            Err(undecided(format!("a fact deciding whether {self} < {rhs}")))
        }
    }

    fn less_eq(&self, rhs: &Self) -> Result<bool> {
        if let (Some(a), Some(b)) = (self.as_const(), rhs.as_const()) {
            return Ok(a <= b);
        }
        let facts = self.facts_or_default(rhs);
        let d = rhs.sub(self)?;
        let iv = facts.interval(&d.p);
        if iv.is_at_least(0) {
            Ok(true)
        } else if iv.is_at_most(-1) {
            Ok(false)
        } else {
            Err(undecided(format!("a fact deciding whether {self} <= {rhs}")))
        }
    }

    fn eq_val(&self, rhs: &Self) -> Result<bool> {
        Ok(self.compare(rhs)? == Ordering::Equal)
    }

    fn is_zero(&self) -> Result<bool> {
        self.eq_val(&SymInt::lit(0))
    }

    fn divides(&self, rhs: &Self) -> Result<bool> {
        if let (Some(a), Some(b)) = (self.as_const(), rhs.as_const()) {
            return a.divides(&b);
        }
        let facts = self.facts_or_default(rhs);
        if rhs.p.terms().is_empty() {
            return Ok(true);
        }
        if let (Some(a), Some(b)) = (self.as_const(), rhs.as_const()) {
            return a.divides(&b);
        }
        let need = || undecided(format!("{} % {} == 0", paren(rhs), paren(self)));
        if let Some(c) = self.p.as_const() {
            if c.is_zero() {
                return rhs.is_zero();
            }
            let mut failing_const = None;
            let mut all = true;
            for (m, q) in rhs.p.terms() {
                if !self.term_multiple_of(&facts, m, q, &c)? {
                    all = false;
                    if m.is_empty() {
                        failing_const = Some(*q);
                    } else {
                        return Err(need());
                    }
                }
            }
            if all {
                return Ok(true);
            }
            // Every non-constant term is a multiple of c, the constant is not.
            return match failing_const {
                Some(_) => Ok(false),
                None => Err(need()),
            };
        }
        // A divisor larger than a nonzero constant cannot divide it.
        if let Some(b) = rhs.as_const()
            && b != 0
            && facts.interval(&self.p).is_at_least(i128::from(b).abs() + 1)
        {
            return Ok(false);
        }
        // 0 < rhs < self: no multiple of self lies strictly between 0 and self.
        if facts.interval(&rhs.p).is_at_least(1) && facts.interval(&self.sub(rhs)?.p).is_at_least(1) {
            return Ok(false);
        }
        if let Some(q) = division::exact_div(&rhs.p, &self.p) {
            let one = Q::int(1);
            let mut integral = true;
            for (m, c) in q.terms() {
                if !self.term_multiple_of(&facts, m, c, &one)? {
                    integral = false;
                }
            }
            if integral {
                return Ok(true);
            }
        }
        Err(need())
    }

    fn gcd(&self, rhs: &Self) -> Result<Self> {
        if let (Some(a), Some(b)) = (self.as_const(), rhs.as_const()) {
            return Ok(SymInt::lit(a.gcd(&b)?));
        }
        if let Ok(true) = self.divides(rhs) {
            return self.abs();
        }
        if let Ok(true) = rhs.divides(self) {
            return rhs.abs();
        }
        // A constant side: its largest divisor that divides the other side.
        let (c, other) = match (self.as_const(), rhs.as_const()) {
            (Some(c), None) => (c, rhs),
            (None, Some(c)) => (c, self),
            _ => return Err(undecided(format!("the gcd of {self} and {rhs}"))),
        };
        let c = c.unsigned_abs();
        if c == 0 {
            return other.abs();
        }
        if c > 1 << 24 {
            return Err(undecided(format!("the gcd of {self} and {rhs}")));
        }
        let mut divisors: Vec<u64> = (1..=c.isqrt())
            .filter(|d| c % d == 0)
            .flat_map(|d| [d, c / d])
            .collect();
        divisors.sort_unstable_by(|a, b| b.cmp(a));
        for d in divisors {
            if SymInt::lit(d as i64).divides(other)? {
                return Ok(SymInt::lit(d as i64));
            }
        }
        Ok(SymInt::lit(1))
    }
}
