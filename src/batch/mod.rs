//! `tessera eval --batch FILE`: one answer line per input line, whatever the input.
//!
//! Lines are read as bytes in bounded memory: a line that is not UTF-8 gets an error line, a
//! line longer than [`MAX_LINE`] gets an error line and is skipped to its newline without being
//! stored (so `--batch /dev/zero` runs in constant memory). The end of the input, or a reader of
//! the output that went away (a closed pipe), ends the run normally.
//!
//! Lines are answered in blocks: a block ends after [`BLOCK_LINES`] lines or [`BLOCK_BYTES`]
//! bytes, or where the next read could block (on standard input, a pipe or a device; a regular
//! file's next read never waits for a writer). A large block is cut into contiguous chunks, a few
//! per thread, put on one queue; `jobs - 1` helper threads (started once, at the first block
//! worth them) take chunks from it, and so does the reading thread once it has read and queued
//! the next block: reading overlaps answering, and a thread that finishes early takes another
//! chunk. The chunks' answers are written in input order, so the output does not depend on the
//! number of threads. At most three blocks are held at once (the one read, the one answered, the
//! one gathered). Answers are flushed before a read that may block, so a tool can send a line and
//! wait for its answer.

use crate::exit;
use crate::lang::Session;
use std::collections::VecDeque;
use std::fmt::Write as _;
use std::io::{BufRead, ErrorKind, Write};
use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex, mpsc};

/// Evaluates one line, turning a panic (a bug) into an internal error.
pub fn answer(session: &Session, line: &str) -> Result<String, (i32, String)> {
    let mut out = String::new();
    answer_to(session, line, &mut out).map_err(|c| (c, std::mem::take(&mut out)))?;
    Ok(out)
}

/// [`answer`], appending the result to `out`, or on an error its message (and nothing else)
/// with the exit code that error calls for.
fn answer_to(session: &Session, line: &str, out: &mut String) -> Result<(), i32> {
    let before = out.len();
    match catch_unwind(AssertUnwindSafe(|| session.eval_to(line, out))) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => {
            out.truncate(before);
            // Written in place: the message is not formatted into a `String` of its own.
            let _ = write!(out, "{e}");
            Err(exit::of(&e))
        }
        Err(_) => {
            out.truncate(before);
            let _ = write!(out, "internal error while evaluating '{line}'");
            Err(exit::INTERNAL)
        }
    }
}

/// Longest line `--batch` reads (the longest expression the parser accepts). A longer line is
/// answered with an error and skipped up to its newline without being stored.
pub const MAX_LINE: usize = tessera_ir::text::MAX_SOURCE_LEN;

/// Most lines answered as one block.
pub const BLOCK_LINES: usize = 4096;

/// Bytes after which a block ends even if it has fewer than [`BLOCK_LINES`] lines (a block holds
/// at most this plus one line of [`MAX_LINE`] bytes).
pub const BLOCK_BYTES: usize = 4 << 20;

/// Fewest lines worth a thread of their own.
const LINES_PER_THREAD: usize = 256;

/// Chunks a shared block is cut into per thread, so that a thread that finishes early (the
/// reader, after reading the next block) takes another.
const CHUNKS_PER_THREAD: usize = 4;

/// Stack of an answering thread: evaluation recurses along the nesting the parser allows.
const STACK: usize = 256 << 20;

/// One line of a `--batch` input.
#[derive(Clone, Copy)]
enum Line {
    /// The line's bytes, without its newline.
    Text,
    /// A line longer than [`MAX_LINE`]; its bytes were skipped.
    Overlong,
}

/// Lines read and not yet answered: their bytes, one after the other.
#[derive(Default, Clone)]
struct Block {
    bytes: Vec<u8>,
    lines: Vec<(Line, Range<usize>)>,
}

impl Block {
    fn clear(&mut self) {
        self.bytes.clear();
        self.lines.clear();
    }
}

