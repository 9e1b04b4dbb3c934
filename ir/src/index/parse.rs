//! Reading index expressions written as C-like arithmetic: `(i % 4) * 8 + i / 4`,
//! `c0 * M + c1`, `x ^ ((x & 448) >> 3)`, `min(i, 7)`, `c ? a : b`.
//!
//! Names are inputs: `i` the linear index, `c0`, `c1`, ... flat coordinates, any other name a
//! parameter. `/` and `%` are floor division and remainder (the IR's). Precedence, loosest
//! first: `?:`, `^`, `&`, `<< >>`, `+ -`, `* / %`, unary `-`. Errors carry the column.
//! The output is named `value`; `a; b` gives several outputs, `value0`, `value1`, ...
//!
//! ```
//! use tessera_ir::index::parse_index;
//! let e = parse_index("(i % 4) * 8 + i / 4").unwrap();
//! assert_eq!(e.eval(&[("i", 9)]).unwrap(), vec![10]);
//! let err = parse_index("i + * 2").unwrap_err().to_string();
//! assert!(err.contains("column 5"), "{err}");
//! ```

use super::{Builder, IndexExpr, NodeId, Op, Var};
use crate::error::{Error, ParseError, Result};
use crate::text::{MAX_DEPTH, MAX_SOURCE_LEN};
use std::collections::HashMap;

struct Reader<'a> {
    src: &'a str,
    pos: usize,
    depth: usize,
    b: Builder,
    /// The byte offset of each operation's operator (the first, for a node built twice).
    columns: HashMap<NodeId, usize>,
}

/// Reads an index expression (see the module documentation).
pub fn parse_index(src: &str) -> Result<IndexExpr> {
    Ok(parse_index_with_columns(src)?.0)
}

/// [`parse_index`], with the byte offset in `src` of each operation's operator, so that an
/// error about an operation can point at it.
///
/// ```
/// use tessera_ir::index::parse_index_with_columns;
/// let (e, at) = parse_index_with_columns("(7 << 61) + i").unwrap();
/// let mut cols: Vec<usize> = at.values().copied().collect();
/// cols.sort();
/// assert_eq!(cols, vec![3, 10]); // `<<` and `+`
/// assert_eq!(e.eval(&[("i", 1)]).is_err(), true); // 7 << 61 overflows
/// ```
pub fn parse_index_with_columns(src: &str) -> Result<(IndexExpr, HashMap<NodeId, usize>)> {
    if src.len() > MAX_SOURCE_LEN {
        return Err(Error::invalid(format!(
            "an index expression of {} bytes (the limit is {MAX_SOURCE_LEN})",
            src.len()
        )));
    }
    let mut r = Reader {
        src,
        pos: 0,
        depth: 0,
        b: Builder::new(),
        columns: HashMap::new(),
    };
    let mut outs = vec![r.select()?];
    r.skip();
    while r.eat(";") {
        outs.push(r.select()?);
        r.skip();
    }
    if r.pos < src.len() {
        return Err(r.error("expected an operator or the end"));
    }
    let named = if outs.len() == 1 {
        vec![("value".to_string(), outs[0])]
    } else {
        outs.into_iter()
            .enumerate()
            .map(|(k, o)| (format!("value{k}"), o))
            .collect()
    };
    Ok((r.b.finish(named), r.columns))
}

