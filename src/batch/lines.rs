//! The lines of a `--batch` input, read in blocks of bounded memory.
//!
//! A block holds the bytes of whole lines, newlines included, one after the other, and where
//! each line lies among them. Lines are found a buffer at a time: one `memchr` pass finds the
//! newlines, and the complete lines of a buffer are copied into the block with one copy. A line
//! longer than [`MAX_LINE`] is skipped to its newline without being stored; only its place is
//! kept, marked [`Line::Overlong`].

use std::io::{BufRead, ErrorKind};
use std::ops::Range;

/// Longest line `--batch` reads (the longest expression the parser accepts). A longer line is
/// answered with an error and skipped up to its newline without being stored.
pub const MAX_LINE: usize = tessera_ir::text::MAX_SOURCE_LEN;

/// Most lines answered as one block.
pub const BLOCK_LINES: usize = 4096;

/// Bytes after which a block ends even if it has fewer than [`BLOCK_LINES`] lines (a block holds
/// at most this plus one line of [`MAX_LINE`] bytes).
pub const BLOCK_BYTES: usize = 4 << 20;

/// Bytes a file is read in: a quarter of [`MAX_LINE`], so that a line wholly inside one read
/// is never overlong (an overlong line is always continued across reads).
pub(super) const READ_BYTES: usize = 1 << 18;

const _: () = assert!(READ_BYTES < MAX_LINE);

/// One line of a `--batch` input.
#[derive(Clone, Copy)]
pub(super) enum Line {
    /// The line's bytes, without its newline.
    Text,
    /// A line longer than [`MAX_LINE`]; its bytes were skipped.
    Overlong,
}

/// Lines read and not yet answered: their bytes (newlines included), one after the other, and
/// each line's kind and bytes (without its newline).
#[derive(Default, Clone)]
pub(super) struct Block {
    pub(super) bytes: Vec<u8>,
    pub(super) lines: Vec<(Line, Range<usize>)>,
}

impl Block {
    /// Empties the block, keeping its buffers.
    pub(super) fn clear(&mut self) {
        self.bytes.clear();
        self.lines.clear();
    }

    /// The block has as many lines or bytes as one holds, counting `pending` bytes of its
    /// lines not yet copied in.
    fn full(&self, pending: usize) -> bool {
        self.lines.len() >= BLOCK_LINES || self.bytes.len() + pending >= BLOCK_BYTES
    }
}

/// A line begun in one buffer and not yet ended: where its bytes start in the block, and
/// whether it has outgrown [`MAX_LINE`] (its bytes are then dropped).
#[derive(Clone, Copy)]
struct Open {
    start: usize,
    overlong: bool,
}

/// Reads `--batch` input line by line as bytes, in bounded memory.
pub(super) struct BatchReader {
    inner: Box<dyn BufRead>,
    /// No complete line is buffered: the next line needs a read, which may block.
    drained: bool,
    /// A read may wait for a writer (standard input, a pipe, a terminal); never for a regular
    /// file, whose lines are then answered in whole blocks.
    may_block: bool,
}

impl BatchReader {
    /// A reader of `inner`; `may_block` when a read can wait for a writer.
    pub(super) fn new(inner: Box<dyn BufRead>, may_block: bool) -> BatchReader {
        BatchReader {
            inner,
            drained: true,
            may_block,
        }
    }

    /// The next read could wait for a writer: no complete line is buffered and the input may
    /// block.
    pub(super) fn would_wait(&self) -> bool {
        self.may_block && self.drained
    }

    /// Appends lines to `block` until it is full, the input ends (then `false`), or the next
    /// read could block while the block has lines (a tool may be waiting for their answers
    /// before it sends more).
    ///
    /// @pre every line of `block` has ended (as every call leaves it).
    /// @post every line of `block` has ended: the bytes of a line not yet ended stay in the
    /// reader's buffer, or (a line that started in an earlier read) the call reads on.
    ///
    /// Example: a file of 10,000 short lines fills a first block of [`BLOCK_LINES`] lines and
    /// returns `true`; the third call takes the last 1,808 lines and returns `false`.
    pub(super) fn fill(&mut self, block: &mut Block) -> std::io::Result<bool> {
        let mut open: Option<Open> = None;
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                // The end of the input: a last line without a newline ends here.
                self.drained = true;
                if let Some(o) = open {
                    push(block, o);
                }
                return Ok(false);
            }
            let (used, stop) = take(chunk, block, &mut open, self.may_block);
            if self.may_block {
                // What stays buffered holds no whole line: the next one needs a read.
                self.drained = memchr::memchr(b'\n', &chunk[used..]).is_none();
            }
            self.inner.consume(used);
            if stop {
                return Ok(true);
            }
        }
    }
}