/// Reads `--batch` input line by line as bytes, in bounded memory.
struct BatchReader {
    inner: Box<dyn BufRead>,
    /// The reader's buffer is empty: the next read may block.
    drained: bool,
    /// A read may wait for a writer (standard input, a pipe, a terminal); never for a regular
    /// file, whose lines are then answered in whole blocks.
    may_block: bool,
}

impl BatchReader {
    /// Appends lines to `block` until it is full, the input ends (then `false`), or the next
    /// read could block (a tool may be waiting for the answers before it sends more).
    fn fill(&mut self, block: &mut Block) -> std::io::Result<bool> {
        loop {
            let more = self.next_line(block)?;
            if !more
                || self.would_wait()
                || block.lines.len() >= BLOCK_LINES
                || block.bytes.len() >= BLOCK_BYTES
            {
                return Ok(more);
            }
        }
    }

    /// The next read could wait for a writer: its buffer is empty and the input may block.
    fn would_wait(&self) -> bool {
        self.may_block && self.drained
    }

    /// Appends the next line to `block`; `false` at the end of the input.
    fn next_line(&mut self, block: &mut Block) -> std::io::Result<bool> {
        let start = block.bytes.len();
        let mut overlong = false;
        let mut any = false;
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                self.drained = true;
                if any {
                    block.push(start, overlong);
                }
                return Ok(any);
            }
            any = true;
            let newline = memchr::memchr(b'\n', chunk);
            let part = &chunk[..newline.unwrap_or(chunk.len())];
            if !overlong && block.bytes.len() - start + part.len() > MAX_LINE {
                overlong = true;
                block.bytes.truncate(start);
            }
            if !overlong {
                block.bytes.extend_from_slice(part);
            }
            let used = newline.map_or(chunk.len(), |k| k + 1);
            self.drained = used == chunk.len();
            self.inner.consume(used);
            if newline.is_some() {
                block.push(start, overlong);
                return Ok(true);
            }
        }
    }
}

impl Block {
    fn push(&mut self, start: usize, overlong: bool) {
        let kind = if overlong { Line::Overlong } else { Line::Text };
        self.lines.push((kind, start..self.bytes.len()));
    }
}

/// Appends the answer to one `--batch` line and its newline to `out`; an internal error sets
/// `code`.
fn reply(
    session: &Session,
    line: Line,
    text: Result<&str, std::str::Utf8Error>,
    out: &mut String,
    code: &mut i32,
) {
    let raw = match (line, text) {
        (Line::Overlong, _) => {
            out.push_str("error: line longer than 1048576 bytes (1 MiB); skipped\n");
            return;
        }
        (Line::Text, Err(e)) => {
            out.push_str(&format!(
                "error: line is not valid UTF-8 (invalid byte at column {})\n",
                e.valid_up_to() + 1
            ));
            return;
        }
        (Line::Text, Ok(t)) => t,
    };
    // A line that starts and ends with a visible ASCII character is its own trim (`trim`
    // decodes a character at each end to ask Unicode: 50 instructions a line).
    let text = match (raw.as_bytes().first(), raw.as_bytes().last()) {
        (Some(a), Some(z)) if a.is_ascii_graphic() && z.is_ascii_graphic() => raw,
        _ => raw.trim(),
    };
    if !text.is_empty() && !text.starts_with('#') {
        let at = out.len();
        if let Err(c) = answer_to(session, text, out) {
            if c == exit::INTERNAL {
                *code = exit::INTERNAL;
            }
            // One line per input line: fold a multi-line message.
            let msg = &out[at..];
            let folded = msg.contains('\n').then(|| msg.replace('\n', " | "));
            if let Some(f) = folded {
                out.truncate(at);
                out.push_str(&f);
            }
            out.insert_str(at, "error: ");
        }
    }
    out.push('\n');
}

