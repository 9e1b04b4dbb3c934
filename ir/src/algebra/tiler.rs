//! Tilers: the by-mode right-hand side of composition, the divides and the products.
//!
//! A tiler is a layout, `_` (keep the whole mode), or a tuple of tilers. An integer `n` in a
//! tiler position is the layout `n:1`, so the int tuple `(2,7)` is the by-mode tiler
//! `(2:1,7:1)`, CuTe's shape tiler.
//!
//! ```
//! use tessera_ir::algebra::{Tiler, tiler_to_layout};
//! use tessera_ir::Layout;
//! let t: Tiler<i64> = Tiler::Tuple(vec![Tiler::Layout(Layout::leaf(4, 1)), Tiler::Layout(Layout::leaf(5, 1))]);
//! assert_eq!(tiler_to_layout(&t).unwrap().to_string(), "(4,5):(1@0,1@1)");
//! ```

use crate::error::{Error, Result};
use crate::htuple::HTuple;
use crate::int::Int;
use crate::layout::Layout;
use crate::stride::Stride;
use std::fmt;

/// A by-mode tiler.
///
/// Most tilers are a layout, kept inline (boxing it would allocate for every tiler).
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tiler<I> {
    /// `_`: leave the mode whole.
    Keep,
    /// A layout applied to the whole (sub-)mode.
    Layout(Layout<I>),
    /// One tiler per mode.
    Tuple(Vec<Tiler<I>>),
}

impl<I: Int> fmt::Display for Tiler<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tiler::Keep => f.write_str("_"),
            Tiler::Layout(l) => write!(f, "{l}"),
            Tiler::Tuple(ts) => {
                f.write_str("(")?;
                for (k, t) in ts.iter().enumerate() {
                    if k > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(")")
            }
        }
    }
}

impl<I: Int> Tiler<I> {
    /// The shape tiler of an int tuple: `(2,7)` is `(2:1,7:1)`, `12` is `12:1`.
    pub fn from_shape(s: &HTuple<I>) -> Tiler<I> {
        if let Some(n) = s.as_leaf() {
            return Tiler::Layout(Layout::leaf(n.clone(), I::one()));
        }
        Tiler::Tuple(s.modes().iter().map(Tiler::from_shape).collect())
    }
}

/// The unit basis tuple congruent with `profile`: `make_basis_like((10,(20,30)))` is
/// `(1@0,(1@0@1,1@1@1))`.
pub fn make_basis_like<I: Int>(shape: &HTuple<I>) -> HTuple<Stride<I>> {
    fn go<I: Int>(s: &HTuple<I>, path: &mut Vec<u32>) -> HTuple<Stride<I>> {
        if s.is_leaf() {
            return HTuple::leaf(Stride::basis(I::one(), path));
        }
        let modes = s.modes();
        HTuple::from_modes(modes.iter().enumerate().map(|(k, m)| {
            path.push(k as u32);
            let r = go(m, path);
            path.pop();
            r
        }))
    }
    go(shape, &mut Vec::new())
}

/// The identity layout of a shape: every coordinate maps to itself (`shape:(1@0,1@1,...)`).
pub fn identity_layout<I: Int>(shape: &HTuple<I>) -> Result<Layout<I>> {
    Layout::new(shape.clone(), make_basis_like(shape))
}

/// One layout that acts like the tiler under composition (`tiler_to_layout`): mode `k` of a
/// tuple tiler gets its strides scaled by the basis `1@k`.
pub fn tiler_to_layout<I: Int>(t: &Tiler<I>) -> Result<Layout<I>> {
    fn go<I: Int>(t: &Tiler<I>, e: &Stride<I>) -> Result<Layout<I>> {
        match t {
            Tiler::Keep => Err(Error::invalid("tiler_to_layout: '_' has no layout form")),
            Tiler::Layout(l) => {
                let stride = l.stride().try_map(|d| match d.as_int() {
                    Some(v) => e.scale(v),
                    None if e == &Stride::Int(I::one()) => Ok(d.clone()),
                    None => Err(Error::invalid(format!(
                        "tiler_to_layout: coordinate stride {d} inside a tuple tiler"
                    ))),
                })?;
                Layout::new(l.shape().clone(), stride)
            }
            Tiler::Tuple(ts) => {
                let mut modes = Vec::with_capacity(ts.len());
                for (k, sub) in ts.iter().enumerate() {
                    let ek = match e {
                        Stride::Int(v) if v.is(1) => Stride::basis(I::one(), &[k as u32]),
                        Stride::Basis(b) if b.terms().len() == 1 => {
                            let (p, v) = &b.terms()[0];
                            let mut q: Vec<u32> = p.to_vec();
                            q.push(k as u32);
                            Stride::basis(v.clone(), &q)
                        }
                        _ => return Err(Error::internal("tiler_to_layout: unsupported base")),
                    };
                    modes.push(go(sub, &ek)?);
                }
                Ok(Layout::concat(modes))
            }
        }
    }
    go(t, &Stride::Int(I::one()))
}
