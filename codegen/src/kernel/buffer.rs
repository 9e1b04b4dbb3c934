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

    /// A buffer of `len` zeros of type `ty`, or an error when the memory cannot be had (a
    /// fallible allocation: never an abort). A large one asks for huge pages
    /// ([`super::huge_pages::try_filled`]).
    ///
    /// ```
    /// use tessera_codegen::kernel::{Buffer, ElemType};
    /// assert_eq!(Buffer::try_zeros(ElemType::I32, 2).unwrap(), Buffer::I32(vec![0, 0]));
    /// assert!(Buffer::try_zeros(ElemType::F64, usize::MAX / 2).is_err());
    /// ```
    pub fn try_zeros(ty: ElemType, len: usize) -> Result<Buffer, std::collections::TryReserveError> {
        use super::huge_pages::try_filled as zeros;
        Ok(match ty {
            ElemType::F32 => Buffer::F32(zeros(len, 0.0)?),
            ElemType::F64 => Buffer::F64(zeros(len, 0.0)?),
            ElemType::I32 => Buffer::I32(zeros(len, 0)?),
            ElemType::I64 => Buffer::I64(zeros(len, 0)?),
            ElemType::F16 => Buffer::F16(zeros(len, f16::ZERO)?),
            ElemType::BF16 => Buffer::BF16(zeros(len, bf16::ZERO)?),
        })
    }

    /// A copy, or an error when the memory cannot be had (never an abort). A large one asks for
    /// huge pages, like [`Buffer::try_zeros`]: the copy a benchmark runs on is backed like the
    /// buffers it was made from.
    ///
    /// ```
    /// use tessera_codegen::kernel::Buffer;
    /// let b = Buffer::I64(vec![4, -5]);
    /// assert_eq!(b.try_copy().unwrap(), b);
    /// ```
    pub fn try_copy(&self) -> Result<Buffer, std::collections::TryReserveError> {
        use super::huge_pages::try_copied as copy;
        Ok(match self {
            Buffer::F32(v) => Buffer::F32(copy(v)?),
            Buffer::F64(v) => Buffer::F64(copy(v)?),
            Buffer::I32(v) => Buffer::I32(copy(v)?),
            Buffer::I64(v) => Buffer::I64(copy(v)?),
            Buffer::F16(v) => Buffer::F16(copy(v)?),
            Buffer::BF16(v) => Buffer::BF16(copy(v)?),
        })
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

    /// Its elements as little-endian bytes (f16 and bf16 as their bits), as a device or a
    /// `.npy` file holds them.
    ///
    /// ```
    /// use tessera_codegen::kernel::Buffer;
    /// assert_eq!(Buffer::I32(vec![1, -1]).to_le_bytes(), [1, 0, 0, 0, 255, 255, 255, 255]);
    /// ```
    pub fn to_le_bytes(&self) -> Vec<u8> {
        match self {
            Buffer::F32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Buffer::F64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Buffer::I32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Buffer::I64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Buffer::F16(v) => v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect(),
            Buffer::BF16(v) => v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect(),
        }
    }

    /// The buffer of `elem`s whose little-endian bytes are `bytes` (a trailing partial element
    /// is dropped): the inverse of [`Buffer::to_le_bytes`].
    ///
    /// ```
    /// use tessera_codegen::kernel::{Buffer, ElemType};
    /// let b = Buffer::F32(vec![1.5, -2.0]);
    /// assert_eq!(Buffer::from_le_bytes(ElemType::F32, &b.to_le_bytes()), b);
    /// ```
    pub fn from_le_bytes(elem: ElemType, bytes: &[u8]) -> Buffer {
        fn words<const N: usize>(b: &[u8]) -> impl Iterator<Item = [u8; N]> + '_ {
            b.chunks_exact(N).map(|c| {
                let mut w = [0u8; N];
                w.copy_from_slice(c);
                w
            })
        }
        match elem {
            ElemType::F32 => Buffer::F32(words(bytes).map(f32::from_le_bytes).collect()),
            ElemType::F64 => Buffer::F64(words(bytes).map(f64::from_le_bytes).collect()),
            ElemType::I32 => Buffer::I32(words(bytes).map(i32::from_le_bytes).collect()),
            ElemType::I64 => Buffer::I64(words(bytes).map(i64::from_le_bytes).collect()),
            ElemType::F16 => Buffer::F16(
                words(bytes)
                    .map(|w| f16::from_bits(u16::from_le_bytes(w)))
                    .collect(),
            ),
            ElemType::BF16 => Buffer::BF16(
                words(bytes)
                    .map(|w| bf16::from_bits(u16::from_le_bytes(w)))
                    .collect(),
            ),
        }
    }
}
