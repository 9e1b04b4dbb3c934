//! `tessera eval --batch FILE`: one answer line per input line, whatever the input.
//!
//! Lines are read as bytes in bounded memory: a line that is not UTF-8 gets an error line, a
//! line longer than [`MAX_LINE`] gets an error line and is skipped to its newline without being
//! stored (so `--batch /dev/zero` runs in constant memory). The end of the input, or a reader of
//! the output that went away (a closed pipe), ends the run normally.
//!
//! Lines are answered in blocks: a block ends after [`BLOCK_LINES`] lines, or where the next
//! read could block. A large block is split into contiguous chunks answered on `jobs` threads,
//! and the chunks' answers are written in input order. Answers are flushed before a read that
//! may block, so a tool can send a line and wait for its answer.

use crate::exit;
use crate::lang::Session;
use std::io::{BufRead, ErrorKind, Write};
use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Evaluates one line, turning a panic (a bug) into an internal error.
pub fn answer(session: &Session, line: &str) -> Result<String, (i32, String)> {
    let mut out = String::new();
    answer_to(session, line, &mut out).map(|()| out)
}

/// [`answer`], appending the result to `out`.
fn answer_to(session: &Session, line: &str, out: &mut String) -> Result<(), (i32, String)> {
    let before = out.len();
    match catch_unwind(AssertUnwindSafe(|| session.eval_to(line, out))) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err((exit::of(&e), e.to_string())),
        Err(_) => {
            out.truncate(before);
            Err((
                exit::INTERNAL,
                format!("internal error while evaluating '{line}'"),
            ))
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
#[derive(Default)]
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
fn reply(session: &Session, line: Line, bytes: &[u8], out: &mut String, code: &mut i32) {
    let raw = match (line, std::str::from_utf8(bytes)) {
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
    if !text.is_empty()
        && !text.starts_with('#')
        && let Err((c, msg)) = answer_to(session, text, out)
    {
        if c == exit::INTERNAL {
            *code = exit::INTERNAL;
        }
        // One line per input line: fold a multi-line message.
        out.push_str("error: ");
        out.push_str(&msg.replace('\n', " | "));
    }
    out.push('\n');
}

/// The answers to `lines` of `block`, in order.
fn reply_all(session: &Session, block: &Block, lines: &[(Line, Range<usize>)], code: &mut i32) -> String {
    // About as long as the questions: a result is rarely longer than its expression.
    let bytes: usize = lines.iter().map(|(_, r)| r.len() + 8).sum();
    let mut out = String::with_capacity(bytes);
    for (kind, r) in lines {
        reply(session, *kind, &block.bytes[r.clone()], &mut out, code);
    }
    out
}

/// Answers a block on up to `jobs` threads; the answers come back in input order.
fn answer_block(session: &Session, block: &Block, jobs: usize, code: &mut i32) -> Vec<String> {
    let threads = jobs.min(block.lines.len() / LINES_PER_THREAD).max(1);
    if threads == 1 {
        return vec![reply_all(session, block, &block.lines, code)];
    }
    let per = block.lines.len().div_ceil(threads);
    let answers = std::thread::scope(|s| {
        let workers: Vec<_> = block
            .lines
            .chunks(per)
            .map(|chunk| {
                std::thread::Builder::new()
                    .stack_size(STACK)
                    .spawn_scoped(s, move || {
                        let mut c = exit::OK;
                        let out = reply_all(session, block, chunk, &mut c);
                        (out, c)
                    })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| match w.map(|h| h.join()) {
                Ok(Ok(r)) => Ok(r),
                _ => Err(()),
            })
            .collect::<Vec<_>>()
    });
    let mut out = Vec::with_capacity(answers.len());
    for (k, a) in answers.into_iter().enumerate() {
        match a {
            Ok((text, c)) => {
                if c == exit::INTERNAL {
                    *code = exit::INTERNAL;
                }
                out.push(text);
            }
            // A thread that could not start or died: answer its lines here.
            Err(()) => {
                let chunk = &block.lines[k * per..((k + 1) * per).min(block.lines.len())];
                out.push(reply_all(session, block, chunk, code));
            }
        }
    }
    out
}

/// `tessera eval --batch PATH` on `jobs` threads: one answer line per input line. The end of
/// the input, or a reader of the output that went away (a closed pipe), ends the run normally.
pub fn run(session: &Session, path: &str, jobs: usize) -> i32 {
    let inner: Box<dyn BufRead> = if path == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        match std::fs::File::open(path) {
            Ok(f) => Box::new(std::io::BufReader::with_capacity(1 << 16, f)),
            Err(e) => {
                eprintln!("error: cannot read {path}: {e}");
                return exit::BAD_INPUT;
            }
        }
    };
    let mut reader = BatchReader { inner, drained: true };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut code = exit::OK;
    let mut block = Block::default();
    let written = loop {
        let more = match reader.next_line(&mut block) {
            Ok(more) => more,
            Err(e) => {
                let _ = out.flush();
                eprintln!("error: reading {path}: {e}");
                return exit::BAD_INPUT;
            }
        };
        // Answer what was read once the block is full, the input ends, or the next read could
        // block (a tool may be waiting for these answers before it sends more).
        if more && !reader.drained && block.lines.len() < BLOCK_LINES {
            continue;
        }
        let mut result = Ok(());
        for text in answer_block(session, &block, jobs, &mut code) {
            result = result.and_then(|()| out.write_all(text.as_bytes()));
        }
        block.clear();
        if let Err(e) = result.and_then(|()| out.flush()) {
            break Err(e);
        }
        if !more {
            break Ok(());
        }
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
