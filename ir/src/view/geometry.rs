//! Where the elements of a view lie in its buffer.
//!
//! A [`Geometry`] is a composed layout `Sw o off o L` with integer strides, its dimensions,
//! and the interval of positions (before the swizzle) that are known to land inside the
//! buffer. It is built once against the buffer, checking every position; the view
//! operations then derive new geometries whose positions are re-checked against the
//! parent's interval, so every position a geometry produces is a valid index of its buffer.
//! That invariant is what lets element access index the buffer directly.

use super::error::{ViewError, ViewResult, to_i64, to_usize};
use super::leaves::{int_leaves, modes_of};
use super::local::{self, Threads};
use super::ops;
use super::order::MemoryOrder;
use super::slicing::{self, SliceArg};
use crate::algebra::Tiler;
use crate::htuple::HTuple;
use crate::layout::Layout;
use crate::shape;
use crate::swizzle::ComposedLayout;

/// The placement of a view's elements in a buffer (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Geometry {
    /// `Sw o off o L`.
    pub(crate) layout: ComposedLayout<i64>,
    /// The size of each top-level mode.
    pub(crate) dims: Vec<usize>,
    /// The flat `(extent, stride)` leaves of `L`.
    leaves: Vec<(i64, i64)>,
    /// For each top-level mode, the end of its leaves in `leaves`.
    mode_ends: Vec<usize>,
    /// The number of elements.
    size: i64,
    /// Pre-swizzle positions in this interval are valid buffer indices after the swizzle.
    valid: (i64, i64),
}

fn ovf(what: String) -> ViewError {
    ViewError::overflow(what)
}

/// The smallest and largest pre-swizzle position of a composed layout with these leaves.
fn extent_range(offset: i64, leaves: &[(i64, i64)]) -> ViewResult<(i64, i64)> {
    let (mut lo, mut hi) = (offset, offset);
    for &(s, d) in leaves {
        let span = (s - 1)
            .checked_mul(d)
            .ok_or_else(|| ovf(format!("({s}-1) * {d}")))?;
        if span < 0 {
            lo = lo
                .checked_add(span)
                .ok_or_else(|| ovf(format!("{lo} + {span}")))?;
        } else {
            hi = hi
                .checked_add(span)
                .ok_or_else(|| ovf(format!("{hi} + {span}")))?;
        }
    }
    Ok((lo, hi))
}

impl Geometry {
    fn parts(layout: ComposedLayout<i64>, valid: (i64, i64)) -> ViewResult<Self> {
        let leaves = int_leaves(&layout.inner)?;
        let modes = modes_of(&layout.inner);
        let mut dims = Vec::with_capacity(modes.len());
        let mut mode_ends = Vec::with_capacity(modes.len());
        let mut end = 0usize;
        for m in &modes {
            dims.push(to_usize(m.size()?)?);
            end += m.flat_shape().len();
            mode_ends.push(end);
        }
        let size = layout.inner.size()?;
        Ok(Geometry {
            layout,
            dims,
            leaves,
            mode_ends,
            size,
            valid,
        })
    }

    /// The compact geometry `0 o n:1` of a buffer of `n >= 1` elements.
    pub(crate) fn flat(n: i64) -> Self {
        Geometry {
            layout: super::leaves::unswizzled(0, Layout::leaf(n, 1)),
            dims: vec![n as usize],
            leaves: vec![(n, 1)],
            mode_ends: vec![1],
            size: n,
            valid: (0, n - 1),
        }
    }

    /// The geometry of `layout` over a buffer of `len` elements; every position is checked.
    ///
    /// Without a swizzle, the positions must lie in `[0, len)`. With one, every integer
    /// between the smallest and the largest pre-swizzle position must swizzle into
    /// `[0, len)` (the swizzle is a bijection, so holes in a strided layout count too).
    pub(crate) fn over(layout: ComposedLayout<i64>, len: usize) -> ViewResult<Self> {
        let leaves = int_leaves(&layout.inner)?;
        let (lo, hi) = extent_range(layout.offset, &leaves)?;
        let n = to_i64(len)?;
        let out = || ViewError::OutOfBuffer {
            layout: layout.to_string(),
            min: lo,
            max: hi,
            len,
        };
        let valid = match layout.swizzle {
            None => {
                if lo < 0 || hi >= n {
                    return Err(out());
                }
                (0, n - 1)
            }
            Some(sw) => {
                if hi.checked_sub(lo).is_none_or(|w| w >= n) {
                    return Err(out());
                }
                if !(lo..=hi).all(|x| (0..n).contains(&sw.apply(x))) {
                    return Err(out());
                }
                (lo, hi)
            }
        };
        Self::parts(layout, valid)
    }

