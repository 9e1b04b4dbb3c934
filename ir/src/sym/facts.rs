//! Assumptions about parameters, and the interval bounds they give.
//!
//! A parameter has a range `lo <= P <= hi` and a modulus `P % k == 0`. A stated lower bound
//! is the lower bound, zero and negative ones included; a parameter without one is at least 1
//! (extents are positive). Declarations read like check files:
//!
//! ```
//! use tessera_ir::sym::Facts;
//! let mut f = Facts::default();
//! f.declare("M, N where M % 128 == 0, 128 <= M <= 65536, 1 <= N <= 4096").unwrap();
//! assert_eq!(f.get("M").unwrap().modulus, 128);
//! assert_eq!(f.get("N").unwrap().hi, Some(4096));
//! assert!(f.declare("K where K % 0 == 0").is_err());
//! f.declare("S where -4 <= S <= 4").unwrap();
//! assert_eq!(f.get("S").unwrap().lo, -4);
//! assert!(f.get("S").unwrap().admits(0));
//! f.declare("Z where Z == 0").unwrap();
//! assert_eq!(f.get("N").unwrap().lo, 1); // no lower bound stated
//! ```

use super::poly::{Atom, Poly};
use crate::error::{Error, ParseError, Result};
use crate::text::lexer::{Tok, Token, lex};
use std::collections::BTreeMap;

/// What is known of one parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamFacts {
    /// Smallest value: the stated lower bound, or 1 when none is stated.
    pub lo: i64,
    /// Whether a lower bound was stated (`M >= -4`, `0 <= M`, `M == 0`).
    pub lo_stated: bool,
    /// Largest value, when bounded.
    pub hi: Option<i64>,
    /// The parameter is a multiple of this.
    pub modulus: i64,
}

impl Default for ParamFacts {
    fn default() -> Self {
        ParamFacts {
            lo: 1,
            lo_stated: false,
            hi: None,
            modulus: 1,
        }
    }
}

impl ParamFacts {
    /// The tightest bounds: `lo` rounded up and `hi` rounded down to the modulus.
    pub fn bounds(&self) -> (i128, Option<i128>) {
        let k = self.modulus.max(1) as i128;
        let lo = (self.lo as i128).div_euclid(k) * k;
        let lo = if lo < self.lo as i128 { lo + k } else { lo };
        let hi = self.hi.map(|h| (h as i128).div_euclid(k) * k);
        (lo, hi)
    }

    /// `true` when `v` satisfies the facts.
    pub fn admits(&self, v: i64) -> bool {
        v >= self.lo && self.hi.is_none_or(|h| v <= h) && v % self.modulus.max(1) == 0
    }
}

/// The assumptions of a session: declared parameters and their facts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    params: BTreeMap<String, ParamFacts>,
}

/// A closed interval with saturating `i128` bounds (`i128::MIN`/`MAX` act as infinities).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    /// Lower bound.
    pub lo: i128,
    /// Upper bound.
    pub hi: i128,
}

const INF: i128 = i128::MAX;

impl Interval {
    fn point(v: i128) -> Interval {
        Interval { lo: v, hi: v }
    }
    fn all() -> Interval {
        Interval { lo: -INF, hi: INF }
    }
    fn add(self, o: Interval) -> Interval {
        Interval {
            lo: self.lo.saturating_add(o.lo),
            hi: self.hi.saturating_add(o.hi),
        }
    }
    fn mul(self, o: Interval) -> Interval {
        let c = [
            self.lo.saturating_mul(o.lo),
            self.lo.saturating_mul(o.hi),
            self.hi.saturating_mul(o.lo),
            self.hi.saturating_mul(o.hi),
        ];
        Interval {
            lo: *c.iter().min().unwrap_or(&-INF),
            hi: *c.iter().max().unwrap_or(&INF),
        }
    }
}

