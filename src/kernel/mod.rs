//! The kernel language of check files: `tensor` declarations and `kernel` blocks, their
//! parser (on the shared lexer of [`tessera_ir::text`]), their semantic checks, and their
//! lowering to the kernel IR of [`tessera_codegen::kernel`] (which also holds the proof
//! obligations and the reference interpreter).
//!
//! ```text
//! param M, N where M % 32 == 0, N % 32 == 0, 32 <= M <= 65536, 32 <= N <= 65536
//! tensor src : f32[(M,N):(1,M)]
//! tensor dst : f32[(M,N):(N,1)]
//! kernel transpose tile i:32, j:32 {
//!   dst[i,j] = src[i,j]
//! }
//! ```
//!
//! A tensor is an element type (`f32 f64 i32 i64 f16 bf16`) and a layout (any integer-valued
//! layout of the expression language: hierarchical, swizzled, offset, symbolic, with stride 0
//! for broadcast); its top-level modes are its dimensions. Statements are einsum-style: `=`
//! assigns, `+=` sums over the indices that appear only on the right.

mod array;
mod ast;
mod error;
mod parse;
mod sema;
mod tensor;
mod types;

pub use array::{Form, Strided, contiguous};
pub use ast::{
    AccessDecl, AssignOp, Call, ExprDecl, ExprKind, IndexUse, KernelDecl, Pos, StmtDecl, TensorDecl, TileDecl,
};
pub use error::{ErrorKind, KernelError};
pub use parse::{MAX_DEPTH, parse_kernel, parse_tensor};
pub use sema::check;
pub use tensor::tensor;
