//! Assumptions about parameters, and the interval bounds they give.
//!
//! A parameter has a range `lo <= P <= hi` and a modulus `P % k == 0`. A stated lower bound
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
    /// The parameter is a multiple of this.
    pub modulus: i64,
}

impl Default for ParamFacts {
    fn default() -> Self {
        ParamFacts {
            lo: 1,
            lo_stated: false,
            hi: None,
            modulus: 1,
        }
    }
}

impl ParamFacts {
    /// The tightest bounds: `lo` rounded up and `hi` rounded down to the modulus.
    pub fn bounds(&self) -> (i128, Option<i128>) {
        let k = self.modulus.max(1) as i128;
        let lo = (self.lo as i128).div_euclid(k) * k;
        let lo = if lo < self.lo as i128 { lo + k } else { lo };
        let hi = self.hi.map(|h| (h as i128).div_euclid(k) * k);
        (lo, hi)
    }

    /// The values the facts admit, as an interval: [`ParamFacts::bounds`].
    pub fn interval(&self) -> Interval {
        let (lo, hi) = self.bounds();
        Interval::new(Some(lo), hi)
    }

    /// `true` when `v` satisfies the facts.
    pub fn admits(&self, v: i64) -> bool {
        v >= self.lo && self.hi.is_none_or(|h| v <= h) && v % self.modulus.max(1) == 0
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
                Fact::Modulus { name, k, col } => {
                    let f = self.entry(name).map_err(|e| at(*col, e))?;
                    f.modulus = lcm(f.modulus, *k).map_err(|e| at(*col, e))?;
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

    /// The modulus known for an atom (1 when nothing is known).
    pub fn modulus(&self, a: &Atom) -> i64 {
        match a {
            Atom::Param(n) => self.params.get(&**n).map_or(1, |f| f.modulus.max(1)),
            Atom::FloorDiv(..) => 1,
        }
    }
}

fn lcm(a: i64, b: i64) -> Result<i64> {
    use crate::int::Int;
    a.lcm(&b)
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
