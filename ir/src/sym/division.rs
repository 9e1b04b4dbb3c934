//! Exact division of polynomials, through the `symbolic_polynomials` crate.
//!
//! That crate's polynomials use unchecked `i64` coefficients (an overflow panics in debug
//! builds and wraps in release builds) and `Rc` (not `Send`), so Tessera keeps its own normal
//! form ([`Poly`]) and converts at this one edge, for small polynomials only: coefficients
//! below 2^20 and degree at most 8, so that no intermediate product can overflow.

use super::poly::{Atom, Mono, Poly};
use super::rational::Q;
use std::collections::BTreeMap;
use symbolic_polynomials::{Composite, Polynomial, variable};

type SP = Polynomial<u32, i64, u8>;

const MAX_COEF: i64 = 1 << 20;
const MAX_DEGREE: u32 = 8;

/// `a / b` when `b` divides `a` as polynomials (with rational coefficients); `None` when it
/// does not, or when the polynomials are too large to divide safely.
pub fn exact_div(a: &Poly, b: &Poly) -> Option<Poly> {
    match div_rem(a, b)? {
        (q, r) if r.terms().is_empty() => Some(q),
        _ => None,
    }
}

/// Polynomial division `a = q*b + r` by leading monomials (`r` has no term divisible by the
/// leading monomial of `b`); `None` when the polynomials are too large to divide safely.
pub fn div_rem(a: &Poly, b: &Poly) -> Option<(Poly, Poly)> {
    let mut atoms: BTreeMap<Atom, u32> = BTreeMap::new();
    let (la, lb) = (den_lcm(a)?, den_lcm(b)?);
    let sa = to_sp(a, la, &mut atoms)?;
    let sb = to_sp(b, lb, &mut atoms)?;
    if sb.monomials.is_empty() {
        return None;
    }
    let (q, r) = sa.div_rem(&sb);
    let back: Vec<Atom> = {
        let mut v: Vec<(u32, Atom)> = atoms.into_iter().map(|(a, i)| (i, a)).collect();
        v.sort_by_key(|x| x.0);
        v.into_iter().map(|x| x.1).collect()
    };
    // a = A/la, b = B/lb, A = Q*B + R  =>  a = (Q*lb/la)*b + R/la
    let qs = Q::new(lb as i128, la as i128).ok()?;
    let rs = Q::new(1, la as i128).ok()?;
    Some((
        from_sp(&q, &back)?.scale(&qs).ok()?,
        from_sp(&r, &back)?.scale(&rs).ok()?,
    ))
}

fn den_lcm(p: &Poly) -> Option<i64> {
    use crate::int::Int;
    let mut l = 1i64;
    for (_, q) in p.terms() {
        l = l.lcm(&q.den()).ok()?;
        if l > MAX_COEF {
            return None;
        }
    }
    Some(l)
}

fn to_sp(p: &Poly, scale: i64, atoms: &mut BTreeMap<Atom, u32>) -> Option<SP> {
    let mut out = SP::from(0i64);
    for (m, q) in p.terms() {
        let c = q.num().checked_mul(scale / q.den())?;
        if c.abs() > MAX_COEF || m.iter().map(|(_, e)| e).sum::<u32>() > MAX_DEGREE {
            return None;
        }
        let mut t = SP::from(c);
        for (a, e) in m {
            let n = atoms.len() as u32;
            let id = *atoms.entry(a.clone()).or_insert(n);
            for _ in 0..*e {
                t = &t * &variable::<u32, i64, u8>(id);
            }
        }
        out += &t;
    }
    Some(out)
}

fn from_sp(p: &SP, atoms: &[Atom]) -> Option<Poly> {
    let mut terms = Vec::new();
    for m in &p.monomials {
        if m.coefficient.abs() > MAX_COEF * MAX_COEF {
            return None;
        }
        let mut mono = Mono::new();
        for (c, e) in &m.powers {
            match c {
                Composite::Variable(id) => mono.push((atoms.get(*id as usize)?.clone(), *e as u32)),
                _ => return None,
            }
        }
        mono.sort_by(|x, y| x.0.cmp(&y.0));
        terms.push((mono, Q::int(m.coefficient)));
    }
    Poly::from_terms(terms).ok()
}
