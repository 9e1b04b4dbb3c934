//! Recursive-descent parser of the expression language.
//!
//! ```text
//! expr    := layout ('o' layout)*                composition, right-associative
//! layout  := sum (':' sum suffix*)?              a suffix after the stride applies to the layout
//! sum     := product (('+' | '-') product)*
//! product := unary (('*' | '/' | '%') unary)*
//! unary   := '-' unary | basis
//! basis   := postfix ('@' INT)*
//! postfix := primary suffix*
//! suffix  := '(' args ')' | '[' slices ']'
//! primary := INT | 'true' | 'false' | '_' | NAME | NAME '(' args ')' | '(' args ')'
//!          | 'Sw' '<' unary ',' unary ',' unary '>' | 'F2' '(' expr ')'
//! ```
//!
//! **Parentheses.** `(e)` around a single expression is a one-element tuple where a value is
//! expected (`(6)`, `(6):(1)`, a tuple element, an argument), and grouping where it is an
//! operand of `+ - * / %` or of a unary minus, the value before `@`, a swizzle parameter, a
//! slice entry, or followed by `(...)` or `[...]`: `(2+3)*4` is `20`, `((M+127)/128, 4)` is a shape, and
//! `(Sw<3,3,3> o (16,64):(64,1))(17)` evaluates the swizzled layout at 17. No expression that
//! is valid with the one-element tuple changes its meaning: arithmetic on a tuple is an error.
//!
//! **Limits.** Chains (`1+1+...`, `a o b o ...`, `L(0)(0)...`, `1@0+1@0+...`) are parsed by
//! loops into flat lists, so their length costs no stack. Nesting is limited to [`MAX_DEPTH`]
//! levels: each bracket and each `@` index is one level, and so is a unary minus or a `Sw<`
//! applied to more than a number (`-3` and `Sw<3,3,3>` are none, so a value prints in a form
//! that parses back at the depth of its tuples). A tuple or argument list is limited to
//! [`MAX_TUPLE`] elements, and a source to [`MAX_SOURCE_LEN`] bytes; each limit is a parse error
//! with a column.

use super::ast::{ArithStep, BinOp, Expr, ExprKind, SliceItem, Suffix, SuffixOp};
use super::lexer::{self, Tok, Token};
use super::limits::{MAX_DEPTH, MAX_SOURCE_LEN, MAX_TUPLE};
use super::literal;
use super::literal_call;
use crate::error::ParseError;

/// Parses one expression; the whole line must be consumed.
pub fn parse_expr(src: &str) -> Result<Expr, ParseError> {
    match literal_call::read(src) {
        Some(e) => Ok(e),
        None => parse_general(src),
    }
}

/// [`parse_expr`] by the general productions only (literals still read straight into values).
pub(super) fn parse_general(src: &str) -> Result<Expr, ParseError> {
    let mut p = Parser::new(src)?;
    let e = p.expr()?;
    p.expect_end()?;
    Ok(e)
}

/// [`parse_expr`] without reading literals straight into values: every literal goes through
/// the general productions. The two readings must agree on every input (the fuzz tests compare
/// them); this one exists for that comparison.
#[doc(hidden)]
pub fn parse_expr_without_literals(src: &str) -> Result<Expr, ParseError> {
    let mut p = Parser::new(src)?;
    p.literals = false;
    let e = p.expr()?;
    p.expect_end()?;
    Ok(e)
}

/// Parses a comma-separated list of expressions, as in a function's arguments.
pub fn parse_expr_list(src: &str) -> Result<Vec<Expr>, ParseError> {
    let mut p = Parser::new(src)?;
    let mut out = vec![p.expr()?];
    while p.eat(&Tok::Punct(',')) {
        if out.len() >= MAX_TUPLE {
            return p.err(format!("more than {MAX_TUPLE} expressions in one list"));
        }
        out.push(p.expr()?);
    }
    p.expect_end()?;
    Ok(out)
}

/// The expression itself where parentheses around it group: `((e))` is `e`.
fn ungroup(mut e: Expr) -> Expr {
    loop {
        match e.kind {
            ExprKind::Tuple(mut items) if items.len() == 1 => {
                e = items.pop().unwrap_or(Expr {
                    kind: ExprKind::Tuple(Vec::new()),
                    col: e.col,
                })
            }
            kind => return Expr { kind, col: e.col },
        }
    }
}

