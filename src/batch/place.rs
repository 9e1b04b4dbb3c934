//! Where a helper thread of `eval --batch -j N` starts: on a CPU other than the reading
//! thread's.
//!
//! Linux often queues a new thread on the CPU of the thread that made it and moves it to an idle
//! CPU only when it next balances the load. On the 2-CPU virtual machine the figures were measured
//! on, a helper spawned by a busy reader started after 2.3-2.8 ms on average (up to 5 ms), and in
//! the first 8 ms the two threads together did the work of 1.24-1.40 threads; started on the
//! other CPU, after 0.15-0.33 ms, and the two did the work of 1.91-1.95 threads. So a helper is
//! restricted to another CPU when it is made, and lifts that restriction itself once it runs.
//! It decides where a thread runs, never an answer. Elsewhere than Linux this does nothing.

// `sched_getaffinity`, `sched_getcpu` and `pthread_setaffinity_np` are C calls: each is
// `unsafe`, with its contract stated where it is made.
#![allow(unsafe_code)]

use std::thread::JoinHandle;

/// The CPUs the reading thread may run on, and the one it ran on when they were read.
#[cfg(target_os = "linux")]
pub(super) struct Cpus {
    mask: libc::cpu_set_t,
    current: usize,
}

/// Elsewhere than Linux: nothing to read.
#[cfg(not(target_os = "linux"))]
pub(super) struct Cpus;

/// The bytes of a CPU mask.
#[cfg(target_os = "linux")]
const MASK_BYTES: usize = size_of::<libc::cpu_set_t>();

impl Cpus {
    /// The calling thread's CPUs; `None` where they cannot be read.
    ///
    /// @post when `Some`, the mask holds the current CPU.
    /// Example: `Cpus::here()` on the reading thread before it starts helpers.
    #[cfg(target_os = "linux")]
    pub(super) fn here() -> Option<Cpus> {
        // SAFETY: an all-zero `cpu_set_t` is a valid (empty) mask.
        let mut mask: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: `mask` is a live `cpu_set_t` of `MASK_BYTES` bytes; pid 0 is the caller.
        if unsafe { libc::sched_getaffinity(0, MASK_BYTES, &mut mask) } != 0 {
            return None;
        }
        // SAFETY: takes no arguments; returns -1 on failure.
        let current = usize::try_from(unsafe { libc::sched_getcpu() }).ok()?;
        // SAFETY: `current` is below `CPU_SETSIZE` (the kernel's CPU numbers are).
        (current < libc::CPU_SETSIZE as usize && unsafe { libc::CPU_ISSET(current, &mask) })
            .then_some(Cpus { mask, current })
    }

    /// Elsewhere than Linux: `None`.
    #[cfg(not(target_os = "linux"))]
    pub(super) fn here() -> Option<Cpus> {
        None
    }

    /// The `k`-th CPU of the mask other than the current one, counting round (helper `k`
    /// starts there); `None` when the mask holds no other CPU.
    #[cfg(target_os = "linux")]
    fn other(&self, k: usize) -> Option<usize> {
        let others: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
            // SAFETY: `c` is below `CPU_SETSIZE`.
            .filter(|&c| c != self.current && unsafe { libc::CPU_ISSET(c, &self.mask) })
            .collect();
        (!others.is_empty()).then(|| others[k % others.len()])
    }

    /// Restricts the new thread `t`, helper number `k`, to one CPU other than the current
    /// one, until it calls [`Cpus::release`]. Nothing happens when there is no other CPU or
    /// the call fails: the thread runs where Linux puts it.
    #[cfg(target_os = "linux")]
    pub(super) fn start_elsewhere(&self, t: &JoinHandle<()>, k: usize) {
        use std::os::unix::thread::JoinHandleExt;
        let Some(cpu) = self.other(k) else {
            return;
        };
        // SAFETY: an all-zero `cpu_set_t` is a valid (empty) mask; `cpu` is below
        // `CPU_SETSIZE`.
        let mut one: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        unsafe { libc::CPU_SET(cpu, &mut one) };
        // SAFETY: `t` has not been joined or detached, so its pthread is alive (it runs or has
        // ended and not been reclaimed); `one` is a live mask of `MASK_BYTES` bytes.
        unsafe { libc::pthread_setaffinity_np(t.as_pthread_t(), MASK_BYTES, &one) };
    }

    /// Elsewhere than Linux: nothing.
    #[cfg(not(target_os = "linux"))]
    pub(super) fn start_elsewhere(&self, _t: &JoinHandle<()>, _k: usize) {}

    /// On a helper: runs it on every CPU of the reading thread's mask again.
    #[cfg(target_os = "linux")]
    pub(super) fn release(&self) {
        // SAFETY: `self.mask` is a live mask of `MASK_BYTES` bytes; pid 0 is the caller.
        unsafe { libc::sched_setaffinity(0, MASK_BYTES, &self.mask) };
    }

    /// Elsewhere than Linux: nothing.
    #[cfg(not(target_os = "linux"))]
    pub(super) fn release(&self) {}
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::sync::{Arc, mpsc};

    /// The calling thread's mask.
    fn mask() -> libc::cpu_set_t {
        // SAFETY: as in `Cpus::here`.
        let mut m: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        assert_eq!(unsafe { libc::sched_getaffinity(0, MASK_BYTES, &mut m) }, 0);
        m
    }

    #[test]
    fn the_other_cpus_are_the_mask_but_the_current_one() {
        let c = Cpus::here().expect("Linux reads the CPUs");
        let n = (0..libc::CPU_SETSIZE as usize)
            .filter(|&k| unsafe { libc::CPU_ISSET(k, &c.mask) })
            .count();
        for k in 0..2 * n {
            match c.other(k) {
                Some(o) => {
                    assert_ne!(o, c.current);
                    assert!(unsafe { libc::CPU_ISSET(o, &c.mask) });
                }
                None => assert_eq!(n, 1, "no other CPU only when the mask holds one"),
            }
        }
    }

    /// A helper started elsewhere runs on the one CPU it was given, and on the reader's whole
    /// mask once it releases itself.
    #[test]
    fn a_helper_runs_elsewhere_until_it_releases_itself() {
        let c = Arc::new(Cpus::here().expect("Linux reads the CPUs"));
        let (go, wait) = mpsc::channel::<()>();
        let (tell, seen) = mpsc::channel();
        let c2 = Arc::clone(&c);
        let t = std::thread::spawn(move || {
            wait.recv().unwrap();
            let before = mask();
            // SAFETY: takes no arguments.
            let cpu = unsafe { libc::sched_getcpu() };
            c2.release();
            tell.send((before, cpu, mask())).unwrap();
        });
        c.start_elsewhere(&t, 0);
        go.send(()).unwrap();
        let (before, cpu, after) = seen.recv().unwrap();
        t.join().unwrap();
        if let Some(o) = c.other(0) {
            for k in 0..libc::CPU_SETSIZE as usize {
                assert_eq!(unsafe { libc::CPU_ISSET(k, &before) }, k == o, "CPU {k}");
            }
            assert_eq!(cpu as usize, o);
        }
        for k in 0..libc::CPU_SETSIZE as usize {
            assert_eq!(unsafe { libc::CPU_ISSET(k, &after) }, unsafe {
                libc::CPU_ISSET(k, &c.mask)
            });
        }
    }
}