    /// A geometry of the same buffer for a layout derived from this one.
    pub(crate) fn derive(&self, layout: ComposedLayout<i64>) -> ViewResult<Self> {
        let leaves = int_leaves(&layout.inner)?;
        let (lo, hi) = extent_range(layout.offset, &leaves)?;
        if layout.swizzle != self.layout.swizzle || lo < self.valid.0 || hi > self.valid.1 {
            return Err(ViewError::OutOfBuffer {
                layout: layout.to_string(),
                min: lo,
                max: hi,
                len: to_usize(self.valid.1.saturating_add(1).max(0))?,
            });
        }
        Self::parts(layout, self.valid)
    }

    /// The number of elements.
    pub(crate) fn size(&self) -> i64 {
        self.size
    }

    /// The stride of each dimension (see [`ops::strides`]); `None` under a swizzle.
    pub(crate) fn strides(&self) -> Option<Vec<i64>> {
        if self.layout.swizzle.is_some() {
            return None;
        }
        ops::strides(&self.layout.inner)
    }

    /// The buffer index of a pre-swizzle position produced by this geometry.
    #[inline]
    pub(crate) fn place(&self, pre: i64) -> usize {
        let p = match self.layout.swizzle {
            None => pre,
            Some(sw) => sw.apply(pre),
        };
        // In range by the invariant of the module doc.
        p as usize
    }

    /// Adds the value of leaves `range` at index `i` (colexicographic over those leaves).
    fn add_index(&self, mut acc: i64, leaves: &[(i64, i64)], mut i: i64) -> i64 {
        let n = leaves.len();
        for (k, &(s, d)) in leaves.iter().enumerate() {
            let c = if k + 1 == n { i } else { i % s };
            i /= s;
            // In-range indices keep every partial sum between two valid positions.
            acc += c * d;
        }
        acc
    }

    /// The buffer index of the element at linear (colexicographic) index `idx`.
    pub(crate) fn linear(&self, idx: i64) -> ViewResult<usize> {
        if !(0..self.size).contains(&idx) {
            return Err(ViewError::IndexOutOfRange {
                what: "the view".into(),
                index: idx,
                size: self.size,
            });
        }
        Ok(self.place(self.add_index(self.layout.offset, &self.leaves, idx)))
    }

    /// The buffer index of the element at one index per dimension.
    pub(crate) fn at(&self, idx: &[usize]) -> ViewResult<usize> {
        if idx.len() != self.dims.len() {
            return Err(ViewError::LengthMismatch {
                expected: self.dims.len(),
                got: idx.len(),
            });
        }
        let mut pre = self.layout.offset;
        let mut begin = 0usize;
        for (k, (&i, &end)) in idx.iter().zip(&self.mode_ends).enumerate() {
            if i >= self.dims[k] {
                return Err(ViewError::IndexOutOfRange {
                    what: format!("axis {k}"),
                    index: to_i64(i)?,
                    size: to_i64(self.dims[k])?,
                });
            }
            pre = self.add_index(pre, &self.leaves[begin..end], i as i64);
            begin = end;
        }
        Ok(self.place(pre))
    }

    /// The buffer index of the element at a coordinate of any CuTe form: an index, one
    /// index per dimension, or a (partly) hierarchical coordinate.
    pub(crate) fn coord(&self, c: &HTuple<i64>) -> ViewResult<usize> {
        if let Some(&i) = c.as_leaf() {
            return self.linear(i);
        }
        let shp = self.layout.inner.shape();
        let nat = shape::idx2crd(c, shp)?;
        let mut pre = self.layout.offset;
        for (x, &(s, d)) in nat.leaves().iter().zip(&self.leaves) {
            if !(0..s).contains(x) {
                return Err(ViewError::IndexOutOfRange {
                    what: format!("coordinate {c} of shape {shp}"),
                    index: *x,
                    size: s,
                });
            }
            pre += x * d;
        }
        Ok(self.place(pre))
    }

