//! The text format and the expression language: lexing and parsing.
//!
//! Values print in the same canonical form they parse from, so output pastes back as input.

mod ast;
mod facts;
mod lexer;
mod limits;
mod literal;
mod literal_call;
#[cfg(test)]
mod literal_call_tests;
mod number;
mod parser;
mod print;
mod read;

pub use ast::{ArithStep, BinOp, Expr, ExprKind, SliceItem, Suffix, SuffixOp};
pub use facts::parse_declaration;
pub use lexer::{I64_MIN_MAGNITUDE, Tok, Token, lex, lex_with};
pub use limits::{MAX_DEPTH, MAX_SOURCE_LEN, MAX_TUPLE};
pub use literal::{Literal, make_layout, scan, scan_nested};
pub use literal_call::read_literal_call;
pub use number::{StrideSum, int_op};
pub use parser::{parse_expr, parse_expr_list, parse_expr_without_literals};
pub use print::push_layout;
pub use read::{Read, parse_int_tuple, parse_layout, read};
