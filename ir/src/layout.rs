//! Layouts: a shape and a congruent stride, mapping coordinates to a codomain.
//!
//! `L(c) = inner_product(idx2crd(c, shape), stride)`: an integral index, a flat coordinate
//! and a natural coordinate all reach the same value.
//!
//! ```
//! use tessera_ir::{parse_layout, HTuple};
//! let a = parse_layout("(3,(2,4)):(2,(1,6))").unwrap();
//! assert_eq!(a.eval_index(&17).unwrap().to_string(), "17");
//! assert_eq!(a.size().unwrap(), 24);
//! assert_eq!(a.cosize().unwrap(), 24);
//! assert_eq!(a.mode(1).unwrap().to_string(), "(2,4):(1,6)");
//! assert_eq!(tessera_ir::Layout::<i64>::compact(&HTuple::flat([4, 8])).unwrap().to_string(), "(4,8):(1,4)");
//! ```

use crate::error::{Error, Result};
use crate::fmt_buffer::FmtBuffer;
use crate::htuple::{HTuple, Leaves, Tokens, write_tree};
use crate::int::Int;
use crate::shape;
use crate::stride::{Codomain, Stride};
use smallvec::SmallVec;
use std::fmt::{self, Write as _};

/// A layout `shape:stride`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Layout<I = i64> {
    shape: HTuple<I>,
    stride: HTuple<Stride<I>>,
}

impl<I: Int> Layout<I> {
    /// A layout from a shape and a congruent stride. Extents must be positive.
    pub fn new(shape: HTuple<I>, stride: HTuple<Stride<I>>) -> Result<Self> {
        if !shape.congruent(&stride) {
            return Err(Error::NotCongruent {
                what: "shape ",
                a: shape.to_string(),
                b_is: "stride ",
                b: stride.to_string(),
            });
        }
        for s in shape.leaves() {
            if !I::one().less_eq(s)? {
                return Err(Error::invalid(format!(
                    "extent {s} in shape {shape} is not positive"
                )));
            }
        }
        Ok(Layout { shape, stride })
    }

    /// A layout from parts known to be congruent (internal constructions).
    #[inline]
    /// Shape and stride, to be filled in place; the caller keeps them congruent.
    pub(crate) fn parts_mut(&mut self) -> (&mut HTuple<I>, &mut HTuple<Stride<I>>) {
        (&mut self.shape, &mut self.stride)
    }

    /// A layout whose parts [`Layout::parts_mut`] fills.
    pub(crate) fn unfilled() -> Self {
        Layout {
            shape: HTuple::unfilled(),
            stride: HTuple::unfilled(),
        }
    }

    pub(crate) fn from_parts(shape: HTuple<I>, stride: HTuple<Stride<I>>) -> Self {
        debug_assert!(shape.congruent(&stride));
        Layout { shape, stride }
    }

    /// The single-mode layout `s:d`.
    pub fn leaf(s: I, d: impl Into<Stride<I>>) -> Self {
        Layout {
            shape: HTuple::leaf(s),
            stride: HTuple::leaf(d.into()),
        }
    }

    /// The flat layout `(s0,s1,...):(d0,d1,...)`, or `s:d` for a single pair.
    pub(crate) fn flat_or_leaf(
        s: impl IntoIterator<Item = I>,
        d: impl IntoIterator<Item = Stride<I>>,
    ) -> Self {
        let (mut s, mut d) = (s.into_iter(), d.into_iter());
        let (s0, d0) = (s.next(), d.next());
        let (s1, d1) = (s.next(), d.next());
        match (s0, d0, s1, d1) {
            (Some(x), Some(y), None, None) => Layout::leaf(x, y),
            (s0, d0, s1, d1) => Layout {
                shape: HTuple::flat(s0.into_iter().chain(s1).chain(s)),
                stride: HTuple::flat(d0.into_iter().chain(d1).chain(d)),
            },
        }
    }

    /// The compact column-major layout of `shape`: strides are the prefix products.
    pub fn compact(shape: &HTuple<I>) -> Result<Self> {
        Self::with_base(shape, &Stride::Int(I::one()))
    }

