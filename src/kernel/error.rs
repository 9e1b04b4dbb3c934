//! Errors of the kernel language: where, and what kind.

use super::ast::Pos;

/// A bad `tensor` or `kernel` declaration: where, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind}")]
pub struct KernelError {
    /// Where (line, byte column).
    pub pos: Pos,
    /// What is wrong (boxed: errors travel through every parser frame).
    pub kind: Box<ErrorKind>,
}

impl KernelError {
    /// An error of kind `kind` at `pos`.
    pub fn new(pos: Pos, kind: ErrorKind) -> KernelError {
        KernelError {
            pos,
            kind: Box::new(kind),
        }
    }
}

/// What is wrong with a `tensor` or `kernel` declaration.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    /// A syntax error.
    #[error("{0}")]
    Syntax(String),
    /// An element type that is not one of `f32 f64 i32 i64 f16 bf16`.
    #[error("unknown element type '{0}' (expected f32, f64, i32, i64, f16 or bf16)")]
    UnknownType(String),
    /// A layout that cannot be a tensor's.
    #[error("tensor {tensor}: {msg}")]
    BadLayout {
        /// The tensor.
        tensor: String,
        /// Why.
        msg: String,
    },
    /// A tensor or kernel name declared twice.
    #[error("{what} '{name}' is declared twice")]
    Duplicate {
        /// `tensor` or `kernel`.
        what: &'static str,
        /// The name.
        name: String,
    },
    /// A tensor that no `tensor` line declares.
    #[error("unknown tensor '{0}'")]
    UnknownTensor(String),
    /// A bare name in an expression that is no index of the kernel.
    #[error("unknown name '{0}' (a value is a tensor read, a literal or a call)")]
    UnknownName(String),
    /// An index name used as a value.
    #[error("index '{0}' is not a value: an index name is allowed only inside [...]")]
    IndexAsValue(String),
    /// A call of a function that does not exist, or with the wrong number of arguments.
    #[error("{0}")]
    BadCall(String),
    /// An access with a number of indices other than the tensor's dimensions.
    #[error("tensor {tensor} has {expected} dimension(s) (top-level modes), got {got} index(es)")]
    Arity {
        /// The tensor.
        tensor: String,
        /// Its dimensions.
        expected: usize,
        /// Indices given.
        got: usize,
    },
    /// An index bound to dimensions of different extents.
    #[error(
        "index {index}: extent {second_extent} (dimension {second_dim} of {second}) differs from extent {first_extent} (dimension {first_dim} of {first})"
    )]
    ExtentMismatch {
        /// The index.
        index: String,
        /// The tensor of its first use.
        first: String,
        /// The dimension of its first use (0-based).
        first_dim: usize,
        /// The extent there.
        first_extent: String,
        /// The tensor of this use.
        second: String,
        /// The dimension of this use (0-based).
        second_dim: usize,
        /// The extent here.
        second_extent: String,
    },
    /// An index bound to dimensions whose extents the facts do not decide equal.
    #[error(
        "index {index}: cannot decide that extent {second_extent} of {second} equals extent {first_extent} of {first}: {reason}"
    )]
    ExtentUndecided {
        /// The index.
        index: String,
        /// The tensor of its first use.
        first: String,
        /// The extent there.
        first_extent: String,
        /// The tensor of this use.
        second: String,
        /// The extent here.
        second_extent: String,
        /// What the symbolic algebra needed (the fact that would settle it).
        reason: String,
    },
    /// Operands or a value of different types.
    #[error("type mismatch: expected {expected}, found {found}{hint}")]
    TypeMismatch {
        /// The type expected.
        expected: String,
        /// The type found.
        found: String,
        /// A hint (a cast).
        hint: String,
    },
    /// An integer literal that does not fit its integer type.
    #[error("integer literal {0} does not fit in {1}")]
    LiteralRange(i64, &'static str),
    /// An index that appears only on the right of `=`.
    #[error("index '{0}' appears only on the right of '=': write '+=' to sum over it")]
    ContractionOnAssign(String),
    /// A tile of a name that is not an index of the kernel.
    #[error("tile '{0}' is not an index of the kernel")]
    TileNotIndex(String),
    /// A tile of size below 1.
    #[error("tile size must be positive, got {0}")]
    TileSize(i64),
    /// An index tiled twice.
    #[error("index '{0}' is tiled twice")]
    TileTwice(String),
    /// A `vector` clause the front end refuses.
    #[error("vector: {0}")]
    Vector(String),
    /// A `threads` clause that does not fit the tiles.
    #[error("threads: {0}")]
    Threads(String),
    /// A `stage` line that cannot stage its tensor.
    #[error("stage {tensor}: {msg}")]
    Stage {
        /// The tensor.
        tensor: String,
        /// Why.
        msg: String,
    },
    /// A statement that reads its output at other indices than it writes.
    #[error("race: {tensor} is written at [{written}] and read at [{read}] in the same statement")]
    Race {
        /// The tensor.
        tensor: String,
        /// The indices written.
        written: String,
        /// The indices read.
        read: String,
    },
}
