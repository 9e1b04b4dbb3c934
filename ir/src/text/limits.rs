//! The limits of the expression language, shared by the parser and the readers that take
//! lines without it. Each is a parse error with a column when reached.

/// Deepest nesting accepted (the parser's module documentation says what counts as a level).
/// It keeps the recursion of the parser and of the evaluator within the stack.
pub const MAX_DEPTH: usize = 128;
/// Most elements accepted in one tuple, argument list or slice.
pub const MAX_TUPLE: usize = 4096;
/// Longest source accepted, in bytes (1 MiB).
pub const MAX_SOURCE_LEN: usize = 1 << 20;
