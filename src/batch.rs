//! `tessera eval --batch FILE`: one answer line per input line, whatever the input.
//!
//! Lines are read as bytes in bounded memory: a line that is not UTF-8 gets an error line, a
//! line longer than [`MAX_LINE`] gets an error line and is skipped to its newline without being
//! stored (so `--batch /dev/zero` runs in constant memory). The end of the input, or a reader of
//! the output that went away (a closed pipe), ends the run normally.
//!
//! Lines are answered in blocks: a block ends after [`BLOCK_LINES`] lines, or where the next
//! read could block (on standard input, a pipe or a device; a regular file's next read never
//! waits for a writer). A large block is split into contiguous chunks answered on `jobs` threads:
//! the reading thread answers the first chunk, `jobs - 1` helper threads (started once, at the
//! first block worth them, and fed through one queue) the others, and the chunks' answers are
//! written in input order, so the output does not depend on the number of threads. Answers are
//! flushed before a read that may block, so a tool can send a line and wait for its answer.

use crate::exit;
use crate::lang::Session;
use std::fmt::Write as _;
use std::io::{BufRead, ErrorKind, Write};
use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, mpsc};

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

/// Fewest lines worth a thread of their own.
const LINES_PER_THREAD: usize = 256;

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
            let newline = chunk.iter().position(|&b| b == b'\n');
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
    let text = raw.trim();
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

/// A chunk of a block for a helper thread: its lines, its place among the block's chunks, and
/// where its answers go.
struct Job {
    block: Arc<Block>,
    lines: Range<usize>,
    slot: usize,
    reply: mpsc::Sender<(usize, String, i32)>,
}

/// The helper threads of a run, started once (at the first block worth them) and fed chunks
/// through one queue; the thread that reads the input answers a chunk of each block itself.
struct Pool<'s, 'e> {
    queue: Option<mpsc::Sender<Job>>,
    helpers: usize,
    /// The threads to start, and the scope they live in.
    want: usize,
    scope: &'s std::thread::Scope<'s, 'e>,
}

impl<'s, 'e> Pool<'s, 'e> {
    /// Starts the helpers (once); `false` if none could start.
    fn start(&mut self, session: &'e Session) -> bool {
        if self.queue.is_none() && self.want > 0 {
            let (tx, rx) = mpsc::channel::<Job>();
            let rx = Arc::new(Mutex::new(rx));
            for _ in 0..self.want {
                let rx = Arc::clone(&rx);
                let started =
                    std::thread::Builder::new()
                        .stack_size(STACK)
                        .spawn_scoped(self.scope, move || {
                            loop {
                                // The lock is held only while taking a job, never while answering.
                                let job = match rx.lock() {
                                    Ok(q) => q.recv(),
                                    Err(_) => return,
                                };
                                let Ok(job) = job else { return };
                                let mut c = exit::OK;
                                let out = reply_all(
                                    session,
                                    &job.block,
                                    &job.block.lines[job.lines.clone()],
                                    &mut c,
                                );
                                let Job {
                                    block, slot, reply, ..
                                } = job;
                                drop(block);
                                // The reader may have given up on this block (it never does): ignore.
                                let _ = reply.send((slot, out, c));
                            }
                        });
                if started.is_ok() {
                    self.helpers += 1;
                }
            }
            self.want = 0;
            self.queue = Some(tx);
        }
        self.helpers > 0
    }
}

/// Answers a block on up to `jobs` threads (the reader's and the pool's); the answers come back
/// in input order, whichever thread answered them.
fn answer_block<'e>(
    session: &'e Session,
    pool: &mut Pool<'_, 'e>,
    block: &Arc<Block>,
    jobs: usize,
    code: &mut i32,
) -> Vec<String> {
    let n = block.lines.len();
    let threads = jobs.min(n / LINES_PER_THREAD).max(1);
    if threads == 1 || !pool.start(session) {
        return vec![reply_all(session, block, &block.lines, code)];
    }
    let threads = threads.min(pool.helpers + 1);
    let per = n.div_ceil(threads);
    let chunks: Vec<Range<usize>> = (0..n).step_by(per).map(|k| k..(k + per).min(n)).collect();
    let mut out: Vec<Option<String>> = vec![None; chunks.len()];
    let (tx, rx) = mpsc::channel();
    if let Some(queue) = &pool.queue {
        for (slot, lines) in chunks.iter().enumerate().skip(1) {
            let job = Job {
                block: Arc::clone(block),
                lines: lines.clone(),
                slot,
                reply: tx.clone(),
            };
            // A queue nobody reads (every helper gone): the chunk is answered below.
            let _ = queue.send(job);
        }
    }
    drop(tx);
    out[0] = Some(reply_all(session, block, &block.lines[chunks[0].clone()], code));
    // Every job either answers or is dropped (its sender with it): this ends.
    for (slot, text, c) in rx {
        if c == exit::INTERNAL {
            *code = exit::INTERNAL;
        }
        out[slot] = Some(text);
    }
    chunks
        .iter()
        .zip(out)
        .map(|(lines, text)| {
            text.unwrap_or_else(|| reply_all(session, block, &block.lines[lines.clone()], code))
        })
        .collect()
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
            queue: None,
            helpers: 0,
            want: jobs.saturating_sub(1),
            scope,
        };
        // Shared with the helpers while a block is answered; the reader's alone in between.
        let mut block = Arc::new(Block::default());
        loop {
            let more = match reader.next_line(Arc::make_mut(&mut block)) {
                Ok(more) => more,
                Err(e) => {
                    let _ = out.flush();
                    return Err(Err(e));
                }
            };
            // Answer what was read once the block is full, the input ends, or the next read
            // could block (a tool may be waiting for these answers before it sends more).
            if more && !(reader.may_block && reader.drained) && block.lines.len() < BLOCK_LINES {
                continue;
            }
            let mut result = Ok(());
            for text in answer_block(session, &mut pool, &block, jobs, &mut code) {
                result = result.and_then(|()| out.write_all(text.as_bytes()));
            }
            Arc::make_mut(&mut block).clear();
            if let Err(e) = result.and_then(|()| out.flush()) {
                return Err(Ok(e));
            }
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
