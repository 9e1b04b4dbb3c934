//! Tensors and views over CuTe layouts.
//!
//! A view is a buffer, a layout (hierarchical, possibly swizzled) and an element offset: the
//! element at coordinate `c` is `buffer[Sw(offset + L(c))]`, which is exactly a
//! [`ComposedLayout`](crate::ComposedLayout) `Sw o offset o L` over the buffer.
//!
//! * [`Tensor<T>`] owns its buffer; [`TensorView`] and [`TensorViewMut`] borrow one.
//! * The view operations are zero-copy: `select`, `narrow`, `permute`, `broadcast`
//!   (stride 0), `diagonal` (tenferro, seed `003_*`), Python-like slicing `t[2:4, ::-1]` and
//!   `tile_view` (Warp, seed `000_*`), `local_tile` and `local_partition` (CuTe, MoYe's
//!   `@tile` and `@parallelize`, seed `001_*`). Writing through a [`TensorViewMut`] writes
//!   the source.
//! * They are written once, as functions on composed layouts ([`select`], [`narrow`],
//!   [`slice()`], [`local_tile`], ...), which the views call and the expression language exposes
//!   (`tile_view((4,4):(4,1), (2,0), (2,4))` is `8 o (2,4):(4,1)`).
//! * Copies: `to_tensor` / `contiguous` in a [`MemoryOrder`], `conj` ([`Conj`]),
//!   [`identity_tensor`] and [`make_tensor`] (PyCuTe), and the text renderers
//!   [`print_tensor`] and [`print_table`].
//! * Errors are typed ([`ViewError`]).
//!
//! The dimensions of a view are the top-level modes of its layout; a hierarchical mode is one
//! dimension whose index is the colexicographic index of the mode.
//!
//! Warp's `replace_rows` example (seed `000_*`):
//!
//! ```
//! use tessera_ir::view::{Tensor, MemoryOrder};
//! let mut t = Tensor::from_shape_vec(&[4, 4], MemoryOrder::RowMajor, (0..16).map(|x| x as f32).collect()).unwrap();
//! let values = Tensor::from_shape_vec(&[2, 4], MemoryOrder::RowMajor, (100..108).map(|x| x as f32).collect()).unwrap();
//! let mut v = t.view_mut();
//! let mut rows = v.reborrow().tile_view(&[2.into(), 0.into()], Some(&[2, 4])).unwrap();
//! rows.assign(&values.view()).unwrap();
//! assert_eq!(t.data()[8..], [100., 101., 102., 103., 104., 105., 106., 107.]);
//! ```

mod borrowed;
mod copy;
mod error;
mod geometry;
mod leaves;
mod local;
mod ops;
mod order;
mod print;
mod range;
mod slicing;
mod tensor;

pub use borrowed::{TensorView, TensorViewMut};
pub use copy::Conj;
pub use error::{ViewError, ViewResult};
pub use geometry::compact_layout;
pub use leaves::{dims, unswizzled};
pub use local::{Threads, local_partition, local_partition_keep, local_tile, local_tile_keep};
pub use ops::{broadcast, diagonal, narrow, permute, select, strides};
pub use order::MemoryOrder;
pub use print::{Printable, format_table, format_tensor, print_table, print_tensor};
pub use range::FIT_LIMIT;
pub use slicing::{SliceArg, slice, tile_view};
pub use tensor::{Tensor, identity_tensor, make_tensor};
