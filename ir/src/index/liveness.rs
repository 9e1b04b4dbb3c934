//! Liveness: which nodes the outputs of an index expression reach.

use super::IndexExpr;

impl IndexExpr {
    /// Which nodes the outputs reach, indexed by [`super::NodeId::index`]. The builder keeps
    /// every node it made, so an expression may hold nodes no output uses; evaluation,
    /// printing, the statistics and the encodings skip them.
    ///
    /// ```
    /// use tessera_ir::index::{Builder, Var};
    /// let mut b = Builder::new();
    /// let i = b.var(Var::Index);
    /// let two = b.konst(2);
    /// let dead = b.mul(i, two);
    /// let q = b.div(i, two);
    /// let e = b.finish(vec![("q".into(), q)]);
    /// let live = e.live();
    /// assert!(live[q.index()] && live[i.index()] && live[two.index()]);
    /// assert!(!live[dead.index()]);
    /// ```
    pub fn live(&self) -> Vec<bool> {
        let mut live = vec![false; self.nodes.len()];
        for (_, o) in &self.outputs {
            live[o.index()] = true;
        }
        // Operands come before their users, so one backward sweep suffices.
        for k in (0..self.nodes.len()).rev() {
            if live[k] {
                for c in self.nodes[k].children() {
                    live[c.index()] = true;
                }
            }
        }
        live
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Builder, Var};

    #[test]
    fn live_nodes_are_those_the_outputs_reach() {
        let mut b = Builder::new();
        let i = b.var(Var::Index);
        let m = b.var(Var::Param("M".into()));
        let four = b.konst(4);
        let r = b.rem(i, four);
        let q = b.div(i, four);
        let unused = b.mul(q, m);
        let s = b.select(r, q, i);
        let e = b.finish(vec![("a".into(), s), ("b".into(), r)]);
        let live = e.live();
        assert_eq!(live.len(), e.nodes().len());
        for id in [i, four, r, q, s] {
            assert!(live[id.index()], "{id:?}");
        }
        assert!(!live[m.index()] && !live[unused.index()]);
        assert_eq!(e.inputs(), vec![Var::Index]);
        // An output that is a leaf keeps only that leaf.
        let e = {
            let mut b = Builder::new();
            let i = b.var(Var::Index);
            let m = b.var(Var::Param("M".into()));
            let _ = b.add(i, m);
            b.finish(vec![("offset".into(), m)])
        };
        assert_eq!(e.live(), vec![false, true, false]);
        // No outputs: nothing is live.
        let mut b = Builder::new();
        let _ = b.var(Var::Index);
        assert_eq!(b.finish(vec![]).live(), vec![false]);
    }
}
