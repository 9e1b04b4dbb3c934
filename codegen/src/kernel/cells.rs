//! Borrowed buffers: a tensor's elements in memory the caller owns (a NumPy array's), as
//! shared cells, so a compiled kernel can run on them without a copy.

use super::buffer::Buffer;
use super::ir::ElemType;
use half::slice::HalfFloatSliceExt;
use std::cell::Cell;

/// A tensor's buffer borrowed as cells (f16 and bf16 as their bits): what
/// `CompiledKernel::run_cells` runs on. The cells are not `Sync`, so no other thread holds them
/// while a run borrows them.
#[derive(Clone, Copy, Debug)]
pub enum Cells<'a> {
    /// `f32` elements.
    F32(&'a [Cell<f32>]),
    /// `f64` elements.
    F64(&'a [Cell<f64>]),
    /// `i32` elements.
    I32(&'a [Cell<i32>]),
    /// `i64` elements.
    I64(&'a [Cell<i64>]),
    /// `f16` elements, as their bits.
    F16(&'a [Cell<u16>]),
    /// `bf16` elements, as their bits.
    BF16(&'a [Cell<u16>]),
}

fn cells<T>(v: &mut [T]) -> &[Cell<T>] {
    Cell::from_mut(v).as_slice_of_cells()
}

impl<'a> Cells<'a> {
    /// The cells of an owned buffer.
    ///
    /// @pre none. @post the same element type and length as `b`.
    ///
    /// ```
    /// use tessera_codegen::kernel::{Buffer, Cells, ElemType};
    /// let mut b = Buffer::F16(vec![half::f16::ONE; 3]);
    /// let c = Cells::of(&mut b);
    /// assert_eq!((c.elem(), c.len()), (ElemType::F16, 3));
    /// ```
    pub fn of(b: &'a mut Buffer) -> Cells<'a> {
        match b {
            Buffer::F32(v) => Cells::F32(cells(v)),
            Buffer::F64(v) => Cells::F64(cells(v)),
            Buffer::I32(v) => Cells::I32(cells(v)),
            Buffer::I64(v) => Cells::I64(cells(v)),
            Buffer::F16(v) => Cells::F16(cells(v.reinterpret_cast_mut())),
            Buffer::BF16(v) => Cells::BF16(cells(v.reinterpret_cast_mut())),
        }
    }

    /// Its element type.
    pub fn elem(&self) -> ElemType {
        match self {
            Cells::F32(_) => ElemType::F32,
            Cells::F64(_) => ElemType::F64,
            Cells::I32(_) => ElemType::I32,
            Cells::I64(_) => ElemType::I64,
            Cells::F16(_) => ElemType::F16,
            Cells::BF16(_) => ElemType::BF16,
        }
    }

    /// Its number of elements.
    pub fn len(&self) -> usize {
        match self {
            Cells::F32(v) => v.len(),
            Cells::F64(v) => v.len(),
            Cells::I32(v) => v.len(),
            Cells::I64(v) => v.len(),
            Cells::F16(v) | Cells::BF16(v) => v.len(),
        }
    }

    /// Whether it has no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The address of its first element.
    pub fn address(&self) -> usize {
        match self {
            Cells::F32(v) => v.as_ptr() as usize,
            Cells::F64(v) => v.as_ptr() as usize,
            Cells::I32(v) => v.as_ptr() as usize,
            Cells::I64(v) => v.as_ptr() as usize,
            Cells::F16(v) | Cells::BF16(v) => v.as_ptr() as usize,
        }
    }

    /// The bytes it spans, `address..address + len * size`.
    pub fn span(&self) -> std::ops::Range<usize> {
        let a = self.address();
        a..a + self.len() * self.elem().bytes()
    }
}
