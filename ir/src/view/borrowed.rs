//! Borrowed views: `TensorView<'a, T>` and `TensorViewMut<'a, T>` (tenferro's `TensorView`,
//! seed `003_*`, over CuTe layouts).
//!
//! A view borrows a buffer and holds a composed layout `Sw o off o L`. Every view operation
//! is zero-copy: it computes a new offset and layout through the layout-level functions of
//! [`ops`](super::ops), [`slicing`](super::slicing) and [`local`](super::local), and keeps
//! the same buffer. Writing through a [`TensorViewMut`] writes the source.
//!
//! ```
//! use tessera_ir::view::{Tensor, MemoryOrder, SliceArg};
//! let mut t = Tensor::from_shape_vec(&[4, 4], MemoryOrder::RowMajor, (0..16).collect()).unwrap();
//! let mut v = t.view_mut();
//! let mut col = v.reborrow().slice(&[SliceArg::full(), 1.into()]).unwrap();
//! col.fill(-1);
//! let flipped = v.view().slice(&[(..).into(), SliceArg::range(None, None, Some(-1))]).unwrap();
//! assert_eq!(*flipped.at(&[0, 0]).unwrap(), 3);
//! assert_eq!(t.data()[..8], [0, -1, 2, 3, 4, -1, 6, 7]);
//! ```

use super::copy::{self, Conj};
use super::error::{ViewError, ViewResult};
use super::geometry::Geometry;
use super::local::Threads;
use super::order::MemoryOrder;
use super::slicing::SliceArg;
use super::tensor::Tensor;
use crate::algebra::Tiler;
use crate::htuple::HTuple;
use crate::swizzle::ComposedLayout;

/// A borrowed, read-only view of a buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorView<'a, T> {
    pub(crate) data: &'a [T],
    pub(crate) geom: Geometry,
}

/// A borrowed view through which the elements can be written.
#[derive(Debug)]
pub struct TensorViewMut<'a, T> {
    pub(crate) data: &'a mut [T],
    pub(crate) geom: Geometry,
}

/// The read-only accessors shared by [`Tensor`], [`TensorView`] and [`TensorViewMut`].
macro_rules! read_api {
    ($ty:ty, [$($g:tt)*]) => {
        impl<$($g)*> $ty {
            /// The size of each dimension (top-level mode); a hierarchical mode is one
            /// dimension of the mode's size.
            pub fn dims(&self) -> &[usize] {
                &self.geom.dims
            }

            /// The number of dimensions (the rank of the layout).
            pub fn ndim(&self) -> usize {
                self.geom.dims.len()
            }

            /// The number of elements.
            pub fn size(&self) -> usize {
                self.geom.size() as usize
            }

            /// The stride of each dimension in elements, when every dimension coalesces to a
            /// single leaf (a hierarchical dimension such as `(2,2):(1,2)` has stride 1); `None`
            /// for other hierarchical dimensions and for swizzled layouts.
            pub fn strides(&self) -> Option<Vec<i64>> {
                self.geom.strides()
            }

            /// The element offset: added to the layout's value before the swizzle (without a
            /// swizzle, the buffer index of the first element).
            pub fn offset(&self) -> i64 {
                self.geom.layout.offset
            }

            /// The composed layout `Sw o off o L`.
            pub fn layout(&self) -> &ComposedLayout<i64> {
                &self.geom.layout
            }

            /// The element at linear index `idx`, in CuTe's colexicographic order over the
            /// whole layout (`tensor(idx)`).
            pub fn get(&self, idx: i64) -> ViewResult<&T> {
                Ok(&self.data[self.geom.linear(idx)?])
            }

            /// The element at one index per dimension (`t[i, j, ...]`).
            pub fn at(&self, idx: &[usize]) -> ViewResult<&T> {
                Ok(&self.data[self.geom.at(idx)?])
            }

            /// The element at a coordinate of any CuTe form: an index, one index per
            /// dimension, or a hierarchical coordinate such as `(1,(0,1))`.
            pub fn get_crd(&self, c: &HTuple<i64>) -> ViewResult<&T> {
                Ok(&self.data[self.geom.coord(c)?])
            }

            /// A copy of the elements into an owned tensor laid out compactly in `order`.
            pub fn to_tensor(&self, order: MemoryOrder) -> Tensor<T>
            where
                T: Clone,
            {
                copy::to_tensor(&self.data, &self.geom, order)
            }

            /// A contiguous copy of the elements in `order` (the same as
            /// [`to_tensor`](Self::to_tensor)).
            pub fn contiguous(&self, order: MemoryOrder) -> Tensor<T>
            where
                T: Clone,
            {
                copy::to_tensor(&self.data, &self.geom, order)
            }

            /// A column-major copy with every element conjugated (a plain copy for reals).
            pub fn conj(&self) -> Tensor<T>
            where
                T: Clone + Conj,
            {
                let mut t = copy::to_tensor(&self.data, &self.geom, MemoryOrder::ColumnMajor);
                for x in t.data.iter_mut() {
                    *x = x.conj();
                }
                t
            }

            /// The elements in `order` over the dimensions.
            pub fn to_vec(&self, order: MemoryOrder) -> Vec<T>
            where
                T: Clone,
            {
                copy::gather(&self.data, &self.geom, order)
            }
        }
    };
}

