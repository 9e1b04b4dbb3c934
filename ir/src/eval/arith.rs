//! Arithmetic of the expression language: `+ - * / %` on integers, and `+ - *` on strides.
//!
//! A chain `a op b op c ...` is evaluated left to right by a loop. A run of coordinate strides
//! added one after another (`1@0+1@1+...+1@4095`) accumulates in an ordered map, so that it
//! costs `O(n log n)` instead of a sorted merge of the whole sum per term; the result, and
//! every error (overflow of a coefficient, overlapping coordinates), is the one the term-by-term
//! sum gives.

use super::{Env, Value, at_col, eval_expr};
use crate::error::{Error, Result};
use crate::int::Int;
use crate::stride::{Path, Stride};
use crate::text::{ArithStep, BinOp, Expr};
use std::collections::BTreeMap;

/// Evaluates `first op1 rhs1 op2 rhs2 ...`, left-associative.
pub(super) fn chain<I: Int>(first: &Expr, steps: &[ArithStep], env: &Env<I>, src: &str) -> Result<Value<I>> {
    let mut acc = eval_expr(first, env, src)?;
    let mut sum: Option<BasisSum<I>> = None;
    for s in steps {
        let y = eval_expr(&s.rhs, env, src)?;
        let located = |err: Error| match err {
            Error::Invalid(m) => at_col(src, s.col, m),
            other => other,
        };
        let additive = matches!(s.op, BinOp::Add | BinOp::Sub);
        match (&mut sum, additive, &y) {
            (Some(acc_sum), true, Value::Stride(t @ Stride::Basis(_))) => {
                acc_sum.add(s.op, t).map_err(located)?;
                continue;
            }
            (None, true, Value::Stride(t @ Stride::Basis(_))) => {
                if let Value::Stride(Stride::Basis(b)) = &acc {
                    let mut acc_sum = BasisSum::new(b.terms());
                    acc_sum.add(s.op, t).map_err(located)?;
                    sum = Some(acc_sum);
                    continue;
                }
            }
            _ => {}
        }
        if let Some(done) = sum.take() {
            acc = done.finish()?;
        }
        acc = arith(s.op, acc, y).map_err(located)?;
    }
    match sum {
        Some(done) => done.finish(),
        None => Ok(acc),
    }
}

/// A sum of coordinate strides being accumulated: nonzero coefficients by path, kept free of
/// paths that are prefixes of one another, as every intermediate sum must be.
struct BasisSum<I> {
    terms: BTreeMap<Path, I>,
}

impl<I: Int> BasisSum<I> {
    fn new(terms: &[(Path, I)]) -> Self {
        BasisSum {
            terms: terms.iter().cloned().collect(),
        }
    }

    /// `self op t` for `op` in `+ -`.
    fn add(&mut self, op: BinOp, t: &Stride<I>) -> Result<()> {
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

    fn finish(&self) -> Result<Value<I>> {
        Ok(stride_value(Stride::from_sorted_terms(
            self.terms.iter().map(|(p, v)| (p.clone(), v.clone())),
        )?))
    }
}

/// `x op y` on two values.
pub(super) fn arith<I: Int>(op: BinOp, x: Value<I>, y: Value<I>) -> Result<Value<I>> {
    match (op, &x, &y) {
        (_, Value::Int(a), Value::Int(b)) => Ok(Value::Int(match op {
            BinOp::Add => a.add(b)?,
            BinOp::Sub => a.sub(b)?,
            BinOp::Mul => a.mul(b)?,
            BinOp::Div => a.div_exact(b).map_err(|e| match e {
                Error::Undecided { cond, .. } => Error::Undecided {
                    op: "exact division",
                    cond,
                },
                _ => Error::invalid(format!(
                    "{b} does not divide {a} ('/' is exact; fdiv(a, b) is the floor quotient)"
                )),
            })?,
            BinOp::Mod => a.floor_mod(b)?,
        })),
        (BinOp::Add | BinOp::Sub, _, _) => {
            let s = stride_of(&x)?;
            let mut t = stride_of(&y)?;
            if op == BinOp::Sub {
                t = t.scale(&I::lit(-1))?;
            }
            Ok(stride_value(s.add(&t)?))
        }
        (BinOp::Mul, Value::Int(a), _) => Ok(stride_value(stride_of(&y)?.scale(a)?)),
        (BinOp::Mul, _, Value::Int(b)) => Ok(stride_value(stride_of(&x)?.scale(b)?)),
        _ => Err(Error::invalid(format!(
            "cannot apply '{}' to {} and {}",
            op.symbol(),
            x.kind(),
            y.kind()
        ))),
    }
}

fn stride_of<I: Int>(v: &Value<I>) -> Result<Stride<I>> {
    match v {
        Value::Int(i) => Ok(Stride::Int(i.clone())),
        Value::Stride(s) => Ok(s.clone()),
        v => Err(Error::invalid(format!(
            "expected a number or a stride, found {}",
            v.kind()
        ))),
    }
}

fn stride_value<I: Int>(s: Stride<I>) -> Value<I> {
    match s {
        Stride::Int(v) => Value::Int(v),
        s => Value::Stride(s),
    }
}
