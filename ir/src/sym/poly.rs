//! Polynomials with rational coefficients over atoms (parameters and floor quotients): the
//! normal form of symbolic integers. Two polynomials are equal as functions of the parameters
//! exactly when their normal forms are equal, as long as no atom is opaque.

use super::rational::Q;
use crate::error::Result;
use smallvec::SmallVec;
use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

/// An indivisible factor of a monomial.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Atom {
    /// A named parameter.
    Param(Arc<str>),
    /// `floor(a / b)` where the division is not known to be exact.
    FloorDiv(Arc<Poly>, Arc<Poly>),
}

/// A product of atoms with positive powers, sorted by atom.
pub type Mono = SmallVec<[(Atom, u32); 2]>;

/// `Σ q_m * m`, terms sorted (higher degree first), no zero coefficients.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Poly {
    terms: Vec<(Mono, Q)>,
}

fn degree(m: &Mono) -> u32 {
    m.iter().map(|(_, e)| e).sum()
}

/// Term order: higher degree first, then by atoms; the constant comes last.
fn mono_cmp(a: &Mono, b: &Mono) -> Ordering {
    degree(b).cmp(&degree(a)).then_with(|| a.cmp(b))
}

impl PartialOrd for Poly {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Poly {
    fn cmp(&self, other: &Self) -> Ordering {
        let n = self.terms.len().min(other.terms.len());
        for k in 0..n {
            let (ma, qa) = &self.terms[k];
            let (mb, qb) = &other.terms[k];
            let o = mono_cmp(ma, mb).then_with(|| qa.cmp(qb));
            if o != Ordering::Equal {
                return o;
            }
        }
        self.terms.len().cmp(&other.terms.len())
    }
}

impl Poly {
    /// The constant `q`.
    pub fn constant(q: Q) -> Poly {
        if q.is_zero() {
            return Poly::default();
        }
        Poly {
            terms: vec![(Mono::new(), q)],
        }
    }

    /// The polynomial `1 * atom`.
    pub fn atom(a: Atom) -> Poly {
        let mut m = Mono::new();
        m.push((a, 1));
        Poly {
            terms: vec![(m, Q::int(1))],
        }
    }

    /// The terms.
    pub fn terms(&self) -> &[(Mono, Q)] {
        &self.terms
    }

    /// Builds from arbitrary terms, merging equal monomials and dropping zeros.
    pub fn from_terms(mut terms: Vec<(Mono, Q)>) -> Result<Poly> {
        terms.sort_by(|a, b| mono_cmp(&a.0, &b.0));
        let mut out: Vec<(Mono, Q)> = Vec::with_capacity(terms.len());
        for (m, q) in terms {
            match out.last_mut() {
                Some((lm, lq)) if *lm == m => *lq = lq.add(&q)?,
                _ => out.push((m, q)),
            }
        }
        out.retain(|(_, q)| !q.is_zero());
        Ok(Poly { terms: out })
    }

    /// The value, when constant.
    pub fn as_const(&self) -> Option<Q> {
        match self.terms.as_slice() {
            [] => Some(Q::int(0)),
            [(m, q)] if m.is_empty() => Some(*q),
            _ => None,
        }
    }

    /// `self + o`.
    pub fn add(&self, o: &Poly) -> Result<Poly> {
        let mut t = self.terms.clone();
        t.extend(o.terms.iter().cloned());
        Poly::from_terms(t)
    }

    /// `q * self`.
    pub fn scale(&self, q: &Q) -> Result<Poly> {
        let t: Result<Vec<_>> = self
            .terms
            .iter()
            .map(|(m, c)| Ok((m.clone(), c.mul(q)?)))
            .collect();
        Poly::from_terms(t?)
    }

    /// `self * o`.
    pub fn mul(&self, o: &Poly) -> Result<Poly> {
        let mut t = Vec::with_capacity(self.terms.len() * o.terms.len());
        for (ma, qa) in &self.terms {
            for (mb, qb) in &o.terms {
                t.push((mono_mul(ma, mb), qa.mul(qb)?));
            }
        }
        Poly::from_terms(t)
    }

    /// `true` when some atom is a floor quotient.
    pub fn has_floor(&self) -> bool {
        self.terms
            .iter()
            .any(|(m, _)| m.iter().any(|(a, _)| matches!(a, Atom::FloorDiv(..))))
    }
}

/// The product of two sorted monomials.
pub fn mono_mul(a: &Mono, b: &Mono) -> Mono {
    let mut out = Mono::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x.0 == y.0 => {
                out.push((x.0.clone(), x.1 + y.1));
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x.0 < y.0 => {
                out.push(x.clone());
                i += 1;
            }
            (Some(_), Some(y)) => {
                out.push(y.clone());
                j += 1;
            }
            (Some(x), None) => {
                out.push(x.clone());
                i += 1;
            }
            (None, Some(y)) => {
                out.push(y.clone());
                j += 1;
            }
            (None, None) => break,
        }
    }
    out
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Atom::Param(n) => f.write_str(n),
            Atom::FloorDiv(a, b) => write!(f, "fdiv({a},{b})"),
        }
    }
}

impl fmt::Display for Poly {
    /// Prints in the expression language: `64*M`, `M/128`, `3*M*N/4+N-1`, `fdiv(M+3,4)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.terms.is_empty() {
            return f.write_str("0");
        }
        for (k, (m, q)) in self.terms.iter().enumerate() {
            let (n, d) = (q.num(), q.den());
            if n < 0 {
                f.write_str("-")?;
            } else if k > 0 {
                f.write_str("+")?;
            }
            let an = n.unsigned_abs();
            let mut first = true;
            if an != 1 || m.is_empty() {
                write!(f, "{an}")?;
                first = false;
            }
            for (a, e) in m {
                for _ in 0..*e {
                    if !first {
                        f.write_str("*")?;
                    }
                    write!(f, "{a}")?;
                    first = false;
                }
            }
            if d != 1 {
                write!(f, "/{d}")?;
            }
        }
        Ok(())
    }
}
