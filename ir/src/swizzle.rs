//! Swizzles `Sw<B,M,S>` and composed layouts `Sw<B,M,S> o off o L`.
//!
//! `Sw<B,M,S>` XORs the `B` bits above position `M + max(0,S)` into the bits `S` lower (or
//! higher, for a negative `S`): `x ^ ((x & yyy) >> S)` with `yyy = ((1<<B)-1) << (M+max(0,S))`.
//! It is an involution. A composed layout evaluates `Sw(off + L(c))`.
//!
//! ```
//! use tessera_ir::{Swizzle, ComposedLayout, parse_layout};
//! let sw = Swizzle::new(3, 0, 3).unwrap();
//! assert_eq!(sw.apply(0b001_000), 0b001_001);
//! assert_eq!(sw.apply(sw.apply(45)), 45);
//! let c = ComposedLayout::new(sw, 0, parse_layout("(8,8):(8,1)").unwrap());
//! assert_eq!(c.to_string(), "Sw<3,0,3> o (8,8):(8,1)");
//! assert_eq!(c.eval_index(&9).unwrap(), 9 ^ 1);
//! ```

use crate::error::{Error, Result};
use crate::int::Int;
use crate::layout::Layout;
use crate::stride::Stride;
use std::fmt;

/// The XOR swizzle `Sw<bits, base, shift>`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Swizzle {
    /// Number of bits XORed.
    pub bits: u32,
    /// Number of low bits left untouched.
    pub base: u32,
    /// Distance between the source and the target bits; negative shifts left.
    pub shift: i32,
}

impl Swizzle {
    /// A swizzle; `|shift| >= bits` so that source and target bits do not overlap, and all
    /// bits stay below bit 62.
    pub fn new(bits: i64, base: i64, shift: i64) -> Result<Self> {
        if bits < 0 || base < 0 {
            return Err(Error::invalid(format!(
                "Sw<{bits},{base},{shift}>: bits and base must be non-negative"
            )));
        }
        // Unsigned magnitudes and a wide sum: `shift` may be i64::MIN and the sum may exceed
        // i64 (both used to panic on user input such as `Sw<0,0,product(-9223372036854775807-1)>`).
        if shift.unsigned_abs() < bits.unsigned_abs() {
            return Err(Error::invalid(format!(
                "Sw<{bits},{base},{shift}>: |shift| must be at least bits, or the XORed bits overlap"
            )));
        }
        if bits as u128 + base as u128 + shift.unsigned_abs() as u128 > 62 {
            return Err(Error::invalid(format!(
                "Sw<{bits},{base},{shift}>: bits past bit 62"
            )));
        }
        Ok(Swizzle {
            bits: bits as u32,
            base: base as u32,
            shift: shift as i32,
        })
    }

    /// The mask of the source bits (`yyy`).
    pub fn src_mask(&self) -> i64 {
        ((1i64 << self.bits) - 1) << (self.base as i64 + self.shift.max(0) as i64)
    }

    /// The mask of the target bits (`zzz`).
    pub fn dst_mask(&self) -> i64 {
        ((1i64 << self.bits) - 1) << (self.base as i64 - self.shift.min(0) as i64)
    }

    /// `x ^ shiftr(x & yyy, shift)`.
    pub fn apply(&self, x: i64) -> i64 {
        let y = x & self.src_mask();
        let moved = if self.shift >= 0 {
            y >> self.shift
        } else {
            y << (-self.shift)
        };
        x ^ moved
    }
}

impl fmt::Display for Swizzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sw<{},{},{}>", self.bits, self.base, self.shift)
    }
}

/// `outer ∘ (offset + inner)`: a layout followed by an offset and a swizzle.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct ComposedLayout<I = i64> {
    /// The swizzle applied last; `None` for a plain offset.
    pub swizzle: Option<Swizzle>,
    /// The offset added to the inner layout's value.
    pub offset: I,
    /// The layout applied first.
    pub inner: Layout<I>,
}

impl<I: Int> ComposedLayout<I> {
    /// `sw o offset o inner`.
    pub fn new(sw: Swizzle, offset: impl Into<I>, inner: Layout<I>) -> Self {
        ComposedLayout {
            swizzle: Some(sw),
            offset: offset.into(),
            inner,
        }
    }

    /// The same swizzle and offset around another inner layout.
    pub fn with_inner(&self, inner: Layout<I>) -> Self {
        ComposedLayout {
            swizzle: self.swizzle,
            offset: self.offset.clone(),
            inner,
        }
    }

    fn outer(&self, v: &I) -> Result<I> {
        let x = self.offset.add(v)?;
        match self.swizzle {
            None => Ok(x),
            Some(sw) => {
                let c = x
                    .as_const()
                    .ok_or_else(|| Error::NotConstant(format!("swizzle of symbolic offset {x}")))?;
                Ok(I::lit(sw.apply(c)))
            }
        }
    }

    /// The inner layout's value as the integer the swizzle reads: an integer, or an `F2`
    /// value's bits (as lowering reads it); a coordinate cannot be swizzled.
    fn integer(&self, v: &Stride<I>) -> Result<I> {
        match v {
            Stride::Int(x) => Ok(x.clone()),
            Stride::F2(bits) => i64::try_from(*bits)
                .map(I::lit)
                .map_err(|_| Error::Overflow(format!("composed layout {self}: F2 value {bits} past i64"))),
            Stride::Basis(_) => Err(Error::invalid(format!(
                "composed layout {self}: inner layout is coordinate-valued"
            ))),
        }
    }

    /// Evaluates at an integral index.
    pub fn eval_index(&self, idx: &I) -> Result<I> {
        let v = self.inner.eval_index(idx)?;
        let v = self.integer(&v)?;
        self.outer(&v)
    }

    /// Evaluates at a coordinate of any form.
    pub fn eval(&self, crd: &crate::htuple::HTuple<I>) -> Result<I> {
        let v = self.inner.eval(crd)?;
        let v = self.integer(&v)?;
        self.outer(&v)
    }
}

impl<I: Int> fmt::Display for ComposedLayout<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(sw) = self.swizzle {
            write!(f, "{sw} o ")?;
        }
        if !self.offset.is(0) || self.swizzle.is_none() {
            fmt::Display::fmt(&self.offset, f)?;
            f.write_str(" o ")?;
        }
        fmt::Display::fmt(&self.inner, f)
    }
}
