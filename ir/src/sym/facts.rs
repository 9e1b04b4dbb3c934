//! Assumptions about parameters, and the interval bounds they give.
//!
//! A parameter has a range `lo <= P <= hi` and a congruence `P % k == r` (`0 <= r < k`; a
//! divisibility when `r == 0`). Several congruences on one parameter combine by the Chinese
//! remainder theorem (`N % 2 == 1, N % 3 == 0` is `N % 6 == 3`); inconsistent ones are an
//! error. A consumer that can only use divisibility takes [`ParamFacts::divisor`],
//! `gcd(k, r)`, which every admitted value is a multiple of. A stated lower bound
//! is the lower bound, zero and negative ones included; a parameter without one is at least 1
//! (extents are positive). Declarations read like check files:
//!
//! ```
//! use tessera_ir::sym::Facts;
//! let mut f = Facts::default();
//! f.declare("M, N where M % 128 == 0, 128 <= M <= 65536, 1 <= N <= 4096").unwrap();
//! assert_eq!(f.get("M").unwrap().modulus, 128);
//! assert_eq!(f.get("N").unwrap().hi, Some(4096));
//! assert!(f.declare("K where K % 0 == 0").is_err());
//! f.declare("S where -4 <= S <= 4").unwrap();
//! assert_eq!(f.get("S").unwrap().lo, -4);
//! assert!(f.get("S").unwrap().admits(0));
//! f.declare("Z where Z == 0").unwrap();
//! assert_eq!(f.get("N").unwrap().lo, 1); // no lower bound stated
//! f.declare("O where O % 4 == 1, O % 3 == 0, O <= 100").unwrap();
//! let o = f.get("O").unwrap();
//! assert_eq!((o.modulus, o.residue, o.divisor()), (12, 9, 3));
//! assert_eq!(o.bounds(), (9, Some(93)));
//! assert!(o.admits(21) && !o.admits(12));
//! assert!(f.declare("Q where Q % 4 == 1, Q % 2 == 0").is_err());
//! ```

use super::declaration::{Cmp, Declaration, Fact, Operand};
use super::interval::Interval;
use super::poly::{Atom, Poly};
use crate::error::{Error, ParseError, Result};
use std::collections::BTreeMap;

/// What is known of one parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamFacts {
    /// Smallest value: the stated lower bound, or 1 when none is stated.
    pub lo: i64,
    /// Whether a lower bound was stated (`M >= -4`, `0 <= M`, `M == 0`).
    pub lo_stated: bool,
    /// Largest value, when bounded.
    pub hi: Option<i64>,
    /// The modulus `k` of the congruence `P % k == residue` (1: none).
    pub modulus: i64,
    /// The residue of the congruence, `0 <= residue < modulus` (0: `P` is a multiple of
    /// `modulus`).
    pub residue: i64,
}

impl Default for ParamFacts {
    fn default() -> Self {
        ParamFacts {
            lo: 1,
            lo_stated: false,
            hi: None,
            modulus: 1,
            residue: 0,
        }
    }
}

impl ParamFacts {
    /// The tightest bounds: `lo` rounded up and `hi` rounded down to values of the
    /// congruence (`P % modulus == residue`).
    pub fn bounds(&self) -> (i128, Option<i128>) {
        let k = i128::from(self.modulus.max(1));
        let r = i128::from(self.residue);
        let lo = i128::from(self.lo);
        let lo = lo + (r - lo).rem_euclid(k);
        let hi = self.hi.map(|h| {
            let h = i128::from(h);
            h - (h - r).rem_euclid(k)
        });
        (lo, hi)
    }

    /// The largest integer every admitted value is a multiple of, as far as the congruence
    /// tells: `gcd(modulus, residue)` (the modulus itself when the residue is 0). The fact a
    /// consumer that only understands divisibility may use.
    pub fn divisor(&self) -> i64 {
        let k = self.modulus.max(1);
        if self.residue == 0 {
            k
        } else {
            gcd(k, self.residue)
        }
    }

    /// The congruence in the declaration language (`N % 4 == 1`), when there is one.
    pub fn congruence_text(&self, name: &str) -> Option<String> {
        (self.modulus > 1).then(|| format!("{name} % {} == {}", self.modulus, self.residue))
    }

    /// Whether `v` satisfies the congruence.
    pub fn congruent(&self, v: i64) -> bool {
        (i128::from(v) - i128::from(self.residue)).rem_euclid(i128::from(self.modulus.max(1))) == 0
    }

