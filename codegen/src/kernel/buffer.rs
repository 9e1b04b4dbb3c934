//! Typed buffers: one tensor's elements, exactly `cosize` of them.

use super::ir::ElemType;
use half::{bf16, f16};

/// A tensor's buffer, of one element type.
#[derive(Clone, Debug, PartialEq)]
pub enum Buffer {
    /// `f32` elements.
    F32(Vec<f32>),
    /// `f64` elements.
    F64(Vec<f64>),
    /// `i32` elements.
    I32(Vec<i32>),
    /// `i64` elements.
    I64(Vec<i64>),
    /// `f16` elements.
    F16(Vec<f16>),
    /// `bf16` elements.
    BF16(Vec<bf16>),
}

impl Buffer {
    /// A buffer of `len` zeros of type `ty`.
    pub fn zeros(ty: ElemType, len: usize) -> Buffer {
        match ty {
            ElemType::F32 => Buffer::F32(vec![0.0; len]),
            ElemType::F64 => Buffer::F64(vec![0.0; len]),
            ElemType::I32 => Buffer::I32(vec![0; len]),
            ElemType::I64 => Buffer::I64(vec![0; len]),
            ElemType::F16 => Buffer::F16(vec![f16::ZERO; len]),
            ElemType::BF16 => Buffer::BF16(vec![bf16::ZERO; len]),
        }
    }

    /// Its element type.
    pub fn elem(&self) -> ElemType {
        match self {
            Buffer::F32(_) => ElemType::F32,
            Buffer::F64(_) => ElemType::F64,
            Buffer::I32(_) => ElemType::I32,
            Buffer::I64(_) => ElemType::I64,
            Buffer::F16(_) => ElemType::F16,
            Buffer::BF16(_) => ElemType::BF16,
        }
    }

    /// Its number of elements.
    pub fn len(&self) -> usize {
        match self {
            Buffer::F32(v) => v.len(),
            Buffer::F64(v) => v.len(),
            Buffer::I32(v) => v.len(),
            Buffer::I64(v) => v.len(),
            Buffer::F16(v) => v.len(),
            Buffer::BF16(v) => v.len(),
        }
    }

    /// Whether it has no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
