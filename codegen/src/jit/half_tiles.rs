//! Tiles of 16-bit floats converted in bulk, outside Cranelift code: the helpers a compiled
//! loop nest calls to widen a run of contiguous `f16`/`bf16` elements into an `f32` scratch
//! tile before it computes, and to narrow the result tile back after.
//!
//! Cranelift 0.135 has no half-precision conversion instruction, so the JIT's own conversions
//! (`crate::jit::convert`) take some 16 integer vector operations per element. Here:
//! * `f16` on x86-64 with F16C (and AVX), detected at run time: `vcvtph2ps` / `vcvtps2ph`
//!   (eight lanes, round to nearest even), the CPU's own instructions;
//! * everywhere else, and `bf16` always (x86 has no exact `bf16` narrowing: AVX512-BF16
//!   flushes subnormals), the reference interpreter's conversions
//!   ([`crate::kernel::f16_to_f32`] and its siblings) in a loop, which the compiler vectorises.
//!
//! Both give the interpreter's bits for every input, NaN included: widening a NaN keeps its
//! sign and payload and sets the quiet bit, as `vcvtph2ps` does; narrowing keeps the sign and
//! the payload's top bits, quiet, as `vcvtps2ph` does (a computed store has already made its
//! NaN canonical, see `crate::jit::nan`). The tests try every `f16` bit pattern and the
//! halfway points of every pair of neighbours on both routines.
//!
//! The helpers take raw pointers (the JIT calls them with the addresses of proved ranges and
//! of its scratch tiles), so this module has its own `unsafe`, each use with its reason; the
//! safe [`widen`] and [`narrow`] are what Rust code (the tests) calls.

use crate::kernel::{bf16_to_f32, f16_to_f32, f32_to_bf16, f32_to_f16};

/// Which conversion a helper performs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Routine {
    /// `f16` with the CPU's conversion instructions (x86 F16C; only where [`has_f16c`]).
    F16Hardware,
    /// `f16` with the interpreter's conversions.
    F16Software,
    /// `bf16` with the interpreter's conversions.
    Bf16Software,
}

/// A widening helper as compiled code calls it: `n` elements from `src` into `dst`.
pub(crate) type WidenFn = unsafe extern "C" fn(*const u16, *mut f32, i64);

/// A narrowing helper as compiled code calls it: `n` elements from `src` into `dst`.
pub(crate) type NarrowFn = unsafe extern "C" fn(*const f32, *mut u16, i64);

/// Whether this CPU converts `f16` in hardware (x86-64 F16C with AVX).
///
/// @pre none. @post the same answer on every call in a process.
pub(crate) fn has_f16c() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("f16c") && std::arch::is_x86_feature_detected!("avx")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

impl Routine {
    /// The routine for 16-bit elements of `f16` (`bf16` when `brain`), hardware where this CPU
    /// has it and `software` does not forbid it.
    ///
    /// @pre none. @post never [`Routine::F16Hardware`] unless [`has_f16c`].
    pub(crate) fn pick(brain: bool, software: bool) -> Routine {
        match (brain, software || !has_f16c()) {
            (true, _) => Routine::Bf16Software,
            (false, true) => Routine::F16Software,
            (false, false) => Routine::F16Hardware,
        }
    }

    /// The widening helper's address.
    ///
    /// @pre none. @post a function of type [`WidenFn`] with this routine's contract.
    pub(crate) fn widen_fn(self) -> WidenFn {
        match self {
            Routine::F16Hardware => widen_f16_hardware,
            Routine::F16Software => widen_f16_software,
            Routine::Bf16Software => widen_bf16_software,
        }
    }

    /// The narrowing helper's address.
    ///
    /// @pre none. @post a function of type [`NarrowFn`] with this routine's contract.
    pub(crate) fn narrow_fn(self) -> NarrowFn {
        match self {
            Routine::F16Hardware => narrow_f16_hardware,
            Routine::F16Software => narrow_f16_software,
            Routine::Bf16Software => narrow_bf16_software,
        }
    }
}

