//! The order in which copies and new tensors lay out their elements.

/// The order in which a copy lays out the elements of a view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemoryOrder {
    /// The last dimension is contiguous (C order, NumPy's default).
    RowMajor,
    /// The first dimension is contiguous (Fortran order, CuTe's compact layouts).
    ColumnMajor,
}
