//! Kernels: the typed, data-only kernel IR the front end (`tessera::kernel`) produces, the
//! proof obligations checked before a kernel runs, typed buffers, and the reference
//! interpreter.
//!
//! Nothing here compiles yet: the Cranelift JIT and the PTX backend are to be built on this
//! IR. [`run`] interprets a [`Proved`] kernel, the only kind it accepts.

mod bind;
mod buffer;
mod cells;
mod error;
pub mod huge_pages;
mod interp;
mod ir;
mod lemmas;
mod proof;
mod round;

pub use bind::{check_bindings, params_of};
pub use buffer::Buffer;
pub use cells::Cells;
pub use error::RunError;
pub(crate) use interp::constant;
pub use interp::{Scalar, canonical, run, run_with_magnitudes};
pub use ir::{
    Access, BinOp, ElemType, Index, IndexId, Kernel, Node, Op, Stage, Stmt, StoreKind, Tensor, TensorId,
    Tile, UnOp, ValueId,
};
pub use proof::{
    Method, Obligation, ObligationKind, Proved, QUICK_MS, Refusal, kernel_verdict, obligation_property,
    obligations, prove_kernel, specialize,
};
pub use round::{bf16_to_f32, f16_to_f32, f32_to_bf16, f32_to_f16};
