//! Tokens of the text format and the expression language.

use crate::error::ParseError;

/// A token kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// A non-negative integer literal; CuTe's static marker `_4` reads as `4`.
    Int(i64),
    /// The literal `9223372036854775808` (2^63), one past `i64::MAX`: valid only right after a
    /// unary minus, where it is `i64::MIN`, so that every printed integer parses back.
    MinMagnitude,
    /// An identifier (`M`, `composition`).
    Name(String),
    /// The composition operator `o`.
    Compose,
    /// `_`: a whole mode in a tiler, or an open slice.
    Underscore,
    /// Punctuation: `( ) [ ] , : @ + - * / % < > = ! & |`.
    Punct(char),
    /// End of input.
    End,
}

/// A token and the byte column where it starts.
#[derive(Clone, Debug)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Byte offset of its first character.
    pub col: usize,
}

/// The digits of `-i64::MIN`.
pub const I64_MIN_MAGNITUDE: &str = "9223372036854775808";

/// Splits one line of source into tokens.
pub fn lex(src: &str) -> Result<Vec<Token>, ParseError> {
    lex_with(src, &[])
}

/// The first lexical error of `src`, as [`lex`] reports it: an unexpected character or an
/// integer past i64, at its column. A source that passes lexes without error, token by token
/// with [`next_token`], so that a parser can lex lazily and skip what it reads otherwise.
pub fn check(src: &str) -> Result<(), ParseError> {
    check_with(src, &[])
}

/// Splits a source into tokens, as [`lex`] does, also accepting the punctuation `extra` (for
/// the kernel language of check files: `{ } ; .`). The tokens of a source [`lex`] accepts are
/// the same; `extra` characters become [`Tok::Punct`]. Line breaks are whitespace, so one call
/// may lex several lines (columns are byte offsets into the whole source).
///
/// ```
/// use tessera_ir::text::{Tok, lex_with};
/// let t = lex_with("y[i] = x[i];", &[';']).unwrap();
/// assert_eq!(t[9].tok, Tok::Punct(';'));
/// assert!(tessera_ir::text::lex("y[i] = x[i];").is_err());
/// ```
pub fn lex_with(src: &str, extra: &[char]) -> Result<Vec<Token>, ParseError> {
    check_with(src, extra)?;
    let mut out = Vec::with_capacity(src.len() / 2 + 1);
    let mut i = 0usize;
    loop {
        let t = next_token(src, &mut i);
        let end = t.tok == Tok::End;
        out.push(t);
        if end {
            return Ok(out);
        }
    }
}

/// [`check`], also accepting the ASCII punctuation `extra`.
fn check_with(src: &str, extra: &[char]) -> Result<(), ParseError> {
    let bytes = src.as_bytes();
    let mut i = 0usize;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_digit() || (c == b'_' && bytes.get(i + 1).is_some_and(|b| b.is_ascii_digit())) {
            let ds = if c == b'_' { i + 1 } else { i };
            i = ds;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            // 18 digits always fit; longer runs are read as the lexer reads them.
            if i - ds > 18 {
                int_token(src, ds, i)?;
            }
            continue;
        }
        if ALLOWED[c as usize] || (c.is_ascii_punctuation() && extra.contains(&(c as char))) {
            i += 1;
            continue;
        }
        let ch = src[i..].chars().next().unwrap_or('?');
        return Err(ParseError::new(format!("unexpected character '{ch}'"), src, i));
    }
    Ok(())
}

/// The bytes a source may hold outside integers: letters, digits, `_`, whitespace and the
/// punctuation `( ) [ ] , : @ + - * / % < > = ! & |`.
static ALLOWED: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0usize;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric()
            || b == b'_'
            || b.is_ascii_whitespace()
            || matches!(
                b,
                b'(' | b')'
                    | b'['
                    | b']'
                    | b','
                    | b':'
                    | b'@'
                    | b'+'
                    | b'-'
                    | b'*'
                    | b'/'
                    | b'%'
                    | b'<'
                    | b'>'
                    | b'='
                    | b'!'
                    | b'&'
                    | b'|'
            );
        c += 1;
    }
    t
};

/// The integer token of the digits `src[ds..end]`.
fn int_token(src: &str, ds: usize, end: usize) -> Result<Tok, ParseError> {
    let text = &src[ds..end];
    match text.parse::<i64>() {
        Ok(v) => Ok(Tok::Int(v)),
        Err(_) if text.trim_start_matches('0') == I64_MIN_MAGNITUDE => Ok(Tok::MinMagnitude),
        Err(_) => Err(ParseError::new(
            format!("integer {text} does not fit in i64"),
            src,
            ds,
        )),
    }
}

/// The token at byte `*i` of a source that passed [`check`] (after any whitespace), moving `*i`
/// past it; [`Tok::End`] at the end.
pub fn next_token(src: &str, i: &mut usize) -> Token {
    let bytes = src.as_bytes();
    while *i < bytes.len() && bytes[*i].is_ascii_whitespace() {
        *i += 1;
    }
    let start = *i;
    let Some(&c) = bytes.get(start) else {
        return Token {
            tok: Tok::End,
            col: src.len(),
        };
    };
    if c.is_ascii_digit() || (c == b'_' && bytes.get(start + 1).is_some_and(|b| b.is_ascii_digit())) {
        let ds = if c == b'_' { start + 1 } else { start };
        *i = ds;
        while *i < bytes.len() && bytes[*i].is_ascii_digit() {
            *i += 1;
        }
        // `check` accepted these digits.
        let tok = int_token(src, ds, *i).unwrap_or(Tok::MinMagnitude);
        return Token { tok, col: start };
    }
    if c.is_ascii_alphabetic() || c == b'_' {
        while *i < bytes.len() && (bytes[*i].is_ascii_alphanumeric() || bytes[*i] == b'_') {
            *i += 1;
        }
        let tok = match &src[start..*i] {
            "_" => Tok::Underscore,
            "o" => Tok::Compose,
            w => Tok::Name(w.to_string()),
        };
        return Token { tok, col: start };
    }
    // `check` accepted the character: punctuation.
    *i += 1;
    Token {
        tok: Tok::Punct(c as char),
        col: start,
    }
}