/// The answers to `lines` of `block`, in order.
fn reply_all(session: &Session, block: &Block, lines: &[(Line, Range<usize>)], code: &mut i32) -> String {
    // About as long as the questions: a result is rarely longer than its expression.
    let bytes: usize = lines.iter().map(|(_, r)| r.len() + 8).sum();
    let mut out = String::with_capacity(bytes);
    // The lines' bytes lie one after the other: checked as UTF-8 in one pass. A slice of valid
    // UTF-8 between two character boundaries is valid, so a line is taken from the checked
    // text when its ends are boundaries (`str::get`); otherwise (an invalid block, a character
    // split between two lines) the line is checked alone, which finds its error.
    let span = lines.first().map_or(0, |l| l.1.start)..lines.last().map_or(0, |l| l.1.end);
    let checked = std::str::from_utf8(&block.bytes[span.clone()]).ok();
    for (kind, r) in lines {
        let text = match checked.and_then(|t| t.get(r.start - span.start..r.end - span.start)) {
            Some(t) => Ok(t),
            None => std::str::from_utf8(&block.bytes[r.clone()]),
        };
        reply(session, *kind, text, &mut out, code);
    }
    out
}

/// A chunk of a block to answer: its lines, its place among the block's chunks, and where its
/// answers go.
struct Job {
    block: Arc<Block>,
    lines: Range<usize>,
    slot: usize,
    reply: mpsc::Sender<(usize, String, i32)>,
}

impl Job {
    /// Answers the chunk and sends its answers (with its exit code) to the block's collector.
    fn run(self, session: &Session) {
        let mut c = exit::OK;
        let out = reply_all(
            session,
            &self.block,
            &self.block.lines[self.lines.clone()],
            &mut c,
        );
        let Job {
            block, slot, reply, ..
        } = self;
        // The block is released before the answers are sent, so that the reader can reuse
        // its buffer once every answer has come back.
        drop(block);
        // A collector that went away (it never does): nothing to tell.
        let _ = reply.send((slot, out, c));
    }
}

/// The queue of chunks: the helpers take from it, and so does the reader while it waits for a
/// block's answers. Closed when the run ends.
#[derive(Default)]
struct Queue {
    /// The chunks not yet taken, and whether the run has ended.
    jobs: Mutex<(VecDeque<Job>, bool)>,
    /// Signalled when chunks arrive or the run ends.
    ready: Condvar,
}

impl Queue {
    /// The next chunk, waiting for one; `None` once the run has ended.
    fn wait(&self) -> Option<Job> {
        let mut q = self.jobs.lock().ok()?;
        loop {
            if let Some(job) = q.0.pop_front() {
                return Some(job);
            }
            if q.1 {
                return None;
            }
            q = self.ready.wait(q).ok()?;
        }
    }

    /// The next chunk, if one is waiting.
    fn take(&self) -> Option<Job> {
        self.jobs.lock().ok()?.0.pop_front()
    }

    /// Queues the chunks and wakes the helpers. Nothing is queued if the queue is unusable (a
    /// thread panicked while holding it, which none does): the gatherer answers them then.
    fn put(&self, jobs: impl Iterator<Item = Job>) {
        if let Ok(mut q) = self.jobs.lock() {
            q.0.extend(jobs);
        }
        self.ready.notify_all();
    }

    /// Ends the run: every waiting helper returns.
    fn close(&self) {
        if let Ok(mut q) = self.jobs.lock() {
            // Chunks of a block nobody will gather (the output failed) are not answered.
            q.0.clear();
            q.1 = true;
        }
        self.ready.notify_all();
    }
}

/// The helper threads of a run, started once (at the first block worth them) and fed chunks
/// through one queue, from which the thread that reads the input takes chunks too.
struct Pool<'s, 'e> {
    queue: Arc<Queue>,
    helpers: usize,
    /// The threads to start, and the scope they live in.
    want: usize,
    scope: &'s std::thread::Scope<'s, 'e>,
}

