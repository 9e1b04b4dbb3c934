//! The nodes of the index IR: constants, inputs, and operators applied to earlier nodes.

use super::op::{MAX_ARITY, Op};
use smallvec::SmallVec;
use std::fmt;

/// A node's position in its [`super::IndexExpr`]. Ids come only from a [`super::Builder`], so
/// an id names a node of the expression it was built for.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct NodeId(u32);

impl NodeId {
    /// The id of the `k`-th node (for the builder).
    pub(super) fn new(k: usize) -> NodeId {
        NodeId(u32::try_from(k).expect("an index expression has fewer than 2^32 nodes"))
    }

    /// The node's position in [`super::IndexExpr::nodes`] (and in any per-node table of an
    /// analysis).
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

impl Var {
    /// The input a name denotes, as [`Var`] prints: `i` the index, `c0`, `c1`, ... coordinates,
    /// any other name a parameter.
    ///
    /// ```
    /// use tessera_ir::index::Var;
    /// assert_eq!(Var::named("i"), Var::Index);
    /// assert_eq!(Var::named("c12"), Var::Coord(12));
    /// assert_eq!(Var::named("cM"), Var::Param("cM".into()));
    /// for v in [Var::Index, Var::Coord(3), Var::Param("M".into())] {
    ///     assert_eq!(Var::named(&v.to_string()), v);
    /// }
    /// ```
    pub fn named(name: &str) -> Var {
        match name.strip_prefix('c').map(str::parse::<u32>) {
            _ if name == "i" => Var::Index,
            Some(Ok(k)) => Var::Coord(k),
            _ => Var::Param(name.to_string()),
        }
    }
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

/// The operands of an operation: exactly `op.arity()` ids, stored inline.
pub type Operands = SmallVec<[NodeId; MAX_ARITY]>;

/// A node of the IR: a leaf, or an operator applied to earlier nodes.
///
/// ```
/// use tessera_ir::index::{Builder, Node, Op, Var};
/// let mut b = Builder::new();
/// let i = b.var(Var::Index);
/// let four = b.konst(4);
/// let q = b.div(i, four);
/// let e = b.finish(vec![("q".into(), q)]);
/// assert_eq!(e.node(q).op(), Some(Op::Div));
/// assert_eq!(e.node(q).children(), &[i, four]);
/// assert!(e.node(i).children().is_empty());
/// ```
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Node {
    /// A constant.
    Const(i64),
    /// An input.
    Var(Var),
    /// An operator and its operands, in order (see [`Op`] for the semantics).
    Op(Op, Operands),
}

impl Node {
    /// The operands, in order (none for a leaf); no allocation.
    pub fn children(&self) -> &[NodeId] {
        if let Node::Op(_, args) = self { args } else { &[] }
    }

    /// The operands, to rewrite them in place.
    pub fn children_mut(&mut self) -> &mut [NodeId] {
        if let Node::Op(_, args) = self {
            args
        } else {
            &mut []
        }
    }

    /// The same node with every operand replaced by `f(operand)`.
    pub fn map_children(&self, mut f: impl FnMut(NodeId) -> NodeId) -> Node {
        let mut n = self.clone();
        for c in n.children_mut() {
            *c = f(*c);
        }
        n
    }

    /// The operator, when the node is an operation.
    pub fn op(&self) -> Option<Op> {
        if let Node::Op(op, _) = self {
            Some(*op)
        } else {
            None
        }
    }

    /// The value, when the node is a constant.
    pub fn as_const(&self) -> Option<i64> {
        if let Node::Const(v) = self { Some(*v) } else { None }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Builder;
    use super::*;

    #[test]
    fn children_of_every_operator() {
        let mut b = Builder::new();
        let vars = [Var::Index, Var::Coord(0), Var::Param("M".into())];
        let ids: Vec<NodeId> = vars.into_iter().map(|v| b.var(v)).collect();
        let built: Vec<(Op, NodeId)> = Op::ALL
            .iter()
            .map(|&op| (op, b.op(op, &ids[..op.arity()])))
            .collect();
        let e = b.finish(vec![]);
        for (op, id) in built {
            let n = e.node(id);
            assert_eq!(n.op(), Some(op));
            assert_eq!(n.children(), &ids[..op.arity()], "{op:?}");
            let shifted = n.map_children(|c| NodeId::new(c.index() + 10));
            assert_eq!(shifted.op(), Some(op));
            let want: Vec<NodeId> = ids[..op.arity()]
                .iter()
                .map(|c| NodeId::new(c.index() + 10))
                .collect();
            assert_eq!(shifted.children(), &want[..], "{op:?}");
        }
        assert!(Node::Const(3).children().is_empty());
        assert!(Node::Var(Var::Index).children().is_empty());
        assert_eq!(Node::Const(3).map_children(|_| NodeId::new(0)), Node::Const(3));
        assert_eq!(Node::Const(3).as_const(), Some(3));
        assert_eq!(Node::Var(Var::Index).op(), None);
    }

    #[test]
    fn the_builder_folds_every_operator_as_it_evaluates() {
        // Constant operands fold to the operator's value wherever it is defined (division
        // only by a positive constant), and never to another value.
        for &op in Op::ALL {
            for args in [[7i64, 2, 5], [-7, 3, 1], [0, -2, 4], [5, 0, 9], [1, 70, 2]] {
                let args = &args[..op.arity()];
                let mut b = Builder::new();
                let ids: Vec<NodeId> = args.iter().map(|&v| b.konst(v)).collect();
                let id = b.op(op, &ids);
                let folded = b.value(id);
                let defined = !(matches!(op, Op::Div | Op::Mod) && args[1] <= 0);
                match op.eval(args) {
                    Ok(v) if defined => assert_eq!(folded, Some(v), "{op:?} {args:?}"),
                    Ok(v) => assert!(folded.is_none_or(|w| w == v), "{op:?} {args:?}"),
                    Err(_) => {}
                }
            }
        }
    }
}
