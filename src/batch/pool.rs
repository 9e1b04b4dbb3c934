//! The helper threads of `eval --batch -j N` and the queue of chunks they answer.
//!
//! A helper that finds the queue empty spins for a short while ([`SPIN`], when the run has no
//! more threads than CPUs) before it sleeps: the reading thread refills the queue within a
//! fraction of a millisecond (it writes one block's answers and reads the next), while waking a
//! sleeping thread can take milliseconds on a machine whose idle CPUs halt (a virtual
//! machine's, measured up to 4 ms). The helpers are not joined at the end of a run, for the
//! same reason: they return on their own once they see the queue closed. The reader, waiting
//! for a helper's last chunk of a block, spins as long.

use super::place::Cpus;
use super::{Job, STACK};
use crate::lang::Session;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, mpsc};
use std::time::{Duration, Instant};

/// How long a helper that finds the queue empty looks again before it sleeps, when every thread
/// of the run has a CPU of its own (with more threads than CPUs, spinning helpers would take
/// the CPU the reader needs to refill the queue: they sleep at once). It decides only which
/// thread answers a chunk, never an answer.
const SPIN: Duration = Duration::from_millis(1);

/// Spins while `nothing()` holds, until `until`.
///
/// @post `nothing()` was false at its last call, or `until` has passed.
/// Example: `spin_while(Instant::now() + SPIN, || queue_is_empty())`.
fn spin_while(until: Instant, mut nothing: impl FnMut() -> bool) {
    while nothing() && Instant::now() < until {
        for _ in 0..32 {
            std::hint::spin_loop();
        }
    }
}

/// The queue of chunks: the helpers take from it, and so does the reader while it waits for a
/// block's answers. Closed when the run ends.
#[derive(Default)]
pub(super) struct Queue {
    /// The chunks not yet taken, and whether the run has ended.
    jobs: Mutex<(VecDeque<Job>, bool)>,
    /// Signalled when chunks arrive or the run ends.
    ready: Condvar,
    /// Chunks are queued or the run has ended: what a spinning helper looks at (written under
    /// the lock, read without it).
    news: AtomicBool,
    /// How long a thread that finds nothing looks again before it sleeps: [`SPIN`] or zero.
    spin: Duration,
}

impl Queue {
    /// The next chunk, waiting for one; `None` once the run has ended.
    ///
    /// @post spins at most `self.spin` before it sleeps on the condition variable.
    fn wait(&self) -> Option<Job> {
        let until = Instant::now() + self.spin;
        loop {
            spin_while(until, || !self.news.load(Ordering::Acquire));
            let mut q = self.jobs.lock().ok()?;
            if Instant::now() >= until {
                // Nothing came while it spun: sleep until chunks arrive or the run ends.
                q = self.ready.wait_while(q, |q| q.0.is_empty() && !q.1).ok()?;
            }
            if let Some(job) = self.pop(&mut q) {
                return Some(job);
            }
            if q.1 {
                return None;
            }
        }
    }

    /// The front chunk of the locked queue `q`, keeping [`Queue::news`] up to date.
    fn pop(&self, q: &mut (VecDeque<Job>, bool)) -> Option<Job> {
        let job = q.0.pop_front();
        self.publish(q);
        job
    }

    /// Tells spinning threads whether the locked queue `q` has news: chunks, or the run's end.
    fn publish(&self, q: &(VecDeque<Job>, bool)) {
        self.news.store(!q.0.is_empty() || q.1, Ordering::Release);
    }

    /// The next chunk, if one is waiting.
    pub(super) fn take(&self) -> Option<Job> {
        let mut q = self.jobs.lock().ok()?;
        self.pop(&mut q)
    }

    /// Queues the chunks and wakes the helpers. Nothing is queued if the queue is unusable (a
    /// thread panicked while holding it, which none does): the gatherer answers them then.
    pub(super) fn put(&self, jobs: impl Iterator<Item = Job>) {
        if let Ok(mut q) = self.jobs.lock() {
            q.0.extend(jobs);
            self.publish(&q);
        }
        self.ready.notify_all();
    }

    /// Ends the run: every waiting helper returns.
    fn close(&self) {
        if let Ok(mut q) = self.jobs.lock() {
            // Chunks of a block nobody will gather (the output failed) are not answered.
            q.0.clear();
            q.1 = true;
            self.publish(&q);
        }
        self.ready.notify_all();
    }
}

/// The helper threads of a run, started once (at the first block worth them) and fed chunks
/// through one queue, from which the thread that reads the input takes chunks too. The helpers
/// share one copy of the run's session.
pub(super) struct Pool {
    pub(super) queue: Arc<Queue>,
    /// The helpers started.
    pub(super) helpers: usize,
    /// The helpers still to start.
    want: usize,
}

impl Pool {
    /// A pool of `helpers` threads, none started yet. A pool without helpers (`-j 1`) reads
    /// nothing: no thread of it ever spins.
    ///
    /// Example: `Pool::new(jobs - 1)` for `-j jobs`.
    pub(super) fn new(helpers: usize) -> Pool {
        let spin = if helpers > 0
            && helpers < std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        {
            SPIN
        } else {
            Duration::ZERO
        };
        Pool {
            queue: Arc::new(Queue {
                spin,
                ..Queue::default()
            }),
            helpers: 0,
            want: helpers,
        }
    }

    /// The next message on `rx`, looked for as long as a helper spins before the thread sleeps
    /// until one comes (the reader waiting for a helper's last chunk of a block); `Err` once
    /// every sender is gone.
    ///
    /// Example: `pool.receive(&answers)` where `answers.recv()` would do, without a sleep for a
    /// chunk that is about to end.
    pub(super) fn receive<T>(&self, rx: &mpsc::Receiver<T>) -> Result<T, mpsc::RecvError> {
        let mut got = None;
        spin_while(Instant::now() + self.queue.spin, || match rx.try_recv() {
            Ok(m) => {
                got = Some(Ok(m));
                false
            }
            Err(mpsc::TryRecvError::Disconnected) => {
                got = Some(Err(mpsc::RecvError));
                false
            }
            Err(mpsc::TryRecvError::Empty) => true,
        });
        got.unwrap_or_else(|| rx.recv())
    }

    /// Starts the helpers (once), each with the copy of `session` they share; `false` if none
    /// could start.
    ///
    /// @post `self.helpers` threads wait on `self.queue` until the pool is dropped.
    /// Example: `pool.start(session)` at the first block worth sharing.
    pub(super) fn start(&mut self, session: &Session) -> bool {
        let want = std::mem::take(&mut self.want);
        if want == 0 {
            return self.helpers > 0;
        }
        // Each helper starts on a CPU other than this thread's, and may run anywhere once it
        // has its first chunk (`place`).
        let cpus = Cpus::here().map(Arc::new);
        let shared = Arc::new(session.clone());
        for k in 0..want {
            let queue = Arc::clone(&self.queue);
            let session = Arc::clone(&shared);
            let mut placed = cpus.clone();
            let started = std::thread::Builder::new().stack_size(STACK).spawn(move || {
                while let Some(job) = queue.wait() {
                    if let Some(c) = placed.take() {
                        c.release();
                    }
                    job.run(&session);
                }
            });
            if let Ok(t) = started {
                // Before any chunk is queued, so before the helper releases itself.
                if let Some(c) = &cpus {
                    c.start_elsewhere(&t, k);
                }
                self.helpers += 1;
            }
        }
        self.helpers > 0
    }
}

impl Drop for Pool {
    /// Ends the run: the helpers return once they see it, and are not waited for.
    fn drop(&mut self) {
        self.queue.close();
    }
}
