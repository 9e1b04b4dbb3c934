//! Bands of a transpose of 4-byte elements, moved outside Cranelift code: the helper a
//! compiled copy ([`crate::CopyKernel`] in [`crate::CopyMode::TransposeWide`]) calls once per
//! band of rows, compiled for the CPU's 256-bit vectors (x86 AVX2, detected at run time).
//!
//! Cranelift 0.135 has 128-bit vectors only, so the copy's own in-register transpose moves
//! 4 x 4 blocks with 128-bit stores, which write a destination line in four pieces at four
//! times and make the processor read every destination line before writing it. Here a band
//! moves in blocks of 8 (rows) x 16 (columns): two 8 x 8 transposes in `ymm` registers, then
//! each destination row's 64 bytes stored back to back, with streaming (non-temporal) stores
//! where the row starts are 64-byte aligned, so that every destination line is written whole
//! and never read. A band goes through columns in chunks of [`CHUNK_COLUMNS`], so that the
//! chunk's source lines (one per column, `rows` elements each) stay in cache while its rows
//! are written.
//!
//! The band is `dst[i * ds + k] = src[i + k * ss]` for `i < rows`, `k < cols` (offsets in
//! elements): the copy takes this path only where the verifier proved the source contiguous
//! along the rows' coordinate with the constant step `ss` along the other, and the
//! destination contiguous along the columns' with the constant step `ds` along the rows', so
//! that these are exactly the offsets the index code gives, each proved inside its buffer.
//!
//! Streaming stores are weakly ordered: whoever runs the helper with streaming calls
//! [`fence`] before another thread may read the destination (the copy does, at the end of
//! each thread's share).
//!
//! The helpers take raw pointers (compiled code calls them with addresses of proved ranges),
//! so this module has its own `unsafe`, each use with its reason.

/// Columns of a band moved before the next chunk starts: 64 columns of a 128-row band read
/// 32 KiB of source, measured best on the machine of the figures (see the book).
pub(crate) const CHUNK_COLUMNS: usize = 64;

/// Rows of the bands the copy hands to the helper (its tile along the source's contiguous
/// coordinate): 128, measured best with [`CHUNK_COLUMNS`] (see the book).
pub(crate) const BAND_ROWS: i64 = 128;

/// A band helper as compiled code calls it: `(src, dst, rows, cols, ss, ds)`, the offsets in
/// elements (see the module documentation).
pub(crate) type BandFn = unsafe extern "C" fn(*const u32, *mut u32, i64, i64, i64, i64);

/// Whether this CPU has the helper's vectors (x86-64 AVX2).
///
/// @pre none. @post the same answer on every call in a process.
pub(crate) fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The band helper's address: with streaming stores where the destination rows allow them
/// (`stream`), else with ordinary stores.
///
/// @pre [`has_avx2`] (the helpers execute AVX2 instructions).
/// @post a function of type [`BandFn`] with the module's contract.
pub(crate) fn band_fn(stream: bool) -> BandFn {
    if stream { band_stream } else { band_cached }
}

/// Makes this thread's streaming stores visible before its later stores (x86 `sfence`; nothing
/// elsewhere, where the helpers are never used).
///
/// @pre none. @post every streaming store this thread issued before the call is ordered before
/// its later stores (and so before a join of the thread).
pub(crate) fn fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `sfence` is SSE, which every x86-64 CPU has.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

/// The band, by the safe slices of a test: `dst[i * ds + k] = src[i + k * ss]` for `i <
/// rows`, `k < cols`, by the helper (`stream` as [`band_fn`]) where the CPU has AVX2, else
/// element by element; the offsets are checked against the slices first.
///
/// @pre none. @post `dst` as the formula says, or `false` (nothing written) when an offset
/// falls outside a slice or a count is negative.
#[cfg(test)]
pub(crate) fn band(
    src: &[u32],
    dst: &mut [u32],
    (rows, cols): (i64, i64),
    (ss, ds): (i64, i64),
    stream: bool,
) -> bool {
    let inside = |len: usize, step_i: i64, step_k: i64| -> bool {
        if rows == 0 || cols == 0 {
            return true;
        }
        let corners = [
            0,
            step_i * (rows - 1),
            step_k * (cols - 1),
            step_i * (rows - 1) + step_k * (cols - 1),
        ];
        corners.iter().all(|c| usize::try_from(*c).is_ok_and(|c| c < len))
    };
    if rows < 0 || cols < 0 || !inside(src.len(), 1, ss) || !inside(dst.len(), ds, 1) {
        return false;
    }
    if rows == 0 || cols == 0 {
        return true;
    }
    if has_avx2() {
        // SAFETY: every offset of the band is inside its slice (the corners bound the affine
        // offsets), the slices are distinct borrows (so disjoint), and the CPU has AVX2.
        unsafe { band_fn(stream)(src.as_ptr(), dst.as_mut_ptr(), rows, cols, ss, ds) };
        fence();
    } else {
        for k in 0..cols {
            for i in 0..rows {
                dst[(i * ds + k) as usize] = src[(i + k * ss) as usize];
            }
        }
    }
    true
}

