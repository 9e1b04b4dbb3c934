//! Rewriting an expression's inputs: partial evaluation (some inputs replaced by constants,
//! the rest folded), shifts, renamings; all one copy with another reading of the inputs.

use super::{Builder, IndexExpr, Node, NodeId, Var};
use std::collections::HashMap;

impl IndexExpr {
    /// Copies this expression into `b`, each input read as the node `input` builds for it (the
    /// nodes no output uses become 0); returns the outputs, in order, as nodes of `b`. The
    /// rewrites below (`bind`, `shifted`, `renamed`) are this with another `input`.
    ///
    /// ```
    /// use tessera_ir::index::{parse_index, Builder, Var};
    /// let e = parse_index("c0 * 8 + c1").unwrap();
    /// let mut b = Builder::new();
    /// // c0 read as c0 + 1, then the result reduced modulo 4.
    /// let outs = e.rebuild(&mut b, |b, v| {
    ///     let x = b.var(v.clone());
    ///     if *v == Var::Coord(0) { let one = b.konst(1); b.add(x, one) } else { x }
    /// });
    /// let four = b.konst(4);
    /// let r = b.rem(outs[0].1, four);
    /// let f = b.finish(vec![("r".into(), r)]);
    /// assert_eq!(f.eval(&[("c0", 2), ("c1", 3)]).unwrap(), vec![(3 * 8 + 3) % 4]);
    /// ```
    pub fn rebuild(
        &self,
        b: &mut Builder,
        mut input: impl FnMut(&mut Builder, &Var) -> NodeId,
    ) -> Vec<(String, NodeId)> {
        let live = self.live();
        let mut ids: Vec<NodeId> = Vec::with_capacity(self.nodes.len());
        for (k, n) in self.nodes.iter().enumerate() {
            let id = match n {
                _ if !live[k] => b.konst(0),
                Node::Const(v) => b.konst(*v),
                Node::Var(v) => input(b, v),
                Node::Op(op, args) => {
                    let a: Vec<NodeId> = args.iter().map(|c| ids[c.index()]).collect();
                    b.op(*op, &a)
                }
            };
            ids.push(id);
        }
        self.outputs
            .iter()
            .map(|(n, o)| (n.clone(), ids[o.index()]))
            .collect()
    }

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
        let mut b = Builder::new();
        let outputs = self.rebuild(&mut b, |b, v| match values.get(v) {
            Some(x) => b.konst(*x),
            None => b.var(v.clone()),
        });
        b.finish(outputs)
    }

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
        let mut b = Builder::new();
        let outs = self.rebuild(&mut b, |b, x| {
            let n = b.var(x.clone());
            if x == v {
                let d = b.konst(delta);
                b.add(n, d)
            } else {
                n
            }
        });
        let k = b.konst(add);
        let outputs = outs.into_iter().map(|(n, o)| (n, b.add(o, k))).collect();
        b.finish(outputs)
    }

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
        let outputs = self.rebuild(&mut b, |b, v| b.var(names.get(v).unwrap_or(v).clone()));
        b.finish(outputs)
    }
}
