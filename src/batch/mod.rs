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
//! worth them, and not waited for at the end) take chunks from it, and so does the reading
//! thread once it has read and queued the next block: reading overlaps answering, and a thread
//! that finishes early takes another chunk. The chunks' answers are written in input order, so
//! the output does not depend on the number of threads. At most three blocks are held at once
//! (the one read, the one answered, the one gathered). Answers are flushed before a read that
//! may block, so a tool can send a line and wait for its answer.

use crate::exit;
use crate::lang::Session;
use std::fmt::Write as _;
use std::io::{BufRead, ErrorKind, Write};
use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, mpsc};

mod lines;
mod place;
mod pool;

pub use lines::{BLOCK_BYTES, BLOCK_LINES, MAX_LINE};
use lines::{BatchReader, Block, Line};
use pool::Pool;

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

/// Fewest lines worth a thread of their own.
const LINES_PER_THREAD: usize = 256;

/// Chunks a shared block is cut into per thread, so that a thread that finishes early (the
/// reader, after reading the next block) takes another.
const CHUNKS_PER_THREAD: usize = 4;

/// Bytes of a regular file from which its helper threads start before its first block is read
/// (about 1,300 lines of CuTe-sized layouts: more than one block's share of a thread).
const EARLY_START_BYTES: u64 = 1 << 16;

/// Stack of an answering thread: evaluation recurses along the nesting the parser allows.
const STACK: usize = 256 << 20;

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
fn dispatch(session: &Session, pool: &mut Pool, block: Arc<Block>, jobs: usize, code: &mut i32) -> Answering {
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
fn gather(session: &Session, pool: &Pool, answering: Answering, code: &mut i32) -> (Vec<String>, Arc<Block>) {
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
            match pool.receive(&f.answers) {
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
    // A regular file large enough to share starts the helpers before its first block is read:
    // a new thread can take milliseconds to get a CPU, and this hides some of them.
    let (inner, may_block, early): (Box<dyn BufRead>, bool, bool) = if path == "-" {
        (Box::new(std::io::stdin().lock()), true, false)
    } else {
        match std::fs::File::open(path) {
            Ok(f) => {
                // A FIFO or a device named as the path can wait for its writer, as stdin can.
                let meta = f.metadata().ok().filter(|m| m.file_type().is_file());
                let early = meta.as_ref().is_some_and(|m| m.len() >= EARLY_START_BYTES);
                let reader = std::io::BufReader::with_capacity(lines::READ_BYTES, f);
                (Box::new(reader), meta.is_none(), early)
            }
            Err(e) => {
                eprintln!("error: cannot read {path}: {e}");
                return exit::BAD_INPUT;
            }
        }
    };
    let mut reader = BatchReader::new(inner, may_block);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut code = exit::OK;
    let written = (|| {
        let mut pool = Pool::new(jobs.saturating_sub(1));
        if early {
            pool.start(session);
        }
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
    })();
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