    /// The compact layout of `shape` whose first stride is `base` (`Layout(shape, base)`).
    pub fn with_base(shape: &HTuple<I>, base: &Stride<I>) -> Result<Self> {
        let mut acc = I::one();
        let mut d = Vec::with_capacity(shape.leaves().len());
        for s in shape.leaves() {
            d.push(base.scale(&acc)?);
            acc = acc.mul(s)?;
        }
        Layout::new(shape.clone(), HTuple::unflatten(d, shape.profile())?)
    }

    /// The shape.
    #[inline]
    pub fn shape(&self) -> &HTuple<I> {
        &self.shape
    }

    /// The stride.
    #[inline]
    pub fn stride(&self) -> &HTuple<Stride<I>> {
        &self.stride
    }

    /// Splits into shape and stride.
    pub fn into_parts(self) -> (HTuple<I>, HTuple<Stride<I>>) {
        (self.shape, self.stride)
    }

    /// Number of top-level modes.
    #[inline]
    pub fn rank(&self) -> usize {
        self.shape.rank()
    }

    /// Depth of the shape.
    pub fn depth(&self) -> usize {
        self.shape.depth()
    }

    /// Number of coordinates: the product of the extents.
    pub fn size(&self) -> Result<I> {
        shape::size(&self.shape)
    }

    /// The flat extents.
    #[inline]
    pub fn flat_shape(&self) -> &[I] {
        self.shape.leaves()
    }

    /// The flat strides.
    #[inline]
    pub fn flat_stride(&self) -> &[Stride<I>] {
        self.stride.leaves()
    }

    /// `true` when every stride is an integer.
    pub fn is_int_strided(&self) -> bool {
        self.flat_stride().iter().all(|d| d.as_int().is_some())
    }

    /// Mode `i`; a rank-1 layout with a leaf shape is its own mode 0.
    pub fn mode(&self, i: usize) -> Option<Layout<I>> {
        Some(Layout {
            shape: self.shape.mode(i)?,
            stride: self.stride.mode(i)?,
        })
    }

    /// All top-level modes.
    pub fn modes(&self) -> SmallVec<[Layout<I>; 4]> {
        self.shape
            .modes()
            .into_iter()
            .zip(self.stride.modes())
            .map(|(shape, stride)| Layout { shape, stride })
            .collect()
    }

    /// The sub-layout at a path of mode indices.
    pub fn get(&self, path: &[usize]) -> Option<Layout<I>> {
        Some(Layout {
            shape: self.shape.get(path)?,
            stride: self.stride.get(path)?,
        })
    }

    /// Concatenation: each layout becomes one mode (`make_layout`).
    pub fn concat(modes: impl IntoIterator<Item = Layout<I>>) -> Layout<I> {
        let built = Layout::build(|b| {
            let mut n = 0u32;
            b.toks.push(1);
            for m in modes {
                b.push_layout(m);
                n += 1;
            }
            b.toks[0] = n + 1;
            Ok::<(), std::convert::Infallible>(())
        });
        match built {
            Ok(l) => l,
            Err(never) => match never {},
        }
    }

    /// The flat layout of the same leaves (depth ≤ 1); a single leaf stays a leaf.
    pub fn flatten(&self) -> Layout<I> {
        Layout {
            shape: self.shape.flatten(),
            stride: self.stride.flatten(),
        }
    }

    /// Wraps a leaf layout into a rank-1 tuple layout `(s):(d)`.
    pub fn wrap(self) -> Layout<I> {
        Layout {
            shape: self.shape.wrap(),
            stride: self.stride.wrap(),
        }
    }

    /// The codomain of the strides; an error when they mix integers, coordinates and `F2`.
    /// Zero strides fit any codomain.
    pub fn codomain(&self) -> Result<Codomain> {
        codomain_of(self.flat_stride()).map_err(|(first, second)| Error::MixedCodomains {
            layout: self.to_string(),
            first: format!("{first:?}"),
            second: format!("{second:?}"),
        })
    }

    /// Evaluates at an integral index; the last mode absorbs an index past the size.
    pub fn eval_index(&self, idx: &I) -> Result<Stride<I>> {
        eval_flat(self.flat_shape(), self.flat_stride(), idx)
    }