read_api!(Tensor<T>, [T]);
read_api!(TensorView<'a, T>, ['a, T]);
read_api!(TensorViewMut<'a, T>, ['a, T]);

impl<'a, T> TensorView<'a, T> {
    /// A view of `data` through a composed layout; every position is checked.
    pub fn new(data: &'a [T], layout: ComposedLayout<i64>) -> ViewResult<Self> {
        Ok(TensorView {
            geom: Geometry::over(layout, data.len())?,
            data,
        })
    }

    /// The whole borrowed buffer.
    pub fn buffer(&self) -> &'a [T] {
        self.data
    }

    fn with(&self, g: ViewResult<Geometry>) -> ViewResult<Self> {
        Ok(TensorView {
            data: self.data,
            geom: g?,
        })
    }

    /// Index `index` of dimension `dim`, removing the dimension ([`ops::select`](super::ops::select)).
    pub fn select(&self, dim: usize, index: usize) -> ViewResult<Self> {
        self.with(self.geom.select(dim, index))
    }

    /// Indices `start..start+len` of dimension `dim` ([`ops::narrow`](super::ops::narrow)).
    pub fn narrow(&self, dim: usize, start: usize, len: usize) -> ViewResult<Self> {
        self.with(self.geom.narrow(dim, start, len))
    }

    /// Dimension `k` of the result is dimension `perm[k]` ([`ops::permute`](super::ops::permute)).
    pub fn permute(&self, perm: &[usize]) -> ViewResult<Self> {
        self.with(self.geom.permute(perm))
    }

    /// Stride-0 expansion to `target` ([`ops::broadcast`](super::ops::broadcast)).
    pub fn broadcast(&self, target: &[usize]) -> ViewResult<Self> {
        self.with(self.geom.broadcast(target))
    }

    /// Diagonals of pairs of dimensions ([`ops::diagonal`](super::ops::diagonal)).
    pub fn diagonal(&self, axes: &[(usize, usize)]) -> ViewResult<Self> {
        self.with(self.geom.diagonal(axes))
    }

    /// `t[items]` with Python's rules ([`slice`](super::slice)).
    pub fn slice(&self, items: &[SliceArg]) -> ViewResult<Self> {
        self.with(self.geom.slice(items))
    }

    /// Warp's `tile_view` ([`tile_view`](super::tile_view)).
    pub fn tile_view(&self, offset: &[SliceArg], shape: Option<&[usize]>) -> ViewResult<Self> {
        self.with(self.geom.tile_view(offset, shape))
    }

    /// CuTe's `local_tile` / MoYe's `@tile` ([`local::local_tile`](super::local::local_tile)).
    pub fn local_tile(&self, tiler: &Tiler<i64>, coord: &HTuple<i64>) -> ViewResult<Self> {
        self.with(self.geom.local_tile(tiler, coord))
    }

    /// CuTe's `local_partition` / MoYe's `@parallelize`
    /// ([`local::local_partition`](super::local::local_partition)).
    pub fn local_partition(&self, threads: impl Into<Threads>, thread: &HTuple<i64>) -> ViewResult<Self> {
        self.with(self.geom.local_partition(&threads.into(), thread))
    }
}

impl<'a, T> TensorViewMut<'a, T> {
    /// A mutable view of `data` through a composed layout; every position is checked.
    pub fn new(data: &'a mut [T], layout: ComposedLayout<i64>) -> ViewResult<Self> {
        Ok(TensorViewMut {
            geom: Geometry::over(layout, data.len())?,
            data,
        })
    }

