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
                    let name = coord_name(&path);
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

    /// The outputs, complete: integer and F2 codomains always have an `offset` (0 when every
    /// stride is 0); a coordinate codomain has one output per leaf of the dense tuple its
    /// strides span (0 where no stride reaches), in coordinate order, as `eval` prints it.
    fn finish<I: Int>(
        mut self,
        b: &mut Builder,
        cod: Codomain,
        strides: &[Stride<I>],
    ) -> Result<Vec<(String, NodeId)>> {
        if cod != Codomain::Coord {
            self.slot(b, "offset");
            return Ok(self.outputs);
        }
        let leaves = coord_leaves(strides)?;
        if leaves.is_empty() {
            self.slot(b, "offset");
            return Ok(self.outputs);
        }
        let mut out = Vec::with_capacity(leaves.len());
        for path in &leaves {
            let k = self.slot(b, &coord_name(path));
            out.push(self.outputs[k].clone());
        }
        Ok(out)
    }
}

/// The output name of the coordinate component at `path`: `coord[1]`, `coord[0][2]`.
fn coord_name(path: &[u32]) -> String {
    format!(
        "coord{}",
        path.iter().map(|p| format!("[{p}]")).collect::<String>()
    )
}

/// The leaf paths of the dense coordinate tuple that the coordinate strides span, in order
/// (`(2,3):(1@1,1@1)` spans `(0, x)`: paths `[0]` and `[1]`); an error when one stride's path
/// is a prefix of another's (the coordinates overlap, as evaluation reports).
fn coord_leaves<I: Int>(strides: &[Stride<I>]) -> Result<Vec<Vec<u32>>> {
    let mut paths: Vec<crate::stride::Path> = strides
        .iter()
        .filter(|d| matches!(d, Stride::Basis(_)))
        .flat_map(|d| d.terms().into_iter().map(|(p, _)| p))
        .collect();
    paths.sort();
    paths.dedup();
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    // The stride reaching every path once: its own check refuses overlapping paths, and its
    // dense coordinate is the tuple `eval` prints, whose leaves are the outputs.
    let all = Stride::<i64>::from_sorted_terms(paths.into_iter().map(|p| (p, 1)))?;
    fn walk(t: &crate::HTuple<i64>, prefix: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        if t.is_leaf() {
            out.push(prefix.clone());
            return;
        }
        for (k, m) in t.modes().iter().enumerate() {
            prefix.push(k as u32);
            walk(m, prefix, out);
            prefix.pop();
        }
    }
    let mut out = Vec::new();
    walk(&all.to_coord(), &mut Vec::new(), &mut out);
    Ok(out)
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
    let mut acc = Acc { outputs: Vec::new() };
    add_at(l, b, i, &mut acc)?;
    acc.finish(b, cod, l.flat_stride())
}

/// Adds the terms of `l` at the linear index `i` (the last mode absorbing indices past the
/// size) to `acc`.
fn add_at<I: Lower>(l: &Layout<I>, b: &mut Builder, i: NodeId, acc: &mut Acc) -> Result<()> {
    let mut rest = i;
    let n = l.flat_shape().len();
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
    Ok(())
}

/// The offsets of `l` as a function of the coordinates of its top-level modes: `c<k>` is the
/// linear index within mode `k` (its dimension, for a tensor), each mode lowered as
/// [`lower_index`] lowers a layout. Outputs as for [`lower_index`].
///
/// ```
/// use tessera_ir::index::lower_modes;
/// use tessera_ir::parse_layout;
/// let l = parse_layout("((2,4),8):((1,16),2)").unwrap();
/// let e = lower_modes(&l).unwrap();
/// // Mode 0 at 5 is coordinate (1,2): 1 + 2*16; mode 1 at 3: 6.
/// assert_eq!(e.eval(&[("c0", 5), ("c1", 3)]).unwrap(), vec![1 + 32 + 6]);
/// ```
pub fn lower_modes<I: Lower>(l: &Layout<I>) -> Result<IndexExpr> {
    let mut b = Builder::new();
    let outs = lower_modes_into(l, &mut b)?;
    Ok(b.finish(outs))
}

