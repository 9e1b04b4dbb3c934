//! Tessera's code generators: index functions, the arithmetic of a lowered layout
//! ([`tessera_ir::index::IndexExpr`]) as a self-contained function in C, CUDA C++, Rust or PTX;
//! and [`kernel`], the kernel IR with its proof obligations and reference interpreter (the
//! Cranelift JIT that will compile it is not built yet).
//!
//! A [`Signature`] names the function, orders its arguments (the index `i` or the coordinates
//! `c0..`, then the runtime parameters) and states the facts it assumes about them
//! ([`Assumption`]: bounds and a modulus). [`emit`] writes the function: a comment block with
//! the facts, a debug check of them at entry (C and CUDA `assert`, Rust `debug_assert!`), one
//! local `t<k>` per live operation in topological order, and the outputs: returned when there is
//! one; written through `int64_t *out_<name>` pointers (C, CUDA), returned as a tuple (Rust) or
//! as one return parameter each (PTX) when there are several.
//!
//! The code computes the IR's semantics (floor division and remainder, arithmetic shifts) for
//! every value the facts admit: truncating division and plain shifts appear only where the
//! interval analysis, run on the signature's assumptions, proves them exact; elsewhere small
//! floor helpers and portable shift forms do.
//!
//! ```
//! use std::collections::HashMap;
//! use tessera_codegen::{emit, Lang, Signature};
//! use tessera_ir::{index::{lower_index, Var}, parse_layout, sym::Interval};
//! let e = lower_index(&parse_layout("(4,8):(8,1)").unwrap()).unwrap();
//! let ranges = HashMap::from([(Var::Index, Interval::new(Some(0), Some(31)))]);
//! let sig = Signature::for_expr(&e, "offset_of", &ranges, &HashMap::new()).unwrap();
//! let c = emit(&e, Lang::C, &sig).unwrap();
//! assert!(c.contains("static inline int64_t offset_of(int64_t i)"));
//! assert!(c.contains("assert(0 <= i && i <= 31);"));
//! assert!(c.contains("int64_t t2 = i % 4;")); // i >= 0: C's % is the floor remainder
//! ```

mod c;
mod error;
mod int64_fit;
mod jit;
pub mod kernel;
mod lang;
mod memo;
mod names;
mod plan;
mod ptx;
mod ptx_kernel;
pub mod ptx_sim;
mod rust;
mod signature;

pub use error::EmitError;
pub use int64_fit::fit_int64;
pub use jit::{
    CompiledKernel, CopyKernel, CopyMode, CopySpec, GemmKernel, GemmMicro, GemmSpec, HalfPath, IndexFn,
    JitError, JitOptions, STREAM_MIN_BYTES, StmtPath, Times, TransposePath,
};
pub use lang::Lang;
pub use memo::{Memo, NoMemo};
pub use names::sanitize;
pub use ptx_kernel::{
    Arch, Entry, MAX_POINTS_PER_THREAD, MAX_THREADS, PtxKernel, StageReport, emit_kernel, emit_module,
    emit_module_within, stage_banks,
};
pub use signature::{Assumption, Signature};

use tessera_ir::index::IndexExpr;

/// The index function of `e` in `lang`, with the name, arguments and assumptions of `sig`.
///
/// Errors: a name that is not an identifier of `lang` or is reserved there, an input of `e`
/// missing from the arguments, assumptions that admit no value, no outputs, output names that
/// collide once sanitized, a shift by anything but a constant in `0..=62`.
///
/// ```
/// use std::collections::HashMap;
/// use tessera_codegen::{emit, Lang, Signature};
/// use tessera_ir::index::{Builder, Var};
/// let mut b = Builder::new();
/// let i = b.var(Var::Index);
/// let three = b.konst(3);
/// let q = b.div(i, three);
/// let e = b.finish(vec![("q".into(), q)]);
/// // Nothing is known of `i`: the quotient needs the floor helper.
/// let sig = Signature::for_expr(&e, "quot", &HashMap::new(), &HashMap::new()).unwrap();
/// let rust = emit(&e, Lang::Rust, &sig).unwrap();
/// assert!(rust.contains("let t2: i64 = floor_div(i, 3);"));
/// let ptx = emit(&e, Lang::Ptx, &sig).unwrap();
/// assert!(ptx.contains(".visible .func (.param .s64 ret_q) quot(.param .s64 arg_i)"));
/// ```
pub fn emit(e: &IndexExpr, lang: Lang, sig: &Signature) -> Result<String, EmitError> {
    let p = plan::Plan::new(e, sig, lang)?;
    match lang {
        Lang::C => c::emit(&p, c::Dialect::C),
        Lang::Cuda => c::emit(&p, c::Dialect::Cuda),
        Lang::Rust => rust::emit(&p),
        Lang::Ptx => ptx::emit(&p),
    }
}