/// `dst[k]` = the `f32` value of the 16-bit float with bits `src[k]`, exactly (the
/// interpreter's widening), by `r` (the hardware routine falls back to software on a CPU
/// without F16C).
///
/// @pre `src.len() == dst.len()` (else only the common prefix is converted).
/// @post every converted element has the bits [`crate::kernel::f16_to_f32`] (or
/// [`crate::kernel::bf16_to_f32`]) gives.
pub(crate) fn widen(r: Routine, src: &[u16], dst: &mut [f32]) {
    match r {
        #[cfg(target_arch = "x86_64")]
        Routine::F16Hardware if has_f16c() => {
            // SAFETY: the CPU has AVX and F16C (checked on the line above).
            unsafe { x86::widen_f16(src, dst) }
        }
        Routine::F16Hardware | Routine::F16Software => {
            for (d, s) in dst.iter_mut().zip(src) {
                *d = f16_to_f32(*s);
            }
        }
        Routine::Bf16Software => {
            for (d, s) in dst.iter_mut().zip(src) {
                *d = bf16_to_f32(*s);
            }
        }
    }
}

/// `dst[k]` = the bits of the 16-bit float nearest `src[k]` (ties to even, the interpreter's
/// narrowing), by `r` (the hardware routine falls back to software on a CPU without F16C).
///
/// @pre `src.len() == dst.len()` (else only the common prefix is converted).
/// @post every converted element has the bits [`crate::kernel::f32_to_f16`] (or
/// [`crate::kernel::f32_to_bf16`]) gives.
pub(crate) fn narrow(r: Routine, src: &[f32], dst: &mut [u16]) {
    match r {
        #[cfg(target_arch = "x86_64")]
        Routine::F16Hardware if has_f16c() => {
            // SAFETY: the CPU has AVX and F16C (checked on the line above).
            unsafe { x86::narrow_f16(src, dst) }
        }
        Routine::F16Hardware | Routine::F16Software => {
            for (d, s) in dst.iter_mut().zip(src) {
                *d = f32_to_f16(*s);
            }
        }
        Routine::Bf16Software => {
            for (d, s) in dst.iter_mut().zip(src) {
                *d = f32_to_bf16(*s);
            }
        }
    }
}

/// The slices behind a helper's pointers.
///
/// # Safety
///
/// `src` points to `n` readable, initialised `S` and `dst` to `n` writable `D`, both aligned,
/// the two ranges disjoint, and nothing else accesses them during the call; `n >= 0`.
unsafe fn slices<'a, S, D>(src: *const S, dst: *mut D, n: i64) -> (&'a [S], &'a mut [D]) {
    let n = usize::try_from(n).unwrap_or(0);
    // SAFETY: the contract.
    unsafe {
        (
            std::slice::from_raw_parts(src, n),
            std::slice::from_raw_parts_mut(dst, n),
        )
    }
}

/// How far past a widening helper's source it asks for the memory the next calls read, in
/// bytes (two chunks of `f16`: `crate::jit::kernel::staging`'s chunks run 512 elements).
const WIDEN_AHEAD: usize = 2048;

/// How far past a narrowing helper's destination it asks for the memory the next calls
/// write, in bytes (four chunks of `f16`).
const NARROW_AHEAD: usize = 4096;

