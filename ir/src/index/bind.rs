//! Partial evaluation: some inputs replaced by constants, the rest of the expression folded.

use super::{Builder, IndexExpr, Node, NodeId, Var};
use std::collections::HashMap;

impl IndexExpr {
    /// The same expression with the inputs in `values` replaced by those constants, folded
    /// (a parameter fixed makes its products linear).
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use tessera_ir::index::{parse_index, Var};
    /// let e = parse_index("c0 * M + c1 % M").unwrap();
    /// let b = e.bind(&HashMap::from([(Var::Param("M".into()), 8)]));
    /// assert_eq!(b.to_string(), parse_index("c0 * 8 + c1 % 8").unwrap().to_string());
    /// ```
    pub fn bind(&self, values: &HashMap<Var, i64>) -> IndexExpr {
        let live = self.live();
        let mut b = Builder::new();
        let mut ids: Vec<NodeId> = Vec::with_capacity(self.nodes.len());
        for (k, n) in self.nodes.iter().enumerate() {
            let id = match n {
                _ if !live[k] => b.konst(0),
                Node::Const(v) => b.konst(*v),
                Node::Var(v) => match values.get(v) {
                    Some(x) => b.konst(*x),
                    None => b.var(v.clone()),
                },
                Node::Op(op, args) => {
                    let a: Vec<NodeId> = args.iter().map(|c| ids[c.index()]).collect();
                    b.op(*op, &a)
                }
            };
            ids.push(id);
        }
        let outputs = self
            .outputs
            .iter()
            .map(|(n, o)| (n.clone(), ids[o.index()]))
            .collect();
        b.finish(outputs)
    }
}
