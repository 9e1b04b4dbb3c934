//! The text format and the expression language: lexing and parsing.
//!
//! Values print in the same canonical form they parse from, so output pastes back as input.

pub mod ast;
pub mod lexer;
pub mod literal;
pub mod parser;

pub use ast::{ArithStep, BinOp, Expr, ExprKind, SliceItem, Suffix, SuffixOp};
pub use parser::{MAX_DEPTH, MAX_SOURCE_LEN, MAX_TUPLE, parse_expr, parse_expr_list};
