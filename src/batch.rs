//! `tessera eval --batch FILE`: one answer line per input line, whatever the input.
//!
//! Lines are read as bytes in bounded memory: a line that is not UTF-8 gets an error line, a
//! line longer than [`MAX_LINE`] gets an error line and is skipped to its newline without being
//! stored (so `--batch /dev/zero` runs in constant memory). Answers are flushed before a read
//! that may block, so a tool can send a line and wait for its answer. The end of the input, or
//! a reader of the output that went away (a closed pipe), ends the run normally.

use crate::exit;
use std::io::{BufRead, ErrorKind, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use tessera_ir::eval::Session;

/// Evaluates one line, turning a panic (a bug) into an internal error.
pub fn answer(session: &Session, line: &str) -> Result<String, (i32, String)> {
    match catch_unwind(AssertUnwindSafe(|| session.eval(line))) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err((exit::BAD_INPUT, e.to_string())),
        Err(_) => Err((
            exit::INTERNAL,
            format!("internal error while evaluating '{line}'"),
        )),
    }
}

/// Longest line `--batch` reads (the longest expression the parser accepts). A longer line is
/// answered with an error and skipped up to its newline without being stored.
pub const MAX_LINE: usize = tessera_ir::text::MAX_SOURCE_LEN;

/// One line of a `--batch` input.
enum Line {
    /// The line's bytes, without its newline.
    Text,
    /// A line longer than [`MAX_LINE`]; its bytes were skipped.
    Overlong,
}

/// Reads `--batch` input line by line as bytes, in bounded memory.
struct BatchReader {
    inner: Box<dyn BufRead>,
    /// The reader's buffer is empty: the next read may block, so answers are flushed first.
    drained: bool,
}

impl BatchReader {
    /// The next line into `buf`, or `None` at the end of the input.
    fn next_line(&mut self, buf: &mut Vec<u8>) -> std::io::Result<Option<Line>> {
        buf.clear();
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
                return Ok(any.then_some(if overlong { Line::Overlong } else { Line::Text }));
            }
            any = true;
            let newline = chunk.iter().position(|&b| b == b'\n');
            let part = &chunk[..newline.unwrap_or(chunk.len())];
            if !overlong && buf.len() + part.len() > MAX_LINE {
                overlong = true;
                buf.clear();
                buf.shrink_to(MAX_LINE);
            }
            if !overlong {
                buf.extend_from_slice(part);
            }
            let used = newline.map_or(chunk.len(), |k| k + 1);
            self.drained = used == chunk.len();
            self.inner.consume(used);
            if newline.is_some() {
                return Ok(Some(if overlong { Line::Overlong } else { Line::Text }));
            }
        }
    }
}

/// The answer to one `--batch` line.
fn batch_reply(session: &Session, line: Line, bytes: &[u8], code: &mut i32) -> String {
    let raw = match (line, std::str::from_utf8(bytes)) {
        (Line::Overlong, _) => {
            return format!("error: line longer than {MAX_LINE} bytes (1 MiB); skipped");
        }
        (Line::Text, Err(e)) => {
            return format!(
                "error: line is not valid UTF-8 (invalid byte at column {})",
                e.valid_up_to() + 1
            );
        }
        (Line::Text, Ok(t)) => t,
    };
    let text = raw.trim();
    if text.is_empty() || text.starts_with('#') {
        return String::new();
    }
    match answer(session, text) {
        Ok(v) => v,
        Err((c, msg)) => {
            if c == exit::INTERNAL {
                *code = exit::INTERNAL;
            }
            // One line per input line: fold a multi-line message.
            format!("error: {}", msg.replace('\n', " | "))
        }
    }
}

/// `tessera eval --batch PATH`: one answer line per input line. The end of the input, or a
/// reader of the output that went away (a closed pipe), ends the run normally.
pub fn run(session: &Session, path: &str) -> i32 {
    let inner: Box<dyn BufRead> = if path == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        match std::fs::File::open(path) {
            Ok(f) => Box::new(std::io::BufReader::new(f)),
            Err(e) => {
                eprintln!("error: cannot read {path}: {e}");
                return exit::BAD_INPUT;
            }
        }
    };
    let mut reader = BatchReader { inner, drained: true };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut code = exit::OK;
    let mut buf = Vec::new();
    let written = loop {
        // Answers reach a reader that waits for them before it sends the next line.
        if reader.drained
            && let Err(e) = out.flush()
        {
            break Err(e);
        }
        let line = match reader.next_line(&mut buf) {
            Ok(Some(l)) => l,
            Ok(None) => break out.flush(),
            Err(e) => {
                let _ = out.flush();
                eprintln!("error: reading {path}: {e}");
                return exit::BAD_INPUT;
            }
        };
        let reply = batch_reply(session, line, &buf, &mut code);
        if let Err(e) = writeln!(out, "{reply}") {
            break Err(e);
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