    /// The values the facts admit, as an interval: [`ParamFacts::bounds`].
    pub fn interval(&self) -> Interval {
        let (lo, hi) = self.bounds();
        Interval::new(Some(lo), hi)
    }

    /// `true` when `v` satisfies the facts.
    pub fn admits(&self, v: i64) -> bool {
        v >= self.lo && self.hi.is_none_or(|h| v <= h) && self.congruent(v)
    }
}

/// The assumptions of a session: declared parameters and their facts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    params: BTreeMap<String, ParamFacts>,
}

impl Facts {
    /// The facts of `name`, when declared.
    pub fn get(&self, name: &str) -> Option<&ParamFacts> {
        self.params.get(name)
    }

    /// The declared parameters in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.params.keys().map(String::as_str)
    }

    /// Declares the parameters of a parsed declaration (`src` is its text, for the columns of
    /// errors), returning their names.
    pub fn declare_parsed(&mut self, d: &Declaration, src: &str) -> Result<Vec<String>> {
        let names: Vec<String> = d.names.iter().map(|n| n.name.clone()).collect();
        for n in &names {
            self.params.entry(n.clone()).or_default();
        }
        let at = |col: usize, e: Error| match e {
            Error::Invalid(m) => Error::Parse(ParseError::new(m, src, col)),
            e => e,
        };
        for fact in &d.facts {
            match fact {
                Fact::Modulus { name, k, r, col } => {
                    let f = self.entry(name).map_err(|e| at(*col, e))?;
                    combine(name, f, *k, *r).map_err(|e| at(*col, e))?;
                }
                Fact::Compare { operands, ops, col } => {
                    for (k, op) in ops.iter().enumerate() {
                        apply(self, &operands[k], *op, &operands[k + 1]).map_err(|e| at(*col, e))?;
                    }
                }
            }
        }
        for (n, f) in &self.params {
            let (lo, hi) = f.bounds();
            if hi.is_some_and(|h| h < lo) {
                let why = if f.lo_stated {
                    String::new()
                } else {
                    format!(" (without a stated lower bound, {n} >= 1)")
                };
                return Err(Error::invalid(format!("the facts about {n} admit no value{why}")));
            }
        }
        Ok(names)
    }

    /// The same facts with each congruence weakened to the divisibility it implies
    /// (`N % 4 == 2` becomes `N % 2 == 0`; `N % 4 == 1` states nothing): for consumers whose
    /// output states its assumptions as divisibility only (emitted code), so that what they
    /// prove under these facts holds wherever those stated assumptions hold.
    ///
    /// ```
    /// use tessera_ir::sym::Facts;
    /// let mut f = Facts::default();
    /// f.declare("N where N % 4 == 2, N <= 64").unwrap();
    /// let w = f.divisibility_only();
    /// assert_eq!((w.get("N").unwrap().modulus, w.get("N").unwrap().residue), (2, 0));
    /// ```
    pub fn divisibility_only(&self) -> Facts {
        let mut out = self.clone();
        for f in out.params.values_mut() {
            f.modulus = f.divisor();
            f.residue = 0;
        }
        out
    }

    fn entry(&mut self, name: &str) -> Result<&mut ParamFacts> {
        self.params
            .get_mut(name)
            .ok_or_else(|| Error::invalid(format!("'{name}' is not a declared parameter")))
    }

    /// Bounds of a symbolic integer's values under the facts (a point for a constant).
    ///
    /// ```
    /// use tessera_ir::Int;
    /// use tessera_ir::sym::{Facts, Interval, SymInt};
    /// let f = Facts::default();
    /// assert_eq!(f.range(&SymInt::lit(7)), Interval::point(7));
    /// ```
    pub fn range(&self, s: &super::SymInt) -> Interval {
        use crate::Int;
        match s.as_const() {
            Some(c) => Interval::point(c.into()),
            None => self.interval(s.poly()),
        }
    }

    /// Bounds of a polynomial's values under the facts.
    pub fn interval(&self, p: &Poly) -> Interval {
        let mut acc = Interval::point(0);
        for (m, q) in p.terms() {
            let mut t = Interval::point(1);
            for (a, e) in m {
                let ia = self.atom_interval(a);
                for _ in 0..*e {
                    t = t * ia;
                }
            }
            acc = acc + t.scale(i128::from(q.num()), i128::from(q.den()));
        }
        acc
    }

    fn atom_interval(&self, a: &Atom) -> Interval {
        match a {
            Atom::Param(n) => match self.params.get(&**n) {
                Some(f) => f.interval(),
                // Not declared: nothing is known.
                None => Interval::UNBOUNDED,
            },
            Atom::FloorDiv(x, y) => {
                let ix = self.interval(x);
                let iy = self.interval(y);
                if let Some(d) = iy.as_point().filter(|d| *d >= 1) {
                    ix.floor_div(d)
                } else if iy.is_at_least(1) && ix.is_at_least(0) {
                    Interval::new(Some(0), ix.hi())
                } else {
                    Interval::UNBOUNDED
                }
            }
        }
    }

    /// A divisor known for an atom's every admitted value (1 when nothing is known): the
    /// [`ParamFacts::divisor`] of a parameter, so `N % 4 == 2` gives 2, `N % 4 == 1` gives 1.
    pub fn divisor(&self, a: &Atom) -> i64 {
        match a {
            Atom::Param(n) => self.params.get(&**n).map_or(1, ParamFacts::divisor),
            Atom::FloorDiv(..) => 1,
        }
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (i128::from(a).abs(), i128::from(b).abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    // Both inputs are i64, and the gcd divides a non-zero one of them or is 0.
    i64::try_from(a).unwrap_or(i64::MAX)
}

/// Adds `P % k == r` to `f`'s congruence (Chinese remainder theorem): an error when the two
/// are inconsistent or the combined modulus overflows i64.
fn combine(name: &str, f: &mut ParamFacts, k: i64, r: i64) -> Result<()> {
    if k < 1 {
        return Err(Error::invalid("the modulus must be a positive integer"));
    }
    let (m1, r1) = (i128::from(f.modulus.max(1)), i128::from(f.residue));
    let (m2, r2) = (i128::from(k), i128::from(r).rem_euclid(i128::from(k)));
    let g = i128::from(gcd(f.modulus.max(1), k));
    if (r2 - r1).rem_euclid(g) != 0 {
        let old = f
            .congruence_text(name)
            .unwrap_or_else(|| format!("{name} % 1 == 0"));
        return Err(Error::invalid(format!(
            "{name} % {k} == {r} contradicts {old}: no integer satisfies both"
        )));
    }
    let l = m1 / g * m2;
    let modulus = i64::try_from(l).map_err(|_| {
        Error::invalid(format!(
            "the congruences on {name} combine to a modulus {l} beyond i64"
        ))
    })?;
    // x = r1 + m1*t with m1*t == r2 - r1 (mod m2): t == (r2-r1)/g * inv(m1/g) (mod m2/g).
    let n = m2 / g;
    let t = ((r2 - r1) / g).rem_euclid(n) * inverse(m1 / g, n) % n;
    let x = (r1 + m1 * t).rem_euclid(l);
    f.modulus = modulus;
    f.residue = i64::try_from(x).map_err(|_| Error::invalid("residue beyond i64"))?;
    Ok(())
}

/// The inverse of `a` modulo `n` (`gcd(a, n) == 1`, `n >= 1`); 0 when `n == 1`.
fn inverse(a: i128, n: i128) -> i128 {
    let (mut r0, mut r1) = (a.rem_euclid(n), n);
    let (mut s0, mut s1) = (1i128, 0i128);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (s0, s1) = (s1, s0 - q * s1);
    }
    s0.rem_euclid(n)
}

