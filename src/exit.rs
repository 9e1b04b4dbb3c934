//! Exit codes of the `tessera` binary (design.md).

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
