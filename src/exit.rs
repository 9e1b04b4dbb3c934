//! Exit codes of the `tessera` binary (design.md), and the end of its output.
//!
//! Every subcommand uses the same codes; a usage error (an unknown flag, a bad option value,
//! a missing argument) is bad input, 3.

/// Everything was proved (or evaluated).
pub const OK: i32 = 0;
/// Something was refuted.
pub const REFUTED: i32 = 1;
/// Something is unknown and nothing was refuted.
pub const UNKNOWN: i32 = 2;
/// Bad input: a syntax error, an algebra error, an unreadable file.
pub const BAD_INPUT: i32 = 3;
/// An internal error (a bug in Tessera).
pub const INTERNAL: i32 = 4;

/// The exit code of an error: [`INTERNAL`] for a broken invariant, else [`BAD_INPUT`].
pub fn of(e: &tessera_ir::Error) -> i32 {
    if e.is_internal() { INTERNAL } else { BAD_INPUT }
}

/// Writes `text` to stdout. A reader that went away (`tessera ... | head -1` closed the pipe)
/// has what it wanted: the rest is dropped quietly, not an error; another write error is
/// reported on stderr.
pub fn print(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("error: writing the output: {e}")
        }
        _ => {}
    }
}
