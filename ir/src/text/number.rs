//! The arithmetic of the text format: `+ - * / %` on integers (with `/` exact), and sums of
//! coordinate strides (`3@0+5@1`), shared by the literal reader and the expression language.

use super::ast::BinOp;
use crate::error::{Error, Result};
use crate::int::Int;
use crate::stride::{Path, Stride};
use std::collections::BTreeMap;

/// `a op b` on integers; `/` is exact and says so when it is not (`fdiv` is the floor
/// quotient), `%` is the floor remainder.
///
/// ```
/// use tessera_ir::text::{BinOp, int_op};
/// assert_eq!(int_op(BinOp::Div, &12i64, &4).unwrap(), 3);
/// assert!(int_op(BinOp::Div, &13i64, &4).unwrap_err().to_string().contains("fdiv"));
/// assert_eq!(int_op(BinOp::Mod, &-1i64, &4).unwrap(), 3);
/// ```
pub fn int_op<I: Int>(op: BinOp, a: &I, b: &I) -> Result<I> {
    match op {
        BinOp::Add => a.add(b),
        BinOp::Sub => a.sub(b),
        BinOp::Mul => a.mul(b),
        BinOp::Div => a.div_exact(b).map_err(|e| match e {
            Error::Undecided { cond, .. } => Error::Undecided {
                op: "exact division",
                cond,
            },
            _ => Error::invalid(format!(
                "{b} does not divide {a} ('/' is exact; fdiv(a, b) is the floor quotient)"
            )),
        }),
        BinOp::Mod => a.floor_mod(b),
    }
}

/// A sum of coordinate strides being accumulated term by term: nonzero coefficients by path,
/// kept free of paths that are prefixes of one another, as every intermediate sum must be.
/// A run of `n` terms (`1@0+1@1+...`) costs `O(n log n)`; the result, and every error
/// (overflow of a coefficient, overlapping coordinates), is the one the term-by-term sum gives.
///
/// ```
/// use tessera_ir::{Stride, text::{BinOp, StrideSum}};
/// let mut s = StrideSum::new(&Stride::<i64>::basis(3, &[0])).unwrap();
/// s.add(BinOp::Add, &Stride::basis(5, &[1])).unwrap();
/// assert_eq!(s.finish().unwrap().to_string(), "3@0+5@1");
/// ```
pub struct StrideSum<I> {
    terms: BTreeMap<Path, I>,
}

impl<I: Int> StrideSum<I> {
    /// A sum starting at the coordinate stride `first`.
    pub fn new(first: &Stride<I>) -> Result<Self> {
        match first {
            Stride::Basis(b) => Ok(StrideSum {
                terms: b.terms().iter().cloned().collect(),
            }),
            _ => Err(Error::invalid(format!(
                "expected a coordinate stride, found {first}"
            ))),
        }
    }

    /// `self op t` for `op` in `+ -`, `t` a coordinate stride.
    pub fn add(&mut self, op: BinOp, t: &Stride<I>) -> Result<()> {
        let t = if op == BinOp::Sub {
            t.scale(&I::lit(-1))?
        } else {
            t.clone()
        };
        let Stride::Basis(b) = &t else {
            return Err(Error::invalid(format!("expected a coordinate stride, found {t}")));
        };
        for (p, v) in b.terms() {
            match self.terms.get_mut(p) {
                Some(c) => {
                    let s = c.add(v)?;
                    if s.is(0) {
                        self.terms.remove(p);
                    } else {
                        *c = s;
                    }
                }
                None => {
                    self.terms.insert(p.clone(), v.clone());
                }
            }
        }
        for (p, _) in b.terms() {
            if self.terms.contains_key(p) && self.overlaps(p) {
                // Name the same pair as the term-by-term sum does.
                self.finish()?;
            }
        }
        Ok(())
    }

    /// Whether `p`, a path of the sum, is a prefix of its successor or has its predecessor as
    /// a prefix: in a set of paths where no path is a prefix of another, those are the only
    /// candidates for a new overlap.
    fn overlaps(&self, p: &Path) -> bool {
        let before = self.terms.range(..p.clone()).next_back();
        let after = self
            .terms
            .range((std::ops::Bound::Excluded(p.clone()), std::ops::Bound::Unbounded))
            .next();
        before.is_some_and(|(q, _)| p.starts_with(q)) || after.is_some_and(|(q, _)| q.starts_with(p))
    }

    /// The stride the sum makes.
    pub fn finish(&self) -> Result<Stride<I>> {
        Stride::from_sorted_terms(self.terms.iter().map(|(p, v)| (p.clone(), v.clone())))
    }
}
