//! `Tensor<T>`: a buffer that owns its elements, with a (possibly swizzled) layout and an
//! element offset; `make_tensor` and `identity_tensor` (PyCuTe's, seed `004_*`).
//!
//! ```
//! use tessera_ir::{parse_layout, HTuple};
//! use tessera_ir::view::{Tensor, make_tensor, identity_tensor};
//! let mut t: Tensor<f64> = make_tensor(&parse_layout("(4,4):(4,1)").unwrap()).unwrap();
//! *t.at_mut(&[1, 2]).unwrap() = 42.0;
//! assert_eq!(*t.at(&[1, 2]).unwrap(), 42.0);
//! assert_eq!(t.data()[6], 42.0);
//! let id = identity_tensor(&HTuple::flat([3, 4])).unwrap();
//! assert_eq!(id.at(&[1, 2]).unwrap().to_string(), "(1,2)");
//! ```

use super::error::{ViewError, ViewResult, to_i64, to_usize};
use super::geometry::{Geometry, compact_layout};
use super::leaves::{int_leaves, unswizzled};
use super::order::MemoryOrder;
use crate::htuple::HTuple;
use crate::layout::Layout;
use crate::shape;
use crate::swizzle::ComposedLayout;

/// An owning tensor: a buffer of elements, and a composed layout `Sw o off o L` whose value at
/// a coordinate is the buffer index of that element.
///
/// Every position the layout reaches is checked against the buffer when the tensor is made,
/// so element access and views never leave the buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor<T> {
    pub(crate) data: Vec<T>,
    pub(crate) geom: Geometry,
}

impl<T> Tensor<T> {
    /// A tensor over `data` with layout `layout` at offset 0.
    ///
    /// Errors: [`ViewError::OutOfBuffer`] when the layout reaches a position outside `data`,
    /// [`ViewError::NonIntegerStride`] for coordinate or `F2` strides.
    pub fn new(data: Vec<T>, layout: Layout<i64>) -> ViewResult<Self> {
        Self::with_layout(data, unswizzled(0, layout))
    }

    /// A tensor over `data` with a composed layout: `Sw o off o L` places the element at
    /// coordinate `c` at `data[Sw(off + L(c))]`.
    ///
    /// ```
    /// use tessera_ir::{parse_layout, Swizzle, ComposedLayout, view::Tensor};
    /// let sw = ComposedLayout::new(Swizzle::new(1, 0, 1).unwrap(), 0, parse_layout("4:1").unwrap());
    /// let t = Tensor::with_layout(vec![10, 11, 12, 13], sw).unwrap();
    /// assert_eq!(*t.get(2).unwrap(), 13); // Sw<1,0,1>(2) == 3
    /// ```
    pub fn with_layout(data: Vec<T>, layout: ComposedLayout<i64>) -> ViewResult<Self> {
        let geom = Geometry::over(layout, data.len())?;
        Ok(Tensor { data, geom })
    }

    /// A tensor of dimensions `dims` over `data`, laid out compactly in `order`.
    ///
    /// Errors: [`ViewError::LengthMismatch`] unless `data` has exactly `product(dims)`
    /// elements, [`ViewError::EmptyView`] for a zero dimension.
    pub fn from_shape_vec(dims: &[usize], order: MemoryOrder, data: Vec<T>) -> ViewResult<Self> {
        let layout = dims_layout(dims, order)?;
        let n = to_usize(layout.size()?)?;
        if n != data.len() {
            return Err(ViewError::LengthMismatch {
                expected: n,
                got: data.len(),
            });
        }
        Self::new(data, layout)
    }

    /// A tensor of dimensions `dims` whose element at indices `idx` is `f(idx)`.
    pub fn from_fn(dims: &[usize], order: MemoryOrder, mut f: impl FnMut(&[usize]) -> T) -> ViewResult<Self> {
        let layout = dims_layout(dims, order)?;
        let n = to_usize(layout.size()?)?;
        let geom = Geometry::over(unswizzled(0, layout), n)?;
        let mut slots: Vec<Option<T>> = (0..n).map(|_| None).collect();
        let mut idx = vec![0usize; dims.len()];
        let mut k = 0usize;
        geom.for_each(MemoryOrder::ColumnMajor, |p| {
            // Column-major walk: idx is the colexicographic index k.
            let mut rest = k;
            for (i, &d) in idx.iter_mut().zip(dims) {
                *i = rest % d;
                rest /= d;
            }
            slots[p] = Some(f(&idx));
            k += 1;
        });
        let data: Vec<T> = slots.into_iter().flatten().collect();
        Ok(Tensor { data, geom })
    }