fn lower_modes_into<I: Lower>(l: &Layout<I>, b: &mut Builder) -> Result<Vec<(String, NodeId)>> {
    let cod = l.codomain()?;
    let mut acc = Acc { outputs: Vec::new() };
    for k in 0..l.rank() {
        let m = l
            .mode(k)
            .ok_or_else(|| Error::internal(format!("mode {k} of a layout of rank {}", l.rank())))?;
        let c = b.var(Var::Coord(k as u32));
        add_at(&m, b, c, &mut acc)?;
    }
    acc.finish(b, cod, l.flat_stride())
}

/// `swizzle(offset + inner(c0, c1, ...))` at the coordinates of the inner layout's top-level
/// modes (see [`lower_modes`]).
pub fn lower_composed_modes<I: Lower>(c: &ComposedLayout<I>) -> Result<IndexExpr> {
    let mut b = Builder::new();
    let outs = lower_modes_into(&c.inner, &mut b)?;
    let x = swizzled(c, &mut b, outs)?;
    Ok(b.finish(vec![("offset".into(), x)]))
}

/// The offsets of `l` as a function of its flat coordinates `c0, c1, ...`.
pub fn lower_coords<I: Lower>(l: &Layout<I>) -> Result<IndexExpr> {
    let mut b = Builder::new();
    let outs = lower_coords_into(l, &mut b)?;
    Ok(b.finish(outs))
}

fn lower_coords_into<I: Lower>(l: &Layout<I>, b: &mut Builder) -> Result<Vec<(String, NodeId)>> {
    let cod = l.codomain()?;
    let mut acc = Acc { outputs: Vec::new() };
    for (k, d) in l.flat_stride().iter().enumerate() {
        if d.is_const_zero() {
            continue;
        }
        let c = b.var(Var::Coord(k as u32));
        acc.add_term(b, c, d)?;
    }
    acc.finish(b, cod, l.flat_stride())
}

/// `swizzle(offset + inner(c0, c1, ...))` at the flat coordinates of the inner layout (see
/// [`lower_coords`]).
///
/// ```
/// use tessera_ir::index::lower_composed_coords;
/// use tessera_ir::{ComposedLayout, Swizzle, parse_layout};
/// let c = ComposedLayout::new(Swizzle::new(1, 0, 1).unwrap(), 0, parse_layout("(2,2):(1,2)").unwrap());
/// let e = lower_composed_coords(&c).unwrap();
/// // Coordinate (1,1) is offset 3; the swizzle XORs bit 1 into bit 0: 2.
/// assert_eq!(e.eval(&[("c0", 1), ("c1", 1)]).unwrap(), vec![2]);
/// ```
pub fn lower_composed_coords<I: Lower>(c: &ComposedLayout<I>) -> Result<IndexExpr> {
    let mut b = Builder::new();
    let outs = lower_coords_into(&c.inner, &mut b)?;
    let x = swizzled(c, &mut b, outs)?;
    Ok(b.finish(vec![("offset".into(), x)]))
}

/// `swizzle(offset + inner(i))` as a function of the linear index.
pub fn lower_composed<I: Lower>(c: &ComposedLayout<I>) -> Result<IndexExpr> {
    let mut b = Builder::new();
    let outs = lower_index_into(&c.inner, &mut b)?;
    let x = swizzled(c, &mut b, outs)?;
    Ok(b.finish(vec![("offset".into(), x)]))
}

/// The swizzle and offset of `c` applied to the inner layout's `offset` output.
fn swizzled<I: Lower>(c: &ComposedLayout<I>, b: &mut Builder, outs: Vec<(String, NodeId)>) -> Result<NodeId> {
    let (_, inner) = outs
        .into_iter()
        .find(|(n, _)| n == "offset")
        .ok_or_else(|| Error::invalid(format!("composed layout {c}: inner layout is not integer-valued")))?;
    let off = c.offset.lower(b)?;
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
    Ok(x)
}