impl Reader<'_> {
    fn error(&self, msg: &str) -> Error {
        Error::Parse(ParseError::new(msg, self.src, self.pos))
    }

    fn skip(&mut self) {
        while self.src[self.pos..].starts_with([' ', '\t', '\n']) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, tok: &str) -> bool {
        self.skip();
        if self.src[self.pos..].starts_with(tok) {
            self.pos += tok.len();
            true
        } else {
            false
        }
    }

    fn deeper(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(&format!("nested deeper than {MAX_DEPTH} levels")));
        }
        Ok(())
    }

    fn select(&mut self) -> Result<NodeId> {
        self.deeper()?;
        let c = self.binary(0)?;
        let v = if self.eat("?") {
            let a = self.select()?;
            if !self.eat(":") {
                return Err(self.error("expected ':'"));
            }
            let b = self.select()?;
            self.b.select(c, a, b)
        } else {
            c
        };
        self.depth -= 1;
        Ok(v)
    }

    /// The operators of precedence level `level` and tighter.
    fn binary(&mut self, level: usize) -> Result<NodeId> {
        const LEVELS: &[&[(&str, Op)]] = &[
            &[("^", Op::Xor)],
            &[("&", Op::And)],
            &[("<<", Op::Shl), (">>", Op::Shr)],
            &[("+", Op::Add), ("-", Op::Sub)],
            &[("*", Op::Mul), ("/", Op::Div), ("%", Op::Mod)],
        ];
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut acc = self.binary(level + 1)?;
        'more: loop {
            self.skip();
            let at = self.pos;
            for (tok, op) in LEVELS[level] {
                if self.eat(tok) {
                    let rhs = self.binary(level + 1)?;
                    acc = self.b.op(*op, &[acc, rhs]);
                    self.columns.entry(acc).or_insert(at);
                    continue 'more;
                }
            }
            return Ok(acc);
        }
    }

    fn unary(&mut self) -> Result<NodeId> {
        if self.eat("-") {
            self.deeper()?;
            let x = self.unary()?;
            self.depth -= 1;
            let zero = self.b.konst(0);
            return Ok(self.b.sub(zero, x));
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<NodeId> {
        self.skip();
        let rest = &self.src[self.pos..];
        if self.eat("(") {
            let v = self.select()?;
            if !self.eat(")") {
                return Err(self.error("expected ')'"));
            }
            return Ok(v);
        }
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            let v: i64 = rest[..digits]
                .parse()
                .map_err(|_| self.error("an integer beyond 64 bits"))?;
            self.pos += digits;
            return Ok(self.b.konst(v));
        }
        let name_len = rest
            .bytes()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
            .count();
        if name_len == 0 {
            return Err(self.error("expected a number, a name or '('"));
        }
        let name = &rest[..name_len];
        self.pos += name_len;
        if name == "min" || name == "max" {
            let op = if name == "min" { Op::Min } else { Op::Max };
            if !self.eat("(") {
                return Err(self.error(&format!("expected '(' after {name}")));
            }
            let a = self.select()?;
            if !self.eat(",") {
                return Err(self.error("expected ','"));
            }
            let b = self.select()?;
            if !self.eat(")") {
                return Err(self.error("expected ')'"));
            }
            return Ok(self.b.op(op, &[a, b]));
        }
        Ok(self.b.var(Var::named(name)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_and_every_operator() {
        let at = |s: &str, i: i64| parse_index(s).unwrap().eval(&[("i", i), ("M", 10)]).unwrap()[0];
        assert_eq!(at("1 + 2 * 3", 0), 7);
        assert_eq!(at("i / 4 % 3", 17), 1);
        assert_eq!(at("-7 / 2", 0), -4);
        assert_eq!(at("-7 % 2", 0), 1);
        assert_eq!(at("1 << 3 + 1", 0), 16);
        assert_eq!(at("6 ^ 3 & 1", 0), 7);
        assert_eq!(at("min(i, M) + max(i, 3)", 12), 22);
        assert_eq!(at("i ? 1 : 2", 5), 1);
        assert_eq!(at("i ? 1 : 2", 0), 2);
        assert_eq!(at("i - M", 3), -7);
    }

    #[test]
    fn several_outputs_and_inputs() {
        let e = parse_index("c0 * M + c1; c1").unwrap();
        let names: Vec<&str> = e.outputs().iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["value0", "value1"]);
        assert_eq!(e.eval(&[("c0", 2), ("c1", 3), ("M", 5)]).unwrap(), vec![13, 3]);
    }

    #[test]
    fn errors_have_columns() {
        for (src, col) in [
            ("i +", 3),
            ("(i", 2),
            ("i $ 2", 2),
            ("min(i 2)", 6),
            ("99999999999999999999", 0),
            ("i ? 1", 5),
        ] {
            match parse_index(src) {
                Err(Error::Parse(p)) => assert_eq!(p.col, col, "{src}: {p}"),
                r => panic!("{src}: {r:?}"),
            }
        }
        let deep = format!("{}i{}", "(".repeat(500), ")".repeat(500));
        assert!(parse_index(&deep).is_err());
    }
}
