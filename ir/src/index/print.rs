//! Readable printing: one `let` per operation, then the outputs.
//!
//! ```text
//! let t2 = i % 4
//! let t4 = i / 4
//! let t6 = t2 * 8
//! let t7 = t6 + t4
//! offset = t7
//! ```

use super::{Form, IndexExpr, Node, NodeId};
use std::fmt;

impl IndexExpr {
    fn operand(&self, id: NodeId) -> String {
        match self.node(id) {
            Node::Const(v) => v.to_string(),
            Node::Var(v) => v.to_string(),
            Node::Op(..) => format!("t{}", id.index()),
        }
    }
}

impl fmt::Display for IndexExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let live = self.live();
        for (k, n) in self.nodes.iter().enumerate() {
            if !live[k] {
                continue;
            }
            let Node::Op(op, args) = n else { continue };
            let o = |k: usize| self.operand(args[k]);
            let rhs = match op.form() {
                Form::Infix => format!("{} {} {}", o(0), op.symbol(), o(1)),
                Form::Call => {
                    let all: Vec<String> = (0..args.len()).map(o).collect();
                    format!("{}({})", op.symbol(), all.join(", "))
                }
                Form::Select => format!("{} != 0 ? {} : {}", o(0), o(1), o(2)),
            };
            writeln!(f, "let t{k} = {rhs}")?;
        }
        for (name, id) in &self.outputs {
            writeln!(f, "{name} = {}", self.operand(*id))?;
        }
        Ok(())
    }
}
