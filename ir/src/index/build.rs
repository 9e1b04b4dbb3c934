//! Building index expressions with folding and sharing.

use super::{IndexExpr, Node, NodeId, Op, Var};
use std::collections::HashMap;

/// Builds an [`IndexExpr`], folding constants and sharing equal nodes.
///
/// ```
/// use tessera_ir::index::{Builder, Var};
/// let mut b = Builder::new();
/// let i = b.var(Var::Index);
/// let four = b.konst(4);
/// let q = b.div(i, four);
/// let q2 = b.div(i, four);
/// assert_eq!(q, q2);
/// let one = b.konst(1);
/// assert_eq!(b.mul(q, one), q);
/// ```
#[derive(Default)]
pub struct Builder {
    nodes: Vec<Node>,
    seen: HashMap<Node, NodeId>,
}

impl Builder {
    /// An empty builder.
    pub fn new() -> Self {
        Builder::default()
    }

    fn push(&mut self, n: Node) -> NodeId {
        if let Some(&id) = self.seen.get(&n) {
            return id;
        }
        let id = NodeId::new(self.nodes.len());
        self.nodes.push(n.clone());
        self.seen.insert(n, id);
        id
    }

    /// The constant value of a node, if it is a constant.
    pub fn value(&self, id: NodeId) -> Option<i64> {
        self.nodes[id.index()].as_const()
    }

    /// A constant.
    pub fn konst(&mut self, v: i64) -> NodeId {
        self.push(Node::Const(v))
    }

    /// An input.
    pub fn var(&mut self, v: Var) -> NodeId {
        self.push(Node::Var(v))
    }

    /// `op(a, b)` as a constant, when both operands are constants and the operation is
    /// defined on them (division only by a positive constant).
    fn fold(&mut self, op: Op, a: NodeId, b: NodeId) -> Option<NodeId> {
        let (x, y) = (self.value(a)?, self.value(b)?);
        if matches!(op, Op::Div | Op::Mod) && y <= 0 {
            return None;
        }
        op.eval(&[x, y]).ok().map(|v| self.konst(v))
    }

    fn push_op(&mut self, op: Op, args: &[NodeId]) -> NodeId {
        self.push(Node::Op(op, args.into()))
    }

    /// `a + b`
    pub fn add(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if let Some(n) = self.fold(Op::Add, a, b) {
            return n;
        }
        match (self.value(a), self.value(b)) {
            (Some(0), _) => b,
            (_, Some(0)) => a,
            _ => {
                let (a, b) = if a <= b { (a, b) } else { (b, a) };
                self.push_op(Op::Add, &[a, b])
            }
        }
    }

    /// `a - b`
    pub fn sub(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if let Some(n) = self.fold(Op::Sub, a, b) {
            return n;
        }
        if self.value(b) == Some(0) {
            return a;
        }
        if a == b {
            return self.konst(0);
        }
        self.push_op(Op::Sub, &[a, b])
    }

    /// `a * b`
    pub fn mul(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if let Some(n) = self.fold(Op::Mul, a, b) {
            return n;
        }
        match (self.value(a), self.value(b)) {
            (Some(0), _) | (_, Some(0)) => self.konst(0),
            (Some(1), _) => b,
            (_, Some(1)) => a,
            _ => {
                let (a, b) = if a <= b { (a, b) } else { (b, a) };
                self.push_op(Op::Mul, &[a, b])
            }
        }
    }

    /// `floor(a / b)`
    pub fn div(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if let Some(n) = self.fold(Op::Div, a, b) {
            return n;
        }
        if self.value(b) == Some(1) || self.value(a) == Some(0) {
            return a;
        }
        self.push_op(Op::Div, &[a, b])
    }

    /// `a mod b`
    pub fn rem(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if let Some(n) = self.fold(Op::Mod, a, b) {
            return n;
        }
        if self.value(b) == Some(1) || self.value(a) == Some(0) {
            return self.konst(0);
        }
        self.push_op(Op::Mod, &[a, b])
    }

    /// `a ^ b`
    pub fn xor(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if let Some(n) = self.fold(Op::Xor, a, b) {
            return n;
        }
        match (self.value(a), self.value(b)) {
            (Some(0), _) => b,
            (_, Some(0)) => a,
            _ => self.push_op(Op::Xor, &[a, b]),
        }
    }

    /// `a & b`
    pub fn and(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if let Some(n) = self.fold(Op::And, a, b) {
            return n;
        }
        if self.value(a) == Some(0) || self.value(b) == Some(0) {
            return self.konst(0);
        }
        self.push_op(Op::And, &[a, b])
    }

    /// `a << b`
    pub fn shl(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if let Some(n) = self.fold(Op::Shl, a, b) {
            return n;
        }
        if self.value(b) == Some(0) {
            return a;
        }
        self.push_op(Op::Shl, &[a, b])
    }

    /// `a >> b`
    pub fn shr(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if let Some(n) = self.fold(Op::Shr, a, b) {
            return n;
        }
        if self.value(b) == Some(0) {
            return a;
        }
        self.push_op(Op::Shr, &[a, b])
    }

    /// `min(a, b)`
    pub fn min(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if let Some(n) = self.fold(Op::Min, a, b) {
            return n;
        }
        self.push_op(Op::Min, &[a, b])
    }

    /// `max(a, b)`
    pub fn max(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if let Some(n) = self.fold(Op::Max, a, b) {
            return n;
        }
        self.push_op(Op::Max, &[a, b])
    }

    /// `c != 0 ? a : b`
    pub fn select(&mut self, c: NodeId, a: NodeId, b: NodeId) -> NodeId {
        match self.value(c) {
            Some(0) => b,
            Some(_) => a,
            None if a == b => a,
            None => self.push_op(Op::Select, &[c, a, b]),
        }
    }

    /// `op` applied to `args` through that operator's method above, with the same folding and
    /// sharing: the generic way to rebuild an operation (after [`super::Node::map_children`],
    /// or from another representation of the IR).
    ///
    /// # Panics
    /// When `args` has fewer than `op.arity()` ids.
    pub fn op(&mut self, op: Op, args: &[NodeId]) -> NodeId {
        let a = |k: usize| args[k];
        match op {
            Op::Add => self.add(a(0), a(1)),
            Op::Sub => self.sub(a(0), a(1)),
            Op::Mul => self.mul(a(0), a(1)),
            Op::Div => self.div(a(0), a(1)),
            Op::Mod => self.rem(a(0), a(1)),
            Op::Xor => self.xor(a(0), a(1)),
            Op::And => self.and(a(0), a(1)),
            Op::Shl => self.shl(a(0), a(1)),
            Op::Shr => self.shr(a(0), a(1)),
            Op::Min => self.min(a(0), a(1)),
            Op::Max => self.max(a(0), a(1)),
            Op::Select => self.select(a(0), a(1), a(2)),
        }
    }

    /// Finishes with named outputs.
    pub fn finish(self, outputs: Vec<(String, NodeId)>) -> IndexExpr {
        IndexExpr {
            nodes: self.nodes,
            outputs,
        }
    }
}
