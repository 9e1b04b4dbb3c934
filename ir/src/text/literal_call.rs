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
use super::literal::{self, skip_ws};

/// Modes a tiler tuple's list is made with room for (CuTe's tilers have one per mode of a
/// layout, rarely more than four).
const TILER_MODES: usize = 4;

/// The call `src` holds when it is a name applied to literals only, as the parser reads it.
pub(super) fn read(src: &str) -> Option<Expr> {
    let mut e = Expr {
        kind: ExprKind::Call(String::new(), Vec::new()),
        col: 0,
    };
    read_in(src, &mut e).map(|()| e)
}

/// Reads the call `src` holds, as `parse_expr` does, into `e`, reusing the storage of what `e`
/// held (its name, its argument list, the boxes of its literals): a caller that reads line
/// after line into one expression allocates nothing once the lines' shapes have been seen. `true`
/// when `src` is a call of literals, and `e` is then exactly what the parser reads; `false`
/// otherwise, and `e` is left holding some expression, to be overwritten.
///
/// @post `read_literal_call(src, &mut e)` is true exactly when `parse_expr(src)` reads `src` as
/// a call of literals without the general productions, and then `e == parse_expr(src)?`.
///
/// ```
/// use tessera_ir::text::{parse_expr, read_literal_call, Expr, ExprKind};
/// let mut e = Expr { kind: ExprKind::Underscore, col: 0 };
/// for src in ["complement(4:2, 24)", "composition((6,2):(8,2), (4,3):(3,1))", "f(4:1)"] {
///     assert!(read_literal_call(src, &mut e));
///     assert_eq!(e, parse_expr(src).unwrap());
/// }
/// assert!(!read_literal_call("size(A)", &mut e));
/// ```
pub fn read_literal_call(src: &str, e: &mut Expr) -> bool {
    read_in(src, e).is_some()
}

fn read_in(src: &str, e: &mut Expr) -> Option<()> {
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
    if !matches!(e.kind, ExprKind::Call(..)) {
        e.kind = ExprKind::Call(String::new(), Vec::new());
    }
    let ExprKind::Call(name, args) = &mut e.kind else {
        return None;
    };
    let end = list(src, open + 1, 1, args)?;
    if skip_ws(b, end) != b.len() {
        return None;
    }
    name.clear();
    name.push_str(&src[col..name_end]);
    e.col = col;
    Some(())
}

/// The elements of a bracket opened just before `i`, `depth` levels deep, read into `out` (its
/// elements' storage reused), up to and past its `)`: literals, and at the first level also
/// tuples of literals (`(2:1,2:1,1:1)`, a tiler).
fn list(src: &str, mut i: usize, depth: usize, out: &mut Vec<Expr>) -> Option<usize> {
    let b = src.as_bytes();
    let mut k = 0usize;
    loop {
        let at = skip_ws(b, i);
        if k >= MAX_TUPLE {
            return None;
        }
        if k == out.len() {
            out.push(Expr {
                kind: ExprKind::Underscore,
                col: at,
            });
        }
        let slot = &mut out[k];
        slot.col = at;
        let end = match element(src, at, depth, &mut slot.kind)? {
            Some(end) => end,
            None if depth == 1 && b.get(at) == Some(&b'(') => {
                if !matches!(slot.kind, ExprKind::Tuple(_)) {
                    // A literal's box, if the slot held one, becomes the tuple's first. Room
                    // for a tiler of a few modes: the list grows no further for most.
                    let mut first = Vec::with_capacity(TILER_MODES);
                    if let lit @ ExprKind::Literal(_) =
                        std::mem::replace(&mut slot.kind, ExprKind::Underscore)
                    {
                        first.push(Expr { kind: lit, col: at });
                    }
                    slot.kind = ExprKind::Tuple(first);
                }
                let ExprKind::Tuple(items) = &mut slot.kind else {
                    return None;
                };
                skip_ws(b, list(src, at + 1, depth + 1, items)?)
            }
            None => return None,
        };
        k += 1;
        match b.get(end) {
            Some(b',') => i = end + 1,
            Some(b')') => {
                out.truncate(k);
                return Some(end + 1);
            }
            _ => return None,
        }
    }
}

/// The literal at `at` read into `kind` (into the box it holds, when it holds a literal):
/// `Some(Some(end))`; `Some(None)` when no literal starts there; `None` when one does but
/// nests past the parser's limit at `depth`.
fn element(src: &str, at: usize, depth: usize, kind: &mut ExprKind) -> Option<Option<usize>> {
    let scanned = match kind {
        ExprKind::Literal(lit) => literal::scan_into(src, at, lit),
        // A tuple read here before (a tiler): one of its literals' boxes is read into in
        // place, and taken out of the tuple when a literal starts here (a line of another
        // shape than the last allocates nothing).
        ExprKind::Tuple(items)
            if let Some(k) = items.iter().position(|x| matches!(x.kind, ExprKind::Literal(_))) =>
        {
            let scanned = match &mut items[k].kind {
                ExprKind::Literal(lit) => literal::scan_into(src, at, lit),
                _ => None,
            };
            if scanned.is_some() {
                *kind = std::mem::replace(&mut items[k].kind, ExprKind::Underscore);
            }
            scanned
        }
        _ => match literal::scan_boxed(src, at) {
            Some((lit, end, nesting)) => {
                *kind = ExprKind::Literal(lit);
                Some((end, nesting))
            }
            None => None,
        },
    };
    match scanned {
        // The bracket is one level; the literal keeps within the rest.
        Some((end, nesting)) if depth + nesting <= MAX_DEPTH => Some(Some(end)),
        Some(_) => None,
        None => Some(None),
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
    // Letters first: a name's characters are mostly lower-case letters and `_`.
    while let Some(&c) = b.get(j) {
        if c.is_ascii_lowercase() || c == b'_' || c.is_ascii_uppercase() {
            digits = 0;
        } else if c.is_ascii_digit() {
            digits += 1;
            // The lexer's check reads a long run of digits as a number, also inside a name.
            if digits > 18 {
                return None;
            }
        } else {
            break;
        }
        j += 1;
    }
    match &b[i..j] {
        b"_" | b"o" | b"F2" => None,
        [b'_', d, ..] if d.is_ascii_digit() => None,
        _ => Some(j),
    }
}
