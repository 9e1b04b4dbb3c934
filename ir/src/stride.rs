//! Stride leaves: integers, coordinate strides (`1@0`, PyCuTe's `E(0)`) and `F2` strides.
//!
//! A layout's codomain is the integers (memory offsets), a tuple of integers (coordinates,
//! through [`Basis`] strides such as `1@0`), or the binary field `F2` whose `+` is XOR (the
//! codomain of swizzle functions written as layouts).
//!
//! ```
//! use tessera_ir::Stride;
//! let e0: Stride<i64> = Stride::basis(1, &[0]);
//! let e1: Stride<i64> = Stride::basis(1, &[1]);
//! assert_eq!(e0.to_string(), "1@0");
//! let sum = e0.scale(&3).unwrap().add(&e1.scale(&5).unwrap()).unwrap();
//! assert_eq!(sum.to_string(), "3@0+5@1");
//! assert_eq!(sum.coord_string(), "(3,5)");
//! assert_eq!(Stride::<i64>::basis(1, &[0, 1]).to_string(), "1@1@0");
//! ```

use crate::error::{Error, Result};
use crate::htuple::HTuple;
use crate::int::Int;
use smallvec::SmallVec;
use std::fmt;

/// A path of mode indices into a coordinate tuple, outermost first.
pub type Path = SmallVec<[u32; 2]>;

/// A sum of scaled basis vectors `v@path`, kept sorted by path with no zero terms.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Basis<I> {
    terms: SmallVec<[(Path, I); 1]>,
}

impl<I: Int> Basis<I> {
    /// The terms `(path, coefficient)`, sorted by path.
    pub fn terms(&self) -> &[(Path, I)] {
        &self.terms
    }
}

/// One stride leaf.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Stride<I> {
    /// An integer stride.
    Int(I),
    /// A coordinate stride: a nonzero sum of scaled basis vectors.
    Basis(Box<Basis<I>>),
    /// A stride in `F2`: sums are XOR, scaling by an integer is integer multiplication.
    F2(u64),
}

impl<I: Int> From<I> for Stride<I> {
    fn from(v: I) -> Self {
        Stride::Int(v)
    }
}

/// Which codomain a stride lives in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Codomain {
    /// Integers (offsets).
    Int,
    /// Integer tuples (coordinates).
    Coord,
    /// The binary field.
    F2,
}

impl<I: Int> Stride<I> {
    /// The stride 0.
    pub fn zero() -> Self {
        Stride::Int(I::zero())
    }

    /// The scaled basis vector `v@path` (`E(path) * v`); an empty path is the integer `v`.
    pub fn basis(v: impl Into<I>, path: &[u32]) -> Self {
        let v = v.into();
        if path.is_empty() {
            return Stride::Int(v);
        }
        if v.is(0) {
            return Stride::zero();
        }
        let mut terms = SmallVec::new();
        terms.push((Path::from_slice(path), v));
        Stride::Basis(Box::new(Basis { terms }))
    }

    fn from_terms(terms: SmallVec<[(Path, I); 1]>) -> Self {
        if terms.is_empty() {
            Stride::zero()
        } else if terms.len() == 1 && terms[0].0.is_empty() {
            Stride::Int(terms[0].1.clone())
        } else {
            Stride::Basis(Box::new(Basis { terms }))
        }
    }

    /// The stride `Σ v@path` of terms sorted by path, with distinct paths and nonzero
    /// coefficients; an error when one path is a prefix of another (the coordinates overlap).
    pub fn from_sorted_terms(terms: impl IntoIterator<Item = (Path, I)>) -> Result<Self> {
        let terms: SmallVec<[(Path, I); 1]> = terms.into_iter().collect();
        check_paths(&terms)?;
        Ok(Stride::from_terms(terms))
    }

    /// The integer value of an integer stride.
    #[inline]
    pub fn as_int(&self) -> Option<&I> {
        match self {
            Stride::Int(v) => Some(v),
            _ => None,
        }
    }