    /// Evaluates at a coordinate of any form: an index, a flat or a natural coordinate.
    pub fn eval(&self, crd: &HTuple<I>) -> Result<Stride<I>> {
        if let Some(i) = crd.as_leaf() {
            return self.eval_index(i);
        }
        let nat = shape::idx2crd(crd, &self.shape)?;
        let mut acc = Stride::zero();
        for (c, d) in nat.leaves().iter().zip(self.flat_stride()) {
            if !c.is(0) {
                acc = acc.add(&d.scale(c)?)?;
            }
        }
        Ok(acc)
    }

    /// Largest value plus one, summed per mode as `(s-1)*d` (`cosize`); integer codomain only.
    pub fn cosize(&self) -> Result<I> {
        let mut acc = I::one();
        for (s, d) in self.flat_shape().iter().zip(self.flat_stride()) {
            let d = d
                .as_int()
                .ok_or_else(|| Error::invalid(format!("cosize of {self}: not an integer codomain")))?;
            acc = acc.add(&s.sub(&I::one())?.mul(d)?)?;
        }
        Ok(acc)
    }

    /// The codomain's shape: `cosize` for integer strides, the extent along each axis for
    /// coordinate strides (`coshape((4,8):(1@0,1@1))` is `(4,8)`).
    pub fn coshape(&self) -> Result<HTuple<I>> {
        match self.codomain()? {
            Codomain::Int => Ok(HTuple::leaf(self.cosize()?)),
            Codomain::F2 => {
                let mut bits = 0u64;
                for (s, d) in self.flat_shape().iter().zip(self.flat_stride()) {
                    if let Stride::F2(v) = d {
                        let s = s.as_const().unwrap_or(1).max(1) as u64;
                        bits |= v.saturating_mul(s - 1);
                    }
                }
                let n = if bits == 0 {
                    1
                } else {
                    1u64 << (64 - bits.leading_zeros()).min(62)
                };
                Ok(HTuple::leaf(I::lit(n as i64)))
            }
            Codomain::Coord => {
                let mut max = Stride::zero();
                for (s, d) in self.flat_shape().iter().zip(self.flat_stride()) {
                    max = max.add(&d.scale(&s.sub(&I::one())?)?)?;
                }
                let dense = max.to_coord();
                dense.try_map(|v| v.add(&I::one()))
            }
        }
    }
}

/// The value at index `idx` of the flat layout `s:d`: `idx` is split colexicographically over
/// the extents and the last leaf keeps the whole quotient.
pub(crate) fn eval_flat<I: Int>(s: &[I], d: &[Stride<I>], idx: &I) -> Result<Stride<I>> {
    let n = s.len();
    let mut rest = idx.clone();
    let mut acc = Stride::zero();
    for (k, (s, d)) in s.iter().zip(d).enumerate() {
        let c = if k + 1 == n {
            std::mem::replace(&mut rest, I::zero())
        } else {
            let (q, r) = rest.div_mod(s)?;
            rest = q;
            r
        };
        if !c.is(0) {
            acc = acc.add(&d.scale(&c)?)?;
        }
    }
    Ok(acc)
}

impl Layout<i64> {
    /// [`Layout::lift`], taking the layout: in `i64` it is moved, not copied.
    ///
    /// ```
    /// use tessera_ir::{parse_layout, sym::SymInt};
    /// let l = parse_layout("(4,8):(1@0,F2(3))").unwrap();
    /// assert_eq!(l.into_lift::<SymInt>().unwrap().to_string(), "(4,8):(1@0,F2(3))");
    /// ```
    pub fn into_lift<I: Int>(self) -> Result<Layout<I>> {
        let mut slot = Some(self);
        if let Some(same) = (&mut slot as &mut dyn std::any::Any).downcast_mut::<Option<Layout<I>>>() {
            return same
                .take()
                .ok_or_else(|| Error::internal("a layout lifted twice"));
        }
        match slot {
            Some(l) => l.lift(),
            None => Err(Error::internal("a layout lifted twice")),
        }
    }

