//! Transparent huge pages for a kernel's large buffers: a hint to the operating system, never a
//! change to what a buffer holds.
//!
//! A transpose walks one of its buffers across rows: with 4 KiB pages each step lands on another
//! page, and the TLB misses cost a 4096 x 4096 `f32` transpose about a fifth of its speed on the
//! development machine against 2 MiB pages (docs/src/figures/kernels.md, "Huge pages for the
//! buffers"). The `tessera` binary's allocator no longer asks for huge pages on its whole arena
//! (zeroing the first two took about a millisecond of every run's start-up:
//! docs/src/figures/batch.md), and under Linux's `madvise` policy (Debian's default) memory
//! nobody advised gets none; so the buffers made here, which `tessera run`'s kernels and their
//! `memcpy` reference run on, ask for them ([`try_filled`], [`try_copied`]). Elsewhere than
//! Linux the advice is skipped.

// `madvise` is a C call: `unsafe`, with its contract stated where it is made.
#![allow(unsafe_code)]

use std::collections::TryReserveError;

/// Buffers of fewer bytes are not worth a system call: a huge page is 2 MiB, and below two of
/// them the aligned part of an allocation may hold none.
pub const MIN_BYTES: usize = 4 << 20;

/// A huge page of x86-64 and of AArch64 with 4 KiB base pages.
const HUGE: usize = 2 << 20;

/// `len` copies of `fill`, in memory asked to be backed by huge pages when it is at least
/// [`MIN_BYTES`] long; an error when the memory cannot be had (never an abort).
///
/// @post `Ok(v)` has `v.len() == len` and every element equal to `fill`.
///
/// ```
/// use tessera_codegen::kernel::huge_pages::try_filled;
/// assert_eq!(try_filled(3, 7u8).unwrap(), vec![7, 7, 7]);
/// assert_eq!(try_filled(1 << 20, 0.5f32).unwrap().len(), 1 << 20);
/// assert!(try_filled(usize::MAX / 4, 0u64).is_err());
/// ```
pub fn try_filled<T: Clone>(len: usize, fill: T) -> Result<Vec<T>, TryReserveError> {
    let mut v = reserve_advised(len)?;
    v.resize(len, fill);
    Ok(v)
}

/// A copy of `src`, in memory asked to be backed by huge pages as in [`try_filled`]; an error
/// when the memory cannot be had.
///
/// @post `Ok(v)` has `v == src`.
///
/// ```
/// use tessera_codegen::kernel::huge_pages::try_copied;
/// assert_eq!(try_copied(&[1i32, 2, 3]).unwrap(), vec![1, 2, 3]);
/// ```
pub fn try_copied<T: Clone>(src: &[T]) -> Result<Vec<T>, TryReserveError> {
    let mut v = reserve_advised(src.len())?;
    v.extend_from_slice(src);
    Ok(v)
}

/// An empty vector with room for exactly `len` elements, its memory advised for huge pages when
/// it is at least [`MIN_BYTES`] long.
///
/// @post `v.is_empty()` and `v.capacity() >= len`; nothing in it has been written yet: the
/// kernel picks a page's size when the page is first touched, so the advice comes first.
fn reserve_advised<T>(len: usize) -> Result<Vec<T>, TryReserveError> {
    let mut v: Vec<T> = Vec::new();
    v.try_reserve_exact(len)?;
    advise(v.as_mut_ptr().cast::<u8>(), len.saturating_mul(size_of::<T>()));
    Ok(v)
}

/// Asks for huge pages on the whole 2 MiB-aligned pages inside `bytes` bytes from `p`.
///
/// @pre `p .. p + bytes` is one allocation the caller owns (its contents are not read or
/// changed: `MADV_HUGEPAGE` sets a flag on the mapping).
fn advise(p: *mut u8, bytes: usize) {
    if bytes < MIN_BYTES {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        let start = (p as usize).next_multiple_of(HUGE);
        let end = (p as usize).saturating_add(bytes) / HUGE * HUGE;
        if end > start {
            // SAFETY: `start .. end` lies inside the caller's allocation (@pre) and is
            // page-aligned; the advice changes how the range is backed, never its contents,
            // and a refusal (no THP in this kernel, `never` in sysfs) leaves it as it was.
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = p;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filled_large_buffers_hold_their_fill() {
        let v = try_filled(MIN_BYTES / 4 + 3, 1.25f32).unwrap();
        assert_eq!(v.len(), MIN_BYTES / 4 + 3);
        assert!(v.iter().all(|x| *x == 1.25));
        assert!(try_filled(0, 1u8).unwrap().is_empty());
        assert_eq!(try_copied(&v).unwrap(), v);
    }

    /// The `VmFlags` of the mapping that holds `addr`, from `/proc/self/smaps`.
    #[cfg(target_os = "linux")]
    fn vm_flags(addr: usize) -> Option<String> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            let range = line.split_whitespace().next().and_then(|r| r.split_once('-'));
            if let Some((a, b)) = range
                && let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16))
            {
                inside = a <= addr && addr < b;
            } else if inside && let Some(flags) = line.strip_prefix("VmFlags:") {
                return Some(flags.trim().to_string());
            }
        }
        None
    }

    /// Where the kernel has transparent huge pages, the middle of a large buffer lies in a
    /// mapping advised for them (`hg`), and a small buffer's does not ask.
    #[cfg(target_os = "linux")]
    #[test]
    fn large_buffers_are_advised_for_huge_pages() {
        if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists() {
            return;
        }
        let large = try_filled(3 * MIN_BYTES, 0u8).unwrap();
        let copy = try_copied(&large).unwrap();
        for v in [&large, &copy] {
            let flags = vm_flags(v.as_ptr() as usize + v.len() / 2).unwrap();
            assert!(flags.split_whitespace().any(|f| f == "hg"), "{flags}");
        }
        let small = try_filled(MIN_BYTES / 2, 0u8).unwrap();
        let flags = vm_flags(small.as_ptr() as usize + small.len() / 2).unwrap();
        assert!(!flags.split_whitespace().any(|f| f == "hg"), "{flags}");
    }
}