/// Records `a op b` where one side is a parameter and the other an integer.
fn apply(facts: &mut Facts, a: &Operand, op: Cmp, b: &Operand) -> Result<()> {
    let (name, v, op) = match (a, b) {
        (Operand::Name(n), Operand::Int(v)) => (n, *v, op),
        (Operand::Int(v), Operand::Name(n)) => (n, *v, op.flipped()),
        _ => return Err(Error::invalid("a fact compares one parameter with an integer")),
    };
    let f = facts.entry(name)?;
    // The first stated lower bound replaces the default 1; later ones tighten it.
    let raise = |f: &mut ParamFacts, v: i64| {
        f.lo = if f.lo_stated { f.lo.max(v) } else { v };
        f.lo_stated = true;
    };
    match op {
        Cmp::Ge => raise(f, v),
        Cmp::Gt => raise(f, v.saturating_add(1)),
        Cmp::Le => f.hi = Some(f.hi.map_or(v, |h| h.min(v))),
        Cmp::Lt => f.hi = Some(f.hi.map_or(v.saturating_sub(1), |h| h.min(v.saturating_sub(1)))),
        Cmp::Eq => {
            raise(f, v);
            f.hi = Some(f.hi.map_or(v, |h| h.min(v)));
        }
    }
    Ok(())
}