/// Asks the CPU to bring into its caches the `bytes` bytes that start `ahead` bytes past `p`,
/// a cache line at a time: a chunk's elements are contiguous with the next chunk's along a
/// row (and, row-major, with the next row's), so while the compiled loop computes, the next
/// chunks' source and destination arrive from memory. A hint only: x86's `prefetcht0` never
/// faults and changes no value the program sees, so the addresses may lie past the buffer
/// (they are formed with `wrapping_add`, never dereferenced). Elsewhere nothing.
///
/// @pre none (any address, any length). @post no memory the program reads has changed.
fn prefetch<T>(p: *const T, bytes: usize, ahead: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let p = p.cast::<i8>().wrapping_add(ahead);
        for line in (0..bytes).step_by(64) {
            // SAFETY: SSE is part of x86-64's baseline; a prefetch reads nothing the program
            // sees and never faults, whatever the address.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(line)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (p, bytes, ahead);
}

/// The bytes of `n` elements of `T` (none for a negative `n`).
///
/// @pre none. @post `span::<T>(n) == max(n, 0) * size_of::<T>()` (saturating).
fn span<T>(n: i64) -> usize {
    usize::try_from(n).unwrap_or(0).saturating_mul(size_of::<T>())
}

// The helpers compiled code calls. Contract of each (the JIT keeps it: `src` is a run of
// elements the kernel's proof puts inside a buffer and proves contiguous, or a scratch tile of
// the calling frame; `dst` the other; `n` at most the tile's length): as `slices`, and for the
// hardware routines, the CPU has AVX and F16C (the JIT picks them only after `has_f16c`).

/// # Safety
///
/// As `slices`; the CPU has AVX and F16C.
unsafe extern "C" fn widen_f16_hardware(src: *const u16, dst: *mut f32, n: i64) {
    // SAFETY: the helper's contract.
    let (s, d) = unsafe { slices(src, dst, n) };
    prefetch(src, span::<u16>(n), WIDEN_AHEAD);
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the helper's contract: the CPU has AVX and F16C.
    unsafe {
        x86::widen_f16(s, d)
    }
    #[cfg(not(target_arch = "x86_64"))]
    widen(Routine::F16Software, s, d);
}

/// # Safety
///
/// As `slices`; the CPU has AVX and F16C.
unsafe extern "C" fn narrow_f16_hardware(src: *const f32, dst: *mut u16, n: i64) {
    // SAFETY: the helper's contract.
    let (s, d) = unsafe { slices(src, dst, n) };
    prefetch(dst, span::<u16>(n), NARROW_AHEAD);
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the helper's contract: the CPU has AVX and F16C.
    unsafe {
        x86::narrow_f16(s, d)
    }
    #[cfg(not(target_arch = "x86_64"))]
    narrow(Routine::F16Software, s, d);
}

/// # Safety
///
/// As `slices`.
unsafe extern "C" fn widen_f16_software(src: *const u16, dst: *mut f32, n: i64) {
    // SAFETY: the helper's contract.
    let (s, d) = unsafe { slices(src, dst, n) };
    prefetch(src, span::<u16>(n), WIDEN_AHEAD);
    widen(Routine::F16Software, s, d);
}

/// # Safety
///
/// As `slices`.
unsafe extern "C" fn narrow_f16_software(src: *const f32, dst: *mut u16, n: i64) {
    // SAFETY: the helper's contract.
    let (s, d) = unsafe { slices(src, dst, n) };
    prefetch(dst, span::<u16>(n), NARROW_AHEAD);
    narrow(Routine::F16Software, s, d);
}

/// # Safety
///
/// As `slices`.
unsafe extern "C" fn widen_bf16_software(src: *const u16, dst: *mut f32, n: i64) {
    // SAFETY: the helper's contract.
    let (s, d) = unsafe { slices(src, dst, n) };
    prefetch(src, span::<u16>(n), WIDEN_AHEAD);
    widen(Routine::Bf16Software, s, d);
}

/// # Safety
///
/// As `slices`.
unsafe extern "C" fn narrow_bf16_software(src: *const f32, dst: *mut u16, n: i64) {
    // SAFETY: the helper's contract.
    let (s, d) = unsafe { slices(src, dst, n) };
    prefetch(dst, span::<u16>(n), NARROW_AHEAD);
    narrow(Routine::Bf16Software, s, d);
}

/// F16C: eight lanes per instruction; a partial group goes through a zero-padded array.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::{
        __m128i, __m256, _MM_FROUND_TO_NEAREST_INT, _mm_loadu_si128, _mm_storeu_si128, _mm256_cvtph_ps,
        _mm256_cvtps_ph, _mm256_loadu_ps, _mm256_storeu_ps,
    };

    /// Eight `f16` widened.
    #[target_feature(enable = "avx,f16c")]
    fn widen8(h: &[u16; 8], f: &mut [f32; 8]) {
        // SAFETY: 16 readable bytes at `h` and 32 writable at `f` (the arrays); unaligned forms.
        unsafe {
            let x = _mm_loadu_si128(h.as_ptr().cast::<__m128i>());
            _mm256_storeu_ps(f.as_mut_ptr(), _mm256_cvtph_ps(x));
        }
    }

    /// Eight `f32` narrowed, to nearest even (the immediate, not MXCSR's mode).
    #[target_feature(enable = "avx,f16c")]
    fn narrow8(f: &[f32; 8], h: &mut [u16; 8]) {
        // SAFETY: 32 readable bytes at `f` and 16 writable at `h` (the arrays); unaligned forms.
        unsafe {
            let x: __m256 = _mm256_loadu_ps(f.as_ptr());
            let r = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(x);
            _mm_storeu_si128(h.as_mut_ptr().cast::<__m128i>(), r);
        }
    }

    /// `dst[k] = widen(src[k])` over the common prefix.
    #[target_feature(enable = "avx,f16c")]
    pub(super) fn widen_f16(src: &[u16], dst: &mut [f32]) {
        let n = src.len().min(dst.len());
        let (src, dst) = (&src[..n], &mut dst[..n]);
        let mut s = src.chunks_exact(8);
        let mut d = dst.chunks_exact_mut(8);
        for (h, f) in (&mut s).zip(&mut d) {
            let (Ok(h), Ok(f)) = (<&[u16; 8]>::try_from(h), <&mut [f32; 8]>::try_from(f)) else {
                continue;
            };
            widen8(h, f);
        }
        let (rest, out) = (s.remainder(), d.into_remainder());
        if !rest.is_empty() {
            let (mut h, mut f) = ([0u16; 8], [0f32; 8]);
            h[..rest.len()].copy_from_slice(rest);
            widen8(&h, &mut f);
            out.copy_from_slice(&f[..out.len()]);
        }
    }

    /// `dst[k] = narrow(src[k])` over the common prefix.
    #[target_feature(enable = "avx,f16c")]
    pub(super) fn narrow_f16(src: &[f32], dst: &mut [u16]) {
        let n = src.len().min(dst.len());
        let (src, dst) = (&src[..n], &mut dst[..n]);
        let mut s = src.chunks_exact(8);
        let mut d = dst.chunks_exact_mut(8);
        for (f, h) in (&mut s).zip(&mut d) {
            let (Ok(f), Ok(h)) = (<&[f32; 8]>::try_from(f), <&mut [u16; 8]>::try_from(h)) else {
                continue;
            };
            narrow8(f, h);
        }
        let (rest, out) = (s.remainder(), d.into_remainder());
        if !rest.is_empty() {
            let (mut f, mut h) = ([0f32; 8], [0u16; 8]);
            f[..rest.len()].copy_from_slice(rest);
            narrow8(&f, &mut h);
            out.copy_from_slice(&h[..out.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROUTINES: [Routine; 2] = [Routine::F16Hardware, Routine::F16Software];

    /// Every f16 bit pattern widens to the interpreter's bits on both routines, at every
    /// position of a group of eight (and through the partial last group).
    #[test]
    fn every_f16_widens_as_the_interpreter() {
        let src: Vec<u16> = (0..=u16::MAX).collect();
        for r in ROUTINES {
            for skip in [0usize, 3] {
                let s = &src[skip..];
                let mut dst = vec![0f32; s.len()];
                widen(r, s, &mut dst);
                for (h, f) in s.iter().zip(&dst) {
                    assert_eq!(f.to_bits(), f16_to_f32(*h).to_bits(), "{r:?} h = {h:#06x}");
                }
            }
        }
    }

    /// Every bf16 bit pattern widens to the interpreter's bits.
    #[test]
    fn every_bf16_widens_as_the_interpreter() {
        let src: Vec<u16> = (0..=u16::MAX).collect();
        let mut dst = vec![0f32; src.len()];
        widen(Routine::Bf16Software, &src, &mut dst);
        for (h, f) in src.iter().zip(&dst) {
            assert_eq!(f.to_bits(), bf16_to_f32(*h).to_bits(), "h = {h:#06x}");
        }
    }

    /// The f32 inputs that decide rounding: every f16 value (both signs), the halfway points
    /// between neighbours and one ulp either side of them, for f16's 13 dropped bits (and for
    /// bf16's 16), infinities, NaNs with payloads (quiet and signalling), f32 subnormals,
    /// the overflow threshold, and random bits.
    fn deciding_inputs(dropped: u32) -> Vec<f32> {
        let half = 1u32 << (dropped - 1);
        let mut v = Vec::new();
        for h in 0..=u16::MAX {
            let w = if dropped == 13 {
                f16_to_f32(h)
            } else {
                bf16_to_f32(h)
            };
            if w.is_nan() {
                continue;
            }
            let b = w.to_bits();
            for x in [b, b + half, b + half - 1, b + half + 1, b.wrapping_sub(1)] {
                v.push(f32::from_bits(x));
            }
        }
        for b in [
            0x7f80_0000u32,
            0x7f80_0001,
            0x7fc0_0000,
            0x7fbf_ffff,
            0x7fff_ffff,
            0x7f80_2000,
            0x0000_0001,
            0x007f_ffff,
            0x3380_0000,
            0x3300_0000,
            0x3300_0001,
            0x477f_efff,
            0x477f_f000,
            0x4780_0000,
        ] {
            v.push(f32::from_bits(b));
            v.push(f32::from_bits(b | 0x8000_0000));
        }
        let mut x = 0x9e37_79b9u32;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            v.push(f32::from_bits(x));
        }
        v
    }

    /// Narrowing gives the interpreter's bits (ties to even, overflow, NaN) on both routines,
    /// also from an odd position (the groups of eight shifted).
    #[test]
    fn narrowing_f16_matches_the_interpreter_at_every_deciding_input() {
        let src = deciding_inputs(13);
        for r in ROUTINES {
            for skip in [0usize, 5] {
                let s = &src[skip..];
                let mut dst = vec![0u16; s.len()];
                narrow(r, s, &mut dst);
                for (f, h) in s.iter().zip(&dst) {
                    assert_eq!(*h, f32_to_f16(*f), "{r:?} x = {:#010x}", f.to_bits());
                }
            }
        }
    }

    #[test]
    fn narrowing_bf16_matches_the_interpreter_at_every_deciding_input() {
        let src = deciding_inputs(16);
        let mut dst = vec![0u16; src.len()];
        narrow(Routine::Bf16Software, &src, &mut dst);
        for (f, h) in src.iter().zip(&dst) {
            assert_eq!(*h, f32_to_bf16(*f), "x = {:#010x}", f.to_bits());
        }
    }

    /// The helpers as compiled code calls them (raw pointers, lengths not a multiple of 8,
    /// zero), against the safe functions.
    #[test]
    fn the_extern_helpers_convert_exactly_n_elements() {
        let src: Vec<u16> = (0..37u16).map(|k| k.wrapping_mul(0x0f0f)).collect();
        for brain in [false, true] {
            for software in [false, true] {
                let r = Routine::pick(brain, software);
                assert!(r != Routine::F16Hardware || has_f16c());
                for n in [0usize, 1, 7, 8, 9, 37] {
                    let mut wide = vec![-1f32; 40];
                    // SAFETY: `n` elements readable and writable, disjoint vectors.
                    unsafe { (r.widen_fn())(src.as_ptr(), wide.as_mut_ptr(), n as i64) };
                    let mut want = vec![0f32; n];
                    widen(r, &src[..n], &mut want);
                    assert_eq!(
                        wide[..n].iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                        want.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
                    );
                    assert!(wide[n..].iter().all(|x| *x == -1.0), "wrote past n = {n}");
                    let mut back = vec![0xaaaau16; 40];
                    // SAFETY: as above.
                    unsafe { (r.narrow_fn())(wide.as_ptr(), back.as_mut_ptr(), n as i64) };
                    let mut want16 = vec![0u16; n];
                    narrow(r, &wide[..n], &mut want16);
                    assert_eq!(&back[..n], &want16[..]);
                    assert!(back[n..].iter().all(|x| *x == 0xaaaa), "wrote past n = {n}");
                }
            }
        }
    }
}
