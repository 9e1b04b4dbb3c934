//! Recursive-descent parser of the expression language.
//!
//! ```text
//! expr    := layout ('o' expr)?                  composition, right-associative
//! layout  := sum (':' sum (call | slice)*)?      a call or a slice after the stride applies to the layout
//! sum     := product (('+' | '-') product)*
//! product := unary (('*' | '/' | '%') unary)*
//! unary   := '-' unary | basis
//! basis   := postfix ('@' INT)*
//! postfix := primary ('(' args ')' | '[' slices ']')*
//! primary := INT | '_' | NAME | NAME '(' args ')' | '(' args ')' | 'Sw' '<' e ',' e ',' e '>'
//!          | 'F2' '(' expr ')'
//! ```

use super::ast::{BinOp, Expr, ExprKind, SliceItem};
use super::lexer::{Tok, Token, lex};
use crate::error::ParseError;

/// Deepest nesting accepted, so that hostile input cannot exhaust the stack.
const MAX_DEPTH: usize = 128;
/// Most elements accepted in one tuple.
const MAX_TUPLE: usize = 4096;

/// Parses one expression; the whole line must be consumed.
pub fn parse_expr(src: &str) -> Result<Expr, ParseError> {
    let toks = lex(src)?;
    let mut p = Parser {
        src,
        toks,
        pos: 0,
        depth: 0,
        in_stride: false,
    };
    let e = p.expr()?;
    p.expect_end()?;
    Ok(e)
}

/// Parses a comma-separated list of expressions, as in a function's arguments.
pub fn parse_expr_list(src: &str) -> Result<Vec<Expr>, ParseError> {
    let toks = lex(src)?;
    let mut p = Parser {
        src,
        toks,
        pos: 0,
        depth: 0,
        in_stride: false,
    };
    let mut out = vec![p.expr()?];
    while p.eat(&Tok::Punct(',')) {
        out.push(p.expr()?);
    }
    p.expect_end()?;
    Ok(out)
}

struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    pos: usize,
    depth: usize,
    /// Inside a stride literal, where `(...)` after a value evaluates the whole layout.
    in_stride: bool,
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }

    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].tok
    }

    fn col(&self) -> usize {
        self.toks[self.pos].col
    }

    fn bump(&mut self) -> Token {
        let t = self.toks[self.pos].clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == t {
            self.bump();
            true
        } else {
            false
        }
    }

    fn err<T>(&self, msg: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError::new(msg, self.src, self.col()))
    }

    fn describe(t: &Tok) -> String {
        match t {
            Tok::Int(v) => format!("integer {v}"),
            Tok::Name(n) => format!("name '{n}'"),
            Tok::Compose => "'o'".into(),
            Tok::Underscore => "'_'".into(),
            Tok::Punct(c) => format!("'{c}'"),
            Tok::End => "end of input".into(),
        }
    }

    fn expect(&mut self, c: char) -> Result<(), ParseError> {
        if self.eat(&Tok::Punct(c)) {
            Ok(())
        } else {
            let found = Self::describe(self.peek());
            self.err(format!("expected '{c}', found {found}"))
        }
    }

    fn expect_end(&mut self) -> Result<(), ParseError> {
        if *self.peek() == Tok::End {
            Ok(())
        } else {
            let found = Self::describe(self.peek());
            self.err(format!("unexpected {found} after the expression"))
        }
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.err(format!("expression nested deeper than {MAX_DEPTH} levels"));
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let col = self.col();
        let lhs = self.layout()?;
        let out = if self.eat(&Tok::Compose) {
            let rhs = self.expr()?;
            Expr {
                kind: ExprKind::Compose(Box::new(lhs), Box::new(rhs)),
                col,
            }
        } else {
            lhs
        };
        self.depth -= 1;
        Ok(out)
    }

    fn layout(&mut self) -> Result<Expr, ParseError> {
        let col = self.col();
        let shape = self.sum()?;
        if !self.eat(&Tok::Punct(':')) {
            return Ok(shape);
        }
        let was = std::mem::replace(&mut self.in_stride, true);
        let stride = self.sum();
        self.in_stride = was;
        let stride = stride?;
        let mut e = Expr {
            kind: ExprKind::Layout(Box::new(shape), Box::new(stride)),
            col,
        };
        loop {
            e = match self.peek() {
                Tok::Punct('(') => Expr {
                    kind: ExprKind::Apply(Box::new(e), self.args('(', ')')?),
                    col,
                },
                Tok::Punct('[') => Expr {
                    kind: ExprKind::Slice(Box::new(e), self.slices()?),
                    col,
                },
                _ => return Ok(e),
            };
        }
    }

    fn sum(&mut self) -> Result<Expr, ParseError> {
        let col = self.col();
        let mut lhs = self.product()?;
        loop {
            let op = match self.peek() {
                Tok::Punct('+') => BinOp::Add,
                Tok::Punct('-') => BinOp::Sub,
                _ => return Ok(lhs),
            };
            self.bump();
            let rhs = self.product()?;
            lhs = Expr {
                kind: ExprKind::Bin(op, Box::new(lhs), Box::new(rhs)),
                col,
            };
        }
    }

    fn product(&mut self) -> Result<Expr, ParseError> {
        let col = self.col();
        let mut lhs = self.unary()?;
        loop {
            let op = match self.peek() {
                Tok::Punct('*') => BinOp::Mul,
                Tok::Punct('/') => BinOp::Div,
                Tok::Punct('%') => BinOp::Mod,
                _ => return Ok(lhs),
            };
            self.bump();
            let rhs = self.unary()?;
            lhs = Expr {
                kind: ExprKind::Bin(op, Box::new(lhs), Box::new(rhs)),
                col,
            };
        }
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        let col = self.col();
        if self.eat(&Tok::Punct('-')) {
            self.enter()?;
            let inner = self.unary()?;
            self.depth -= 1;
            return Ok(Expr {
                kind: ExprKind::Neg(Box::new(inner)),
                col,
            });
        }
        let base = self.postfix()?;
        let mut path = Vec::new();
        while self.eat(&Tok::Punct('@')) {
            match self.bump().tok {
                Tok::Int(v) if (0..MAX_TUPLE as i64).contains(&v) && path.len() < MAX_DEPTH => {
                    path.push(v as u32)
                }
                // An index past the longest tuple, or a path deeper than the nesting limit, names
                // no mode; printing such a coordinate materializes it densely, so
                // `2:1@4294967295(1)` used to abort on a 32 GiB allocation.
                Tok::Int(v) if v >= 0 => {
                    self.pos -= 1;
                    return self.err(format!(
                        "mode index {v} after '@' is out of range (indices below {MAX_TUPLE}, \
                         at most {MAX_DEPTH} of them)"
                    ));
                }
                t => {
                    self.pos -= 1;
                    return self.err(format!(
                        "expected a mode index after '@', found {}",
                        Self::describe(&t)
                    ));
                }
            }
        }
        if path.is_empty() {
            Ok(base)
        } else {
            Ok(Expr {
                kind: ExprKind::Basis(Box::new(base), path),
                col,
            })
        }
    }

    fn postfix(&mut self) -> Result<Expr, ParseError> {
        let col = self.col();
        let mut e = self.primary()?;
        loop {
            match self.peek() {
                Tok::Punct('(') if !self.in_stride => {
                    let args = self.args('(', ')')?;
                    e = Expr {
                        kind: ExprKind::Apply(Box::new(e), args),
                        col,
                    };
                }
                Tok::Punct('[') if !self.in_stride => {
                    let items = self.slices()?;
                    e = Expr {
                        kind: ExprKind::Slice(Box::new(e), items),
                        col,
                    };
                }
                _ => return Ok(e),
            }
        }
    }

    /// `open expr (, expr)* close`, possibly empty.
    fn args(&mut self, open: char, close: char) -> Result<Vec<Expr>, ParseError> {
        self.expect(open)?;
        self.enter()?;
        let mut out = Vec::new();
        if !self.eat(&Tok::Punct(close)) {
            loop {
                if out.len() >= MAX_TUPLE {
                    return self.err(format!("more than {MAX_TUPLE} elements in one tuple"));
                }
                out.push(self.arg()?);
                if self.eat(&Tok::Punct(',')) {
                    continue;
                }
                self.expect(close)?;
                break;
            }
        }
        self.depth -= 1;
        Ok(out)
    }

    /// An argument: an expression, or a keyword argument `name=expr` (for properties).
    fn arg(&mut self) -> Result<Expr, ParseError> {
        if let (Tok::Name(n), Tok::Punct('='), t2) =
            (self.peek().clone(), self.peek_at(1).clone(), self.peek_at(2))
            && *t2 != Tok::Punct('=')
        {
            let col = self.col();
            self.bump();
            self.bump();
            let v = self.expr()?;
            return Ok(Expr {
                kind: ExprKind::Keyword(n, Box::new(v)),
                col,
            });
        }
        self.expr()
    }

    fn slices(&mut self) -> Result<Vec<SliceItem>, ParseError> {
        self.expect('[')?;
        self.enter()?;
        let mut out = Vec::new();
        loop {
            out.push(self.slice_item()?);
            if self.eat(&Tok::Punct(',')) {
                continue;
            }
            self.expect(']')?;
            break;
        }
        self.depth -= 1;
        Ok(out)
    }

    fn slice_part(&mut self) -> Result<Option<Expr>, ParseError> {
        match self.peek() {
            Tok::Punct(':') | Tok::Punct(',') | Tok::Punct(']') => Ok(None),
            _ => Ok(Some(self.sum()?)),
        }
    }

    fn slice_item(&mut self) -> Result<SliceItem, ParseError> {
        let start = self.slice_part()?;
        if !self.eat(&Tok::Punct(':')) {
            return match start {
                Some(e) => Ok(SliceItem::Index(e)),
                None => self.err("expected an index or a range in the slice"),
            };
        }
        let stop = self.slice_part()?;
        let step = if self.eat(&Tok::Punct(':')) {
            self.slice_part()?
        } else {
            None
        };
        Ok(SliceItem::Range(start, stop, step))
    }

    fn primary(&mut self) -> Result<Expr, ParseError> {
        let col = self.col();
        match self.peek().clone() {
            Tok::Int(v) => {
                self.bump();
                Ok(Expr {
                    kind: ExprKind::Int(v),
                    col,
                })
            }
            Tok::Underscore => {
                self.bump();
                Ok(Expr {
                    kind: ExprKind::Underscore,
                    col,
                })
            }
            Tok::Punct('(') => {
                let items = self.args('(', ')')?;
                Ok(Expr {
                    kind: ExprKind::Tuple(items),
                    col,
                })
            }
            Tok::Name(n) if n == "Sw" && *self.peek_at(1) == Tok::Punct('<') => {
                self.bump();
                self.bump();
                let b = self.unary()?;
                self.expect(',')?;
                let m = self.unary()?;
                self.expect(',')?;
                let s = self.unary()?;
                self.expect('>')?;
                Ok(Expr {
                    kind: ExprKind::Swizzle(Box::new(b), Box::new(m), Box::new(s)),
                    col,
                })
            }
            Tok::Name(n) if n == "F2" && *self.peek_at(1) == Tok::Punct('(') => {
                self.bump();
                let mut args = self.args('(', ')')?;
                if args.len() != 1 {
                    return Err(ParseError::new("F2(...) takes one value", self.src, col));
                }
                Ok(Expr {
                    kind: ExprKind::F2(Box::new(args.remove(0))),
                    col,
                })
            }
            Tok::Name(n) => {
                self.bump();
                if *self.peek() == Tok::Punct('(') {
                    let args = self.args('(', ')')?;
                    Ok(Expr {
                        kind: ExprKind::Call(n, args),
                        col,
                    })
                } else {
                    Ok(Expr {
                        kind: ExprKind::Name(n),
                        col,
                    })
                }
            }
            t => self.err(format!("expected a value, found {}", Self::describe(&t))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_have_columns() {
        let e = parse_expr("(4,8):(1,4").unwrap_err();
        assert_eq!(e.col, 10);
        assert!(e.to_string().contains("column 11"), "{e}");
        assert!(e.to_string().ends_with("          ^"), "{e}");
        let e = parse_expr("(4,8):(1,4))").unwrap_err();
        assert_eq!(e.col, 11);
        let e = parse_expr("(4,$)").unwrap_err();
        assert_eq!(e.col, 3);
    }

    #[test]
    fn deep_nesting_is_an_error() {
        let s = format!("{}1{}", "(".repeat(1000), ")".repeat(1000));
        assert!(parse_expr(&s).is_err());
    }
}