impl<'s, 'e> Pool<'s, 'e> {
    /// Starts the helpers (once); `false` if none could start.
    fn start(&mut self, session: &'e Session) -> bool {
        for _ in 0..std::mem::take(&mut self.want) {
            let queue = Arc::clone(&self.queue);
            let started = std::thread::Builder::new()
                .stack_size(STACK)
                .spawn_scoped(self.scope, move || {
                    while let Some(job) = queue.wait() {
                        job.run(session);
                    }
                });
            if started.is_ok() {
                self.helpers += 1;
            }
        }
        self.helpers > 0
    }
}

impl Drop for Pool<'_, '_> {
    /// The helpers return once the run ends (their scope then joins them).
    fn drop(&mut self) {
        self.queue.close();
    }
}

/// A block whose chunks were handed to the queue and whose answers are being gathered.
struct InFlight {
    block: Arc<Block>,
    chunks: Vec<Range<usize>>,
    answers: mpsc::Receiver<(usize, String, i32)>,
}

/// Answers a block on up to `jobs` threads (the reader's and the pool's), or hands it to the
/// pool ([`InFlight`]) to be gathered by [`gather`] once the reader has read on.
enum Answering {
    /// Answered already, on the reader's thread.
    Done(String, Arc<Block>),
    /// Being answered by the pool.
    Pending(InFlight),
}

/// Starts answering `block`: on the reader's thread when it is too short to share (or no
/// helper could start), otherwise as chunks handed to the pool's queue, several per thread
/// so that a thread that finishes early takes another.
fn dispatch<'e>(
    session: &'e Session,
    pool: &mut Pool<'_, 'e>,
    block: Arc<Block>,
    jobs: usize,
    code: &mut i32,
) -> Answering {
    let n = block.lines.len();
    let threads = jobs.min(n / LINES_PER_THREAD).max(1);
    if threads == 1 || !pool.start(session) {
        let text = reply_all(session, &block, &block.lines, code);
        return Answering::Done(text, block);
    }
    let threads = threads.min(pool.helpers + 1);
    let per = n.div_ceil(threads * CHUNKS_PER_THREAD).max(LINES_PER_THREAD);
    let chunks: Vec<Range<usize>> = (0..n).step_by(per).map(|k| k..(k + per).min(n)).collect();
    let (tx, answers) = mpsc::channel();
    // Chunks no helper takes (every helper gone) are taken by the reader in `gather`; chunks
    // the queue refused are answered there as missing.
    pool.queue.put(chunks.iter().enumerate().map(|(slot, lines)| Job {
        block: Arc::clone(&block),
        lines: lines.clone(),
        slot,
        reply: tx.clone(),
    }));
    drop(tx);
    Answering::Pending(InFlight {
        block,
        chunks,
        answers,
    })
}

/// The answers of a block, in input order, whichever thread answered them: the reader takes
/// chunks from the queue while there are any, then waits for the helpers' last ones. Returns
/// the block's buffer for reuse.
fn gather(
    session: &Session,
    pool: &Pool<'_, '_>,
    answering: Answering,
    code: &mut i32,
) -> (Vec<String>, Arc<Block>) {
    let f = match answering {
        Answering::Done(text, block) => return (vec![text], block),
        Answering::Pending(f) => f,
    };
    let mut out: Vec<Option<String>> = vec![None; f.chunks.len()];
    let mut got = 0;
    let mut keep = |(slot, text, c): (usize, String, i32), code: &mut i32| {
        if c == exit::INTERNAL {
            *code = exit::INTERNAL;
        }
        out[slot] = Some(text);
    };
    while got < f.chunks.len() {
        if let Ok(answer) = f.answers.try_recv() {
            keep(answer, code);
            got += 1;
        } else if let Some(job) = pool.queue.take() {
            // A chunk of this block or of the next one: the reader answers it while it waits.
            job.run(session);
        } else {
            // Nothing left to take: the helpers are answering this block's last chunks. Every
            // job either answers or is dropped (its sender with it): this ends.
            match f.answers.recv() {
                Ok(answer) => {
                    keep(answer, code);
                    got += 1;
                }
                Err(_) => break,
            }
        }
    }
    let texts = f
        .chunks
        .iter()
        .zip(out)
        .map(|(lines, text)| {
            text.unwrap_or_else(|| reply_all(session, &f.block, &f.block.lines[lines.clone()], code))
        })
        .collect();
    (texts, f.block)
}

