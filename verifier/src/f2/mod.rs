//! The F2 engine: layouts that are affine maps over GF(2) on the bits of the index
//! (Triton's linear-layout view of CuTe layouts), decided by linear algebra on bit matrices.
//!
//! # The fragment
//!
//! A concrete function is represented exactly by [`F2Layout`] (offset = `M·i ⊕ b` on the bits
//! of the index `i < 2^n`) when:
//!
//! * every leaf of the shape is a power of two, so that the index is the concatenation of the
//!   leaves' coordinates (colexicographic: leaf `k` owns the bits `p_k .. p_k + log2 s_k`);
//! * **integer strides**: every stride is zero or a positive power of two, and the images of
//!   the index bits (`2^j·d_k` for bit `j` of leaf `k`) are pairwise distinct where non-zero.
//!   Then no two set index bits ever add into the same offset bit, so the integer sum is the
//!   XOR. `(2,2):(1,1)` is outside (`L(3) = 2`, not `1 ⊕ 1 = 0`), and so are `(4):(3)` (odd
//!   stride) and `(3):(1)` (not a power of two);
//! * **`F2` strides**: leaves XOR by definition, but within a leaf a coordinate scales the
//!   stride by integer multiplication, so the shifted strides `v·2^j` of one leaf must be
//!   pairwise disjoint (`F2(3)` on a leaf of 4 is outside: `3·3 = 9`, not `3 ⊕ 6 = 5`);
//! * **composed layouts** `Sw(o + L(i))`: `L` in the fragment, `o >= 0` and `o`'s bits
//!   disjoint from every bit `L` can set (then `o + L(i) = o ⊕ L(i)`). Any swizzle
//!   `x ⊕ ((x & yyy) >> s)` is linear over GF(2) whatever its bits (it is `x ⊕ A·x`), so a
//!   swizzle whose bits overlap the strides' bits is inside: the answer stays exact.
//!
//! Anything else is [`NotInFragment`] with the reason, and the caller asks another engine:
//! nothing is refused for not being a power of two. Coordinate-valued layouts are outside.

pub mod bank;
mod compare;
mod engine;
mod image;
pub mod matrix;

pub use bank::{F2Bank, bank_degree};
pub(crate) use engine::{answer, decides};
pub use matrix::{BitMatrix, MAX_BITS};

use crate::func::{Concrete, Func};
use std::collections::HashMap;
use tessera_ir::{Int, Layout, Stride};

/// Why a function is outside the F2 fragment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotInFragment(pub String);

impl std::fmt::Display for NotInFragment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "not in the F2 fragment: {}", self.0)
    }
}

/// A value of the fragment, or why there is none.
pub type Fragment<T> = Result<T, NotInFragment>;

fn outside<T>(why: String) -> Fragment<T> {
    Err(NotInFragment(why))
}

/// An affine map over GF(2) from the `n` bits of the index to the bits of the offset:
/// `offset(i) = matrix·i ⊕ constant` for every `i < 2^n`, exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct F2Layout {
    /// The linear part: column `j` is the offset bit pattern index bit `j` contributes.
    pub matrix: BitMatrix,
    /// The offset of index 0.
    pub constant: u64,
}

/// `log2 s` when `s` is a positive power of two.
fn log2_exact(s: i64) -> Option<u32> {
    (s > 0 && s & (s - 1) == 0).then(|| s.trailing_zeros())
}

impl F2Layout {
    /// The function at no parameters ([`Func::at`] with none bound), when in the fragment.
    pub fn from_func(f: &Func) -> Fragment<F2Layout> {
        // The common miss, told before instantiating anything: an extent that is no power of
        // two.
        if let Some(s) = f
            .shape()
            .leaves()
            .iter()
            .filter_map(|s| s.as_const())
            .find(|&s| log2_exact(s).is_none())
        {
            return outside(format!("the extent {s} is not a power of two"));
        }
        match f.at(&HashMap::new()) {
            Ok(c) => F2Layout::from_concrete(&c),
            Err(e) => outside(format!("{f} is not concrete: {e}")),
        }
    }

    /// A concrete function, when in the fragment (see the module documentation).
    pub fn from_concrete(c: &Concrete) -> Fragment<F2Layout> {
        match c {
            Concrete::Layout(l) => from_layout(l),
            Concrete::Composed(cl) => {
                let inner = from_layout(&cl.inner)?;
                let o = u64::try_from(cl.offset)
                    .map_err(|_| NotInFragment(format!("negative offset {}", cl.offset)))?;
                let reach = inner.matrix.support() | inner.constant;
                if o & reach != 0 {
                    return outside(format!(
                        "the offset {o} shares bits with the values of {}: the sum carries",
                        cl.inner
                    ));
                }
                let x = F2Layout {
                    matrix: inner.matrix,
                    constant: inner.constant | o,
                };
                Ok(match cl.swizzle {
                    None => x,
                    Some(s) => {
                        // `apply` is `x ^ ((x & yyy) >> s)`: linear, so it maps each column
                        // and the constant. Values stay below bit 63, where it is defined.
                        let sw = |v: u64| s.apply(v as i64) as u64;
                        F2Layout {
                            matrix: x.matrix.map_cols(sw),
                            constant: sw(x.constant),
                        }
                    }
                })
            }
        }
    }