struct Parser<'a> {
    src: &'a str,
    /// The tokens lexed so far: up to `pos` at least (or to the end); [`Parser::lookahead`]
    /// lexes further.
    toks: Vec<Token>,
    /// Where lexing resumes.
    lex_at: usize,
    pos: usize,
    depth: usize,
    /// Directly inside a stride literal, where `(...)` after a value evaluates the whole layout.
    in_stride: bool,
    /// Whether literals are read straight into values ([`literal`]).
    literals: bool,
}

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Result<Self, ParseError> {
        if src.len() > MAX_SOURCE_LEN {
            return Err(ParseError::new(
                format!(
                    "expression longer than {MAX_SOURCE_LEN} bytes ({} bytes)",
                    src.len()
                ),
                src,
                MAX_SOURCE_LEN,
            ));
        }
        lexer::check(src)?;
        let mut p = Parser {
            src,
            toks: Vec::with_capacity(16),
            lex_at: 0,
            pos: 0,
            depth: 0,
            in_stride: false,
            literals: true,
        };
        p.fill();
        Ok(p)
    }

    /// Lexes the token at the position (unless the end came before).
    fn fill(&mut self) {
        self.lookahead(0);
    }

    /// Lexes up to `k` tokens past the position (or to the end), for [`Parser::peek_at`].
    fn lookahead(&mut self, k: usize) {
        while self.toks.len() <= self.pos + k && self.toks.last().is_none_or(|t| t.tok != Tok::End) {
            let t = lexer::next_token(self.src, &mut self.lex_at);
            self.toks.push(t);
        }
    }

    /// Moves the position to byte `end` of the source, past text read without tokens.
    fn skip_to(&mut self, end: usize) {
        self.toks.truncate(self.pos);
        self.lex_at = end;
        self.fill();
    }

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
        if t.tok != Tok::End {
            self.pos += 1;
            self.fill();
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
            Tok::MinMagnitude => format!("integer {}", lexer::I64_MIN_MAGNITUDE),
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

    /// One more level of nesting.
    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.err(format!(
                "expression nested deeper than {MAX_DEPTH} levels (each bracket and '@' index is \
                 one level, and each '-' or 'Sw<' applied to more than a number)"
            ));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn expr(&mut self) -> Result<Expr, ParseError> {
        let col = self.col();
        let first = self.layout()?;
        if *self.peek() != Tok::Compose {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat(&Tok::Compose) {
            items.push(self.layout()?);
        }
        Ok(Expr {
            kind: ExprKind::Compose(items),
            col,
        })
    }

    fn layout(&mut self) -> Result<Expr, ParseError> {
        let col = self.col();
        if let Some(e) = self.literal(col) {
            return e;
        }
        let shape = self.sum()?;
        if !self.eat(&Tok::Punct(':')) {
            return Ok(shape);
        }
        let was = std::mem::replace(&mut self.in_stride, true);
        let stride = self.sum();
        self.in_stride = was;
        let stride = stride?;
        let e = Expr {
            kind: ExprKind::Layout(Box::new(shape), Box::new(stride)),
            col,
        };
        self.suffixes(e, col)
    }

    /// An int tuple or layout literal at `col`, read without tokens when it is the whole of
    /// this `layout` production: the text after it ends the production (`,` `)` `]` `o` or
    /// the end; a layout may also take suffixes) and its nesting fits the limit. Anything
    /// else is `None`, and the general productions read the text with the same meaning.
    fn literal(&mut self, col: usize) -> Option<Result<Expr, ParseError>> {
        if !self.literals || !matches!(self.peek(), Tok::Int(_) | Tok::Punct('(') | Tok::Punct('-')) {
            return None;
        }
        let (lit, end, nesting) = literal::scan_boxed(self.src, col)?;
        if self.depth + nesting > MAX_DEPTH {
            return None;
        }
        let b = self.src.as_bytes();
        let ends = match b.get(end) {
            None | Some(b',' | b')' | b']') => true,
            Some(b'o') => !b
                .get(end + 1)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_'),
            Some(b'(' | b'[') => matches!(*lit, literal::Literal::Layout(_)),
            _ => false,
        };
        if !ends {
            return None;
        }
        self.skip_to(end);
        let is_layout = matches!(*lit, literal::Literal::Layout(_));
        let e = Expr {
            kind: ExprKind::Literal(lit),
            col,
        };
        Some(if is_layout { self.suffixes(e, col) } else { Ok(e) })
    }

    /// A parameter of `Sw<b,m,s>`: one level when it is another swizzle (`Sw<Sw<...`), the
    /// only way it recurses without a bracket or a minus sign.
    fn swizzle_param(&mut self) -> Result<Expr, ParseError> {
        let nests = matches!(self.peek(), Tok::Name(n) if n == "Sw");
        if nests {
            self.enter()?;
        }
        let e = ungroup(self.unary()?);
        if nests {
            self.leave();
        }
        Ok(e)
    }

    /// `(args)` and `[slices]` after `base`, in a flat list.
    fn suffixes(&mut self, base: Expr, col: usize) -> Result<Expr, ParseError> {
        let mut list = Vec::new();
        loop {
            let at = self.col();
            let op = match self.peek() {
                Tok::Punct('(') => SuffixOp::Apply(self.args('(', ')')?),
                Tok::Punct('[') => SuffixOp::Slice(self.slices()?),
                _ => break,
            };
            list.push(Suffix { col: at, op });
        }
        if list.is_empty() {
            return Ok(base);
        }
        Ok(Expr {
            kind: ExprKind::Postfix(Box::new(base), list),
            col,
        })
    }

    /// A left-associative chain of `next` joined by the operators `ops` picks.
    fn chain(
        &mut self,
        next: fn(&mut Self) -> Result<Expr, ParseError>,
        ops: fn(&Tok) -> Option<BinOp>,
    ) -> Result<Expr, ParseError> {
        let col = self.col();
        let first = next(self)?;
        let mut steps = Vec::new();
        while let Some(op) = ops(self.peek()) {
            let at = self.col();
            self.bump();
            let rhs = ungroup(next(self)?);
            steps.push(ArithStep { op, col: at, rhs });
        }
        if steps.is_empty() {
            return Ok(first);
        }
        Ok(Expr {
            kind: ExprKind::Arith(Box::new(ungroup(first)), steps),
            col,
        })
    }

    fn sum(&mut self) -> Result<Expr, ParseError> {
        self.chain(Self::product, |t| match t {
            Tok::Punct('+') => Some(BinOp::Add),
            Tok::Punct('-') => Some(BinOp::Sub),
            _ => None,
        })
    }

    fn product(&mut self) -> Result<Expr, ParseError> {
        self.chain(Self::unary, |t| match t {
            Tok::Punct('*') => Some(BinOp::Mul),
            Tok::Punct('/') => Some(BinOp::Div),
            Tok::Punct('%') => Some(BinOp::Mod),
            _ => None,
        })
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        let col = self.col();
        if !self.eat(&Tok::Punct('-')) {
            let base = self.postfix()?;
            return self.basis(base, col);
        }
        if *self.peek() == Tok::MinMagnitude {
            // `-9223372036854775808` is i64::MIN, which has no positive literal.
            self.bump();
            let lit = Expr {
                kind: ExprKind::Int(i64::MIN),
                col,
            };
            let base = self.postfix_from(lit, col)?;
            return self.basis(base, col);
        }
        // A minus sign before a number is part of the number: no level, so that every value
        // prints in a form that parses back at the depth of its brackets.
        let nests = !matches!(self.peek(), Tok::Int(_));
        if nests {
            self.enter()?;
        }
        let inner = ungroup(self.unary()?);
        if nests {
            self.leave();
        }
        Ok(Expr {
            kind: ExprKind::Neg(Box::new(inner)),
            col,
        })
    }

    /// `base@i@j...`: a coordinate stride.
    fn basis(&mut self, base: Expr, col: usize) -> Result<Expr, ParseError> {
        if *self.peek() != Tok::Punct('@') {
            return Ok(base);
        }
        // Each index is one level: it nests the coordinate the stride reaches one level deeper.
        let mut path = Vec::new();
        while self.eat(&Tok::Punct('@')) {
            self.pos -= 1;
            self.enter()?;
            self.pos += 1;
            match self.bump().tok {
                Tok::Int(v) if (0..MAX_TUPLE as i64).contains(&v) => path.push(v as u32),
                // An index past the longest tuple names no mode; printing such a coordinate
                // materializes it densely, so `2:1@4294967295(1)` used to abort on a 32 GiB
                // allocation. (The path's length is bounded by the nesting limit.)
                Tok::Int(v) if v >= 0 => {
                    self.pos -= 1;
                    return self.err(format!(
                        "mode index {v} after '@' is out of range (indices are below {MAX_TUPLE})"
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
        self.depth -= path.len();
        Ok(Expr {
            kind: ExprKind::Basis(Box::new(ungroup(base)), path),
            col,
        })
    }

    fn postfix(&mut self) -> Result<Expr, ParseError> {
        let col = self.col();
        let e = self.primary()?;
        self.postfix_from(e, col)
    }

    /// The suffixes after a primary; none directly inside a stride, where they belong to the
    /// whole layout.
    fn postfix_from(&mut self, e: Expr, col: usize) -> Result<Expr, ParseError> {
        if self.in_stride || !matches!(self.peek(), Tok::Punct('(') | Tok::Punct('[')) {
            return Ok(e);
        }
        self.suffixes(ungroup(e), col)
    }

    /// `open expr (, expr)* close`, possibly empty.
    fn args(&mut self, open: char, close: char) -> Result<Vec<Expr>, ParseError> {
        self.expect(open)?;
        self.enter()?;
        let was = std::mem::replace(&mut self.in_stride, false);
        let mut out: Vec<Expr> = Vec::new();
        if !self.eat(&Tok::Punct(close)) {
            loop {
                if out.len() >= MAX_TUPLE {
                    return self.err(format!("more than {MAX_TUPLE} elements in one tuple"));
                }
                let a = self.arg()?;
                if let ExprKind::Keyword(name, _) = &a.kind
                    && out
                        .iter()
                        .any(|b| matches!(&b.kind, ExprKind::Keyword(n, _) if n == name))
                {
                    return Err(ParseError::new(
                        format!("keyword argument '{name}=' is given twice"),
                        self.src,
                        a.col,
                    ));
                }
                out.push(a);
                if self.eat(&Tok::Punct(',')) {
                    continue;
                }
                self.expect(close)?;
                break;
            }
        }
        self.in_stride = was;
        self.leave();
        Ok(out)
    }

    /// An argument: an expression, or a keyword argument `name=expr` (for properties).
    fn arg(&mut self) -> Result<Expr, ParseError> {
        self.lookahead(2);
        if let (Tok::Name(n), Tok::Punct('='), t2) = (self.peek(), self.peek_at(1), self.peek_at(2))
            && *t2 != Tok::Punct('=')
        {
            let n = n.clone();
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
        let was = std::mem::replace(&mut self.in_stride, false);
        let mut out = Vec::new();
        loop {
            if out.len() >= MAX_TUPLE {
                return self.err(format!("more than {MAX_TUPLE} entries in one slice"));
            }
            out.push(self.slice_item()?);
            if self.eat(&Tok::Punct(',')) {
                continue;
            }
            self.expect(']')?;
            break;
        }
        self.in_stride = was;
        self.leave();
        Ok(out)
    }

    fn slice_part(&mut self) -> Result<Option<Expr>, ParseError> {
        match self.peek() {
            Tok::Punct(':') | Tok::Punct(',') | Tok::Punct(']') => Ok(None),
            _ => Ok(Some(ungroup(self.sum()?))),
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
        self.lookahead(1);
        let col = self.col();
        let kind = match self.peek() {
            Tok::Int(v) => {
                let v = *v;
                self.bump();
                ExprKind::Int(v)
            }
            Tok::MinMagnitude => {
                return self.err(format!(
                    "integer {} does not fit in i64 (only its negative does)",
                    lexer::I64_MIN_MAGNITUDE
                ));
            }
            Tok::Underscore => {
                self.bump();
                ExprKind::Underscore
            }
            Tok::Punct('(') => ExprKind::Tuple(self.args('(', ')')?),
            Tok::Name(n) if n == "Sw" && *self.peek_at(1) == Tok::Punct('<') => {
                self.bump();
                self.bump();
                let b = self.swizzle_param()?;
                self.expect(',')?;
                let m = self.swizzle_param()?;
                self.expect(',')?;
                let s = self.swizzle_param()?;
                self.expect('>')?;
                ExprKind::Swizzle(Box::new(b), Box::new(m), Box::new(s))
            }
            Tok::Name(n) if n == "F2" && *self.peek_at(1) == Tok::Punct('(') => {
                self.bump();
                let mut args = self.args('(', ')')?;
                if args.len() != 1 {
                    return Err(ParseError::new("F2(...) takes one value", self.src, col));
                }
                ExprKind::F2(Box::new(args.remove(0)))
            }
            Tok::Name(n) => {
                let n = n.clone();
                self.bump();
                if *self.peek() == Tok::Punct('(') {
                    ExprKind::Call(n, self.args('(', ')')?)
                } else {
                    match n.as_str() {
                        "true" => ExprKind::Bool(true),
                        "false" => ExprKind::Bool(false),
                        _ => ExprKind::Name(n),
                    }
                }
            }
            t => {
                let found = Self::describe(t);
                return self.err(format!("expected a value, found {found}"));
            }
        };
        Ok(Expr { kind, col })
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
