//! The text format and the expression language: lexing and parsing.
//!
//! Values print in the same canonical form they parse from, so output pastes back as input.

pub mod ast;
pub mod lexer;
pub mod literal;
pub mod parser;

pub use ast::{BinOp, Expr, ExprKind, SliceItem};
pub use parser::{parse_expr, parse_expr_list};
