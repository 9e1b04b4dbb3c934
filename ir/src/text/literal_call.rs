//! A call whose arguments are all literals, `name(lit, lit, ...)`, read without tokens: the
//! shape of almost every line a batch of algebra questions holds
//! (`composition((6,2):(8,2),(4,3):(3,1))`, `complement(4:2, 24)`).
//!
//! [`read`] answers the very [`Expr`] that the general parser builds for such a line, or
//! `None` for anything else (another shape of line, a keyword argument, an argument that is not
//! a literal, a limit reached, a character the lexer rejects), and the general parser then reads
//! the line with its messages. So the fast path never changes an answer; the fuzz tests
//! compare the two readings on every line they make.
//!
//! ```
//! use tessera_ir::text::{parse_expr, parse_expr_without_literals, ExprKind};
//! let src = "composition((6,2):(8,2), (4,3):(3,1))";
//! let e = parse_expr(src).unwrap();
//! assert!(matches!(&e.kind, ExprKind::Call(n, args) if n == "composition" && args.len() == 2));
//! // The general productions read the same call, literal by literal.
//! assert!(parse_expr_without_literals(src).is_ok());
//! ```

use super::ast::{Expr, ExprKind};
use super::limits::{MAX_DEPTH, MAX_SOURCE_LEN, MAX_TUPLE};
use super::literal;

/// The call `src` holds when it is a name applied to literals only, as the parser reads it.
pub(super) fn read(src: &str) -> Option<Expr> {
    // No pass of the lexer's check: every byte taken below is one it allows (a name, a
    // literal's digits and punctuation, whitespace), numbers are read within i64, and the
    // line must be taken to its end.
    if src.len() > MAX_SOURCE_LEN {
        return None;
    }
    let b = src.as_bytes();
    let col = skip_ws(b, 0);
    let name_end = name(b, col)?;
    let open = skip_ws(b, name_end);
    if b.get(open) != Some(&b'(') {
        return None;
    }
    let (args, end) = list(src, open + 1, 1)?;
    if skip_ws(b, end) != b.len() {
        return None;
    }
    Some(Expr {
        kind: ExprKind::Call(src[col..name_end].to_string(), args),
        col,
    })
}

/// The elements of a bracket opened just before `i`, `depth` levels deep, up to and past its
/// `)`: literals, and at the first level also tuples of literals (`(2:1,2:1,1:1)`, a tiler).
fn list(src: &str, mut i: usize, depth: usize) -> Option<(Vec<Expr>, usize)> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    loop {
        let at = skip_ws(b, i);
        if out.len() >= MAX_TUPLE {
            return None;
        }
        let (kind, end) = match literal::scan_boxed(src, at) {
            // The bracket is one level; the literal keeps within the rest.
            Some((lit, end, nesting)) if depth + nesting <= MAX_DEPTH => (ExprKind::Literal(lit), end),
            Some(_) => return None,
            None if depth == 1 && b.get(at) == Some(&b'(') => {
                let (items, end) = list(src, at + 1, depth + 1)?;
                (ExprKind::Tuple(items), skip_ws(b, end))
            }
            None => return None,
        };
        out.push(Expr { kind, col: at });
        match b.get(end) {
            Some(b',') => i = end + 1,
            Some(b')') => return Some((out, end + 1)),
            _ => return None,
        }
    }
}

/// The end of the name that starts at `i`: a letter or `_`, then letters, digits and `_`; not
/// a word the lexer reads otherwise (`_`, `o`), a number (`_4`), the `F2(...)` stride, or a
/// name with a run of more than 18 digits (which the lexer's check reads as a number).
fn name(b: &[u8], i: usize) -> Option<usize> {
    let first = *b.get(i)?;
    if !(first.is_ascii_alphabetic() || first == b'_') {
        return None;
    }
    let (mut j, mut digits) = (i + 1, 0usize);
    while let Some(c) = b.get(j).filter(|c| c.is_ascii_alphanumeric() || **c == b'_') {
        digits = if c.is_ascii_digit() { digits + 1 } else { 0 };
        // The lexer's check reads a long run of digits as a number, also inside a name.
        if digits > 18 {
            return None;
        }
        j += 1;
    }
    match &b[i..j] {
        b"_" | b"o" | b"F2" => None,
        [b'_', d, ..] if d.is_ascii_digit() => None,
        _ => Some(j),
    }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}
