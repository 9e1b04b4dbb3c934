//! The text format and the expression language: lexing and parsing.
//!
//! Values print in the same canonical form they parse from, so output pastes back as input.

pub mod ast;
pub mod facts;
pub mod lexer;
pub mod literal;
pub mod number;
pub mod parser;
pub mod read;

pub use ast::{ArithStep, BinOp, Expr, ExprKind, SliceItem, Suffix, SuffixOp};
pub use parser::{MAX_DEPTH, MAX_SOURCE_LEN, MAX_TUPLE, parse_expr, parse_expr_list};
pub use read::{parse_int_tuple, parse_layout};