impl Facts {
    /// The facts of `name`, when declared.
    pub fn get(&self, name: &str) -> Option<&ParamFacts> {
        self.params.get(name)
    }

    /// The declared parameters in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.params.keys().map(String::as_str)
    }

    /// Declares parameters with facts: `M, N where M % 128 == 0, 1 <= N <= 4096`.
    pub fn declare(&mut self, src: &str) -> Result<Vec<String>> {
        let toks = lex(src)?;
        let mut p = DeclParser { src, toks, pos: 0 };
        let names = p.names()?;
        for n in &names {
            self.params.entry(n.clone()).or_default();
        }
        if p.eat_word("where") {
            loop {
                p.fact(self)?;
                if !p.eat(&Tok::Punct(',')) {
                    break;
                }
            }
        }
        p.end()?;
        for (n, f) in &self.params {
            let (lo, hi) = f.bounds();
            if hi.is_some_and(|h| h < lo) {
                let why = if f.lo_stated {
                    String::new()
                } else {
                    format!(" (without a stated lower bound, {n} >= 1)")
                };
                return Err(Error::invalid(format!("the facts about {n} admit no value{why}")));
            }
        }
        Ok(names)
    }

    fn entry(&mut self, name: &str) -> Result<&mut ParamFacts> {
        self.params
            .get_mut(name)
            .ok_or_else(|| Error::invalid(format!("'{name}' is not a declared parameter")))
    }

    /// Bounds of a polynomial's values under the facts.
    pub fn interval(&self, p: &Poly) -> Interval {
        let mut acc = Interval::point(0);
        for (m, q) in p.terms() {
            let mut t = Interval::point(1);
            for (a, e) in m {
                let ia = self.atom_interval(a);
                for _ in 0..*e {
                    t = t.mul(ia);
                }
            }
            let scaled = if q.num() >= 0 {
                Interval {
                    lo: q.floor_times(t.lo),
                    hi: q.ceil_times(t.hi),
                }
            } else {
                Interval {
                    lo: q.floor_times(t.hi),
                    hi: q.ceil_times(t.lo),
                }
            };
            acc = acc.add(scaled);
        }
        acc
    }

    fn atom_interval(&self, a: &Atom) -> Interval {
        match a {
            Atom::Param(n) => match self.params.get(&**n) {
                Some(f) => {
                    let (lo, hi) = f.bounds();
                    Interval {
                        lo,
                        hi: hi.unwrap_or(INF),
                    }
                }
                // Not declared: nothing is known.
                None => Interval::all(),
            },
            Atom::FloorDiv(x, y) => {
                let ix = self.interval(x);
                let iy = self.interval(y);
                if iy.lo >= 1 && iy.lo == iy.hi {
                    Interval {
                        lo: ix.lo.div_euclid(iy.lo),
                        hi: ix.hi.div_euclid(iy.lo),
                    }
                } else if iy.lo >= 1 && ix.lo >= 0 {
                    Interval { lo: 0, hi: ix.hi }
                } else {
                    Interval::all()
                }
            }
        }
    }

    /// The modulus known for an atom (1 when nothing is known).
    pub fn modulus(&self, a: &Atom) -> i64 {
        match a {
            Atom::Param(n) => self.params.get(&**n).map_or(1, |f| f.modulus.max(1)),
            Atom::FloorDiv(..) => 1,
        }
    }
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
    fn err<T>(&self, msg: impl Into<String>) -> Result<T> {
        Err(Error::Parse(ParseError::new(
            msg,
            self.src,
            self.toks[self.pos].col,
        )))
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
    fn names(&mut self) -> Result<Vec<String>> {
        let mut out = Vec::new();
        loop {
            match self.peek().clone() {
                Tok::Name(n) if n != "where" => {
                    if crate::eval::is_reserved(&n) {
                        return self.err(format!("'{n}' is a built-in name and cannot be a parameter"));
                    }
                    out.push(n);
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
            Tok::Name(n) if !neg => {
                self.pos += 1;
                Ok(Operand::Name(n))
            }
            _ => self.err("expected a parameter or an integer"),
        }
    }
    fn cmp_op(&mut self) -> Result<Option<&'static str>> {
        let t = (
            self.peek().clone(),
            self.toks.get(self.pos + 1).map(|t| t.tok.clone()),
        );
        let (op, len) = match t {
            (Tok::Punct('<'), Some(Tok::Punct('='))) => ("<=", 2),
            (Tok::Punct('>'), Some(Tok::Punct('='))) => (">=", 2),
            (Tok::Punct('='), Some(Tok::Punct('='))) => ("==", 2),
            (Tok::Punct('<'), _) => ("<", 1),
            (Tok::Punct('>'), _) => (">", 1),
            _ => return Ok(None),
        };
        self.pos += len;
        Ok(Some(op))
    }
    fn fact(&mut self, facts: &mut Facts) -> Result<()> {
        let first = self.operand()?;
        if self.eat(&Tok::Punct('%')) {
            let Operand::Name(n) = first else {
                return self.err("expected 'NAME % k == 0'");
            };
            let k = match self.operand()? {
                Operand::Int(k) if k >= 1 => k,
                _ => return self.err("the modulus must be a positive integer"),
            };
            if self.cmp_op()? != Some("==") {
                return self.err("expected '== 0' after the modulus");
            }
            match self.operand()? {
                Operand::Int(0) => {}
                _ => return self.err("only 'NAME % k == 0' facts are supported"),
            }
            let f = facts.entry(&n)?;
            f.modulus = lcm(f.modulus, k)?;
            return Ok(());
        }
        let mut chain = vec![first];
        let mut ops = Vec::new();
        while let Some(op) = self.cmp_op()? {
            ops.push(op);
            chain.push(self.operand()?);
        }
        if ops.is_empty() {
            return self.err("expected a comparison (<=, <, >=, >, ==)");
        }
        for (k, op) in ops.iter().enumerate() {
            apply(facts, &chain[k], op, &chain[k + 1]).map_err(|e| match e {
                Error::Invalid(m) => Error::Parse(ParseError::new(m, self.src, 0)),
                e => e,
            })?;
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
enum Operand {
    Int(i64),
    Name(String),
}

fn lcm(a: i64, b: i64) -> Result<i64> {
    use crate::int::Int;
    a.lcm(&b)
}

/// Records `a op b` where one side is a parameter and the other an integer.
fn apply(facts: &mut Facts, a: &Operand, op: &str, b: &Operand) -> Result<()> {
    let (name, v, op) = match (a, b) {
        (Operand::Name(n), Operand::Int(v)) => (n, *v, op.to_string()),
        (Operand::Int(v), Operand::Name(n)) => {
            let flipped = match op {
                "<=" => ">=",
                ">=" => "<=",
                "<" => ">",
                ">" => "<",
                o => o,
            };
            (n, *v, flipped.to_string())
        }
        _ => return Err(Error::invalid("a fact compares one parameter with an integer")),
    };
    let f = facts.entry(name)?;
    // The first stated lower bound replaces the default 1; later ones tighten it.
    let raise = |f: &mut ParamFacts, v: i64| {
        f.lo = if f.lo_stated { f.lo.max(v) } else { v };
        f.lo_stated = true;
    };
    match op.as_str() {
        ">=" => raise(f, v),
        ">" => raise(f, v.saturating_add(1)),
        "<=" => f.hi = Some(f.hi.map_or(v, |h| h.min(v))),
        "<" => f.hi = Some(f.hi.map_or(v.saturating_sub(1), |h| h.min(v.saturating_sub(1)))),
        "==" => {
            raise(f, v);
            f.hi = Some(f.hi.map_or(v, |h| h.min(v)));
        }
        _ => return Err(Error::invalid(format!("unknown comparison {op}"))),
    }
    Ok(())
}