// The helpers compiled code calls. Contract of each: the CPU has AVX2; `rows, cols >= 0`;
// `src + i + k * ss` is a readable `u32` and `dst + i * ds + k` a writable one for every
// `i < rows`, `k < cols`, the written ones not read by the call, and nothing else accesses
// the written elements during the call. The copy keeps it: it takes this path only where
// those offsets are the index code's, proved inside the buffers (see the module
// documentation), and only after `has_avx2`.

/// # Safety
///
/// The helpers' contract.
unsafe extern "C" fn band_stream(src: *const u32, dst: *mut u32, rows: i64, cols: i64, ss: i64, ds: i64) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the helpers' contract.
    unsafe {
        x86::band(src, dst, [rows, cols, ss, ds], true)
    }
    #[cfg(not(target_arch = "x86_64"))]
    unreachable_band(src, dst, [rows, cols, ss, ds]);
}

/// # Safety
///
/// The helpers' contract.
unsafe extern "C" fn band_cached(src: *const u32, dst: *mut u32, rows: i64, cols: i64, ss: i64, ds: i64) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the helpers' contract.
    unsafe {
        x86::band(src, dst, [rows, cols, ss, ds], false)
    }
    #[cfg(not(target_arch = "x86_64"))]
    unreachable_band(src, dst, [rows, cols, ss, ds]);
}

/// Elsewhere than x86-64 the helpers are never picked ([`has_avx2`] is false); should one be
/// called, it copies nothing.
#[cfg(not(target_arch = "x86_64"))]
fn unreachable_band(_: *const u32, _: *mut u32, _: [i64; 4]) {}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::CHUNK_COLUMNS;
    use std::arch::x86_64::{
        __m256, _mm256_loadu_ps, _mm256_permute2f128_ps, _mm256_shuffle_ps, _mm256_storeu_ps,
        _mm256_stream_ps, _mm256_unpackhi_ps, _mm256_unpacklo_ps,
    };

    /// Eight rows of eight lanes transposed: lane `j` of output `i` is lane `i` of input `j`.
    #[target_feature(enable = "avx2")]
    fn transpose8(r: [__m256; 8]) -> [__m256; 8] {
        // Pairs of rows interleaved (t), pairs of pairs (u), then the 128-bit halves
        // exchanged.
        let t0 = _mm256_unpacklo_ps(r[0], r[1]);
        let t1 = _mm256_unpackhi_ps(r[0], r[1]);
        let t2 = _mm256_unpacklo_ps(r[2], r[3]);
        let t3 = _mm256_unpackhi_ps(r[2], r[3]);
        let t4 = _mm256_unpacklo_ps(r[4], r[5]);
        let t5 = _mm256_unpackhi_ps(r[4], r[5]);
        let t6 = _mm256_unpacklo_ps(r[6], r[7]);
        let t7 = _mm256_unpackhi_ps(r[6], r[7]);
        let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
        let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
        let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
        let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
        let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
        let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
        let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
        let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
        [
            _mm256_permute2f128_ps::<0x20>(u0, u4),
            _mm256_permute2f128_ps::<0x20>(u1, u5),
            _mm256_permute2f128_ps::<0x20>(u2, u6),
            _mm256_permute2f128_ps::<0x20>(u3, u7),
            _mm256_permute2f128_ps::<0x31>(u0, u4),
            _mm256_permute2f128_ps::<0x31>(u1, u5),
            _mm256_permute2f128_ps::<0x31>(u2, u6),
            _mm256_permute2f128_ps::<0x31>(u3, u7),
        ]
    }

    /// The 8 x 8 block at `s` (its eight source columns `ss` apart) transposed.
    ///
    /// # Safety
    ///
    /// `s + k * ss + j` readable for `k, j < 8`.
    #[target_feature(enable = "avx2")]
    unsafe fn block(s: *const f32, ss: isize) -> [__m256; 8] {
        // SAFETY: the contract; unaligned loads.
        let row = |k: isize| unsafe { _mm256_loadu_ps(s.offset(k * ss)) };
        transpose8([row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7)])
    }

    /// The band (see the module documentation); streaming stores where `stream` and the
    /// destination rows start 64-byte aligned after a peel of the same columns in every row.
    ///
    /// # Safety
    ///
    /// The helpers' contract, with `[rows, cols, ss, ds]`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn band(src: *const u32, dst: *mut u32, [rows, cols, ss, ds]: [i64; 4], stream: bool) {
        if rows <= 0 || cols <= 0 {
            return;
        }
        let (s, d) = (src.cast::<f32>(), dst.cast::<f32>());
        let (rows, cols, ss, ds) = (rows as usize, cols as usize, ss as isize, ds as isize);
        // Every row starts at the same offset within a line when the rows' distance is a
        // multiple of 64 bytes; peel the columns before the first line boundary.
        let lines_align = (ds * 4) % 64 == 0 && (d as usize).is_multiple_of(4);
        let stream = stream && lines_align;
        let head = if stream {
            ((64 - (d as usize) % 64) % 64 / 4).min(cols)
        } else {
            0
        };
        let body = (cols - head) / 16 * 16;
        let whole = rows / 8 * 8;
        // SAFETY (every access below): `s + i + k * ss` and `d + i * ds + k` with `i < rows`,
        // `k < cols`, readable and writable by the contract.
        let at = |i: usize, k: usize| unsafe {
            (
                s.offset(i as isize + k as isize * ss),
                d.offset(i as isize * ds + k as isize),
            )
        };
        let scalar = |cols: std::ops::Range<usize>, rows: std::ops::Range<usize>| {
            for k in cols {
                for i in rows.clone() {
                    let (p, q) = at(i, k);
                    // SAFETY: see above.
                    unsafe { q.write(p.read()) };
                }
            }
        };
        scalar(0..head, 0..rows);
        let mut c = head;
        while c < head + body {
            let end = (c + CHUNK_COLUMNS).min(head + body);
            for k in (c..end).step_by(16) {
                for i in (0..whole).step_by(8) {
                    let (p, q) = at(i, k);
                    // SAFETY: the 8 x 16 block's source elements `p + j + m * ss` (`j < 8`,
                    // `m < 16`) and destination elements `q + j * ds + m` are the band's
                    // (`i + 8 <= rows`, `k + 16 <= cols`).
                    unsafe {
                        let a = block(p, ss);
                        let b = block(p.offset(8 * ss), ss);
                        for j in 0..8 {
                            let row = q.offset(j as isize * ds);
                            if stream {
                                // `row` is 64-byte aligned: the peel and `lines_align`.
                                _mm256_stream_ps(row, a[j]);
                                _mm256_stream_ps(row.add(8), b[j]);
                            } else {
                                _mm256_storeu_ps(row, a[j]);
                                _mm256_storeu_ps(row.add(8), b[j]);
                            }
                        }
                    }
                }
            }
            scalar(c..end, whole..rows);
            c = end;
        }
        scalar(head + body..cols, 0..rows);
    }
}

