//! Bit matrices over GF(2): up to 64 columns (the input bits), each a `u64` (the output
//! bits). Column `j` is the image of input bit `j`; a vector `x` maps to the XOR of the
//! columns of its set bits.

/// The most input bits of a [`BitMatrix`].
pub const MAX_BITS: usize = 64;

/// A linear map from `n <= 64` input bits to 64 output bits, stored by columns (no heap).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct BitMatrix {
    cols: [u64; MAX_BITS],
    n: u8,
}

impl std::fmt::Debug for BitMatrix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.cols().iter().map(|c| format!("{c:#x}")))
            .finish()
    }
}

/// A basis of the column space in reduced echelon form, with the input combination of each
/// basis vector and a basis of the kernel.
pub(crate) struct Echelon {
    /// `(pivot bit, vector, combination of input bits whose columns XOR to it)`; the pivot
    /// bit of each vector is set in no other vector.
    pub basis: Vec<(u32, u64, u64)>,
    /// Input combinations whose columns XOR to zero: a basis of the kernel.
    pub kernel: Vec<u64>,
}

impl BitMatrix {
    /// The matrix of the given columns.
    ///
    /// @pre `cols.len() <= 64`.
    pub fn from_cols(cols: &[u64]) -> BitMatrix {
        assert!(cols.len() <= MAX_BITS, "a bit matrix has at most 64 columns");
        let mut m = BitMatrix {
            cols: [0; MAX_BITS],
            n: cols.len() as u8,
        };
        m.cols[..cols.len()].copy_from_slice(cols);
        m
    }

    /// The columns: the images of the input bits.
    pub fn cols(&self) -> &[u64] {
        &self.cols[..usize::from(self.n)]
    }

    /// The number of input bits.
    pub fn inputs(&self) -> u32 {
        u32::from(self.n)
    }

    /// The OR of every column: the output bits the map can set.
    pub fn support(&self) -> u64 {
        self.cols().iter().fold(0, |a, c| a | c)
    }

    /// The image of the vector `x` (bits past the inputs are ignored).
    pub fn apply(&self, x: u64) -> u64 {
        let mut acc = 0;
        let mut rest = if self.n as usize == MAX_BITS {
            x
        } else {
            x & ((1u64 << self.n) - 1)
        };
        while rest != 0 {
            let j = rest.trailing_zeros() as usize;
            acc ^= self.cols[j];
            rest &= rest - 1;
        }
        acc
    }

    /// `self ∘ inner`: the columns of `inner` mapped by `self`.
    pub fn compose(&self, inner: &BitMatrix) -> BitMatrix {
        let mut m = *inner;
        for c in &mut m.cols[..usize::from(inner.n)] {
            *c = self.apply(*c);
        }
        m
    }

    /// Every column mapped by `f` (a bit relabelling such as a shift or a mask, which must
    /// be linear for the result to mean anything).
    pub fn map_cols(&self, f: impl Fn(u64) -> u64) -> BitMatrix {
        let mut m = *self;
        for c in &mut m.cols[..usize::from(self.n)] {
            *c = f(*c);
        }
        m
    }

    /// Gaussian elimination: the reduced echelon basis of the column space and a basis of
    /// the kernel.
    pub(crate) fn echelon(&self) -> Echelon {
        let mut basis: Vec<(u32, u64, u64)> = Vec::new();
        let mut kernel = Vec::new();
        for (j, &c) in self.cols().iter().enumerate() {
            let (mut v, mut comb) = (c, 1u64 << j);
            for &(p, b, bc) in &basis {
                if v >> p & 1 == 1 {
                    v ^= b;
                    comb ^= bc;
                }
            }
            if v == 0 {
                kernel.push(comb);
                continue;
            }
            let p = 63 - v.leading_zeros();
            // Keep the basis reduced: clear the new pivot from the older vectors.
            for e in &mut basis {
                if e.1 >> p & 1 == 1 {
                    e.1 ^= v;
                    e.2 ^= comb;
                }
            }
            basis.push((p, v, comb));
        }
        Echelon { basis, kernel }
    }

    /// The rank: the dimension of the column space.
    pub fn rank(&self) -> u32 {
        self.echelon().basis.len() as u32
    }

    /// A left inverse when the map is injective (rank = inputs): `N` with `N(self(x)) = x`
    /// for every input `x`, mapping every output bit that is not a pivot to zero.
    pub fn left_inverse(&self) -> Option<BitMatrix> {
        let e = self.echelon();
        if !e.kernel.is_empty() {
            return None;
        }
        let mut cols = [0u64; MAX_BITS];
        let mut top = 0;
        for &(p, _, comb) in &e.basis {
            cols[p as usize] = comb;
            top = top.max(p as usize + 1);
        }
        Some(BitMatrix::from_cols(&cols[..top]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_kernel_and_inverse() {
        let m = BitMatrix::from_cols(&[1, 2, 3]);
        assert_eq!(m.rank(), 2);
        let e = m.echelon();
        assert_eq!(e.kernel, vec![0b111]);
        assert_eq!(m.apply(0b111), 0);
        assert!(m.left_inverse().is_none());
        let m = BitMatrix::from_cols(&[0b110, 0b011, 0b100]);
        let n = m.left_inverse().unwrap();
        for x in 0..8 {
            assert_eq!(n.apply(m.apply(x)), x);
        }
        assert_eq!(n.compose(&m), BitMatrix::from_cols(&[1, 2, 4]));
    }
}
