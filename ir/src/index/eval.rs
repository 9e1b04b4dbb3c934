//! Evaluation of index expressions with checked arithmetic.

use super::{IndexExpr, MAX_ARITY, Node, Var};
use crate::error::{Error, Result};
use std::collections::HashMap;

impl IndexExpr {
    /// Evaluates every output, with inputs given by name (`i`, `c0`, `M`).
    pub fn eval(&self, inputs: &[(&str, i64)]) -> Result<Vec<i64>> {
        let map: HashMap<Var, i64> = inputs.iter().map(|(n, v)| (Var::named(n), *v)).collect();
        self.eval_vars(&map)
    }

    /// Evaluates every output with inputs keyed by [`Var`].
    pub fn eval_vars(&self, inputs: &HashMap<Var, i64>) -> Result<Vec<i64>> {
        let live = self.live();
        let mut vals = vec![0i64; self.nodes.len()];
        for (k, n) in self.nodes.iter().enumerate() {
            if !live[k] {
                continue;
            }
            vals[k] = match n {
                Node::Const(v) => *v,
                Node::Var(v) => *inputs
                    .get(v)
                    .ok_or_else(|| Error::invalid(format!("no value for input {v}")))?,
                Node::Op(op, args) => {
                    let mut x = [0i64; MAX_ARITY];
                    for (slot, id) in x.iter_mut().zip(args) {
                        *slot = vals[id.index()];
                    }
                    op.eval(&x[..args.len()])?
                }
            };
        }
        Ok(self.outputs.iter().map(|(_, id)| vals[id.index()]).collect())
    }
}
