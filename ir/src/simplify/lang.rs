//! The e-graph language of index expressions: the operators of [`Op`], constants and inputs.
//!
//! The language is read from the operator table, not declared again: an e-node is a constant, an
//! input (named as [`crate::index::Var`] prints: `i`, `c0`, `M`) or an operator of the table with
//! its operands. Patterns write an operator with its symbol (`(/ ?x 4)`), except `select`.

use crate::index::{MAX_ARITY, Op};
use egg::{FromOp, Id, Language, Symbol};
use std::fmt;

/// An e-node: a constant, an input, or an operator applied to e-classes. The operand slots past
/// the operator's arity hold id 0, so that equal nodes compare equal.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Term {
    /// A constant.
    Num(i64),
    /// An input, by its printed name.
    Input(Symbol),
    /// An operator and its operands.
    Op(Op, [Id; MAX_ARITY]),
}

/// What a node is, without its operands: the key of e-matching.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A constant and its value.
    Num(i64),
    /// An input and its name.
    Input(Symbol),
    /// An operator.
    Op(Op),
}

impl Term {
    /// `op` applied to `args` (`op.arity()` of them).
    pub fn op(op: Op, args: &[Id]) -> Term {
        let mut slots = [Id::from(0usize); MAX_ARITY];
        slots[..args.len()].copy_from_slice(args);
        Term::Op(op, slots)
    }
}

impl Language for Term {
    type Discriminant = Kind;

    fn discriminant(&self) -> Kind {
        match self {
            Term::Num(v) => Kind::Num(*v),
            Term::Input(s) => Kind::Input(*s),
            Term::Op(op, _) => Kind::Op(*op),
        }
    }

    fn matches(&self, other: &Self) -> bool {
        self.discriminant() == other.discriminant()
    }

    fn children(&self) -> &[Id] {
        match self {
            Term::Op(op, args) => &args[..op.arity()],
            _ => &[],
        }
    }

    fn children_mut(&mut self) -> &mut [Id] {
        match self {
            Term::Op(op, args) => &mut args[..op.arity()],
            _ => &mut [],
        }
    }
}

/// The name a pattern writes an operator with.
fn written(op: Op) -> &'static str {
    if op == Op::Select { op.name() } else { op.symbol() }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Num(v) => write!(f, "{v}"),
            Term::Input(s) => write!(f, "{s}"),
            Term::Op(op, _) => f.write_str(written(*op)),
        }
    }
}

/// A node of a pattern that is not one of the language.
#[derive(Debug, thiserror::Error)]
#[error("'{0}' with {1} operands is not a node of the index language")]
pub struct NotANode(String, usize);

impl FromOp for Term {
    type Error = NotANode;

    fn from_op(name: &str, children: Vec<Id>) -> Result<Self, NotANode> {
        if let Some(&op) = Op::ALL.iter().find(|o| written(**o) == name) {
            if op.arity() == children.len() {
                return Ok(Term::op(op, &children));
            }
            return Err(NotANode(name.to_string(), children.len()));
        }
        if !children.is_empty() {
            return Err(NotANode(name.to_string(), children.len()));
        }
        Ok(match name.parse::<i64>() {
            Ok(v) => Term::Num(v),
            Err(_) => Term::Input(Symbol::from(name)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use egg::RecExpr;

    #[test]
    fn patterns_read_every_operator() {
        for &op in Op::ALL {
            let args: Vec<String> = (0..op.arity()).map(|k| format!("x{k}")).collect();
            let src = format!("({} {})", written(op), args.join(" "));
            let e: RecExpr<Term> = src.parse().unwrap();
            let root = &e[Id::from(e.len() - 1)];
            assert_eq!(root.discriminant(), Kind::Op(op), "{src}");
            assert_eq!(root.children().len(), op.arity());
            let again: RecExpr<Term> = e.to_string().parse().unwrap();
            assert_eq!(again, e, "{src}");
        }
        let e: RecExpr<Term> = "(+ -3 M)".parse().unwrap();
        assert_eq!(e[Id::from(0usize)], Term::Num(-3));
        assert!("(+ 1)".parse::<RecExpr<Term>>().is_err());
        assert!("(M 1)".parse::<RecExpr<Term>>().is_err());
    }
}