    /// The same layout in the integers `I` (a concrete layout read as a symbolic one).
    ///
    /// ```
    /// use tessera_ir::{parse_layout, sym::SymInt};
    /// let l = parse_layout("(4,8):(1@0,F2(3))").unwrap();
    /// assert_eq!(l.lift::<SymInt>().unwrap().to_string(), "(4,8):(1@0,F2(3))");
    /// ```
    pub fn lift<I: Int>(&self) -> Result<Layout<I>> {
        if let Some(same) = (self as &dyn std::any::Any).downcast_ref::<Layout<I>>() {
            return Ok(same.clone());
        }
        let stride = self.stride.try_map(|d| match d {
            Stride::Int(v) => Ok(Stride::Int(I::lit(*v))),
            Stride::F2(v) => Ok(Stride::F2(*v)),
            Stride::Basis(b) => {
                Stride::from_sorted_terms(b.terms().iter().map(|(p, v)| (p.clone(), I::lit(*v))))
            }
        })?;
        Ok(Layout {
            shape: self.shape.map(|v| I::lit(*v)),
            stride,
        })
    }
}

impl Layout<crate::sym::SymInt> {
    /// The symbolic layout at concrete parameter values (`vals` gives every parameter it
    /// names).
    ///
    /// ```
    /// use tessera_ir::{Int, Layout, HTuple, Stride, sym::{Facts, SymInt}};
    /// use std::{collections::HashMap, sync::Arc};
    /// let mut facts = Facts::default();
    /// facts.declare("M").unwrap();
    /// let m = SymInt::param("M", &Arc::new(facts));
    /// let (four, one) = (SymInt::lit(4), SymInt::lit(1));
    /// let l = Layout::new(HTuple::flat([m, four.clone()]), HTuple::flat([Stride::Int(four), Stride::Int(one)])).unwrap();
    /// let c = l.instantiate(&HashMap::from([("M".to_string(), 8)])).unwrap();
    /// assert_eq!(c.to_string(), "(8,4):(4,1)");
    /// ```
    pub fn instantiate(&self, vals: &std::collections::HashMap<String, i64>) -> Result<Layout<i64>> {
        let ev = |v: &crate::sym::SymInt| v.eval(vals);
        let shape = self.shape.try_map(ev)?;
        let stride = self.stride.try_map(|d| -> Result<Stride<i64>> {
            match d {
                Stride::Int(v) => Ok(Stride::Int(ev(v)?)),
                Stride::F2(v) => Ok(Stride::F2(*v)),
                Stride::Basis(_) => {
                    let mut acc = Stride::zero();
                    for (p, v) in d.terms() {
                        acc = acc.add(&Stride::basis(ev(&v)?, &p))?;
                    }
                    Ok(acc)
                }
            }
        })?;
        Layout::new(shape, stride)
    }
}

/// The codomain of flat strides (zero strides fit any), or the first two that differ.
pub(crate) fn codomain_of<I: Int>(d: &[Stride<I>]) -> std::result::Result<Codomain, (Codomain, Codomain)> {
    let mut cod: Option<Codomain> = None;
    for d in d {
        if d.is_const_zero() {
            continue;
        }
        let c = d.codomain();
        match cod {
            None => cod = Some(c),
            Some(x) if x == c => {}
            Some(x) => return Err((x, c)),
        }
    }
    Ok(cod.unwrap_or(Codomain::Int))
}

/// A layout as borrowed flat parts: prefix tokens and the leaves. The algebra reads a layout
/// this way, so that a concatenation such as the divide's `(B, complement)` is composed
/// without being built.
pub(crate) struct Parts<'a, I> {
    pub(crate) toks: &'a [u32],
    pub(crate) s: &'a [I],
    pub(crate) d: &'a [Stride<I>],
}

impl<I> Clone for Parts<'_, I> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<I> Copy for Parts<'_, I> {}

impl<'a, I: Int> Parts<'a, I> {
    /// The parts of a layout.
    pub(crate) fn of(l: &'a Layout<I>) -> Self {
        Parts {
            toks: l.shape.profile().tokens(),
            s: l.flat_shape(),
            d: l.flat_stride(),
        }
    }

    /// The layout these parts describe (for messages).
    pub(crate) fn to_layout(self) -> Layout<I> {
        Layout {
            shape: HTuple::from_raw(self.toks.into(), self.s.into()),
            stride: HTuple::from_raw(self.toks.into(), self.d.into()),
        }
    }
}

