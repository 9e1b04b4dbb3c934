//! Typed errors of tensors and views.
//!
//! Every view operation returns a [`ViewResult`]. The variants follow the error contracts of
//! tenferro's `TensorView` (seed `003_*`) and of Warp's `tile_view` (seed `000_*`); errors of
//! the layout algebra underneath (`zipped_divide` of a tile that does not divide, an `i64`
//! overflow) pass through as [`ViewError::Algebra`].
//!
//! ```
//! use tessera_ir::view::{Tensor, MemoryOrder, ViewError};
//! let t = Tensor::<f64>::zeros(&[3, 4], MemoryOrder::ColumnMajor).unwrap();
//! let e = t.view().select(2, 0).unwrap_err();
//! assert!(matches!(e, ViewError::AxisOutOfRange { axis: 2, ndim: 2 }));
//! assert_eq!(e.to_string(), "axis 2 is out of range for a view of 2 dimensions");
//! ```

use crate::error::Error;

/// The result type of the view API.
pub type ViewResult<T> = Result<T, ViewError>;

/// An error of a tensor or view operation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ViewError {
    /// `permute`: the argument is not a permutation of `0..ndim`.
    #[error("{perm:?} is not a permutation of 0..{ndim}")]
    InvalidPermutation {
        /// The rejected argument.
        perm: Vec<usize>,
        /// The number of dimensions of the view.
        ndim: usize,
    },
    /// `broadcast`: a dimension is neither equal to its target nor 1, or the target has
    /// fewer dimensions than the view.
    #[error("cannot broadcast dimensions {dims:?} to {target:?}: {reason}")]
    IncompatibleBroadcast {
        /// The view's dimensions.
        dims: Vec<usize>,
        /// The requested dimensions.
        target: Vec<usize>,
        /// Which dimension failed and why.
        reason: String,
    },
    /// A dimension (axis) index is not below the number of dimensions.
    #[error("axis {axis} is out of range for a view of {ndim} dimensions")]
    AxisOutOfRange {
        /// The rejected axis.
        axis: usize,
        /// The number of dimensions of the view.
        ndim: usize,
    },
    /// `diagonal`: an axis appears twice among the pairs.
    #[error("axis {axis} appears more than once in the diagonal pairs")]
    DuplicateAxis {
        /// The repeated axis.
        axis: usize,
    },
    /// `diagonal`: the two paired dimensions have different sizes.
    #[error("diagonal pairs axis {a} (size {size_a}) with axis {b} (size {size_b}): sizes differ")]
    DiagonalSizeMismatch {
        /// The first axis.
        a: usize,
        /// The second axis.
        b: usize,
        /// The size of the first axis.
        size_a: usize,
        /// The size of the second axis.
        size_b: usize,
    },
    /// An index is outside its dimension (or a linear index outside the view).
    #[error("index {index} is out of range for {what} of size {size}")]
    IndexOutOfRange {
        /// What was indexed, e.g. `dimension 1` or `the view`.
        what: String,
        /// The rejected index.
        index: i64,
        /// The size of what was indexed.
        size: i64,
    },
    /// `narrow`: `start + len` is past the end of the dimension.
    #[error("narrow of axis {axis}: start {start} + length {len} is past its size {size}")]
    NarrowOutOfRange {
        /// The axis.
        axis: usize,
        /// The first index kept.
        start: usize,
        /// The number of indices kept.
        len: usize,
        /// The size of the axis.
        size: usize,
    },
    /// `tile_view` with a shape: `offset + shape` is past the extent of a dimension.
    #[error("offset {offset} + shape {extent} is past the size {size} of dimension {axis}")]
    TileOutOfExtent {
        /// The dimension.
        axis: usize,
        /// The origin of the tile in that dimension.
        offset: i64,
        /// The extent of the tile in that dimension.
        extent: usize,
        /// The size of that dimension.
        size: usize,
    },
    /// `tile_view` with a shape: an offset entry is a slice, which only the shapeless form
    /// accepts.
    #[error("offset entry {position} is a slice, but slices are not allowed with an explicit shape")]
    SliceWithShape {
        /// The position of the slice in the offset.
        position: usize,
    },
    /// `tile_view` with a shape: the offset or the shape does not have one entry per
    /// dimension.
    #[error("the {what} has {given} entries but the view has {ndim} dimensions")]
    TileRankMismatch {
        /// `offset` or `shape`.
        what: &'static str,
        /// The number of entries given.
        given: usize,
        /// The number of dimensions of the view.
        ndim: usize,
    },
    /// More slice or offset entries than dimensions.
    #[error("{given} indices for a view of {ndim} dimensions")]
    TooManyIndices {
        /// The number of entries given.
        given: usize,
        /// The number of dimensions of the view.
        ndim: usize,
    },
    /// A slice step of zero.
    #[error("slice step of dimension {axis} is zero")]
    ZeroStep {
        /// The dimension.
        axis: usize,
    },
    /// A view would have a dimension of size 0; layouts have positive extents.
    #[error("dimension {axis} of the view would be empty; empty views are not supported")]
    EmptyView {
        /// The dimension.
        axis: usize,
    },
    /// A range of a hierarchical mode that no layout can express (or that is too large to
    /// analyse element by element).
    #[error("{0}")]
    NotALayout(String),
    /// The layout has coordinate or `F2` strides; views and tensors need integer strides.
    #[error("views need integer strides, but {0} has coordinate or F2 strides")]
    NonIntegerStride(String),
    /// The layout reaches outside the buffer.
    #[error("layout {layout} reaches positions {min}..={max}, outside a buffer of {len} elements")]
    OutOfBuffer {
        /// The (composed) layout.
        layout: String,
        /// The smallest position reached (before any swizzle).
        min: i64,
        /// The largest position reached (before any swizzle).
        max: i64,
        /// The buffer length.
        len: usize,
    },
    /// A buffer or a source has the wrong number of elements.
    #[error("expected {expected} elements, got {got}")]
    LengthMismatch {
        /// The number needed.
        expected: usize,
        /// The number given.
        got: usize,
    },
    /// Two views that must have the same dimensions do not.
    #[error("dimensions {left:?} and {right:?} differ")]
    DimsMismatch {
        /// The destination's dimensions.
        left: Vec<usize>,
        /// The source's dimensions.
        right: Vec<usize>,
    },
    /// `local_partition`: a thread index or coordinate that the thread layout does not reach.
    #[error("{0}")]
    BadThread(String),
    /// A printer got a view of a rank it does not draw.
    #[error("{what} draws ranks {supported}, got rank {rank}")]
    UnsupportedRank {
        /// The printer.
        what: &'static str,
        /// The ranks it draws.
        supported: &'static str,
        /// The rank given.
        rank: usize,
    },
    /// An error of the layout algebra underneath (divides, overflow, malformed layouts).
    #[error(transparent)]
    Algebra(#[from] Error),
}

impl ViewError {
    /// An `i64` overflow in a view computation.
    pub(crate) fn overflow(what: impl Into<String>) -> Self {
        ViewError::Algebra(Error::Overflow(what.into()))
    }
}

impl From<ViewError> for Error {
    /// Algebra errors keep their type; the view-specific ones become [`Error::Invalid`] with
    /// the same message.
    fn from(e: ViewError) -> Self {
        match e {
            ViewError::Algebra(e) => e,
            e => Error::invalid(e.to_string()),
        }
    }
}

/// `usize -> i64`, as an overflow error when it does not fit.
pub(crate) fn to_i64(v: usize) -> ViewResult<i64> {
    i64::try_from(v).map_err(|_| ViewError::overflow(format!("{v} does not fit in i64")))
}

/// `i64 -> usize` for values known to be non-negative (sizes, positions).
pub(crate) fn to_usize(v: i64) -> ViewResult<usize> {
    usize::try_from(v).map_err(|_| ViewError::overflow(format!("{v} is not a valid size or position")))
}
