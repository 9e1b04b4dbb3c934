//! Int-tuple and layout literals read straight from text into values: no tokens, no syntax
//! tree, no interpreter. `12`, `(2,(3,4))`, `_4`, `((2,2),3):((24,2),8)`, `(4,8):2`,
//! `(4,5):(1@0,1@1)`, `8:F2(5)`.
//!
//! [`scan`] reads the longest literal at a position and says where it ends. It answers
//! `None` for anything else (a name, arithmetic, a sum of strides, an empty or one-element
//! tuple, a layout that is not congruent): the expression parser then reads that text in
//! general, with the same meaning and its messages. So the fast path never changes an answer;
//! `tests` in this module and the parser's fuzz test compare the two readings.
//!
//! ```
//! use tessera_ir::text::{scan, Literal};
//! let (lit, end) = scan("((2,2),3):((24,2),8) o x", 0).unwrap();
//! assert_eq!(end, 21);
//! match lit {
//!     Literal::Layout(l) => assert_eq!(l.to_string(), "((2,2),3):((24,2),8)"),
//!     Literal::Tuple(_) => unreachable!(),
//! }
//! assert!(scan("(2,3)+1", 0).is_some()); // the tuple; the caller sees the `+` after it
//! assert!(scan("M:1", 0).is_none());
//! ```

use crate::error::{Error, Result};
use crate::htuple::{HTuple, Leaves, Tokens, empty};
use crate::int::Int;
use crate::layout::Layout;
use crate::stride::Stride;
use smallvec::SmallVec;

/// Deepest tuple nesting read here; deeper text is left to the parser (and its limit). Kept
/// small: the open tuples are a plain array the scanner sets up for every literal.
const MAX_DEPTH: usize = 16;
/// Most modes of one tuple read here.
const MAX_MODES: u32 = 4096;

/// A literal value (both kinds inline: boxing the layout would allocate for every literal).
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Literal {
    /// An int tuple (a shape, a coordinate, a tiler of shapes).
    Tuple(HTuple<i64>),
    /// A layout `shape:stride`.
    Layout(Layout<i64>),
}

/// Reads the literal that starts at byte `start` of `src` (after any whitespace), returning it
/// and the offset of the first non-whitespace byte after it.
pub fn scan(src: &str, start: usize) -> Option<(Literal, usize)> {
    scan_nested(src, start).map(|(l, end, _)| (l, end))
}

/// [`scan`], with the nesting the parser counts for the literal's text (one level per bracket,
/// per `@` index and per `F2(...)`), so that a parser can keep its limit.
pub fn scan_nested(src: &str, start: usize) -> Option<(Literal, usize, usize)> {
    let mut lit = Literal::Layout(Layout::unfilled());
    let (end, nesting) = scan_into(src, start, &mut lit)?;
    Some((lit, end, nesting))
}

/// [`scan_nested`] into a box, read in place (an expression holds its literals boxed; a
/// layout is 352 bytes, and each move of it a copy).
pub(crate) fn scan_boxed(src: &str, start: usize) -> Option<(Box<Literal>, usize, usize)> {
    let mut lit = Box::new(Literal::Layout(Layout::unfilled()));
    let (end, nesting) = scan_into(src, start, &mut lit)?;
    Some((lit, end, nesting))
}

/// Reads the literal at `start` into `out` (also a literal already allocated, reused line
/// after line), answering where it ends and its nesting; on `None`, `out` holds some literal,
/// to be overwritten.
pub(crate) fn scan_into(src: &str, start: usize, out: &mut Literal) -> Option<(usize, usize)> {
    let b = src.as_bytes();
    if !matches!(out, Literal::Layout(_)) {
        *out = Literal::Layout(Layout::unfilled());
    }
    let Literal::Layout(l) = out else {
        return None;
    };
    let (shape, stride) = l.parts_mut();
    let (toks, leaves) = shape.raw_mut();
    let (i, sd) = tree(b, start, int, |_| 0, toks, leaves)?;
    if peek(b, i) != b':' {
        let t = std::mem::replace(shape, HTuple::unfilled());
        *out = Literal::Tuple(t);
        return Some((i, sd));
    }
    let (toks, leaves) = stride.raw_mut();
    let (j, dd) = tree(b, i + 1, self::stride, stride_nesting, toks, leaves)?;
    if shape.congruent(stride) {
        // The common case, checked here without the generic decisions of `Layout::new`.
        if shape.leaves().iter().any(|&e| e < 1) {
            return None;
        }
    } else {
        let (s, d) = (
            std::mem::replace(shape, HTuple::unfilled()),
            std::mem::replace(stride, HTuple::unfilled()),
        );
        *out = Literal::Layout(make_layout(s, d).ok()?);
    }
    Some((j, sd.max(dd)))
}

/// The levels a stride leaf's text opens: one per `@` index, one for `F2(...)`.
fn stride_nesting(d: &Stride<i64>) -> usize {
    match d {
        Stride::Int(_) => 0,
        Stride::F2(_) => 1,
        Stride::Basis(b) => b.terms().iter().map(|(p, _)| p.len()).max().unwrap_or(0),
    }
}

