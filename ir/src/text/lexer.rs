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
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0usize;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c.is_ascii_digit() || (c == b'_' && bytes.get(i + 1).is_some_and(|b| b.is_ascii_digit())) {
            if c == b'_' {
                i += 1;
            }
            let ds = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            let text = &src[ds..i];
            let tok = match text.parse::<i64>() {
                Ok(v) => Tok::Int(v),
                Err(_) if text.trim_start_matches('0') == I64_MIN_MAGNITUDE => Tok::MinMagnitude,
                Err(_) => {
                    return Err(ParseError::new(
                        format!("integer {text} does not fit in i64"),
                        src,
                        ds,
                    ));
                }
            };
            out.push(Token { tok, col: start });
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let word = &src[start..i];
            let tok = match word {
                "_" => Tok::Underscore,
                "o" => Tok::Compose,
                w => Tok::Name(w.to_string()),
            };
            out.push(Token { tok, col: start });
            continue;
        }
        match c {
            b'(' | b')' | b'[' | b']' | b',' | b':' | b'@' | b'+' | b'-' | b'*' | b'/' | b'%' | b'<'
            | b'>' | b'=' | b'!' | b'&' | b'|' => {
                out.push(Token {
                    tok: Tok::Punct(c as char),
                    col: start,
                });
                i += 1;
            }
            _ => {
                let ch = src[start..].chars().next().unwrap_or('?');
                return Err(ParseError::new(
                    format!("unexpected character '{ch}'"),
                    src,
                    start,
                ));
            }
        }
    }
    out.push(Token {
        tok: Tok::End,
        col: src.len(),
    });
    Ok(out)
}
