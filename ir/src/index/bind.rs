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

impl IndexExpr {
    /// The same expression with input `v` replaced by `v + delta` and `add` added to every
    /// output: `e(v + delta) + add`, to state facts such as contiguity
    /// (`e(c0 + 1) == e(c0) + 1`) as equivalences.
    ///
    /// ```
    /// use tessera_ir::index::{parse_index, Var};
    /// let e = parse_index("c0 + 8 * c1").unwrap();
    /// let s = e.shifted(&Var::Coord(0), 1, -1);
    /// assert_eq!(s.eval(&[("c0", 3), ("c1", 2)]).unwrap(), e.eval(&[("c0", 3), ("c1", 2)]).unwrap());
    /// ```
    pub fn shifted(&self, v: &Var, delta: i64, add: i64) -> IndexExpr {
        let live = self.live();
        let mut b = Builder::new();
        let mut ids: Vec<NodeId> = Vec::with_capacity(self.nodes.len());
        for (k, n) in self.nodes.iter().enumerate() {
            let id = match n {
                _ if !live[k] => b.konst(0),
                Node::Const(c) => b.konst(*c),
                Node::Var(x) if x == v => {
                    let x = b.var(x.clone());
                    let d = b.konst(delta);
                    b.add(x, d)
                }
                Node::Var(x) => b.var(x.clone()),
                Node::Op(op, args) => {
                    let a: Vec<NodeId> = args.iter().map(|c| ids[c.index()]).collect();
                    b.op(*op, &a)
                }
            };
            ids.push(id);
        }
        let k = b.konst(add);
        let outputs = self
            .outputs
            .iter()
            .map(|(n, o)| (n.clone(), b.add(ids[o.index()], k)))
            .collect();
        b.finish(outputs)
    }
}

impl IndexExpr {
    /// The same expression with every input in `names` read as the input it maps to (the
    /// others kept): the offsets of a tensor, written over its own dimensions `c0, c1, ..`, as
    /// a function of a loop nest's coordinates.
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use tessera_ir::index::{parse_index, Var};
    /// let e = parse_index("c0 * 8 + c1").unwrap();
    /// let swap = HashMap::from([(Var::Coord(0), Var::Coord(1)), (Var::Coord(1), Var::Coord(0))]);
    /// let r = e.renamed(&swap);
    /// assert_eq!(r.eval(&[("c0", 3), ("c1", 2)]).unwrap(), vec![2 * 8 + 3]);
    /// ```
    pub fn renamed(&self, names: &HashMap<Var, Var>) -> IndexExpr {
        let mut b = Builder::new();
        let mut ids: Vec<NodeId> = Vec::with_capacity(self.nodes.len());
        for n in &self.nodes {
            let id = match n {
                Node::Const(v) => b.konst(*v),
                Node::Var(v) => b.var(names.get(v).unwrap_or(v).clone()),
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