/// `shape:stride` as the text format defines it: congruent parts, or a stride that is weakly
/// congruent with the shape (an integer stride is the base of the compact strides, `(4,8):2`
/// is `(4,8):(2,8)`; a stride mode that is an integer is that mode's base).
pub fn make_layout<I: Int>(shape: HTuple<I>, stride: HTuple<Stride<I>>) -> Result<Layout<I>> {
    if shape.congruent(&stride) {
        return Layout::new(shape, stride);
    }
    if !stride.weakly_congruent(&shape) {
        return Err(Error::NotCongruent {
            what: "shape ",
            a: shape.to_string(),
            b_is: "stride ",
            b: stride.to_string(),
        });
    }
    if let Some(base) = stride.as_leaf() {
        return Layout::with_base(&shape, base);
    }
    let modes: Result<Vec<Layout<I>>> = shape
        .modes()
        .into_iter()
        .zip(stride.modes())
        .map(|(s, d)| make_layout(s, d))
        .collect();
    Ok(Layout::concat(modes?))
}

/// The byte at `i`, or 0 past the end (a byte no literal holds: the lexer rejects it).
#[inline(always)]
fn peek(b: &[u8], i: usize) -> u8 {
    b.get(i).copied().unwrap_or(0)
}

/// The first byte at or after `i` that is not ASCII whitespace (or the end).
#[inline(always)]
pub(super) fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while peek(b, i).is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// A tree of leaves read by `leaf` into `toks` and `leaves` (emptied first), without
/// recursion: `(` opens a tuple, `,` separates modes, `)` closes. Empty and one-element tuples
/// are left to the parser.
#[inline(always)]
fn tree<T>(
    b: &[u8],
    start: usize,
    leaf: impl Fn(&[u8], usize) -> Option<(T, usize)>,
    nesting: impl Fn(&T) -> usize,
    toks: &mut Tokens,
    leaves: &mut Leaves<T>,
) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    empty(toks);
    empty(leaves);
    // For each open tuple: the index of its token and its modes so far (a plain array: the
    // scanner's steps read and write it on every element).
    let mut open = [(0u32, 0u32); MAX_DEPTH];
    let mut nopen = 0usize;
    let mut i = skip_ws(b, start);
    loop {
        if peek(b, i) == b'(' {
            if nopen >= MAX_DEPTH {
                return None;
            }
            // Text of over 2^32 tokens is left to the parser (and its length limit).
            open[nopen] = (u32::try_from(toks.len()).ok()?, 0);
            nopen += 1;
            toks.push(0);
            i = skip_ws(b, i + 1);
            continue;
        }
        let (v, j) = leaf(b, i)?;
        depth = depth.max(nopen + nesting(&v));
        leaves.push(v);
        toks.push(0);
        i = skip_ws(b, j);
        // One element is done: close tuples, or move to the next mode.
        loop {
            let Some(top) = nopen.checked_sub(1).and_then(|k| open.get_mut(k)) else {
                return Some((i, depth));
            };
            top.1 += 1;
            if top.1 > MAX_MODES {
                return None;
            }
            match peek(b, i) {
                b',' => {
                    i = skip_ws(b, i + 1);
                    break;
                }
                b')' => {
                    let (t, n) = *top;
                    nopen -= 1;
                    if n < 2 {
                        return None;
                    }
                    *toks.get_mut(t as usize)? = n + 1;
                    i = skip_ws(b, i + 1);
                }
                _ => return None,
            }
        }
    }
}

/// Digits that always fit in a `u64` (more are multiplied and added checked).
const UNCHECKED_DIGITS: usize = 19;

/// An integer: `-`? `_`? digits, within i64.
#[inline(always)]
fn int(b: &[u8], mut i: usize) -> Option<(i64, usize)> {
    let mut c = peek(b, i);
    let neg = c == b'-';
    if neg {
        i = skip_ws(b, i + 1);
        c = peek(b, i);
    }
    if c == b'_' {
        i += 1;
        c = peek(b, i);
    }
    let start = i;
    let mut v: u64 = 0;
    while c.is_ascii_digit() {
        let d = u64::from(c - b'0');
        v = if i - start < UNCHECKED_DIGITS {
            v * 10 + d
        } else {
            v.checked_mul(10)?.checked_add(d)?
        };
        i += 1;
        c = peek(b, i);
    }
    if i == start || c.is_ascii_alphabetic() || c == b'_' {
        return None;
    }
    let v = if neg {
        0i64.checked_sub_unsigned(v)?
    } else {
        i64::try_from(v).ok()?
    };
    Some((v, i))
}

/// A stride leaf: an integer, a scaled basis vector `v@i@j` (innermost first, as written), or
/// `F2(v)`. Sums of basis vectors are left to the parser.
#[inline(always)]
fn stride(b: &[u8], i: usize) -> Option<(Stride<i64>, usize)> {
    if peek(b, i) == b'F' {
        return f2(b, i);
    }
    let (v, j) = int(b, i)?;
    if peek(b, skip_ws(b, j)) != b'@' {
        return Some((Stride::Int(v), j));
    }
    basis(b, v, j)
}

