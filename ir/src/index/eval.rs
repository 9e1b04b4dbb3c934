//! Evaluation of index expressions with checked arithmetic.

use super::{IndexExpr, Node, Var};
use crate::error::{Error, Result};
use std::collections::HashMap;

impl IndexExpr {
    /// Evaluates every output, with inputs given by name (`i`, `c0`, `M`).
    pub fn eval(&self, inputs: &[(&str, i64)]) -> Result<Vec<i64>> {
        let map: HashMap<Var, i64> = inputs
            .iter()
            .map(|(n, v)| {
                let var = match *n {
                    "i" => Var::Index,
                    s if s.starts_with('c') && s[1..].parse::<u32>().is_ok() => {
                        Var::Coord(s[1..].parse().unwrap_or(0))
                    }
                    s => Var::Param(s.to_string()),
                };
                (var, *v)
            })
            .collect();
        self.eval_vars(&map)
    }

    /// Evaluates every output with inputs keyed by [`Var`].
    pub fn eval_vars(&self, inputs: &HashMap<Var, i64>) -> Result<Vec<i64>> {
        let live = self.live();
        let mut vals = vec![0i64; self.nodes.len()];
        let ov = |op: &str, a: i64, b: i64| Error::Overflow(format!("{a} {op} {b} in an index expression"));
        for (k, n) in self.nodes.iter().enumerate() {
            if !live[k] {
                continue;
            }
            let g = |id: &super::NodeId| vals[id.index()];
            vals[k] = match n {
                Node::Const(v) => *v,
                Node::Var(v) => *inputs
                    .get(v)
                    .ok_or_else(|| Error::invalid(format!("no value for input {v}")))?,
                Node::Add(a, b) => g(a).checked_add(g(b)).ok_or_else(|| ov("+", g(a), g(b)))?,
                Node::Sub(a, b) => g(a).checked_sub(g(b)).ok_or_else(|| ov("-", g(a), g(b)))?,
                Node::Mul(a, b) => g(a).checked_mul(g(b)).ok_or_else(|| ov("*", g(a), g(b)))?,
                Node::Div(a, b) | Node::Mod(a, b) => {
                    let (x, y) = (g(a), g(b));
                    if y == 0 {
                        return Err(Error::DivisionByZero(format!("{x} / 0 in an index expression")));
                    }
                    use crate::int::Int;
                    if matches!(n, Node::Div(..)) {
                        x.floor_div(&y)?
                    } else {
                        x.floor_mod(&y)?
                    }
                }
                Node::Xor(a, b) => g(a) ^ g(b),
                Node::And(a, b) => g(a) & g(b),
                Node::Shl(a, b) | Node::Shr(a, b) => {
                    let s = u32::try_from(g(b))
                        .ok()
                        .filter(|s| *s < 63)
                        .ok_or_else(|| Error::invalid(format!("shift by {} in an index expression", g(b))))?;
                    if matches!(n, Node::Shl(..)) {
                        g(a).checked_mul(1i64 << s).ok_or_else(|| ov("<<", g(a), g(b)))?
                    } else {
                        g(a) >> s
                    }
                }
                Node::Min(a, b) => g(a).min(g(b)),
                Node::Max(a, b) => g(a).max(g(b)),
                Node::Select(c, a, b) => {
                    if g(c) != 0 {
                        g(a)
                    } else {
                        g(b)
                    }
                }
            };
        }
        Ok(self.outputs.iter().map(|(_, id)| vals[id.index()]).collect())
    }
}
