//! Text gathered in a buffer on the stack before it reaches a formatter.
//!
//! A layout is printed a bracket, a comma and a leaf at a time; through a
//! [`fmt::Formatter`] each of those pieces is a call through the formatter's output, a
//! `dyn fmt::Write`. [`FmtBuffer`] gathers the pieces in 256 bytes and hands them on in one
//! `write_str`, so that `Display` costs about what writing into a `String` directly costs.

use std::fmt::{self, Write};

/// Bytes gathered before they are handed on.
const CAPACITY: usize = 256;

/// A `fmt::Write` that gathers what is written into a stack buffer and writes it to the
/// formatter `f` when the buffer is full and at [`FmtBuffer::finish`].
///
/// The buffer only ever holds whole `&str`s, so what it hands on is always valid UTF-8, and
/// the formatter sees exactly the text written, in order.
///
/// ```ignore
/// // (crate-private) inside a `Display` impl:
/// let mut w = FmtBuffer::new(f);
/// w.write_str("(2,3)")?;
/// w.write_char(':')?;
/// w.finish()
/// ```
pub(crate) struct FmtBuffer<'a, 'b> {
    f: &'a mut fmt::Formatter<'b>,
    buf: [u8; CAPACITY],
    len: usize,
}

impl<'a, 'b> FmtBuffer<'a, 'b> {
    /// An empty buffer in front of `f`.
    ///
    /// @post nothing is written to `f` until the buffer fills or [`FmtBuffer::finish`].
    pub(crate) fn new(f: &'a mut fmt::Formatter<'b>) -> Self {
        FmtBuffer {
            f,
            buf: [0; CAPACITY],
            len: 0,
        }
    }

    /// Hands on what is gathered.
    ///
    /// @post `f` has received everything written, in order.
    pub(crate) fn finish(mut self) -> fmt::Result {
        self.flush()
    }

    fn flush(&mut self) -> fmt::Result {
        if self.len == 0 {
            return Ok(());
        }
        let n = std::mem::take(&mut self.len);
        // Whole `&str`s only were copied in, so this never fails.
        let s = std::str::from_utf8(&self.buf[..n]).map_err(|_| fmt::Error)?;
        self.f.write_str(s)
    }
}

impl Write for FmtBuffer<'_, '_> {
    #[inline]
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if s.len() > CAPACITY - self.len {
            self.flush()?;
            if s.len() > CAPACITY {
                return self.f.write_str(s);
            }
        }
        self.buf[self.len..self.len + s.len()].copy_from_slice(s.as_bytes());
        self.len += s.len();
        Ok(())
    }

    #[inline]
    fn write_char(&mut self, c: char) -> fmt::Result {
        if c.is_ascii() && self.len < CAPACITY {
            self.buf[self.len] = c as u8;
            self.len += 1;
            return Ok(());
        }
        self.write_str(c.encode_utf8(&mut [0; 4]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `pieces` through a buffer inside a `Display`.
    struct Pieces<'a>(&'a [&'a str]);

    impl fmt::Display for Pieces<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            let mut w = FmtBuffer::new(f);
            for p in self.0 {
                if p.chars().count() == 1 {
                    w.write_char(p.chars().next().unwrap_or('?'))?;
                } else {
                    w.write_str(p)?;
                }
            }
            w.finish()
        }
    }

    #[test]
    fn hands_on_everything_in_order_across_the_capacity() {
        let long = "x".repeat(CAPACITY + 7);
        let edge = "y".repeat(CAPACITY - 1);
        for pieces in [
            vec![],
            vec!["(", "2", ",", "3", ")"],
            vec![edge.as_str(), "é", "z", "ü"],
            vec!["a", long.as_str(), "b"],
            vec![edge.as_str(), edge.as_str(), "∘", "c"],
            vec![long.as_str()],
        ] {
            let want: String = pieces.concat();
            assert_eq!(Pieces(&pieces).to_string(), want);
        }
    }
}
