//! The bank-conflict degree of a linear access, from two ranks.
//!
//! # Derivation
//!
//! Take a question (design.md's model, [`crate::Bank`]) whose shared-memory layout `S` and
//! thread-value layout `TV` are in the fragment, with `TV`'s values indices of `S`. Then the
//! element offset `e(i) = S(TV(i))` is affine over GF(2) in the bits of the TV index
//! `i = t + T·v` (`T` threads, a power of two): the low `log2 T` bits are the thread, the
//! next `log2 vpa` the value within an access (`vpa = W/elem` values of `W` bytes), the rest
//! the access number.
//!
//! * **Well-formed accesses.** The values of one access are contiguous and the access
//!   aligned to `W` exactly when the columns of the `log2 vpa` value bits are `1, 2, 4, ...`
//!   and no other column, nor the constant, has a bit below `log2 vpa`. Otherwise the
//!   question is left to the exact analysis (which reports it as bad input).
//! * **Words.** The byte address is `a = e·elem = e << log2 elem` (`elem` divides `W`, a
//!   power of two), the first word `w0 = a >> 2`: a relabelling of bits, so `w0` is affine in
//!   `i` too. An access of `W >= 4` bytes covers the words `w0 .. w0 + W/4 - 1`; `w0` is a
//!   multiple of `W/4` (alignment), so word `w0 + j` lies in bank `(w0 mod 32) + j`: two
//!   words of the phase share a bank only with the same `j`, and they differ exactly when
//!   their `w0` differ. An access of `W < 4` bytes covers one word. Either way a phase costs
//!   the largest number of distinct `w0` with one residue mod 32; threads reading the same
//!   word count once (broadcast).
//! * **Phases.** A phase is an aligned group of `P = 32, 16, 8` threads (`W <= 4, 8, 16`;
//!   all `T` threads when `T < P`): its threads are the low `k = log2 min(P, T)` bits of `i`,
//!   the other bits fixed. So the phase's first words form a coset `c ⊕ Im A`, where `A` is
//!   the word map restricted to those `k` thread bits, and its banks are the low five bits,
//!   `π·w0`.
//! * **Degree.** Each bank that the coset reaches holds `|Im A ∩ ker π|` of its words (the
//!   fibres of a linear map on a coset all have the size of its kernel), so every phase of
//!   every access costs `2^(rank A - rank πA)` wavefronts: the constant `c` does not matter.
//!   A conflict is a thread vector `z` with `πAz = 0` and `Az != 0`: threads `0` and `z` of
//!   the first phase reach distinct words of one bank.
//!
//! The caller re-checks the figure by evaluating the first phase directly.

use super::{F2Layout, Fragment, outside};
use crate::bank::{Bank, Geometry, shape_of};
use crate::error::PResult;

/// The F2 engine's answer to a bank question.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct F2Bank {
    /// Wavefronts of every phase of every access (1 is conflict-free).
    pub degree: i64,
    /// Two threads of the first phase that reach distinct words of one bank, when
    /// `degree > 1`.
    pub pair: Option<(i64, i64)>,
}

/// The degree of a bank question whose layouts are in the fragment (see the derivation);
/// an error for a malformed question, [`super::NotInFragment`] for one the ranks do not
/// decide.
pub fn bank_degree(b: &Bank) -> PResult<Fragment<F2Bank>> {
    let g = shape_of(b)?;
    Ok(degree_of(b, &g))
}

fn degree_of(b: &Bank, g: &Geometry) -> Fragment<F2Bank> {
    let smem = F2Layout::from_concrete(&g.smem)?;
    let tv = F2Layout::from_concrete(&g.tv)?;
    let Some(e) = smem.compose(&tv) else {
        return outside("the thread-value layout reaches past the shared-memory layout's size".into());
    };
    let tb = g.threads.trailing_zeros();
    let vb = g.vpa.trailing_zeros();
    let low = (1u64 << vb) - 1;
    let cols = e.matrix.cols();
    let contiguous = cols.iter().enumerate().all(|(j, &c)| {
        let j = j as u32;
        if (tb..tb + vb).contains(&j) {
            c == 1 << (j - tb)
        } else {
            c & low == 0
        }
    });
    if !contiguous || e.constant & low != 0 {
        return outside("an access is not contiguous or not aligned".into());
    }
    if (e.matrix.support() | e.constant) >> 57 != 0 {
        return outside("byte addresses past 2^61".into());
    }
    let le = b.elem.trailing_zeros();
    let word = |x: u64| (x << le) >> 2;
    let k = g.phase.min(g.threads).trailing_zeros() as usize;
    let a = super::BitMatrix::from_cols(&cols[..k]).map_cols(word);
    let banks = a.map_cols(|w| w & 31);
    let (ra, rb) = (a.rank(), banks.rank());
    let pair = banks
        .echelon()
        .kernel
        .into_iter()
        .find(|&z| a.apply(z) != 0)
        .map(|z| (0, z as i64));
    Ok(F2Bank {
        degree: 1 << (ra - rb),
        pair,
    })
}