/// Writes a block's answers and flushes them (a tool may be waiting for them).
fn emit(out: &mut impl Write, texts: Vec<String>) -> std::io::Result<()> {
    for text in texts {
        out.write_all(text.as_bytes())?;
    }
    out.flush()
}

/// `tessera eval --batch PATH` on `jobs` threads: one answer line per input line. The end of
/// the input, or a reader of the output that went away (a closed pipe), ends the run normally.
pub fn run(session: &Session, path: &str, jobs: usize) -> i32 {
    let (inner, may_block): (Box<dyn BufRead>, bool) = if path == "-" {
        (Box::new(std::io::stdin().lock()), true)
    } else {
        match std::fs::File::open(path) {
            Ok(f) => {
                // A FIFO or a device named as the path can wait for its writer, as stdin can.
                let regular = f.metadata().is_ok_and(|m| m.file_type().is_file());
                (Box::new(std::io::BufReader::with_capacity(1 << 16, f)), !regular)
            }
            Err(e) => {
                eprintln!("error: cannot read {path}: {e}");
                return exit::BAD_INPUT;
            }
        }
    };
    let mut reader = BatchReader {
        inner,
        drained: true,
        may_block,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut code = exit::OK;
    let written = std::thread::scope(|scope| {
        let mut pool = Pool {
            queue: Arc::default(),
            helpers: 0,
            want: jobs.saturating_sub(1),
            scope,
        };
        // The block being read: the reader's alone. A block handed to the pool is answered
        // while the next one is read and handed on (from a regular file: a read that may wait
        // for a writer answers what it has first), and its buffer is then read into again.
        let mut block = Arc::new(Block::default());
        let mut spare: Vec<Arc<Block>> = Vec::new();
        let mut pending: Option<Answering> = None;
        loop {
            let more = match reader.fill(Arc::make_mut(&mut block)) {
                Ok(more) => more,
                Err(e) => {
                    // The blocks read before the error are answered.
                    if let Some(p) = pending.take() {
                        let _ = emit(&mut out, gather(session, &pool, p, &mut code).0);
                    }
                    let _ = out.flush();
                    return Err(Err(e));
                }
            };
            let wait = reader.would_wait();
            let mut next = spare.pop().unwrap_or_default();
            Arc::make_mut(&mut next).clear();
            let full = std::mem::replace(&mut block, next);
            let answering = dispatch(session, &mut pool, full, jobs, &mut code);
            // The block before this one, answered while this one was read; its last chunks
            // overlap this one's first.
            if let Some(p) = pending.take() {
                let (texts, buf) = gather(session, &pool, p, &mut code);
                emit(&mut out, texts).map_err(Ok)?;
                spare.push(buf);
            }
            if more && !wait && matches!(answering, Answering::Pending(_)) {
                pending = Some(answering);
                continue;
            }
            let (texts, buf) = gather(session, &pool, answering, &mut code);
            emit(&mut out, texts).map_err(Ok)?;
            spare.push(buf);
            if !more {
                return Ok(());
            }
        }
    });
    let written = match written {
        Err(Err(e)) => {
            eprintln!("error: reading {path}: {e}");
            return exit::BAD_INPUT;
        }
        Err(Ok(e)) => Err(e),
        Ok(()) => Ok(()),
    };
    match written {
        Ok(()) => code,
        // The reader of the output has gone (`... | head -1`): a normal end.
        Err(e) if e.kind() == ErrorKind::BrokenPipe => code,
        Err(e) => {
            eprintln!("error: writing the answers: {e}");
            exit::INTERNAL
        }
    }
}
