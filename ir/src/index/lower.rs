//! Lowering layouts to index expressions.

use super::{Builder, IndexExpr, NodeId, Var};
use crate::error::{Error, Result};
use crate::int::Int;
use crate::layout::Layout;
use crate::stride::{Codomain, Stride};
use crate::swizzle::ComposedLayout;
use crate::sym::{Atom, Poly, SymInt};

/// Integers that can appear in index expressions: constants, and symbolic extents.
pub trait Lower: Int {
    /// The node computing this value.
    fn lower(&self, b: &mut Builder) -> Result<NodeId>;
}

impl Lower for i64 {
    fn lower(&self, b: &mut Builder) -> Result<NodeId> {
        Ok(b.konst(*self))
    }
}

impl Lower for SymInt {
    fn lower(&self, b: &mut Builder) -> Result<NodeId> {
        lower_poly(self.poly(), b)
    }
}

fn lower_poly(p: &Poly, b: &mut Builder) -> Result<NodeId> {
    let mut acc = b.konst(0);
    for (m, q) in p.terms() {
        let mut t = b.konst(q.num().abs());
        for (a, e) in m {
            let x = match a {
                Atom::Param(n) => b.var(Var::Param(n.to_string())),
                Atom::FloorDiv(x, y) => {
                    let (x, y) = (lower_poly(x, b)?, lower_poly(y, b)?);
                    b.div(x, y)
                }
            };
            for _ in 0..*e {
                t = b.mul(t, x);
            }
        }
        if q.den() != 1 {
            // Exact: the facts that made this division exact guarantee an integer.
            let d = b.konst(q.den());
            t = b.div(t, d);
        }
        acc = if q.num() < 0 { b.sub(acc, t) } else { b.add(acc, t) };
    }
    Ok(acc)
}

/// The index expression of a symbolic integer, output `value`.
pub fn lower_sym(s: &SymInt) -> Result<IndexExpr> {
    let mut b = Builder::new();
    let v = s.lower(&mut b)?;
    Ok(b.finish(vec![("value".into(), v)]))
}

/// Accumulates `c * d` per codomain output.
struct Acc {
    outputs: Vec<(String, NodeId)>,
}

impl Acc {
    fn add_term<I: Lower>(&mut self, b: &mut Builder, c: NodeId, d: &Stride<I>) -> Result<()> {
        match d {
            Stride::Int(v) => {
                let dv = v.lower(b)?;
                let t = b.mul(c, dv);
                let slot = self.slot(b, "offset");
                self.outputs[slot].1 = b.add(self.outputs[slot].1, t);
            }
            Stride::F2(v) => {
                let dv = b.konst(i64::try_from(*v).map_err(|_| Error::Overflow(format!("F2 stride {v}")))?);
                let t = b.mul(c, dv);
                let slot = self.slot(b, "offset");
                self.outputs[slot].1 = b.xor(self.outputs[slot].1, t);
            }
            Stride::Basis(_) => {
                for (path, v) in d.terms() {
                    let name = format!(
                        "coord{}",
                        path.iter().map(|p| format!("[{p}]")).collect::<String>()
                    );
                    let dv = v.lower(b)?;
                    let t = b.mul(c, dv);
                    let slot = self.slot(b, &name);
                    self.outputs[slot].1 = b.add(self.outputs[slot].1, t);
                }
            }
        }
        Ok(())
    }

    fn slot(&mut self, b: &mut Builder, name: &str) -> usize {
        match self.outputs.iter().position(|(n, _)| n == name) {
            Some(k) => k,
            None => {
                let z = b.konst(0);
                self.outputs.push((name.to_string(), z));
                self.outputs.len() - 1
            }
        }
    }

    fn finish(mut self, b: &mut Builder, cod: Codomain) -> Vec<(String, NodeId)> {
        // Integer and F2 codomains always have an `offset` (0 when every stride is 0).
        if cod != Codomain::Coord || self.outputs.is_empty() {
            self.slot(b, "offset");
        }
        self.outputs.sort_by(|x, y| x.0.cmp(&y.0));
        self.outputs
    }
}

/// The offsets of `l` as a function of the linear index `i` (the last mode absorbs indices
/// past the size, as in CuTe). Outputs: `offset`, or `coord[k]...` for coordinate strides.
pub fn lower_index<I: Lower>(l: &Layout<I>) -> Result<IndexExpr> {
    let mut b = Builder::new();
    let outs = lower_index_into(l, &mut b)?;
    Ok(b.finish(outs))
}

fn lower_index_into<I: Lower>(l: &Layout<I>, b: &mut Builder) -> Result<Vec<(String, NodeId)>> {
    let cod = l.codomain()?;
    let i = b.var(Var::Index);
    let mut rest = i;
    let n = l.flat_shape().len();
    let mut acc = Acc { outputs: Vec::new() };
    for (k, (s, d)) in l.flat_shape().iter().zip(l.flat_stride()).enumerate() {
        let c = if k + 1 == n {
            rest
        } else {
            let sv = s.lower(b)?;
            let c = b.rem(rest, sv);
            rest = b.div(rest, sv);
            c
        };
        if d.is_const_zero() {
            continue;
        }
        acc.add_term(b, c, d)?;
    }
    Ok(acc.finish(b, cod))
}

/// The offsets of `l` as a function of its flat coordinates `c0, c1, ...`.
pub fn lower_coords<I: Lower>(l: &Layout<I>) -> Result<IndexExpr> {
    let cod = l.codomain()?;
    let mut b = Builder::new();
    let mut acc = Acc { outputs: Vec::new() };
    for (k, d) in l.flat_stride().iter().enumerate() {
        if d.is_const_zero() {
            continue;
        }
        let c = b.var(Var::Coord(k as u32));
        acc.add_term(&mut b, c, d)?;
    }
    let outs = acc.finish(&mut b, cod);
    Ok(b.finish(outs))
}

/// `swizzle(offset + inner(i))` as a function of the linear index.
pub fn lower_composed<I: Lower>(c: &ComposedLayout<I>) -> Result<IndexExpr> {
    let mut b = Builder::new();
    let outs = lower_index_into(&c.inner, &mut b)?;
    let (_, inner) = outs
        .into_iter()
        .find(|(n, _)| n == "offset")
        .ok_or_else(|| Error::invalid(format!("composed layout {c}: inner layout is not integer-valued")))?;
    let off = c.offset.lower(&mut b)?;
    let mut x = b.add(inner, off);
    if let Some(sw) = c.swizzle {
        let mask = b.konst(sw.src_mask());
        let masked = b.and(x, mask);
        let sh = b.konst(i64::from(sw.shift.unsigned_abs()));
        let moved = if sw.shift >= 0 {
            b.shr(masked, sh)
        } else {
            b.shl(masked, sh)
        };
        x = b.xor(x, moved);
    }
    Ok(b.finish(vec![("offset".into(), x)]))
}
