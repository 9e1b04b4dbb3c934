//! The index-expression IR: the arithmetic a kernel executes to turn an index into an offset.
//!
//! An [`IndexExpr`] is a DAG of [`Node`]s in an arena, built through [`Builder`], which
//! folds constants, applies the identities `x+0`, `x*1`, `x*0`, `x/1`, `x%1`, and shares equal
//! subexpressions (hash-consing). Inputs are [`Var`]s: the linear index `i`, flat coordinates
//! `c0, c1, ...`, and symbolic parameters. Outputs are named node ids (`offset`, or one per
//! codomain axis for coordinate strides).
//!
//! Semantics (shared by the evaluator, the verifier and the code generators): integers are
//! `i64`; overflow is an error; `Div` and `Mod` are floor division and floor remainder (the
//! lowering only produces them with non-negative operands and positive divisors); `Shl`/`Shr`
//! shift by a constant in `0..63`; `Select(c, a, b)` is `a` when `c != 0`, else `b`.
//!
//! The operators are declared once, in the table of [`Op`] (name, symbol, printed form, arity,
//! evaluation); a [`Node`] is a constant, an input, or `Node::Op(op, operands)`. Generic code
//! walks [`Node::children`] and rebuilds with [`Builder::op`]; each further semantics (the
//! interval transfer, the z3 encoding, a code generator) is one `match` on [`Op`].
//!
//! The analyses live here, for the verifier now and for the rewrites and backends later:
//! liveness ([`IndexExpr::live`]) and interval bounds of every node ([`IndexExpr::intervals`],
//! with [`Op::interval`] as its transfer function), over Tessera's one interval type,
//! [`crate::sym::Interval`]. No solver and no interpreter is used here.
//!
//! ```
//! use tessera_ir::{index::lower_index, parse_layout};
//! let l = parse_layout("(4,8):(8,1)").unwrap();
//! let e = lower_index(&l).unwrap();
//! assert_eq!(e.eval(&[("i", 9)]).unwrap(), vec![9 % 4 * 8 + 9 / 4]);
//! assert_eq!(e.stats().div_mod, 2);
//! ```

mod bind;
mod build;
mod cost;
mod eval;
mod interval;
mod liveness;
mod lower;
mod node;
mod op;
mod parse;
mod print;
mod program;
mod record;

pub use build::Builder;
pub use cost::{Cost, op_weight};
pub use lower::{
    lower_composed, lower_composed_coords, lower_composed_modes, lower_coords, lower_index, lower_modes,
    lower_sym,
};
pub use node::{Node, NodeId, Operands, Var};
pub use op::{Form, MAX_ARITY, Op};
pub use parse::{parse_index, parse_index_with_columns};
pub use program::Program;

/// A finished index expression: nodes in topological order and named outputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexExpr {
    nodes: Vec<Node>,
    outputs: Vec<(String, NodeId)>,
}

/// Size figures of an index expression.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Operation nodes reachable from the outputs (constants and inputs excluded).
    pub ops: usize,
    /// Of which `Div` and `Mod`.
    pub div_mod: usize,
    /// Of which `Mul`.
    pub mul: usize,
}

impl IndexExpr {
    /// All nodes, in topological order (operands before users).
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The node at `id`.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// The named outputs.
    pub fn outputs(&self) -> &[(String, NodeId)] {
        &self.outputs
    }

    /// The inputs the outputs depend on, sorted.
    pub fn inputs(&self) -> Vec<Var> {
        let live = self.live();
        let mut v: Vec<Var> = self
            .nodes
            .iter()
            .enumerate()
            .filter(|(k, _)| live[*k])
            .filter_map(|(_, n)| {
                if let Node::Var(v) = n {
                    Some(v.clone())
                } else {
                    None
                }
            })
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// Counts the live operations.
    pub fn stats(&self) -> Stats {
        let live = self.live();
        let mut s = Stats::default();
        for (k, n) in self.nodes.iter().enumerate() {
            if !live[k] {
                continue;
            }
            let Some(op) = n.op() else { continue };
            s.ops += 1;
            match op {
                Op::Div | Op::Mod => s.div_mod += 1,
                Op::Mul => s.mul += 1,
                _ => {}
            }
        }
        s
    }
}