/// `F2(v)` at `i`.
fn f2(b: &[u8], i: usize) -> Option<(Stride<i64>, usize)> {
    if !b[i..].starts_with(b"F2(") {
        return None;
    }
    let (v, j) = int(b, skip_ws(b, i + 3))?;
    let j = skip_ws(b, j);
    if peek(b, j) != b')' {
        return None;
    }
    Some((Stride::F2(u64::try_from(v).ok()?), j + 1))
}

/// The scaled basis vector `v@i@j...` whose indices follow `j`.
fn basis(b: &[u8], v: i64, mut j: usize) -> Option<(Stride<i64>, usize)> {
    let mut path: SmallVec<[u32; 2]> = SmallVec::new();
    loop {
        let k = skip_ws(b, j);
        if peek(b, k) != b'@' {
            break;
        }
        let at = skip_ws(b, k + 1);
        // A mode index is digits: `1@-0` is the parser's error, as any sign there.
        if !peek(b, at).is_ascii_digit() {
            return None;
        }
        let (p, e) = int(b, at)?;
        // Negative indices and indices past the longest tuple are the parser's errors.
        if !(0..i64::from(MAX_MODES)).contains(&p) {
            return None;
        }
        path.push(p as u32);
        j = e;
    }
    path.reverse();
    Some((Stride::basis(v, &path), j))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(s: &str) -> Option<String> {
        scan(s, 0).map(|(l, end)| {
            let v = match l {
                Literal::Tuple(t) => t.to_string(),
                Literal::Layout(l) => l.to_string(),
            };
            format!("{v}|{}", &s[end..])
        })
    }

    #[test]
    fn reads_literals_and_where_they_end() {
        assert_eq!(lit("12").as_deref(), Some("12|"));
        assert_eq!(lit(" ( 2 , (3,4) ) ,x").as_deref(), Some("(2,(3,4))|,x"));
        assert_eq!(lit("_4").as_deref(), Some("4|"));
        assert_eq!(
            lit("((2,2),3):((24,2),8))").as_deref(),
            Some("((2,2),3):((24,2),8)|)")
        );
        assert_eq!(lit("(4,8):2").as_deref(), Some("(4,8):(2,8)|"));
        assert_eq!(lit("(4,5):(1@0,1@1)").as_deref(), Some("(4,5):(1@0,1@1)|"));
        assert_eq!(lit("4:1@1@0").as_deref(), Some("4:1@1@0|"));
        assert_eq!(lit("8:F2(5)").as_deref(), Some("8:F2(5)|"));
        assert_eq!(lit("4:-1").as_deref(), Some("4:-1|"));
        assert_eq!(
            lit("-9223372036854775808").as_deref(),
            Some("-9223372036854775808|")
        );
        assert_eq!(lit("(2,3) o y").as_deref(), Some("(2,3)|o y"));
        // Past 19 digits the digits are added checked: leading zeros still read.
        assert_eq!(
            lit("(0000000000000000000000004,2):(00000000000000000009223372036854775807,1)").as_deref(),
            Some("(4,2):(9223372036854775807,1)|")
        );
        assert_eq!(
            lit("-0009223372036854775808").as_deref(),
            Some("-9223372036854775808|")
        );
    }

    #[test]
    fn leaves_everything_else_to_the_parser() {
        for s in [
            "(4,8):(1@-0,1@1)",
            "4:1@+0",
            "M",
            "(M,4)",
            "4:M",
            "()",
            "(6)",
            "(2,)",
            "(2,3",
            "4:1@0+1@0",
            "9223372036854775808",
            "18446744073709551616",
            "99999999999999999999",
            "-9223372036854775809",
            "(4,8):(1,4,2)",
            "0:1",
            "12abc",
            "4:1@-1",
            "F2(3)x",
        ] {
            let r = scan(s, 0);
            let whole = r.as_ref().is_some_and(|(_, end)| *end == s.len());
            assert!(!whole, "{s} read as {r:?}");
        }
    }

    #[test]
    fn nesting_counts_as_the_parser_does() {
        let n = |s: &str| scan_nested(s, 0).map(|(_, _, d)| d);
        assert_eq!(n("4"), Some(0));
        assert_eq!(n("(4,(2,3))"), Some(2));
        assert_eq!(n("(4,5):(1@0,1@1@0)"), Some(3));
        assert_eq!(n("8:F2(5)"), Some(1));
    }

    #[test]
    fn deep_and_wide_text_is_left_to_the_parser() {
        let deep = format!("{}1{}", "(1,".repeat(100), ")".repeat(100));
        assert!(scan(&deep, 0).is_none());
        let wide = format!("({})", vec!["1"; 5000].join(","));
        assert!(scan(&wide, 0).is_none());
    }
}
