//! Tessera: a compiler and prover for CuTe-style tensor layouts.
//!
//! This crate is the facade over the workspace: the layout algebra and the text format live in
//! [`ir`] (`tessera-ir`); the command-line interface is the `tessera` binary.
//!
//! ```
//! assert_eq!(tessera::lang::eval_str("coalesce((2,(1,6)):(1,(6,2)))").unwrap(), "12:1");
//! ```

pub use tessera_codegen as codegen;
pub use tessera_ir as ir;
pub use tessera_verifier as verifier;

pub mod batch;
pub mod bindings;
pub mod build;
pub mod check;
pub mod cli;
pub mod draw;
pub mod draw_cmd;
pub mod duration;
pub mod emit;
pub mod exit;
#[cfg(feature = "cuda")]
pub mod gpu;
pub mod identity;
pub mod jit;
pub mod kernel;
pub mod kernel_bench;
pub mod lang;
pub mod language;
pub mod lower;
pub mod npy;
pub mod prep_cache;
pub mod run;
pub mod simplify;
pub mod suggest_cmd;
