//! Reading layouts, int tuples and swizzled layouts from text: the text format alone, without
//! the expression language (no calls of the algebra, no bindings).
//!
//! The text format is: integers and int tuples; `shape:stride` with integer, coordinate
//! (`v@i`, sums `3@0+5@1`) and `F2(v)` strides; swizzled and offset layouts
//! (`Sw<3,4,3> o 32 o (8,64):(64,1)`); and, for symbolic extents, parameter names with
//! `+ - * / %` (exact `/`), `fdiv` and `fmod` ([`super::number`]). A literal of integers is read
//! straight into its value ([`super::literal`]); other text goes through the parser, so that a
//! syntax error has its column, and then through those forms of the syntax tree; anything else
//! is an error at its column.
//!
//! ```
//! use tessera_ir::{parse_layout, parse_int_tuple};
//! assert_eq!(parse_layout("((2,2),3):((24,2),8)").unwrap().to_string(), "((2,2),3):((24,2),8)");
//! assert_eq!(parse_layout("(4,8)").unwrap().to_string(), "(4,8):(1,4)");
//! assert_eq!(parse_layout("(4,5):(1@0+2@1,1@1)").unwrap().to_string(), "(4,5):(1@0+2@1,1@1)");
//! assert_eq!(parse_int_tuple("((2,2),3)").unwrap().to_string(), "((2,2),3)");
//! let e = parse_layout("composition(4:1, 2:1)").unwrap_err();
//! assert!(e.to_string().contains("column 1"), "{e}");
//! ```

use super::ast::{BinOp, Expr, ExprKind};
use super::literal::{self, Literal};
use super::number::{StrideSum, int_op};
use super::parser::parse_expr;
use crate::error::{Error, ParseError, Result};
use crate::htuple::HTuple;
use crate::int::Int;
use crate::layout::Layout;
use crate::stride::Stride;
use crate::swizzle::{ComposedLayout, Swizzle};

/// What a text of the text format denotes.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Read<I> {
    /// An int tuple (a bare shape is also a compact layout).
    Tuple(HTuple<I>),
    /// A layout.
    Layout(Layout<I>),
    /// A swizzled or offset layout.
    Composed(ComposedLayout<I>),
}

impl<I: Int> Read<I> {
    /// The layout: a layout, or a bare shape's compact layout.
    pub fn into_layout(self) -> Result<Layout<I>> {
        match self {
            Read::Layout(l) => Ok(l),
            Read::Tuple(t) => Layout::compact(&t),
            Read::Composed(c) => Err(Error::invalid(format!(
                "expected a layout, found the composed layout {c}"
            ))),
        }
    }
}

/// A layout in the text format; a bare shape is the compact (column-major) layout.
pub fn parse_layout(src: &str) -> Result<Layout<i64>> {
    read(src, &|_| None)?
        .into_layout()
        .map_err(|e| located(src, 0, e))
}

/// An int tuple in the text format, such as `((2,2),3)`.
pub fn parse_int_tuple(src: &str) -> Result<HTuple<i64>> {
    match read(src, &|_| None)? {
        Read::Tuple(t) => Ok(t),
        _ => Err(located(src, 0, Error::invalid("expected an int tuple"))),
    }
}

/// Reads `src`; a name is the parameter `param` gives for it (an error where it gives none).
pub fn read<I: Int>(src: &str, param: &dyn Fn(&str) -> Option<I>) -> Result<Read<I>> {
    if let Some((l, end)) = literal::scan(src, 0)
        && end == src.len()
    {
        return Ok(match l {
            Literal::Tuple(t) => Read::Tuple(t.map(|v| I::lit(*v))),
            Literal::Layout(l) => Read::Layout(l.lift()?),
        });
    }
    let e = parse_expr(src)?;
    Reader { src, param }.top(&e)
}

fn located(src: &str, col: usize, e: Error) -> Error {
    match e {
        Error::Invalid(m) => Error::Parse(ParseError::new(m, src, col)),
        e => e,
    }
}

/// A scalar of the text format: an integer or a stride.
enum Scalar<I> {
    Int(I),
    Stride(Stride<I>),
}

struct Reader<'a, I> {
    src: &'a str,
    param: &'a dyn Fn(&str) -> Option<I>,
}

