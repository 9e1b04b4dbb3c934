//! An exact, line-based record of an index expression, node for node, for storing a result
//! (the preparation cache of `tessera run`) and reading it back as the very same expression.
//!
//! One line per node in order, `k 5` (a constant), `v i`, `v c 3`, `v p M` (inputs), `o add 0 1`
//! (an operator and its operands' positions), then one `out 7 offset` per output. Reading
//! checks everything a [`super::Builder`] guarantees (operands before users, each operator's
//! arity, outputs naming nodes) and gives `None` on anything else: a damaged record is never an
//! expression.
//!
//! ```
//! use tessera_ir::index::{IndexExpr, parse_index};
//! let e = parse_index("(c0 % 4) * 8 + c1 / 4 + M").unwrap();
//! assert_eq!(IndexExpr::from_record(&e.record()), Some(e.clone()));
//! assert_eq!(IndexExpr::from_record("o add 0 1\n"), None); // operands not before it
//! ```

use super::{IndexExpr, Node, NodeId, Op, Operands, Var};
use std::fmt::Write;

impl IndexExpr {
    /// The record of the expression (see the module documentation).
    ///
    /// @pre none. @post [`IndexExpr::from_record`] of the result is `Some(self.clone())`.
    ///
    /// ```
    /// use tessera_ir::index::parse_index;
    /// assert_eq!(parse_index("c0 + 1").unwrap().record(), "v c 0\nk 1\no add 0 1\nout 2 value\n");
    /// ```
    pub fn record(&self) -> String {
        let mut s = String::new();
        for n in &self.nodes {
            // Writing to a String cannot fail.
            let _ = match n {
                Node::Const(c) => writeln!(s, "k {c}"),
                Node::Var(Var::Index) => writeln!(s, "v i"),
                Node::Var(Var::Coord(k)) => writeln!(s, "v c {k}"),
                Node::Var(Var::Param(p)) => writeln!(s, "v p {p}"),
                Node::Op(op, args) => {
                    let ids: Vec<String> = args.iter().map(|a| a.index().to_string()).collect();
                    writeln!(s, "o {} {}", op.name(), ids.join(" "))
                }
            };
        }
        for (name, id) in &self.outputs {
            let _ = writeln!(s, "out {} {name}", id.index());
        }
        s
    }

    /// Reads a record written by [`IndexExpr::record`]; `None` when it is not one (a truncated
    /// or altered record included, wherever the damage leaves it malformed; a record ends with a
    /// newline).
    ///
    /// @pre none. @post a `Some` holds nodes in topological order, each operator with its arity,
    /// outputs naming nodes.
    ///
    /// ```
    /// use tessera_ir::index::IndexExpr;
    /// assert!(IndexExpr::from_record("v c 0\nk 1\no add 0 1\nout 2 value\n").is_some());
    /// assert!(IndexExpr::from_record("v c 0\nk 1\no add 0 1\nout 3 value\n").is_none());
    /// ```
    pub fn from_record(text: &str) -> Option<IndexExpr> {
        // A whole record ends its last line (and only `\n` ends a line).
        let text = text.strip_suffix('\n')?;
        let mut nodes: Vec<Node> = Vec::new();
        let mut outputs = Vec::new();
        let id = |s: &str, below: usize| -> Option<NodeId> {
            let k: usize = s.parse().ok()?;
            (k < below).then(|| NodeId::new(k))
        };
        for line in text.split('\n') {
            let mut words = line.split(' ');
            match (words.next()?, outputs.is_empty()) {
                ("k", true) => {
                    let c: i64 = words.next()?.parse().ok()?;
                    nodes.push(Node::Const(c));
                }
                ("v", true) => {
                    let var = match words.next()? {
                        "i" => Var::Index,
                        "c" => Var::Coord(words.next()?.parse().ok()?),
                        "p" => Var::Param(words.next().filter(|p| !p.is_empty())?.to_string()),
                        _ => return None,
                    };
                    nodes.push(Node::Var(var));
                }
                ("o", true) => {
                    let name = words.next()?;
                    let op = *Op::ALL.iter().find(|o| o.name() == name)?;
                    let mut args = Operands::new();
                    for w in words.by_ref() {
                        if args.len() == op.arity() {
                            return None;
                        }
                        args.push(id(w, nodes.len())?);
                    }
                    if args.len() != op.arity() {
                        return None;
                    }
                    nodes.push(Node::Op(op, args));
                }
                ("out", _) => {
                    let at = id(words.next()?, nodes.len())?;
                    let name: Vec<&str> = words.by_ref().collect();
                    if name.is_empty() || name.iter().any(|w| w.is_empty()) {
                        return None;
                    }
                    outputs.push((name.join(" "), at));
                    continue;
                }
                _ => return None,
            }
            if words.next().is_some() {
                return None;
            }
        }
        (!outputs.is_empty()).then_some(IndexExpr { nodes, outputs })
    }
}
