//! Building index expressions with folding and sharing.

use super::{IndexExpr, Node, NodeId, Var};
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
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(n.clone());
        self.seen.insert(n, id);
        id
    }

    /// The constant value of a node, if it is a constant.
    pub fn value(&self, id: NodeId) -> Option<i64> {
        match self.nodes[id.index()] {
            Node::Const(v) => Some(v),
            _ => None,
        }
    }

    /// A constant.
    pub fn konst(&mut self, v: i64) -> NodeId {
        self.push(Node::Const(v))
    }

    /// An input.
    pub fn var(&mut self, v: Var) -> NodeId {
        self.push(Node::Var(v))
    }

    fn fold(&mut self, a: NodeId, b: NodeId, f: impl Fn(i64, i64) -> Option<i64>) -> Option<NodeId> {
        let (x, y) = (self.value(a)?, self.value(b)?);
        f(x, y).map(|v| self.konst(v))
    }

    /// `a + b`
    pub fn add(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if let Some(n) = self.fold(a, b, i64::checked_add) {
            return n;
        }
        match (self.value(a), self.value(b)) {
            (Some(0), _) => b,
            (_, Some(0)) => a,
            _ => {
                let (a, b) = if a <= b { (a, b) } else { (b, a) };
                self.push(Node::Add(a, b))
            }
        }
    }

    /// `a - b`
    pub fn sub(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if let Some(n) = self.fold(a, b, i64::checked_sub) {
            return n;
        }
        if self.value(b) == Some(0) {
            return a;
        }
        if a == b {
            return self.konst(0);
        }
        self.push(Node::Sub(a, b))
    }

    /// `a * b`
    pub fn mul(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if let Some(n) = self.fold(a, b, i64::checked_mul) {
            return n;
        }
        match (self.value(a), self.value(b)) {
            (Some(0), _) | (_, Some(0)) => self.konst(0),
            (Some(1), _) => b,
            (_, Some(1)) => a,
            _ => {
                let (a, b) = if a <= b { (a, b) } else { (b, a) };
                self.push(Node::Mul(a, b))
            }
        }
    }

    /// `floor(a / b)`
    pub fn div(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if let Some(n) = self.fold(a, b, |x, y| (y > 0).then(|| x.div_euclid(y))) {
            return n;
        }
        if self.value(b) == Some(1) || self.value(a) == Some(0) {
            return a;
        }
        self.push(Node::Div(a, b))
    }

    /// `a mod b`
    pub fn rem(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if let Some(n) = self.fold(a, b, |x, y| (y > 0).then(|| x.rem_euclid(y))) {
            return n;
        }
        if self.value(b) == Some(1) || self.value(a) == Some(0) {
            return self.konst(0);
        }
        self.push(Node::Mod(a, b))
    }

    /// `a ^ b`
    pub fn xor(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if let Some(n) = self.fold(a, b, |x, y| Some(x ^ y)) {
            return n;
        }
        match (self.value(a), self.value(b)) {
            (Some(0), _) => b,
            (_, Some(0)) => a,
            _ => self.push(Node::Xor(a, b)),
        }
    }

    /// `a & b`
    pub fn and(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if let Some(n) = self.fold(a, b, |x, y| Some(x & y)) {
            return n;
        }
        if self.value(a) == Some(0) || self.value(b) == Some(0) {
            return self.konst(0);
        }
        self.push(Node::And(a, b))
    }

    /// `a << b`
    pub fn shl(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if let Some(n) = self.fold(a, b, |x, y| {
            u32::try_from(y)
                .ok()
                .filter(|s| *s < 63)
                .and_then(|s| x.checked_mul(1 << s))
        }) {
            return n;
        }
        if self.value(b) == Some(0) {
            return a;
        }
        self.push(Node::Shl(a, b))
    }

    /// `a >> b`
    pub fn shr(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if let Some(n) = self.fold(a, b, |x, y| {
            u32::try_from(y).ok().filter(|s| *s < 63).map(|s| x >> s)
        }) {
            return n;
        }
        if self.value(b) == Some(0) {
            return a;
        }
        self.push(Node::Shr(a, b))
    }

    /// `min(a, b)`
    pub fn min(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if let Some(n) = self.fold(a, b, |x, y| Some(x.min(y))) {
            return n;
        }
        self.push(Node::Min(a, b))
    }

    /// `max(a, b)`
    pub fn max(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if let Some(n) = self.fold(a, b, |x, y| Some(x.max(y))) {
            return n;
        }
        self.push(Node::Max(a, b))
    }

    /// `c != 0 ? a : b`
    pub fn select(&mut self, c: NodeId, a: NodeId, b: NodeId) -> NodeId {
        match self.value(c) {
            Some(0) => b,
            Some(_) => a,
            None if a == b => a,
            None => self.push(Node::Select(c, a, b)),
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