    /// A shorter-lived mutable view of the same elements, so that the view operations (which
    /// consume the view) can be applied while keeping `self`.
    pub fn reborrow(&mut self) -> TensorViewMut<'_, T> {
        TensorViewMut {
            data: &mut *self.data,
            geom: self.geom.clone(),
        }
    }

    /// A read-only view of the same elements.
    pub fn view(&self) -> TensorView<'_, T> {
        TensorView {
            data: &*self.data,
            geom: self.geom.clone(),
        }
    }

    fn with(self, g: ViewResult<Geometry>) -> ViewResult<Self> {
        Ok(TensorViewMut {
            data: self.data,
            geom: g?,
        })
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

    /// Writes `value` into every element of the view.
    pub fn fill(&mut self, value: T)
    where
        T: Clone,
    {
        let data = &mut *self.data;
        self.geom
            .for_each(MemoryOrder::ColumnMajor, |p| data[p] = value.clone());
    }

    /// Copies `src` element by element (Warp's `tile_assign`): the element at indices `idx`
    /// of `self` becomes the element at `idx` of `src`.
    ///
    /// Errors: [`ViewError::DimsMismatch`] unless both have the same dimensions.
    pub fn assign(&mut self, src: &TensorView<'_, T>) -> ViewResult<()>
    where
        T: Clone,
    {
        if self.dims() != src.dims() {
            return Err(ViewError::DimsMismatch {
                left: self.dims().to_vec(),
                right: src.dims().to_vec(),
            });
        }
        let vals = src.to_vec(MemoryOrder::ColumnMajor);
        let data = &mut *self.data;
        let mut it = vals.into_iter();
        self.geom.for_each(MemoryOrder::ColumnMajor, |p| {
            if let Some(v) = it.next() {
                data[p] = v;
            }
        });
        Ok(())
    }

    /// Index `index` of dimension `dim`, removing the dimension.
    pub fn select(self, dim: usize, index: usize) -> ViewResult<Self> {
        let g = self.geom.select(dim, index);
        self.with(g)
    }

    /// Indices `start..start+len` of dimension `dim`.
    pub fn narrow(self, dim: usize, start: usize, len: usize) -> ViewResult<Self> {
        let g = self.geom.narrow(dim, start, len);
        self.with(g)
    }

    /// Dimension `k` of the result is dimension `perm[k]`.
    pub fn permute(self, perm: &[usize]) -> ViewResult<Self> {
        let g = self.geom.permute(perm);
        self.with(g)
    }

    /// Stride-0 expansion to `target`; writing an element of a broadcast dimension writes the
    /// one shared source element.
    pub fn broadcast(self, target: &[usize]) -> ViewResult<Self> {
        let g = self.geom.broadcast(target);
        self.with(g)
    }

    /// Diagonals of pairs of dimensions.
    pub fn diagonal(self, axes: &[(usize, usize)]) -> ViewResult<Self> {
        let g = self.geom.diagonal(axes);
        self.with(g)
    }

    /// `t[items]` with Python's rules.
    pub fn slice(self, items: &[SliceArg]) -> ViewResult<Self> {
        let g = self.geom.slice(items);
        self.with(g)
    }

    /// Warp's `tile_view`: the view aliases the source, writing through it updates the source.
    pub fn tile_view(self, offset: &[SliceArg], shape: Option<&[usize]>) -> ViewResult<Self> {
        let g = self.geom.tile_view(offset, shape);
        self.with(g)
    }

    /// CuTe's `local_tile` / MoYe's `@tile`.
    pub fn local_tile(self, tiler: &Tiler<i64>, coord: &HTuple<i64>) -> ViewResult<Self> {
        let g = self.geom.local_tile(tiler, coord);
        self.with(g)
    }

    /// CuTe's `local_partition` / MoYe's `@parallelize`.
    pub fn local_partition(self, threads: impl Into<Threads>, thread: &HTuple<i64>) -> ViewResult<Self> {
        let g = self.geom.local_partition(&threads.into(), thread);
        self.with(g)
    }
}

impl<T> Tensor<T> {
    /// A view of the whole tensor.
    pub fn view(&self) -> TensorView<'_, T> {
        TensorView {
            data: &self.data,
            geom: self.geom.clone(),
        }
    }

    /// A mutable view of the whole tensor.
    pub fn view_mut(&mut self) -> TensorViewMut<'_, T> {
        TensorViewMut {
            data: &mut self.data,
            geom: self.geom.clone(),
        }
    }
}
