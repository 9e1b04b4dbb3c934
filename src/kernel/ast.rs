//! The syntax tree of the kernel language: `tensor` declarations and `kernel` blocks, every
//! node with the position it starts at.

use tessera_codegen::kernel::{BinOp, ElemType};

/// A position in a check file: a 1-based line and a 0-based byte column in that line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pos {
    /// The line, 1-based.
    pub line: usize,
    /// The byte offset in the line, 0-based.
    pub byte: usize,
}

/// `tensor NAME : TYPE[LAYOUT]`.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorDecl {
    /// The tensor's name.
    pub name: String,
    /// Where the name is.
    pub pos: Pos,
    /// The element type.
    pub elem: ElemType,
    /// The layout's text (an expression of the expression language), between the brackets.
    pub layout: String,
    /// Where the layout's text starts.
    pub layout_pos: Pos,
    /// The buffer's length when stated (`f32[VIEW] of 16`), with where it is; else the buffer
    /// is the layout's cosize.
    pub buffer: Option<(i64, Pos)>,
}

/// `name:size` in a kernel's `tile` clause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileDecl {
    /// The index name.
    pub name: String,
    /// The size as written (checked positive by the semantic checks).
    pub size: i64,
    /// Where the name is.
    pub pos: Pos,
    /// Where the size is.
    pub size_pos: Pos,
}

/// `stage X in L`: the tile of tensor `X` copied through the shared-memory layout `L` (a name
/// bound by `let`) before the statements run (GPU backends; the CPU backends ignore it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageDecl {
    /// The staged tensor.
    pub tensor: String,
    /// Where its name is.
    pub pos: Pos,
    /// The layout's name.
    pub layout: String,
    /// Where the layout's name is.
    pub layout_pos: Pos,
}

/// `kernel NAME [tile i:32, ...] [threads i:32, ...] { STATEMENTS }`.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelDecl {
    /// The kernel's name.
    pub name: String,
    /// Where the name is.
    pub pos: Pos,
    /// The `tile` clause, in order.
    pub tiles: Vec<TileDecl>,
    /// The `threads` clause, in order (the first listed fastest).
    pub threads: Vec<TileDecl>,
    /// The `vector W` clause: the width asked for, and where it is.
    pub vector: Option<(i64, Pos)>,
    /// The `stage` lines of the body, in order.
    pub stages: Vec<StageDecl>,
    /// The statements, in order.
    pub body: Vec<StmtDecl>,
}

/// An index name in an access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexUse {
    /// The name.
    pub name: String,
    /// Where it is.
    pub pos: Pos,
}

/// `T[i, j]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessDecl {
    /// The tensor's name.
    pub tensor: String,
    /// Where the access starts (the tensor's name).
    pub pos: Pos,
    /// The indices, in order.
    pub indices: Vec<IndexUse>,
}

/// `=` or `+=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssignOp {
    /// `=`.
    Assign,
    /// `+=`.
    Accumulate,
}

/// `T[i,j] = expr` or `T[i,j] += expr`.
#[derive(Clone, Debug, PartialEq)]
pub struct StmtDecl {
    /// The target.
    pub target: AccessDecl,
    /// The operator.
    pub op: AssignOp,
    /// Where the operator is.
    pub op_pos: Pos,
    /// The value.
    pub value: ExprDecl,
}

/// A built-in function of kernel expressions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    /// `max(a, b)`.
    Max,
    /// `min(a, b)`.
    Min,
    /// `abs(x)`.
    Abs,
    /// `neg(x)`.
    Neg,
    /// `fma(a, b, c)`.
    Fma,
    /// `f32(x)`, ...: a conversion.
    Cast(ElemType),
}

impl Call {
    /// The function called `name`, if any.
    pub fn from_name(name: &str) -> Option<Call> {
        Some(match name {
            "max" => Call::Max,
            "min" => Call::Min,
            "abs" => Call::Abs,
            "neg" => Call::Neg,
            "fma" => Call::Fma,
            n => Call::Cast(ElemType::from_name(n)?),
        })
    }

    /// The number of arguments it takes.
    pub fn arity(self) -> usize {
        match self {
            Call::Max | Call::Min => 2,
            Call::Fma => 3,
            Call::Abs | Call::Neg | Call::Cast(_) => 1,
        }
    }
}

/// An expression and where it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct ExprDecl {
    /// What it is.
    pub kind: ExprKind,
    /// Where it starts.
    pub pos: Pos,
}

/// The expression forms.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// An integer literal.
    Int(i64),
    /// A decimal literal (`0.5`).
    Float(f64),
    /// A bare name (always an error of the semantic checks: an index is not a value).
    Name(String),
    /// A tensor read.
    Read(AccessDecl),
    /// `-x`.
    Neg(Box<ExprDecl>),
    /// `a op b`, with the operator's position.
    Binary(BinOp, Pos, Box<ExprDecl>, Box<ExprDecl>),
    /// `f(args)`.
    Call(Call, Vec<ExprDecl>),
}