    /// A tensor of dimensions `dims` filled with `T::default()` (tenferro's `zeros`).
    pub fn zeros(dims: &[usize], order: MemoryOrder) -> ViewResult<Self>
    where
        T: Default + Clone,
    {
        let layout = dims_layout(dims, order)?;
        let n = to_usize(layout.size()?)?;
        Self::new(vec![T::default(); n], layout)
    }

    /// The buffer.
    pub fn data(&self) -> &[T] {
        &self.data
    }

    /// The buffer, mutably.
    pub fn data_mut(&mut self) -> &mut [T] {
        &mut self.data
    }

    /// The buffer, giving up the layout.
    pub fn into_vec(self) -> Vec<T> {
        self.data
    }

    /// The element at linear (colexicographic) index `idx`, mutably.
    pub fn get_mut(&mut self, idx: i64) -> ViewResult<&mut T> {
        let p = self.geom.linear(idx)?;
        Ok(&mut self.data[p])
    }

    /// The element at one index per dimension, mutably.
    pub fn at_mut(&mut self, idx: &[usize]) -> ViewResult<&mut T> {
        let p = self.geom.at(idx)?;
        Ok(&mut self.data[p])
    }

    /// The element at a coordinate of any CuTe form, mutably.
    pub fn get_crd_mut(&mut self, c: &HTuple<i64>) -> ViewResult<&mut T> {
        let p = self.geom.coord(c)?;
        Ok(&mut self.data[p])
    }
}

/// The flat compact layout of `dims` in `order`; a zero dimension is an error.
fn dims_layout(dims: &[usize], order: MemoryOrder) -> ViewResult<Layout<i64>> {
    if let Some(axis) = dims.iter().position(|&d| d == 0) {
        return Err(ViewError::EmptyView { axis });
    }
    let s: Vec<i64> = dims.iter().map(|&d| to_i64(d)).collect::<ViewResult<_>>()?;
    compact_layout(&HTuple::flat(s), order)
}

/// PyCuTe's `make_tensor(layout)`: a tensor of `T::default()` elements just large enough for
/// the layout (from its smallest to its largest position; the offset makes the smallest 0).
///
/// ```
/// use tessera_ir::{parse_layout, view::make_tensor};
/// let t = make_tensor::<f32>(&parse_layout("(4,2):(-1,8)").unwrap()).unwrap();
/// assert_eq!(t.data().len(), 12);
/// assert_eq!(t.offset(), 3);
/// ```
pub fn make_tensor<T: Default + Clone>(layout: &Layout<i64>) -> ViewResult<Tensor<T>> {
    let leaves = int_leaves(layout)?;
    let (mut lo, mut hi) = (0i64, 0i64);
    for (s, d) in leaves {
        let span = (s - 1)
            .checked_mul(d)
            .ok_or_else(|| ViewError::overflow(format!("({s}-1) * {d}")))?;
        if span < 0 {
            lo = lo
                .checked_add(span)
                .ok_or_else(|| ViewError::overflow("layout span".to_string()))?;
        } else {
            hi = hi
                .checked_add(span)
                .ok_or_else(|| ViewError::overflow("layout span".to_string()))?;
        }
    }
    let n = hi
        .checked_sub(lo)
        .and_then(|w| w.checked_add(1))
        .ok_or_else(|| ViewError::overflow("layout span".to_string()))?;
    let offset = lo
        .checked_neg()
        .ok_or_else(|| ViewError::overflow("layout offset".to_string()))?;
    Tensor::with_layout(
        vec![T::default(); to_usize(n)?],
        unswizzled(offset, layout.clone()),
    )
}

/// PyCuTe's `identity_tensor(shape)`: the tensor whose element at each coordinate is that
/// (natural, hierarchical) coordinate, for predication. Its layout is the compact
/// column-major layout of `shape`; the coordinates are materialized, one per element.
pub fn identity_tensor(shape: &HTuple<i64>) -> ViewResult<Tensor<HTuple<i64>>> {
    let layout = Layout::compact(shape)?;
    let n = layout.size()?;
    let data: Vec<HTuple<i64>> = (0..n)
        .map(|i| shape::idx2crd(&HTuple::leaf(i), shape))
        .collect::<crate::error::Result<_>>()?;
    Tensor::new(data, layout)
}