    /// The leaves in iteration order, fastest first: all leaves in order for column-major,
    /// the modes from the last to the first (each mode's leaves in order) for row-major.
    pub(crate) fn iteration_leaves(&self, order: MemoryOrder) -> Vec<(i64, i64)> {
        match order {
            MemoryOrder::ColumnMajor => self.leaves.clone(),
            MemoryOrder::RowMajor => {
                let mut out = Vec::with_capacity(self.leaves.len());
                let mut end = self.leaves.len();
                for &start in self.mode_ends.iter().rev().skip(1).chain(std::iter::once(&0)) {
                    out.extend_from_slice(&self.leaves[start..end]);
                    end = start;
                }
                out
            }
        }
    }

    /// Calls `f` with the buffer index of every element, in `order` over the dimensions.
    pub(crate) fn for_each(&self, order: MemoryOrder, mut f: impl FnMut(usize)) {
        let leaves = self.iteration_leaves(order);
        let mut idx = vec![0i64; leaves.len()];
        let mut pre = self.layout.offset;
        loop {
            f(self.place(pre));
            let mut k = 0;
            loop {
                let Some(&(s, d)) = leaves.get(k) else {
                    return;
                };
                if idx[k] + 1 < s {
                    idx[k] += 1;
                    pre += d;
                    break;
                }
                pre -= (s - 1) * d;
                idx[k] = 0;
                k += 1;
            }
        }
    }

    fn with(&self, r: ViewResult<ComposedLayout<i64>>) -> ViewResult<Self> {
        self.derive(r?)
    }

    pub(crate) fn select(&self, dim: usize, index: usize) -> ViewResult<Self> {
        self.with(ops::select(&self.layout, dim, index))
    }

    pub(crate) fn narrow(&self, dim: usize, start: usize, len: usize) -> ViewResult<Self> {
        self.with(ops::narrow(&self.layout, dim, start, len))
    }

    pub(crate) fn permute(&self, perm: &[usize]) -> ViewResult<Self> {
        self.with(ops::permute(&self.layout, perm))
    }

    pub(crate) fn broadcast(&self, target: &[usize]) -> ViewResult<Self> {
        self.with(ops::broadcast(&self.layout, target))
    }

    pub(crate) fn diagonal(&self, axes: &[(usize, usize)]) -> ViewResult<Self> {
        self.with(ops::diagonal(&self.layout, axes))
    }

    pub(crate) fn slice(&self, items: &[SliceArg]) -> ViewResult<Self> {
        self.with(slicing::slice(&self.layout, items))
    }

    pub(crate) fn tile_view(&self, offset: &[SliceArg], shape: Option<&[usize]>) -> ViewResult<Self> {
        self.with(slicing::tile_view(&self.layout, offset, shape))
    }

    pub(crate) fn local_tile(&self, tiler: &Tiler<i64>, coord: &HTuple<i64>) -> ViewResult<Self> {
        self.with(local::local_tile(&self.layout, tiler, coord))
    }

    pub(crate) fn local_partition(&self, threads: &Threads, thread: &HTuple<i64>) -> ViewResult<Self> {
        self.with(local::local_partition(&self.layout, threads, thread))
    }
}

/// The compact layout of `shape` in `order`: column-major is CuTe's compact layout (the first
/// leaf fastest); row-major makes the last dimension fastest, and inside a hierarchical
/// dimension keeps its leaves colexicographic, so that both orders index a dimension the
/// same way.
///
/// ```
/// use tessera_ir::{parse_int_tuple, view::{compact_layout, MemoryOrder}};
/// let s = parse_int_tuple("((2,2),3)").unwrap();
/// assert_eq!(compact_layout(&s, MemoryOrder::ColumnMajor).unwrap().to_string(), "((2,2),3):((1,2),4)");
/// assert_eq!(compact_layout(&s, MemoryOrder::RowMajor).unwrap().to_string(), "((2,2),3):((3,6),1)");
/// ```
pub fn compact_layout(shape: &HTuple<i64>, order: MemoryOrder) -> ViewResult<Layout<i64>> {
    match order {
        MemoryOrder::ColumnMajor => Ok(Layout::compact(shape)?),
        MemoryOrder::RowMajor => {
            if shape.is_leaf() {
                return Ok(Layout::compact(shape)?);
            }
            let modes = shape.modes();
            let mut out: Vec<Layout<i64>> = Vec::with_capacity(modes.len());
            let mut acc = 1i64;
            for m in modes.iter().rev() {
                out.push(Layout::with_base(m, &crate::stride::Stride::Int(acc))?);
                acc = acc
                    .checked_mul(shape::size(m)?)
                    .ok_or_else(|| ovf(format!("size of {shape}")))?;
            }
            out.reverse();
            Ok(Layout::concat(out))
        }
    }
}
