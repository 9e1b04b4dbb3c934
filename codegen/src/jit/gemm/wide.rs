//! The wide micro-kernels: Rust functions compiled for 256-bit (AVX2 + FMA) or 512-bit
//! (AVX-512F) vectors, picked at run time where the CPU has them, beside the Cranelift
//! micro-kernel (`super::micro`, 128-bit vectors only: Cranelift 0.135 has no wider ones).
//!
//! They compute on the packed panels only, whose layout the JIT-compiled packing fixes (A: `MR`
//! rows per `k`, B: `NR` columns per `k`, zero-padded), and leave the `MR x NR` tile of sums in
//! a scratch buffer, column after column (`T[r, c]` at `c * MR + r`); the JIT-compiled update
//! (`super::update`) adds it to C through C's offset expression. So arbitrary layouts stay the
//! compiled code's business, and these functions touch only the buffers of the blocking loops.
//!
//! **Rounding.** Each sum is the Cranelift kernel's, bit for bit: it starts at `+0.0` and takes
//! one fused multiply-add per `k`, in increasing `k` (`fma(a[r, k], b[c, k], acc)`: one
//! rounding, the product's operands commuted, which changes nothing). The vectors only run
//! several rows at once.
//!
//! **Shape.** A column of the tile is `NV` vectors of A's rows (16 lanes with AVX-512, 8 with
//! AVX2); each `k` loads them once and multiplies them by one broadcast of B per column, so a
//! tile keeps `NV * NR` accumulators in registers (24 of AVX-512's 32 at `32 x 12`, 12 of
//! AVX2's 16 at `16 x 6`) and reads B's values straight from memory.

/// A wide micro-kernel: depth `kc`, the A panel (`kc * MR` floats), the B panel (`kc * NR`
/// floats), the tile (`MR * NR` floats, written).
///
/// # Safety (of every such function)
///
/// The CPU has the kernel's features (see [`Wide::available`]); the panels hold `kc * MR` and
/// `kc * NR` readable floats; the tile holds `MR * NR` writable floats, disjoint from them.
pub(super) type WideFn = unsafe fn(usize, *const f32, *const f32, *mut f32);

/// The instruction sets a wide kernel is compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Wide {
    /// AVX-512F (512-bit vectors, 32 registers).
    Avx512,
    /// AVX2 and FMA (256-bit vectors, 16 registers).
    Avx2,
}

impl Wide {
    /// Whether this CPU runs the kernels of `self`.
    ///
    /// @pre none. @post the same answer on every call in a process; never true off x86-64.
    pub(super) fn available(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            match self {
                Wide::Avx512 => std::arch::is_x86_feature_detected!("avx512f"),
                Wide::Avx2 => {
                    std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = self;
            false
        }
    }

    /// The kernel of `self` for an `mr x nr` tile, where one is compiled (`None` otherwise,
    /// and off x86-64).
    ///
    /// @pre none. @post a function with the contract of [`WideFn`] for that tile; it may
    /// run only where [`Wide::available`].
    pub(super) fn kernel(self, mr: i64, nr: i64) -> Option<WideFn> {
        #[cfg(target_arch = "x86_64")]
        {
            let f: WideFn = match (self, mr, nr) {
                // The blockings `super::AVX512` and `super::AVX2` use; other tiles (32 x 14,
                // 48 x 8 measured no faster: docs/src/figures/kernels.md) are compiled only
                // where a blocking names them.
                (Wide::Avx512, 32, 12) => x86::avx512::<2, 12>,
                (Wide::Avx2, 16, 6) => x86::avx2::<2, 6>,
                _ => return None,
            };
            Some(f)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (self, mr, nr);
            None
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::{
        __m256, __m512, _mm256_fmadd_ps, _mm256_loadu_ps, _mm256_set1_ps, _mm256_setzero_ps,
        _mm256_storeu_ps, _mm512_fmadd_ps, _mm512_loadu_ps, _mm512_set1_ps, _mm512_setzero_ps,
        _mm512_storeu_ps,
    };

    /// The AVX-512 kernel of a `16 NV x NR` tile (see the module documentation).
    ///
    /// # Safety
    ///
    /// As [`super::WideFn`], with `MR = 16 * NV`; the CPU has AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn avx512<const NV: usize, const NR: usize>(
        kc: usize,
        a: *const f32,
        b: *const f32,
        tile: *mut f32,
    ) {
        let mut acc: [[__m512; NV]; NR] = [[_mm512_setzero_ps(); NV]; NR];
        let (mut a, mut b) = (a, b);
        for _ in 0..kc {
            let mut x = [_mm512_setzero_ps(); NV];
            for (v, x) in x.iter_mut().enumerate() {
                // SAFETY: `a` points at the current `k`'s `16 NV` floats of the A panel
                // (`kc * MR` readable floats, the caller's contract; `k < kc`).
                *x = unsafe { _mm512_loadu_ps(a.add(16 * v)) };
            }
            for (c, col) in acc.iter_mut().enumerate() {
                // SAFETY: `b` points at the current `k`'s `NR` floats of the B panel.
                let y = _mm512_set1_ps(unsafe { *b.add(c) });
                for (s, x) in col.iter_mut().zip(&x) {
                    *s = _mm512_fmadd_ps(*x, y, *s);
                }
            }
            // SAFETY: one `k` further inside the panels, or one past their ends after the last
            // `k` (never read then).
            unsafe {
                a = a.add(16 * NV);
                b = b.add(NR);
            }
        }
        for (c, col) in acc.iter().enumerate() {
            for (v, s) in col.iter().enumerate() {
                // SAFETY: `c * 16 NV + 16 v + 16 <= MR * NR`: inside the tile.
                unsafe { _mm512_storeu_ps(tile.add(c * 16 * NV + 16 * v), *s) };
            }
        }
    }

    /// The AVX2 kernel of an `8 NV x NR` tile (see the module documentation).
    ///
    /// # Safety
    ///
    /// As [`super::WideFn`], with `MR = 8 * NV`; the CPU has AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn avx2<const NV: usize, const NR: usize>(
        kc: usize,
        a: *const f32,
        b: *const f32,
        tile: *mut f32,
    ) {
        let mut acc: [[__m256; NV]; NR] = [[_mm256_setzero_ps(); NV]; NR];
        let (mut a, mut b) = (a, b);
        for _ in 0..kc {
            let mut x = [_mm256_setzero_ps(); NV];
            for (v, x) in x.iter_mut().enumerate() {
                // SAFETY: `a` points at the current `k`'s `8 NV` floats of the A panel.
                *x = unsafe { _mm256_loadu_ps(a.add(8 * v)) };
            }
            for (c, col) in acc.iter_mut().enumerate() {
                // SAFETY: `b` points at the current `k`'s `NR` floats of the B panel.
                let y = _mm256_set1_ps(unsafe { *b.add(c) });
                for (s, x) in col.iter_mut().zip(&x) {
                    *s = _mm256_fmadd_ps(*x, y, *s);
                }
            }
            // SAFETY: as in `avx512`.
            unsafe {
                a = a.add(8 * NV);
                b = b.add(NR);
            }
        }
        for (c, col) in acc.iter().enumerate() {
            for (v, s) in col.iter().enumerate() {
                // SAFETY: `c * 8 NV + 8 v + 8 <= MR * NR`: inside the tile.
                unsafe { _mm256_storeu_ps(tile.add(c * 8 * NV + 8 * v), *s) };
            }
        }
    }
}
