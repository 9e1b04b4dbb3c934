//! Reading a check file: its bytes as UTF-8 text, or an error naming the line, the column and
//! the byte offset of the first sequence that is not UTF-8 (instead of the operating system's
//! "stream did not contain valid UTF-8").

/// Where the first invalid UTF-8 sequence of `bytes` is, as a message; `None` when `bytes`
/// is UTF-8.
///
/// @post `Some(m)` names the 1-based line, the 1-based byte column in that line, the 0-based
/// byte offset in the file, and the offending byte in hex.
///
/// ```
/// use tessera::check::source::invalid_utf8;
/// assert_eq!(invalid_utf8(b"let A = 4:1\n"), None);
/// let m = invalid_utf8(b"let A = 4:1\nlet B = \xff\n").unwrap();
/// assert!(m.starts_with("line 2, byte 9 (offset 20): invalid UTF-8 (0xff)"), "{m}");
/// ```
pub fn invalid_utf8(bytes: &[u8]) -> Option<String> {
    let e = std::str::from_utf8(bytes).err()?;
    let at = e.valid_up_to();
    let before = &bytes[..at];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = before.iter().rposition(|&b| b == b'\n').map_or(0, |k| k + 1);
    Some(format!(
        "line {line}, byte {} (offset {at}): invalid UTF-8 (0x{:02x}); save the file as UTF-8",
        at - start + 1,
        bytes[at]
    ))
}

/// The text of the file `path`: an error message for a file that cannot be read or is not
/// UTF-8 (with [`invalid_utf8`]'s position).
///
/// @post `Ok(s)` is the whole file.
///
/// ```
/// use tessera::check::source::read;
/// assert!(read("examples/transpose.tess").unwrap().contains("assert"));
/// assert!(read("examples/no_such_file.tess").is_err());
/// ```
pub fn read(path: &str) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    match invalid_utf8(&bytes) {
        Some(m) => Err(m),
        None => String::from_utf8(bytes).map_err(|e| e.to_string()),
    }
}
