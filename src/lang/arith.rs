//! Arithmetic of the expression language: `+ - * / %` on integers, and `+ - *` on strides.
//!
//! A chain `a op b op c ...` is evaluated left to right by a loop. A run of coordinate strides
//! added one after another (`1@0+1@1+...+1@4095`) accumulates in a
//! [`StrideSum`](tessera_ir::text::StrideSum), the text format's own.

use super::{Env, Value, at_col, eval_expr};
use tessera_ir::Int;
use tessera_ir::Stride;
use tessera_ir::text::{ArithStep, BinOp, Expr};
use tessera_ir::text::{StrideSum, int_op};
use tessera_ir::{Error, Result};

/// Evaluates `first op1 rhs1 op2 rhs2 ...`, left-associative.
pub(super) fn chain<I: Int>(first: &Expr, steps: &[ArithStep], env: &Env<I>, src: &str) -> Result<Value<I>> {
    let mut acc = eval_expr(first, env, src)?;
    let mut sum: Option<StrideSum<I>> = None;
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
                if let Value::Stride(first @ Stride::Basis(_)) = &acc {
                    let mut acc_sum = StrideSum::new(first).map_err(located)?;
                    acc_sum.add(s.op, t).map_err(located)?;
                    sum = Some(acc_sum);
                    continue;
                }
            }
            _ => {}
        }
        if let Some(done) = sum.take() {
            acc = stride_value(done.finish()?);
        }
        acc = arith(s.op, acc, y).map_err(located)?;
    }
    match sum {
        Some(done) => Ok(stride_value(done.finish()?)),
        None => Ok(acc),
    }
}

/// `x op y` on two values.
pub(super) fn arith<I: Int>(op: BinOp, x: Value<I>, y: Value<I>) -> Result<Value<I>> {
    match (op, &x, &y) {
        (_, Value::Int(a), Value::Int(b)) => Ok(Value::Int(int_op(op, a, b)?)),
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
