//! The syntax of parameter declarations: `M, N where M % 128 == 0, 128 <= M <= 65536`.
//!
//! A declaration names parameters, then (after `where`) lists facts: a congruence
//! `NAME % k == r` (`NAME % k == 0`: a divisibility), or a chain of comparisons between parameters and integers
//! (`lo <= M <= hi`, `M < 4096`, `K == 0`). What the facts mean is
//! [`crate::sym::Facts`]'s business; this module only reads them, with columns.
//!
//! ```
//! use tessera_ir::{sym::Fact, text::parse_declaration};
//! let d = parse_declaration("M, N where M % 128 == 0, 1 <= N <= 4096").unwrap();
//! assert_eq!(d.names.iter().map(|n| n.name.as_str()).collect::<Vec<_>>(), ["M", "N"]);
//! assert!(matches!(d.facts[0], Fact::Modulus { k: 128, r: 0, .. }));
//! let d = parse_declaration("N where N % 4 == 3").unwrap();
//! assert!(matches!(d.facts[0], Fact::Modulus { k: 4, r: 3, .. }));
//! assert!(parse_declaration("M where M %").is_err());
//! ```

use super::lexer::{Tok, Token, lex};
use crate::error::{Error, ParseError, Result};
use crate::sym::Facts;
use crate::sym::{Cmp, Declaration, Fact, Name, Operand};

impl Facts {
    /// Declares parameters with facts: `M, N where M % 128 == 0, 1 <= N <= 4096`, returning
    /// their names.
    ///
    /// ```
    /// use tessera_ir::sym::Facts;
    /// let mut f = Facts::default();
    /// f.declare("M, N where M % 128 == 0, 128 <= M <= 65536, 1 <= N <= 4096").unwrap();
    /// assert_eq!(f.get("M").unwrap().modulus, 128);
    /// assert_eq!(f.get("N").unwrap().hi, Some(4096));
    /// assert!(f.declare("K where K % 0 == 0").is_err());
    /// f.declare("S where -4 <= S <= 4").unwrap();
    /// assert_eq!(f.get("S").unwrap().lo, -4);
    /// assert!(f.get("S").unwrap().admits(0));
    /// f.declare("Z where Z == 0").unwrap();
    /// assert_eq!(f.get("N").unwrap().lo, 1); // no lower bound stated
    /// ```
    pub fn declare(&mut self, src: &str) -> Result<Vec<String>> {
        self.declare_parsed(&parse_declaration(src)?, src)
    }
}

/// Reads a declaration; a syntax error has its column.
pub fn parse_declaration(src: &str) -> Result<Declaration> {
    let toks = lex(src)?;
    let mut p = DeclParser { src, toks, pos: 0 };
    let names = p.names()?;
    let mut facts = Vec::new();
    if p.eat_word("where") {
        loop {
            facts.push(p.fact()?);
            if !p.eat(&Tok::Punct(',')) {
                break;
            }
        }
    }
    p.end()?;
    Ok(Declaration { names, facts })
}

struct DeclParser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    pos: usize,
}

impl DeclParser<'_> {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }
    fn col(&self) -> usize {
        self.toks[self.pos].col
    }
    fn err<T>(&self, msg: impl Into<String>) -> Result<T> {
        Err(Error::Parse(ParseError::new(msg, self.src, self.col())))
    }
    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == t {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn eat_word(&mut self, w: &str) -> bool {
        if matches!(self.peek(), Tok::Name(n) if n == w) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn end(&self) -> Result<()> {
        if *self.peek() == Tok::End {
            Ok(())
        } else {
            self.err("unexpected text after the facts")
        }
    }
    fn names(&mut self) -> Result<Vec<Name>> {
        let mut out = Vec::new();
        loop {
            match self.peek().clone() {
                Tok::Name(n) if n != "where" => {
                    out.push(Name {
                        name: n,
                        col: self.col(),
                    });
                    self.pos += 1;
                }
                _ => return self.err("expected a parameter name"),
            }
            if *self.peek() == Tok::Punct(',')
                && matches!(self.toks[self.pos + 1].tok, Tok::Name(ref n) if n != "where")
            {
                self.pos += 1;
                continue;
            }
            return Ok(out);
        }
    }
    /// An operand: a name or an integer (possibly negative).
    fn operand(&mut self) -> Result<Operand> {
        let neg = self.eat(&Tok::Punct('-'));
        match self.peek().clone() {
            Tok::Int(v) => {
                self.pos += 1;
                Ok(Operand::Int(if neg { -v } else { v }))
            }
            Tok::MinMagnitude if neg => {
                self.pos += 1;
                Ok(Operand::Int(i64::MIN))
            }
            Tok::Name(n) if !neg => {
                self.pos += 1;
                Ok(Operand::Name(n))
            }
            _ => self.err("expected a parameter or an integer"),
        }
    }
    fn cmp_op(&mut self) -> Option<Cmp> {
        let next = self.toks.get(self.pos + 1).map(|t| &t.tok);
        let (op, len) = match (self.peek(), next) {
            (Tok::Punct('<'), Some(Tok::Punct('='))) => (Cmp::Le, 2),
            (Tok::Punct('>'), Some(Tok::Punct('='))) => (Cmp::Ge, 2),
            (Tok::Punct('='), Some(Tok::Punct('='))) => (Cmp::Eq, 2),
            (Tok::Punct('<'), _) => (Cmp::Lt, 1),
            (Tok::Punct('>'), _) => (Cmp::Gt, 1),
            _ => return None,
        };
        self.pos += len;
        Some(op)
    }
    fn fact(&mut self) -> Result<Fact> {
        let col = self.col();
        let first = self.operand()?;
        if self.eat(&Tok::Punct('%')) {
            let Operand::Name(name) = first else {
                return self.err("expected 'NAME % k == r'");
            };
            let k = match self.operand()? {
                Operand::Int(k) if k >= 1 => k,
                _ => return self.err("the modulus must be a positive integer"),
            };
            if self.cmp_op() != Some(Cmp::Eq) {
                return self.err("expected '== r' after the modulus");
            }
            let r = match self.operand()? {
                Operand::Int(r) => r,
                _ => return self.err("the residue of 'NAME % k == r' must be an integer"),
            };
            return Ok(Fact::Modulus { name, k, r, col });
        }
        let mut operands = vec![first];
        let mut ops = Vec::new();
        while let Some(op) = self.cmp_op() {
            ops.push(op);
            operands.push(self.operand()?);
        }
        if ops.is_empty() {
            return self.err("expected a comparison (<=, <, >=, >, ==)");
        }
        Ok(Fact::Compare { operands, ops, col })
    }
}