/// Writes a layout's prefix tokens and leaves in place, into the layout it borrows (the
/// shape's tokens and leaves and the stride's leaves; [`Layout::build`] copies the tokens into
/// the stride's profile at the end), without intermediate layouts and without moving a
/// finished layout out of a builder.
pub(crate) struct LayoutBuilder<'a, I> {
    pub(crate) toks: &'a mut Tokens,
    pub(crate) s: &'a mut Leaves<I>,
    pub(crate) d: &'a mut Leaves<Stride<I>>,
}

impl<I: Int> LayoutBuilder<'_, I> {
    /// Appends a leaf `s:d`, or a flat tuple when given several pairs (one pair is a leaf).
    pub(crate) fn push_flat(
        &mut self,
        s: impl IntoIterator<Item = I>,
        d: impl IntoIterator<Item = Stride<I>>,
    ) {
        let before = self.s.len();
        self.s.extend(s);
        self.d.extend(d);
        let n = self.s.len() - before;
        if n == 1 {
            self.toks.push(0);
        } else {
            self.toks.push(n as u32 + 1);
            self.toks.extend(std::iter::repeat_n(0, n));
        }
    }

    /// Appends a whole layout as the next mode.
    pub(crate) fn push_layout(&mut self, l: Layout<I>) {
        self.toks.extend_from_slice(l.shape.profile().tokens());
        let (s, d) = (l.shape.into_leaves(), l.stride.into_leaves());
        self.s.extend(s);
        self.d.extend(d);
    }

    /// Appends borrowed parts as the next mode.
    pub(crate) fn push_parts(&mut self, p: Parts<'_, I>) {
        self.toks.extend_from_slice(p.toks);
        self.s.extend(p.s.iter().cloned());
        self.d.extend(p.d.iter().cloned());
    }
}

impl<I: Int> Layout<I> {
    /// The layout `f` writes into a [`LayoutBuilder`] over the new layout's own storage
    /// (nothing is moved out of a builder); `f` must leave tokens and leaves consistent: one
    /// token sequence for both parts, one leaf of each part per leaf token.
    pub(crate) fn build<E>(
        f: impl FnOnce(&mut LayoutBuilder<'_, I>) -> std::result::Result<(), E>,
    ) -> std::result::Result<Self, E> {
        let mut l = Layout::unfilled();
        l.rebuild(f)?;
        Ok(l)
    }

    /// [`Layout::build`] into `self`, its storage reused: `self` is emptied first. On an error
    /// `self` holds what `f` wrote, not a layout: the caller overwrites it.
    pub(crate) fn rebuild<E>(
        &mut self,
        f: impl FnOnce(&mut LayoutBuilder<'_, I>) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let (toks, s) = self.shape.raw_mut();
        let (dtoks, d) = self.stride.raw_mut();
        crate::htuple::empty(toks);
        crate::htuple::empty(s);
        crate::htuple::empty(dtoks);
        crate::htuple::empty(d);
        f(&mut LayoutBuilder {
            toks: &mut *toks,
            s,
            d,
        })?;
        dtoks.extend_from_slice(toks);
        debug_assert!(self.shape.congruent(&self.stride));
        Ok(())
    }
}

impl<I: Int> fmt::Display for Layout<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.width().is_some() || f.precision().is_some() || f.sign_plus() {
            // Flags apply to each integer leaf, written through the formatter.
            self.shape.write_with(f, crate::int::write_int)?;
            f.write_char(':')?;
            return fmt::Display::fmt(&self.stride, f);
        }
        // Without flags: gathered on the stack and handed on in one piece (a call through the
        // formatter per bracket, comma and leaf cost 3.5 times as much).
        let mut w = FmtBuffer::new(f);
        self.write_plain(&mut w)?;
        w.finish()
    }
}

impl<I: Int> Layout<I> {
    /// Writes the text `Display` writes without flags into any writer: one tree writer and
    /// one leaf writer for `Display` and [`crate::text::push_layout`].
    ///
    /// @post `w` gained `self.to_string()`.
    pub(crate) fn write_plain<W: fmt::Write + ?Sized>(&self, w: &mut W) -> fmt::Result {
        let toks = self.shape.profile().tokens();
        write_tree(w, toks, self.shape.leaves(), crate::int::write_plain)?;
        w.write_char(':')?;
        // Congruent parts: the stride's tree is the shape's.
        write_tree(w, toks, self.stride.leaves(), crate::stride::write_plain)
    }
}
