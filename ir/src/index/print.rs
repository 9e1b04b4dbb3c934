//! Readable printing: one `let` per operation, then the outputs.
//!
//! ```text
//! let t2 = i % 4
//! let t4 = i / 4
//! let t6 = t2 * 8
//! let t7 = t6 + t4
//! offset = t7
//! ```

use super::{IndexExpr, Node, NodeId};
use std::fmt;

impl IndexExpr {
    fn operand(&self, id: NodeId) -> String {
        match self.node(id) {
            Node::Const(v) => v.to_string(),
            Node::Var(v) => v.to_string(),
            _ => format!("t{}", id.0),
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
            let o = |id: &NodeId| self.operand(*id);
            let rhs = match n {
                Node::Const(_) | Node::Var(_) => continue,
                Node::Add(a, b) => format!("{} + {}", o(a), o(b)),
                Node::Sub(a, b) => format!("{} - {}", o(a), o(b)),
                Node::Mul(a, b) => format!("{} * {}", o(a), o(b)),
                Node::Div(a, b) => format!("{} / {}", o(a), o(b)),
                Node::Mod(a, b) => format!("{} % {}", o(a), o(b)),
                Node::Xor(a, b) => format!("{} ^ {}", o(a), o(b)),
                Node::And(a, b) => format!("{} & {}", o(a), o(b)),
                Node::Shl(a, b) => format!("{} << {}", o(a), o(b)),
                Node::Shr(a, b) => format!("{} >> {}", o(a), o(b)),
                Node::Min(a, b) => format!("min({}, {})", o(a), o(b)),
                Node::Max(a, b) => format!("max({}, {})", o(a), o(b)),
                Node::Select(c, a, b) => format!("{} != 0 ? {} : {}", o(c), o(a), o(b)),
            };
            writeln!(f, "let t{k} = {rhs}")?;
        }
        for (name, id) in &self.outputs {
            writeln!(f, "{name} = {}", self.operand(*id))?;
        }
        Ok(())
    }
}