/// Ends the line `o` at the end of `block`'s bytes.
fn push(block: &mut Block, o: Open) {
    let kind = if o.overlong { Line::Overlong } else { Line::Text };
    block.lines.push((kind, o.start..block.bytes.len()));
}

/// Appends `part` to the line `o`, or drops the line's bytes once it is longer than
/// [`MAX_LINE`].
fn extend(block: &mut Block, o: &mut Open, part: &[u8]) {
    if !o.overlong && block.bytes.len() - o.start + part.len() > MAX_LINE {
        o.overlong = true;
        block.bytes.truncate(o.start);
    }
    if !o.overlong {
        block.bytes.extend_from_slice(part);
    }
}

/// Moves the lines of one buffer, `chunk`, into `block`: first the end of the line `open` left
/// by the buffer before, then whole lines (their bytes in one copy) until the block is full,
/// then the bytes after the last newline as a new `open` line, unless the input may block and
/// the block has lines to answer first (they stay in the buffer then). Returns the bytes of
/// `chunk` used and whether [`BatchReader::fill`] stops here.
fn take(chunk: &[u8], block: &mut Block, open: &mut Option<Open>, may_block: bool) -> (usize, bool) {
    let mut at = 0;
    if let Some(mut o) = open.take() {
        let Some(nl) = memchr::memchr(b'\n', chunk) else {
            extend(block, &mut o, chunk);
            *open = Some(o);
            return (chunk.len(), false);
        };
        extend(block, &mut o, &chunk[..nl]);
        push(block, o);
        at = nl + 1;
        if block.full(0) {
            return (at, true);
        }
    }
    // Whole lines from `run` on are copied at once when the run ends; `base` is where the run's
    // first byte goes in the block.
    let mut run = at;
    let mut base = block.bytes.len();
    let from = at;
    for nl in memchr::memchr_iter(b'\n', &chunk[from..]).map(|k| k + from) {
        if nl - at > MAX_LINE {
            // Never from a file's reads (`READ_BYTES`); a reader with a larger buffer.
            block.bytes.extend_from_slice(&chunk[run..at]);
            block
                .lines
                .push((Line::Overlong, block.bytes.len()..block.bytes.len()));
            run = nl + 1;
            base = block.bytes.len();
        } else {
            block
                .lines
                .push((Line::Text, base + (at - run)..base + (nl - run)));
        }
        at = nl + 1;
        if block.full(at - run) {
            block.bytes.extend_from_slice(&chunk[run..at]);
            return (at, true);
        }
    }
    block.bytes.extend_from_slice(&chunk[run..at]);
    if at == chunk.len() {
        // The buffer ends with a newline: the next line needs a read.
        return (at, may_block && !block.lines.is_empty());
    }
    if may_block && !block.lines.is_empty() {
        // A line begun and not ended: answer the lines before it first (its end may come
        // only after the answers do). Its bytes stay in the reader's buffer.
        return (at, true);
    }
    let mut o = Open {
        start: block.bytes.len(),
        overlong: false,
    };
    extend(block, &mut o, &chunk[at..]);
    *open = Some(o);
    (chunk.len(), false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::io::Read;

    /// A reader that hands out its input in the given pieces, one per read (a pipe's writes).
    struct Pieces(Vec<Vec<u8>>, usize);

    impl Read for Pieces {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let Some(p) = self.0.get_mut(self.1) else {
                return Ok(0);
            };
            let n = p.len().min(buf.len());
            buf[..n].copy_from_slice(&p[..n]);
            p.drain(..n);
            if p.is_empty() {
                self.1 += 1;
            }
            Ok(n)
        }
    }

    /// Every line `fill` gives for `pieces` read through a buffer of `cap` bytes, as
    /// `Some(bytes)` or `None` (overlong), with the number of calls that returned.
    fn lines_of(pieces: Vec<Vec<u8>>, cap: usize, may_block: bool) -> (Vec<Option<Vec<u8>>>, usize) {
        let inner = std::io::BufReader::with_capacity(cap, Pieces(pieces, 0));
        let mut r = BatchReader::new(Box::new(inner), may_block);
        let (mut out, mut calls) = (Vec::new(), 0);
        loop {
            let mut block = Block::default();
            let more = r.fill(&mut block).unwrap();
            calls += 1;
            assert!(block.lines.len() <= BLOCK_LINES);
            for (kind, range) in &block.lines {
                out.push(match kind {
                    Line::Text => Some(block.bytes[range.clone()].to_vec()),
                    Line::Overlong => None,
                });
            }
            if !more {
                return (out, calls);
            }
            assert!(calls < 1_000_000, "fill does not end");
        }
    }

    /// The lines of `input` as `str::lines` splits them, before trimming: on `\n` only, without
    /// a last empty line after a final newline.
    fn reference(input: &[u8]) -> Vec<Option<Vec<u8>>> {
        let mut v: Vec<Option<Vec<u8>>> = input.split(|&b| b == b'\n').map(|l| Some(l.to_vec())).collect();
        if input.is_empty() || input.ends_with(b"\n") {
            v.pop();
        }
        v
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        /// Lines come out whole and in order whatever the buffer size and however the input
        /// arrives: newlines at a piece's start or end, empty lines, CR, no final newline.
        #[test]
        fn lines_match_a_split_on_newlines(
            lines in proptest::collection::vec(proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'\r'), Just(0xC3u8), Just(b' ')], 0..40), 0..60),
            final_newline: bool,
            cuts in proptest::collection::vec(1usize..50, 0..20),
            cap in 1usize..70,
            may_block: bool,
        ) {
            let mut input = lines.join(&b'\n');
            if final_newline && !lines.is_empty() {
                input.push(b'\n');
            }
            let mut pieces = Vec::new();
            let mut rest = &input[..];
            for c in cuts {
                let k = c.min(rest.len());
                pieces.push(rest[..k].to_vec());
                rest = &rest[k..];
            }
            pieces.push(rest.to_vec());
            pieces.retain(|p| !p.is_empty());
            let (got, _) = lines_of(pieces, cap, may_block);
            prop_assert_eq!(got, reference(&input));
        }
    }

    #[test]
    fn a_block_ends_at_its_line_count() {
        let input = b"x\n".repeat(BLOCK_LINES * 2 + 5);
        let (got, calls) = lines_of(vec![input.clone()], READ_BYTES, false);
        assert_eq!(got, reference(&input));
        // Two full blocks, then the last five lines with the end of the input.
        assert_eq!(calls, 3);
    }

    #[test]
    fn an_overlong_line_is_skipped_and_the_next_ones_read() {
        let mut input = b"a\n".to_vec();
        input.extend(std::iter::repeat_n(b'z', MAX_LINE + 1));
        input.extend(b"\nb\n");
        input.extend(std::iter::repeat_n(b'y', MAX_LINE));
        input.extend(b"\nc");
        let (got, _) = lines_of(vec![input], READ_BYTES, false);
        let y = vec![b'y'; MAX_LINE];
        assert_eq!(
            got,
            vec![
                Some(b"a".to_vec()),
                None,
                Some(b"b".to_vec()),
                Some(y),
                Some(b"c".to_vec())
            ]
        );
        // From a reader whose buffer holds the whole line.
        let mut input = vec![b'q'; MAX_LINE + 2];
        input.extend(b"\nd\n");
        let (got, _) = lines_of(vec![input], 4 * MAX_LINE, true);
        assert_eq!(got, vec![None, Some(b"d".to_vec())]);
    }

    /// On an input that may block, the lines read so far are answered before a read that may
    /// wait: after each piece that ends a line, and before the end of a line begun in it.
    #[test]
    fn lines_that_arrived_are_returned_before_a_read_that_may_wait() {
        let pieces = vec![
            b"a\nb".to_vec(),
            b"c\n".to_vec(),
            b"d\ne\nf".to_vec(),
            b"g\n".to_vec(),
        ];
        let inner = std::io::BufReader::with_capacity(64, Pieces(pieces, 0));
        let mut r = BatchReader::new(Box::new(inner), true);
        let mut seen = Vec::new();
        loop {
            let mut block = Block::default();
            let more = r.fill(&mut block).unwrap();
            let texts: Vec<String> = block
                .lines
                .iter()
                .map(|(_, l)| String::from_utf8(block.bytes[l.clone()].to_vec()).unwrap())
                .collect();
            seen.push((texts.join(","), r.would_wait()));
            if !more {
                break;
            }
        }
        let want = [("a", true), ("bc", true), ("d,e", true), ("fg", true), ("", true)];
        let want: Vec<(String, bool)> = want.iter().map(|(t, w)| (t.to_string(), *w)).collect();
        assert_eq!(seen, want);
    }
}