impl<I: Int> Reader<'_, I> {
    fn err<T>(&self, e: &Expr, msg: impl Into<String>) -> Result<T> {
        Err(Error::Parse(ParseError::new(msg, self.src, e.col)))
    }

    fn top(&self, e: &Expr) -> Result<Read<I>> {
        match &e.kind {
            ExprKind::Compose(items) => self.composed(e, items),
            _ => self.value(e),
        }
    }

    /// A tuple or a layout.
    fn value(&self, e: &Expr) -> Result<Read<I>> {
        match &e.kind {
            ExprKind::Layout(s, d) => {
                let shape = self.tree(s, &|x| self.int(x))?;
                let stride = self.tree(d, &|x| self.stride(x))?;
                literal::make_layout(shape, stride)
                    .map(Read::Layout)
                    .map_err(|err| located(self.src, d.col, err))
            }
            ExprKind::Literal(l) => match &**l {
                Literal::Tuple(t) => Ok(Read::Tuple(t.map(|v| I::lit(*v)))),
                Literal::Layout(l) => l.lift().map(Read::Layout),
            },
            _ => self.tree(e, &|x| self.int(x)).map(Read::Tuple),
        }
    }

    /// `[Sw<b,m,s> o] [offset o] layout`.
    fn composed(&self, e: &Expr, items: &[Expr]) -> Result<Read<I>> {
        let (last, rest) = items.split_last().expect("a composition has operands");
        let inner = self
            .value(last)?
            .into_layout()
            .map_err(|err| located(self.src, last.col, err))?;
        let (sw, offset) = match rest {
            [off] if !matches!(off.kind, ExprKind::Swizzle(..)) => (None, Some(off)),
            [sw] => (Some(sw), None),
            [sw, off] => (Some(sw), Some(off)),
            _ => return self.err(e, "expected [Sw<b,m,s> o] [offset o] layout"),
        };
        let swizzle = match sw {
            Some(x) => Some(self.swizzle(x)?),
            None => None,
        };
        let offset = match offset {
            Some(x) => self.int(x)?,
            None => I::zero(),
        };
        Ok(Read::Composed(ComposedLayout {
            swizzle,
            offset,
            inner,
        }))
    }

    fn swizzle(&self, e: &Expr) -> Result<Swizzle> {
        let ExprKind::Swizzle(b, m, s) = &e.kind else {
            return self.err(e, "expected a swizzle Sw<b,m,s>");
        };
        let c = |x: &Expr| -> Result<i64> {
            match self.int(x)?.as_const() {
                Some(v) => Ok(v),
                None => self.err(x, "swizzle parameters must be constants"),
            }
        };
        Swizzle::new(c(b)?, c(m)?, c(s)?).map_err(|err| located(self.src, e.col, err))
    }

    /// A tree of leaves: tuples of trees, or a leaf.
    fn tree<T: Clone>(&self, e: &Expr, leaf: &dyn Fn(&Expr) -> Result<T>) -> Result<HTuple<T>> {
        match &e.kind {
            ExprKind::Tuple(items) => {
                let modes: Result<Vec<HTuple<T>>> = items.iter().map(|x| self.tree(x, leaf)).collect();
                Ok(HTuple::from_modes(modes?))
            }
            ExprKind::Literal(l) => match &**l {
                // A literal tuple inside a larger tree: each of its integers is a leaf.
                Literal::Tuple(t) if t.is_tuple() => t.try_map(|&v| {
                    leaf(&Expr {
                        kind: ExprKind::Int(v),
                        col: e.col,
                    })
                }),
                _ => leaf(e).map(HTuple::leaf),
            },
            _ => leaf(e).map(HTuple::leaf),
        }
    }

    fn int(&self, e: &Expr) -> Result<I> {
        match self.scalar(e)? {
            Scalar::Int(v) => Ok(v),
            Scalar::Stride(_) => self.err(e, "expected an integer, found a stride"),
        }
    }

    fn stride(&self, e: &Expr) -> Result<Stride<I>> {
        Ok(match self.scalar(e)? {
            Scalar::Int(v) => Stride::Int(v),
            Scalar::Stride(d) => d,
        })
    }

    /// An integer or a stride: the arithmetic of the text format.
    fn scalar(&self, e: &Expr) -> Result<Scalar<I>> {
        match &e.kind {
            ExprKind::Int(v) => Ok(Scalar::Int(I::lit(*v))),
            ExprKind::Literal(l) => match &**l {
                Literal::Tuple(t) if t.is_leaf() => Ok(Scalar::Int(I::lit(t.leaves()[0]))),
                _ => self.err(e, "expected a number or a stride"),
            },
            ExprKind::Name(n) => match (self.param)(n) {
                Some(v) => Ok(Scalar::Int(v)),
                None => self.err(e, format!("unknown name '{n}'")),
            },
            ExprKind::Neg(x) => match self.scalar(x)? {
                Scalar::Int(v) => Ok(Scalar::Int(v.neg().map_err(|err| located(self.src, e.col, err))?)),
                Scalar::Stride(d) => Ok(Scalar::Stride(d.scale(&I::lit(-1))?)),
            },
            ExprKind::Basis(v, path) => {
                let p: Vec<u32> = path.iter().rev().copied().collect();
                Ok(Scalar::Stride(Stride::basis(self.int(v)?, &p)))
            }
            ExprKind::F2(v) => match self.int(v)?.as_const().and_then(|c| u64::try_from(c).ok()) {
                Some(c) => Ok(Scalar::Stride(Stride::F2(c))),
                None => self.err(v, "F2(...) takes a non-negative constant"),
            },
            ExprKind::Call(name, args) if (name == "fdiv" || name == "fmod") && args.len() == 2 => {
                let (a, b) = (self.int(&args[0])?, self.int(&args[1])?);
                let r = if name == "fdiv" {
                    a.floor_div(&b)
                } else {
                    a.floor_mod(&b)
                };
                r.map(Scalar::Int).map_err(|err| located(self.src, e.col, err))
            }
            ExprKind::Arith(first, steps) => {
                let mut acc = self.scalar(first)?;
                let mut sum: Option<StrideSum<I>> = None;
                for s in steps {
                    let y = self.scalar(&s.rhs)?;
                    let at = |err| located(self.src, s.col, err);
                    acc = match (acc, y, s.op) {
                        (Scalar::Int(a), Scalar::Int(b), op) => Scalar::Int(int_op(op, &a, &b).map_err(at)?),
                        (Scalar::Stride(a), Scalar::Stride(b), op @ (BinOp::Add | BinOp::Sub))
                            if matches!(a, Stride::Basis(_)) =>
                        {
                            let acc_sum = match sum.as_mut() {
                                Some(x) => x,
                                None => sum.insert(StrideSum::new(&a).map_err(at)?),
                            };
                            acc_sum.add(op, &b).map_err(at)?;
                            Scalar::Stride(a)
                        }
                        _ => return self.err(&s.rhs, format!("cannot apply '{}' here", s.op.symbol())),
                    };
                }
                match sum {
                    Some(done) => Ok(Scalar::Stride(
                        done.finish().map_err(|err| located(self.src, e.col, err))?,
                    )),
                    None => Ok(acc),
                }
            }
            _ => self.err(e, "expected a number, a parameter or a stride"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_their_errors() {
        assert_eq!(parse_layout("8:F2(5)").unwrap().to_string(), "8:F2(5)");
        assert_eq!(parse_layout("4:-1").unwrap().to_string(), "4:-1");
        assert_eq!(parse_layout("(6)").unwrap().to_string(), "(6):(1)");
        assert_eq!(parse_int_tuple("(6)").unwrap().to_string(), "(6)");
        assert_eq!(parse_layout("(4,8):2").unwrap().to_string(), "(4,8):(2,8)");
        assert_eq!(
            parse_layout("(2,(2,2)):(1,(2@0,1@1))").unwrap().to_string(),
            "(2,(2,2)):(1,(2@0,1@1))"
        );
        for (bad, col) in [
            ("(4,8", 4),
            ("M:1", 0),
            ("4:x", 2),
            ("(2,size(4))", 3),
            ("0:1", 2),
        ] {
            match parse_layout(bad) {
                Err(Error::Parse(p)) => assert_eq!(p.col, col, "{bad}: {p}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
    }

    #[test]
    fn symbolic_and_composed_text() {
        let p = |n: &str| (n == "M").then_some(12i64);
        let r = read("(M,(M+4)/8):(1,2*M)", &p).unwrap();
        assert_eq!(r, Read::Layout(parse_layout("(12,2):(1,24)").unwrap()));
        let r = read("Sw<3,4,3> o 32 o (8,64):(64,1)", &p).unwrap();
        match r {
            Read::Composed(c) => assert_eq!(c.to_string(), "Sw<3,4,3> o 32 o (8,64):(64,1)"),
            other => panic!("{other:?}"),
        }
        assert!(read("(M,fdiv(M+5,8)):(1@0+1@1,1@1)", &p).is_ok());
        assert!(read("(N,4)", &p).is_err());
    }
}