#[cfg(test)]
mod tests {
    use super::band;

    /// Every band shape around the blocks' and chunks' edges, steps padded or not, bases off
    /// every alignment, with and without streaming stores: the helper writes exactly the
    /// formula's elements (the rest keep their marker).
    #[test]
    fn bands_equal_the_formula() {
        let shapes = [
            (1, 1),
            (1, 40),
            (40, 1),
            (8, 16),
            (7, 15),
            (9, 17),
            (16, 64),
            (17, 65),
            (128, 200),
            (24, 130),
        ];
        for (rows, cols) in shapes {
            for (pad_s, pad_d) in [(0, 0), (3, 5), (16, 32)] {
                let (ss, ds) = (rows + pad_s, cols + pad_d);
                let src_len = (rows + (cols - 1) * ss) as usize;
                let dst_len = ((rows - 1) * ds + cols) as usize;
                for off in [0usize, 1, 5, 12] {
                    for stream in [false, true] {
                        let src: Vec<u32> = (0..src_len + off).map(|x| x as u32 * 7 + 1).collect();
                        let mut dst = vec![0u32; dst_len + off];
                        let mut want = dst.clone();
                        for i in 0..rows {
                            for k in 0..cols {
                                want[off + (i * ds + k) as usize] = src[off + (i + k * ss) as usize];
                            }
                        }
                        assert!(band(&src[off..], &mut dst[off..], (rows, cols), (ss, ds), stream));
                        assert!(
                            dst == want,
                            "{rows} x {cols}, steps {ss} {ds}, offset {off}, stream {stream}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn bands_outside_the_slices_are_refused() {
        let src = vec![0u32; 64];
        let mut dst = vec![0u32; 64];
        assert!(!band(&src, &mut dst, (8, 9), (8, 8), false));
        assert!(!band(&src, &mut dst, (-1, 8), (8, 8), false));
        assert!(band(&src, &mut dst, (8, 8), (8, 8), true));
        assert!(band(&src, &mut dst, (0, 8), (8, 8), true));
    }
}
