//! The time limit of one assertion, and z3 checks that always end by it.
//!
//! z3's own timer is never used: Debian's libz3 4.8.12 can deadlock in it (a `timeout`
//! parameter made `Z3_solver_check` block forever in `pthread_mutex_lock`). Instead every
//! proof runs in a z3 context of its own thread ([`in_own_context`]), and each `check` runs
//! next to a watchdog thread that calls `Z3_interrupt` on that context once the deadline
//! passes, and again every 20 ms until the check returns, so that an interrupt landing just
//! before z3 starts listening is not lost. An interrupted check answers `unknown`, which
//! becomes [`ProveError::Timeout`]; a context that was interrupted is dropped, never reused.
//! The enumerations (bank analysis, re-checks) poll the same deadline.

use crate::error::{PResult, ProveError};
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::{Duration, Instant};
use z3::{Context, SatResult, Solver};

/// When an assertion's time runs out (`None`: never).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Deadline(Option<Instant>);

impl Deadline {
    /// No time limit.
    pub fn none() -> Deadline {
        Deadline(None)
    }

    /// `ms` milliseconds from now (`None`: no limit).
    pub fn after_ms(ms: Option<u64>) -> Deadline {
        Deadline(ms.map(|ms| Instant::now() + Duration::from_millis(ms)))
    }

    /// `true` once the time is up.
    pub fn expired(&self) -> bool {
        self.0.is_some_and(|t| Instant::now() >= t)
    }

    /// [`ProveError::Timeout`] once the time is up.
    pub fn check(&self) -> PResult<()> {
        if self.expired() {
            Err(ProveError::Timeout)
        } else {
            Ok(())
        }
    }

    /// Polls the deadline every 4096 steps of a loop (`step` counts the iterations).
    #[inline]
    pub fn poll(&self, step: u64) -> PResult<()> {
        if step & 4095 == 0 { self.check() } else { Ok(()) }
    }

    /// `solver.check()`, interrupted when the deadline passes.
    pub fn solve(&self, solver: &Solver) -> PResult<SatResult> {
        self.check()?;
        let Some(end) = self.0 else {
            return Ok(solver.check());
        };
        let ctx = Context::thread_local();
        let handle = ctx.handle();
        let fired = AtomicBool::new(false);
        let r = std::thread::scope(|s| {
            let (done, wait) = channel::<()>();
            let fired = &fired;
            s.spawn(move || {
                let mut pause = end.saturating_duration_since(Instant::now());
                // Until the check returns (the sender drops), interrupt past the deadline.
                while let Err(RecvTimeoutError::Timeout) = wait.recv_timeout(pause) {
                    if Instant::now() >= end {
                        fired.store(true, Ordering::SeqCst);
                        handle.interrupt();
                        pause = Duration::from_millis(20);
                    } else {
                        pause = end.saturating_duration_since(Instant::now());
                    }
                }
            });
            let r = solver.check();
            drop(done);
            r
        });
        if fired.load(Ordering::SeqCst) {
            INTERRUPTED.set(true);
        }
        if r == SatResult::Unknown && self.expired() {
            return Err(ProveError::Timeout);
        }
        Ok(r)
    }
}

thread_local! {
    /// This thread's z3 context for proofs, kept between proofs unless interrupted.
    static OWN: RefCell<Option<Context>> = const { RefCell::new(None) };
    /// Whether a watchdog interrupted the current context.
    static INTERRUPTED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` in a z3 context of this thread's own (not z3's default one), so that an
/// interrupt reaches only this thread's proof. A context that was interrupted (it may stay
/// cancelled) is dropped afterwards, and the next proof gets a new one.
pub fn in_own_context<R: Send + Sync>(f: impl FnOnce() -> R + Send + Sync) -> R {
    INTERRUPTED.set(false);
    let keep = || {
        if !INTERRUPTED.get() {
            OWN.with(|o| *o.borrow_mut() = Some(Context::thread_local()));
        }
    };
    match OWN.with(|o| o.borrow_mut().take()) {
        Some(ctx) => {
            let r = z3::with_z3_context(&ctx, f);
            if !INTERRUPTED.get() {
                OWN.with(|o| *o.borrow_mut() = Some(ctx));
            }
            r
        }
        None => z3::with_z3_config(&z3::Config::new(), || {
            let r = f();
            keep();
            r
        }),
    }
}