    /// The number of index bits: the size is `2^inputs`.
    pub fn inputs(&self) -> u32 {
        self.matrix.inputs()
    }

    /// The offset of index `i < 2^inputs`.
    pub fn eval(&self, i: u64) -> u64 {
        self.matrix.apply(i) ^ self.constant
    }

    /// The rank of the linear part.
    pub fn rank(&self) -> u32 {
        self.matrix.rank()
    }

    /// Distinct indices reach distinct offsets: the rank is the number of index bits.
    pub fn injective(&self) -> bool {
        self.rank() == self.inputs()
    }

    /// Two distinct indices with the same offset (`0` and a non-zero kernel vector), when the
    /// map is not injective.
    pub fn collision(&self) -> Option<(u64, u64)> {
        self.matrix.echelon().kernel.first().map(|&z| (0, z))
    }

    /// Whether the image is all of `[0, 2^k)` (and nothing else): the constant and every
    /// column lie below bit `k` and the rank is `k`. With `k = inputs` this is a bijection of
    /// `[0, size)`; a map whose image is a subspace of the offsets that is not an initial
    /// interval (`(4):(2)`, image `{0,2,4,6}`) is not surjective onto anything but `{0}`.
    pub fn surjective_onto(&self, k: u32) -> bool {
        let high = if k >= 64 { 0 } else { !((1u64 << k) - 1) };
        (self.matrix.support() | self.constant) & high == 0 && self.rank() == k
    }

    /// A left inverse when injective: `L⁻¹(L(i)) = i` for every index `i`; its inputs are the
    /// offset bits up to the highest pivot, and offsets outside the image map somewhere.
    pub fn left_inverse(&self) -> Option<F2Layout> {
        let n = self.matrix.left_inverse()?;
        Some(F2Layout {
            matrix: n,
            constant: n.apply(self.constant),
        })
    }

    /// `self ∘ inner` (`self(inner(i))`) when every value of `inner` is an index of `self`
    /// (below `2^self.inputs`); `None` otherwise, where `self` would be read past its size.
    pub fn compose(&self, inner: &F2Layout) -> Option<F2Layout> {
        let n = self.inputs();
        let high = if n >= 64 { 0 } else { !((1u64 << n) - 1) };
        if (inner.matrix.support() | inner.constant) & high != 0 {
            return None;
        }
        Some(F2Layout {
            matrix: self.matrix.compose(&inner.matrix),
            constant: self.eval(inner.constant),
        })
    }
}

/// A plain layout into the fragment.
fn from_layout(l: &Layout<i64>) -> Fragment<F2Layout> {
    let mut cols: Vec<u64> = Vec::new();
    for (s, d) in l.flat_shape().iter().zip(l.flat_stride()) {
        let Some(bits) = log2_exact(*s) else {
            return outside(format!("the extent {s} is not a power of two"));
        };
        if cols.len() + bits as usize > MAX_BITS - 1 {
            return outside(format!("{l} has more than 2^62 indices"));
        }
        let base = match d {
            Stride::Int(0) => 0,
            Stride::Int(v) if log2_exact(*v).is_some() => *v as u64,
            Stride::Int(v) => return outside(format!("the stride {v} is neither 0 nor a power of two")),
            Stride::F2(v) => *v,
            Stride::Basis(_) => return outside(format!("{l} is coordinate-valued")),
        };
        let mut leaf = 0u64;
        for j in 0..bits {
            let c = base.checked_shl(j).filter(|c| c >> j == base && *c < 1 << 62);
            let Some(c) = c else {
                return outside(format!("the stride {d} times {} overflows", 1u64 << j));
            };
            if c & leaf != 0 {
                return outside(format!(
                    "the stride {d} on the extent {s} carries: its multiples are not XORs"
                ));
            }
            leaf |= c;
            cols.push(c);
        }
    }
    // Integer strides add across leaves: the sum is the XOR only when the non-zero images of
    // the index bits are pairwise disjoint (they are powers of two: pairwise distinct).
    let int = l.flat_stride().iter().any(|d| matches!(d, Stride::Int(_)));
    if int {
        let mut seen = 0u64;
        for &c in &cols {
            if c & seen != 0 {
                return outside(format!(
                    "two index bits of {l} reach the offset bit {}: the sum carries",
                    c.trailing_zeros()
                ));
            }
            seen |= c;
        }
    }
    Ok(F2Layout {
        matrix: BitMatrix::from_cols(&cols),
        constant: 0,
    })
}
