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
//! ```
//! use tessera_ir::{index::lower_index, parse_layout};
//! let l = parse_layout("(4,8):(8,1)").unwrap();
//! let e = lower_index(&l).unwrap();
//! assert_eq!(e.eval(&[("i", 9)]).unwrap(), vec![9 % 4 * 8 + 9 / 4]);
//! assert_eq!(e.stats().div_mod, 2);
//! ```

mod build;
mod eval;
mod lower;
mod print;

pub use build::Builder;
pub use lower::{lower_composed, lower_coords, lower_index, lower_sym};

use std::fmt;

/// A node's position in its [`IndexExpr`]. Ids come only from a [`Builder`], so an id names a
/// node of the expression it was built for.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct NodeId(u32);

impl NodeId {
    /// The node's position in [`IndexExpr::nodes`] (and in any per-node table of an analysis).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// An input of an index expression.
#[derive(Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Var {
    /// The linear index `i`.
    Index,
    /// Flat coordinate `k` (`c0`, `c1`, ...).
    Coord(u32),
    /// A symbolic parameter (`M`).
    Param(String),
}

impl fmt::Display for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Var::Index => f.write_str("i"),
            Var::Coord(k) => write!(f, "c{k}"),
            Var::Param(n) => f.write_str(n),
        }
    }
}

/// An operation of the IR.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Node {
    /// A constant.
    Const(i64),
    /// An input.
    Var(Var),
    /// `a + b`
    Add(NodeId, NodeId),
    /// `a - b`
    Sub(NodeId, NodeId),
    /// `a * b`
    Mul(NodeId, NodeId),
    /// `floor(a / b)`
    Div(NodeId, NodeId),
    /// `a mod b` (floor remainder)
    Mod(NodeId, NodeId),
    /// `a ^ b`
    Xor(NodeId, NodeId),
    /// `a & b`
    And(NodeId, NodeId),
    /// `a << b`
    Shl(NodeId, NodeId),
    /// `a >> b` (arithmetic)
    Shr(NodeId, NodeId),
    /// `min(a, b)`
    Min(NodeId, NodeId),
    /// `max(a, b)`
    Max(NodeId, NodeId),
    /// `c != 0 ? a : b`
    Select(NodeId, NodeId, NodeId),
}

impl Node {
    /// The operands, in order.
    pub fn operands(&self) -> Vec<NodeId> {
        match *self {
            Node::Const(_) | Node::Var(_) => vec![],
            Node::Add(a, b)
            | Node::Sub(a, b)
            | Node::Mul(a, b)
            | Node::Div(a, b)
            | Node::Mod(a, b)
            | Node::Xor(a, b)
            | Node::And(a, b)
            | Node::Shl(a, b)
            | Node::Shr(a, b)
            | Node::Min(a, b)
            | Node::Max(a, b) => vec![a, b],
            Node::Select(c, a, b) => vec![c, a, b],
        }
    }
}

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

    /// Which nodes the outputs reach.
    pub(crate) fn live(&self) -> Vec<bool> {
        let mut live = vec![false; self.nodes.len()];
        for (_, o) in &self.outputs {
            live[o.index()] = true;
        }
        for k in (0..self.nodes.len()).rev() {
            if live[k] {
                for op in self.nodes[k].operands() {
                    live[op.index()] = true;
                }
            }
        }
        live
    }

    /// Counts the live operations.
    pub fn stats(&self) -> Stats {
        let live = self.live();
        let mut s = Stats::default();
        for (k, n) in self.nodes.iter().enumerate() {
            if !live[k] {
                continue;
            }
            match n {
                Node::Const(_) | Node::Var(_) => {}
                Node::Div(..) | Node::Mod(..) => {
                    s.ops += 1;
                    s.div_mod += 1;
                }
                Node::Mul(..) => {
                    s.ops += 1;
                    s.mul += 1;
                }
                _ => s.ops += 1,
            }
        }
        s
    }
}
