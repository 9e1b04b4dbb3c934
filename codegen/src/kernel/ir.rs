//! The kernel IR: data only, no behaviour beyond naming and indexing.
//!
//! Entities (tensors, index names, expression values) are small ids into the [`Kernel`]'s
//! tables, in the style of Cranelift: an id's field is private, it is made by the front end
//! with `new` and read with `index`. A backend walks the tables; nothing here computes.

use tessera_ir::sym::SymInt;
use tessera_verifier::Func;

macro_rules! entity {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(u32);

        impl $name {
            /// The id of entry `k` of its table.
            ///
            /// # Panics
            /// When `k` does not fit in 32 bits (tables are far smaller).
            pub fn new(k: usize) -> Self {
                $name(u32::try_from(k).expect("entity index fits in u32"))
            }

            /// The entry's position in its table.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

entity!(
    /// A tensor of a kernel: an entry of [`Kernel::tensors`].
    TensorId
);
entity!(
    /// An index name of a kernel: an entry of [`Kernel::indices`].
    IndexId
);
entity!(
    /// A value of a statement's expression DAG: an entry of [`Stmt::nodes`].
    ValueId
);

/// An element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElemType {
    /// IEEE binary32.
    F32,
    /// IEEE binary64.
    F64,
    /// Two's-complement 32-bit integer.
    I32,
    /// Two's-complement 64-bit integer.
    I64,
    /// IEEE binary16 (computed in f32, rounded to nearest even on store).
    F16,
    /// bfloat16 (computed in f32, rounded to nearest even on store).
    BF16,
}

impl ElemType {
    /// Every element type, in the order the grammar lists them.
    pub const ALL: [ElemType; 6] = [
        ElemType::F32,
        ElemType::F64,
        ElemType::I32,
        ElemType::I64,
        ElemType::F16,
        ElemType::BF16,
    ];

    /// The type's name in check files (`f32`, `bf16`).
    pub fn name(self) -> &'static str {
        match self {
            ElemType::F32 => "f32",
            ElemType::F64 => "f64",
            ElemType::I32 => "i32",
            ElemType::I64 => "i64",
            ElemType::F16 => "f16",
            ElemType::BF16 => "bf16",
        }
    }

    /// The type named `name`, if any.
    pub fn from_name(name: &str) -> Option<ElemType> {
        ElemType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Whether the type is a floating-point type.
    pub fn is_float(self) -> bool {
        !matches!(self, ElemType::I32 | ElemType::I64)
    }

    /// The size of one element in bytes.
    pub fn bytes(self) -> usize {
        match self {
            ElemType::F16 | ElemType::BF16 => 2,
            ElemType::F32 | ElemType::I32 => 4,
            ElemType::F64 | ElemType::I64 => 8,
        }
    }
}

/// A tensor: its element type and layout. Its top-level modes are its dimensions; its buffer
/// holds exactly `cosize` elements.
#[derive(Clone, Debug)]
pub struct Tensor {
    /// Its name in the check file.
    pub name: String,
    /// Its element type.
    pub elem: ElemType,
    /// Its layout (plain, or swizzled / offset), over the file's parameters.
    pub layout: Func,
    /// The extent of each dimension (the size of each top-level mode).
    pub dims: Vec<SymInt>,
    /// The length of its buffer: the layout's cosize (for a composed layout, the inner
    /// layout's cosize plus the offset; the proof checks that the swizzle stays below it).
    pub cosize: SymInt,
}

/// An index name of the iteration domain, ranging over `[0, extent)`.
#[derive(Clone, Debug)]
pub struct Index {
    /// Its name.
    pub name: String,
    /// Its extent, equal for every dimension it binds.
    pub extent: SymInt,
}

/// One tile of the iteration domain: `name:size`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tile {
    /// The tiled index.
    pub index: IndexId,
    /// The tile's extent along it (positive; the last tile may be partial).
    pub size: i64,
}

/// A tensor access: the tensor at one index name per dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    /// The tensor.
    pub tensor: TensorId,
    /// One index per dimension, in order.
    pub indices: Vec<IndexId>,
}

/// A unary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `neg(x)`, `-x`.
    Neg,
    /// `abs(x)`.
    Abs,
}

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
    /// `a / b` (truncating for integers).
    Div,
    /// `max(a, b)`.
    Max,
    /// `min(a, b)`.
    Min,
}

/// An operation of the expression DAG; operands are earlier values of the same statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// A read of a tensor element.
    Load(Access),
    /// An integer constant (of the node's type).
    Int(i64),
    /// A floating-point constant (of the node's type).
    Float(f64),
    /// A unary operation.
    Unary(UnOp, ValueId),
    /// A binary operation; both operands have the node's type.
    Binary(BinOp, ValueId, ValueId),
    /// `fma(a, b, c)` = `a * b + c`, fused (one rounding in the compute type).
    Fma(ValueId, ValueId, ValueId),
    /// A conversion of the operand to the node's type.
    Cast(ValueId),
}

/// A node of the DAG: an operation and the type of its result.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// What it computes.
    pub op: Op,
    /// The type of the result (the element type; f16/bf16 values are computed in f32).
    pub ty: ElemType,
}

/// How a statement stores its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreKind {
    /// `=`: assigns.
    Assign,
    /// `+=`: adds the sum over the contraction indices to the element.
    Accumulate,
}

/// One statement: `target = value` or `target += value`.
#[derive(Clone, Debug)]
pub struct Stmt {
    /// The element written.
    pub target: Access,
    /// Assignment or accumulation.
    pub kind: StoreKind,
    /// The expression DAG, operands before their users.
    pub nodes: Vec<Node>,
    /// The stored value: a node of `nodes`, of the target's type.
    pub value: ValueId,
    /// The indices of the target, in order of first appearance: the statement's outer loops.
    pub outer: Vec<IndexId>,
    /// The contraction indices (on the right only), in order of first appearance: summed in
    /// a `+=`; always empty for `=`.
    pub contraction: Vec<IndexId>,
}

/// A staged tensor: its tile copied through a shared-memory layout before the statements run
/// (the GPU backends; the CPU backends compute the same values without it).
#[derive(Clone, Debug)]
pub struct Stage {
    /// The tensor (read by the kernel, every access at the same tiled indices).
    pub tensor: TensorId,
    /// The shared-memory layout: the tile's colexicographic index (over the tensor's
    /// dimensions) to an element offset. Its size is the tile's.
    pub layout: Func,
}

/// A checked kernel.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// Its name.
    pub name: String,
    /// Every tensor it uses, in order of first use.
    pub tensors: Vec<Tensor>,
    /// Every index name, in order of first use.
    pub indices: Vec<Index>,
    /// The tiling of the iteration domain (possibly empty).
    pub tiles: Vec<Tile>,
    /// The CTA's threads over a tile, in order, the first fastest (`Tile::size` is the number
    /// of threads along the index); empty: the default mapping.
    pub threads: Vec<Tile>,
    /// The staged tensors.
    pub stages: Vec<Stage>,
    /// The `vector W` clause: each thread moves `W` consecutive elements along the innermost
    /// index with one access (GPU backends; granted only where proved), or `None`.
    pub vector: Option<i64>,
    /// The statements, run in order.
    pub stmts: Vec<Stmt>,
}