    /// The codomain this stride lives in.
    pub fn codomain(&self) -> Codomain {
        match self {
            Stride::Int(_) => Codomain::Int,
            Stride::Basis(_) => Codomain::Coord,
            Stride::F2(_) => Codomain::F2,
        }
    }

    /// Decides whether the stride is zero.
    pub fn is_zero(&self) -> Result<bool> {
        match self {
            Stride::Int(v) => v.is_zero(),
            Stride::Basis(_) => Ok(false),
            Stride::F2(v) => Ok(*v == 0),
        }
    }

    /// `true` when this is structurally the constant 0 (no decision needed).
    pub fn is_const_zero(&self) -> bool {
        match self {
            Stride::Int(v) => v.is(0),
            Stride::Basis(_) => false,
            Stride::F2(v) => *v == 0,
        }
    }

    /// For a single basis vector `v@p` (or an integer `v`, the basis at the empty path), the
    /// pair `(p, v)`. `None` for a sum of several basis vectors and for `F2` strides.
    pub fn axis_value(&self) -> Option<(Path, &I)> {
        match self {
            Stride::Int(v) => Some((Path::new(), v)),
            Stride::Basis(b) if b.terms.len() == 1 => Some((b.terms[0].0.clone(), &b.terms[0].1)),
            _ => None,
        }
    }

    /// The terms of this stride as `(path, coefficient)`; an integer is one term at `[]`.
    pub fn terms(&self) -> SmallVec<[(Path, I); 1]> {
        match self {
            Stride::Int(v) => {
                let mut t = SmallVec::new();
                if !v.is(0) {
                    t.push((Path::new(), v.clone()));
                }
                t
            }
            Stride::Basis(b) => b.terms.clone(),
            Stride::F2(_) => SmallVec::new(),
        }
    }

    /// `self + rhs`. Integers add, coordinates add componentwise, `F2` values XOR; mixing
    /// codomains is an error (except with zero, the identity of all three).
    pub fn add(&self, rhs: &Self) -> Result<Self> {
        match (self, rhs) {
            (Stride::Int(a), Stride::Int(b)) => Ok(Stride::Int(a.add(b)?)),
            (Stride::F2(a), Stride::F2(b)) => Ok(Stride::F2(a ^ b)),
            (a, b) if b.is_const_zero() => Ok(a.clone()),
            (a, b) if a.is_const_zero() => Ok(b.clone()),
            (Stride::Basis(a), Stride::Basis(b)) => {
                let mut out: SmallVec<[(Path, I); 1]> = SmallVec::new();
                let (mut i, mut j) = (0, 0);
                let (ta, tb) = (&a.terms, &b.terms);
                while i < ta.len() || j < tb.len() {
                    let ord = match (ta.get(i), tb.get(j)) {
                        (Some(x), Some(y)) => x.0.cmp(&y.0),
                        (Some(_), None) => std::cmp::Ordering::Less,
                        _ => std::cmp::Ordering::Greater,
                    };
                    match ord {
                        std::cmp::Ordering::Less => {
                            out.push(ta[i].clone());
                            i += 1;
                        }
                        std::cmp::Ordering::Greater => {
                            out.push(tb[j].clone());
                            j += 1;
                        }
                        std::cmp::Ordering::Equal => {
                            let s = ta[i].1.add(&tb[j].1)?;
                            if !s.is(0) {
                                out.push((ta[i].0.clone(), s));
                            }
                            i += 1;
                            j += 1;
                        }
                    }
                }
                check_paths(&out)?;
                Ok(Stride::from_terms(out))
            }
            (a, b) => Err(Error::invalid(format!("cannot add strides {a} and {b}"))),
        }
    }

