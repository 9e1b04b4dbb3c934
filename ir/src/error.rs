//! Typed errors of the layout algebra.
//!
//! Every operation of the algebra returns [`Result`]; nothing in `tessera-ir` panics on user
//! input. Messages name the operation and the condition that failed, e.g.
//! `composition: stride 3 does not divide shape 4 (mode 1)`.

use std::fmt;

/// The result type of the whole crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error of the algebra, the text format or the expression language.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// An `i64` computation left the representable range.
    #[error("integer overflow: {0}")]
    Overflow(String),
    /// Division or remainder by zero.
    #[error("division by zero: {0}")]
    DivisionByZero(String),
    /// An operation's pre-condition does not hold (divisibility, injectivity, ranks...).
    #[error("{op}: {msg}")]
    Condition {
        /// The operation, e.g. `composition`.
        op: &'static str,
        /// What failed, e.g. `stride 3 does not divide shape 4 (mode 1)`.
        msg: String,
    },
    /// A side condition on symbolic values could not be decided from the assumptions.
    #[error("{op} needs {cond}")]
    Undecided {
        /// The operation that needed the fact.
        op: &'static str,
        /// The condition, printed as an assumption the user could add (`N % 16 == 0`).
        cond: String,
    },
    /// A shape and a stride (or two tuples an operation pairs leaf by leaf) with different
    /// trees.
    #[error("{what}{a} and {b_is}{b} are not congruent")]
    NotCongruent {
        /// What is paired, written before the first tuple: `shape `, `inner_product: `.
        what: &'static str,
        /// The first tuple, printed.
        a: String,
        /// What the second tuple is, written before it: `stride `, or nothing.
        b_is: &'static str,
        /// The second tuple, printed.
        b: String,
    },
    /// A tuple or layout of the wrong rank for an operation, or a mode index past its rank.
    #[error("{op}: {msg}")]
    Rank {
        /// The operation, e.g. `select`.
        op: &'static str,
        /// What does not fit, e.g. `mode 3 out of range for rank 2`.
        msg: String,
    },
    /// A layout whose strides mix codomains (integers, coordinates, `F2`).
    #[error("layout {layout} mixes {first} and {second} strides")]
    MixedCodomains {
        /// The layout, printed.
        layout: String,
        /// The first codomain met (`Int`, `Coord`, `F2`).
        first: String,
        /// The one that differs from it.
        second: String,
    },
    /// A symbolic value where a constant is needed (a swizzle's input, a view's extent).
    #[error("{0}")]
    NotConstant(String),
    /// Malformed arguments: wrong kinds, arities.
    #[error("{0}")]
    Invalid(String),
    /// A broken invariant of Tessera itself, never the input's fault (exit code 4).
    #[error("internal error: {0}")]
    Internal(String),
    /// A text-format or expression syntax error.
    #[error("{0}")]
    Parse(#[from] ParseError),
}

impl Error {
    /// A failed pre-condition of `op`.
    pub fn cond(op: &'static str, msg: impl Into<String>) -> Self {
        Error::Condition { op, msg: msg.into() }
    }

    /// Malformed arguments.
    pub fn invalid(msg: impl Into<String>) -> Self {
        Error::Invalid(msg.into())
    }

    /// A broken invariant of Tessera itself.
    pub fn internal(msg: impl Into<String>) -> Self {
        Error::Internal(msg.into())
    }

    /// `true` for [`Error::Internal`]: a bug, not bad input.
    pub fn is_internal(&self) -> bool {
        matches!(self, Error::Internal(_))
    }

    /// Re-labels a bare condition or undecided error with the operation that hit it.
    pub fn in_op(mut self, op: &'static str) -> Self {
        self.relabel(op);
        self
    }

    /// [`Error::in_op`] in place.
    fn relabel(&mut self, op: &'static str) {
        if let Error::Undecided { op: o, .. } | Error::Condition { op: o, .. } = self {
            *o = op;
        }
    }

    /// `r` with its error re-labelled as [`Error::in_op`] does, in place: a large `Ok` value
    /// (a layout is 352 bytes) is not moved from one `Result` into another.
    ///
    /// ```
    /// use tessera_ir::Error;
    /// let r: Result<i64, Error> = Err(Error::cond("x", "no"));
    /// assert_eq!(Error::within(r, "composition").unwrap_err().to_string(), "composition: no");
    /// assert_eq!(Error::within(Ok(3), "composition").unwrap(), 3);
    /// ```
    #[inline(always)]
    pub fn within<T>(
        mut r: std::result::Result<T, Error>,
        op: &'static str,
    ) -> std::result::Result<T, Error> {
        if let Err(e) = &mut r {
            e.relabel(op);
        }
        r
    }
}

/// A syntax error with its position in the source line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// What was expected or found.
    pub msg: String,
    /// The offending source text (one line).
    pub src: String,
    /// Zero-based byte column of the error in `src`.
    pub col: usize,
}

impl ParseError {
    /// Builds an error at byte offset `col` of `src`; a column inside a character moves back to
    /// its start.
    pub fn new(msg: impl Into<String>, src: &str, col: usize) -> Self {
        let mut col = col.min(src.len());
        while !src.is_char_boundary(col) {
            col -= 1;
        }
        ParseError {
            msg: msg.into(),
            src: src.to_string(),
            col,
        }
    }
}

/// Longest source excerpt an error shows, in characters; a longer line is shown as a window
/// around the column, with `...` where it is cut.
const EXCERPT: usize = 120;

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Columns are reported one-based, as editors show them.
        let col_chars = self.src[..self.col].chars().count();
        let total = col_chars + self.src[self.col..].chars().count();
        let (start, end) = if total <= EXCERPT {
            (0, total)
        } else {
            let start = col_chars.saturating_sub(EXCERPT / 2).min(total - EXCERPT);
            (start, start + EXCERPT)
        };
        let head = if start > 0 { "..." } else { "" };
        let tail = if end < total { "..." } else { "" };
        let excerpt: String = self.src.chars().skip(start).take(end - start).collect();
        write!(
            f,
            "parse error at column {}: {}\n  {head}{excerpt}{tail}\n  {}^",
            col_chars + 1,
            self.msg,
            " ".repeat(head.len() + col_chars - start)
        )
    }
}

impl std::error::Error for ParseError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{HTuple, Layout, Stride, parse_layout};

    #[test]
    fn families_are_typed_and_keep_their_messages() {
        let e = Layout::new(HTuple::flat([4i64, 8]), HTuple::leaf(Stride::Int(1))).unwrap_err();
        assert!(matches!(e, Error::NotCongruent { what: "shape ", .. }));
        assert_eq!(e.to_string(), "shape (4,8) and stride 1 are not congruent");
        let e = HTuple::flat([2i64, 3]).select(&[5]).unwrap_err();
        assert!(matches!(e, Error::Rank { op: "select", .. }));
        assert_eq!(e.to_string(), "select: mode 5 out of range for rank 2");
        let l = parse_layout("(2,2):(1@0,1)").unwrap();
        let e = l.codomain().unwrap_err();
        assert!(matches!(e, Error::MixedCodomains { .. }));
        assert_eq!(e.to_string(), "layout (2,2):(1@0,1) mixes Coord and Int strides");
        assert!(Error::internal("x").is_internal() && !Error::invalid("x").is_internal());
        assert_eq!(Error::internal("x").to_string(), "internal error: x");
    }
}