    /// `n * self`.
    pub fn scale(&self, n: &I) -> Result<Self> {
        match self {
            Stride::Int(a) => Ok(Stride::Int(a.mul(n)?)),
            Stride::Basis(b) => {
                if n.is(0) {
                    return Ok(Stride::zero());
                }
                let mut terms = SmallVec::new();
                for (p, v) in &b.terms {
                    terms.push((p.clone(), v.mul(n)?));
                }
                Ok(Stride::from_terms(terms))
            }
            Stride::F2(v) => {
                let k = n
                    .as_const()
                    .ok_or_else(|| Error::invalid(format!("F2 stride scaled by symbolic {n}")))?;
                let k = u64::try_from(k)
                    .map_err(|_| Error::invalid(format!("F2 stride scaled by negative {k}")))?;
                v.checked_mul(k)
                    .map(Stride::F2)
                    .ok_or_else(|| Error::Overflow(format!("F2({v}) * {k}")))
            }
        }
    }

    /// The dense coordinate of a coordinate stride (zero-filled), e.g. `3@0+5@1` is `(3,5)`.
    pub fn to_coord(&self) -> HTuple<I> {
        match self {
            Stride::Int(v) => HTuple::leaf(v.clone()),
            Stride::F2(v) => HTuple::leaf(I::lit(*v as i64)),
            Stride::Basis(b) => dense(&b.terms, 0),
        }
    }

    /// Prints a value of the codomain: integers as themselves, coordinates as dense tuples.
    pub fn coord_string(&self) -> String {
        match self {
            Stride::Basis(_) => self.to_coord().to_string(),
            s => s.to_string(),
        }
    }
}

/// Rejects sums whose paths put a leaf where another term needs a tuple (`1@0 + 1@0@0`).
fn check_paths<I: Int>(terms: &[(Path, I)]) -> Result<()> {
    for w in terms.windows(2) {
        if w[1].0.starts_with(&w[0].0) {
            return Err(Error::invalid(format!(
                "coordinate strides at paths {:?} and {:?} overlap",
                w[0].0.as_slice(),
                w[1].0.as_slice()
            )));
        }
    }
    Ok(())
}

/// Builds the zero-filled tuple of the terms below `depth`.
fn dense<I: Int>(terms: &[(Path, I)], depth: usize) -> HTuple<I> {
    if terms.len() == 1 && terms[0].0.len() == depth {
        return HTuple::leaf(terms[0].1.clone());
    }
    let width = terms
        .iter()
        .filter_map(|(p, _)| p.get(depth))
        .max()
        .map_or(0, |m| *m as usize + 1);
    let modes = (0..width).map(|k| {
        let sub: Vec<(Path, I)> = terms
            .iter()
            .filter(|(p, _)| p.get(depth) == Some(&(k as u32)))
            .cloned()
            .collect();
        if sub.is_empty() {
            HTuple::leaf(I::zero())
        } else {
            dense(&sub, depth + 1)
        }
    });
    HTuple::from_modes(modes)
}

/// Writes `d` into any writer as its `Display` writes it without flags (an integer stride in
/// decimal with one `write_str`).
///
/// @post `w` gained `d.to_string()`.
pub(crate) fn write_plain<W: fmt::Write + ?Sized, I: Int>(w: &mut W, d: &Stride<I>) -> fmt::Result {
    match d {
        Stride::Int(v) => crate::int::write_plain(w, v),
        d => write!(w, "{d}"),
    }
}

impl<I: Int> fmt::Display for Stride<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stride::Int(v) => crate::int::write_int(f, v),
            Stride::F2(v) => write!(f, "F2({v})"),
            Stride::Basis(b) => {
                for (k, (p, v)) in b.terms.iter().enumerate() {
                    if k > 0 {
                        f.write_str("+")?;
                    }
                    write!(f, "{v}")?;
                    for i in p.iter().rev() {
                        write!(f, "@{i}")?;
                    }
                }
                Ok(())
            }
        }
    }
}
