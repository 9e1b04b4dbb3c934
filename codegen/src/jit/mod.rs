//! The Cranelift backend: index functions compiled to native code in this process.
//!
//! [`IndexFn::compile`] turns an [`IndexExpr`] and its [`Signature`] into machine code through
//! Cranelift (0.135), with the same choice of exact instructions as the text backends (unsigned
//! division where the interval analysis proves the operands non-negative, shifts and masks for
//! powers of two, floor corrections elsewhere). The function is *total* on its domain before it
//! is compiled: every value of every node fits `i64` and no divisor can be 0 there (checked with
//! the interval analysis; an expression that fails is refused, never run). [`IndexFn::call`]
//! checks its arguments against the signature's assumptions, so a call outside the domain is an
//! error, never undefined behaviour or a trap.
//!
//! ```
//! use std::collections::HashMap;
//! use tessera_codegen::{IndexFn, Signature};
//! use tessera_ir::{index::{lower_index, Var}, parse_layout, sym::Interval};
//! let e = lower_index(&parse_layout("(4,8):(8,1)").unwrap()).unwrap();
//! let ranges = HashMap::from([(Var::Index, Interval::new(Some(0), Some(31)))]);
//! let sig = Signature::for_expr(&e, "f", &ranges, &HashMap::new()).unwrap();
//! let f = IndexFn::compile(&e, &sig).unwrap();
//! let mut out = [0i64];
//! f.call(&[9], &mut out).unwrap();
//! assert_eq!(out[0], 9 % 4 * 8 + 9 / 4);
//! assert!(f.call(&[32], &mut out).is_err()); // outside the domain
//! ```

#![allow(unsafe_code)] // calling JIT-compiled code; each use states why it is sound

mod convert;
mod copy;
mod gemm;
mod half_tiles;
mod index;
mod kernel;
mod loops;
mod nan;
mod transpose_tiles;

pub use copy::{CopyKernel, CopyMode, CopySpec, STREAM_MIN_BYTES, TransposePath};
pub use gemm::{GemmKernel, GemmMicro, GemmSpec};
pub use kernel::{CompiledKernel, HalfPath, JitOptions, StmtPath, Times};

use crate::error::EmitError;
use crate::lang::Lang;
use crate::plan::Plan;
use crate::signature::{Assumption, Signature};
use cranelift_codegen::ir::{AbiParam, InstBuilder, MemFlagsData, UserFuncName, Value, types};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module, default_libcall_names};
use std::collections::HashMap;
use std::time::{Duration, Instant};
use tessera_ir::index::{IndexExpr, Op, Var};

/// Why a function cannot be compiled or called.
#[derive(Debug, thiserror::Error)]
pub enum JitError {
    /// The signature does not fit the expression (see [`EmitError`]).
    #[error("{0}")]
    Signature(#[from] EmitError),
    /// A value of the expression may leave `i64` on the domain (or is unbounded).
    #[error("node t{0} may take a value outside 64 bits on the domain: bound the inputs")]
    Unbounded(usize),
    /// A divisor may be 0 (or `-1` under a dividend that may be `i64::MIN`) on the domain.
    #[error("node t{0} may divide by 0 (or overflow dividing by -1) on the domain")]
    Division(usize),
    /// Cranelift refused the function (a bug in Tessera).
    #[error("internal: Cranelift: {0}")]
    Cranelift(String),
    /// A call with the wrong number of arguments or outputs.
    #[error("expected {want} {what}, got {got}")]
    Arity {
        /// `arguments` or `outputs`.
        what: &'static str,
        /// How many the function takes.
        want: usize,
        /// How many were given.
        got: usize,
    },
    /// A copy that cannot be compiled or run as asked (extents, element size, buffers, offsets
    /// not proved inside their buffers).
    #[error("copy: {0}")]
    Copy(String),
    /// A kernel that cannot be compiled for these values (bindings, layouts).
    #[error("{0}")]
    Kernel(crate::kernel::RunError),
    /// A matrix product that cannot be compiled or run as asked (extents, buffers, offsets not
    /// proved inside their buffers, no thread).
    #[error("gemm: {0}")]
    Gemm(String),
    /// A call outside the domain.
    #[error("{var} = {value} is outside the domain ({facts})")]
    OutOfDomain {
        /// The argument.
        var: Var,
        /// Its value.
        value: i64,
        /// The assumptions it breaks.
        facts: String,
    },
}

/// The machine code's signature: the arguments, then the outputs, through memory.
type Entry = extern "C" fn(*const i64, *mut i64);

/// A compiled index function (see the module documentation).
pub struct IndexFn {
    module: Option<JITModule>,
    entry: Entry,
    args: Vec<Var>,
    assumptions: Vec<Assumption>,
    outputs: usize,
    compile_time: Duration,
}

/// Refuses an expression that is not total on the domain: a value outside `i64`, a division
/// that may trap.
pub(crate) fn check_total(plan: &Plan<'_>) -> Result<(), JitError> {
    let fits = |v: Option<i128>| v.is_some_and(|v| v >= i128::from(i64::MIN) && v <= i128::from(i64::MAX));
    for (k, op, a) in plan.ops() {
        let r = plan.interval_at(k);
        if !(fits(r.lo()) && fits(r.hi())) {
            return Err(JitError::Unbounded(k));
        }
        if matches!(op, Op::Div | Op::Mod) {
            let d = plan.interval(a[1]);
            let x = plan.interval(a[0]);
            let zero = d.contains(0);
            let trap = d.contains(-1) && x.contains(i128::from(i64::MIN));
            if zero || trap {
                return Err(JitError::Division(k));
            }
        }
    }
    Ok(())
}

fn isa() -> Result<std::sync::Arc<dyn cranelift_codegen::isa::TargetIsa>, JitError> {
    let mut flags = settings::builder();
    let set = |f: &mut settings::Builder, k: &str, v: &str| {
        f.set(k, v).map_err(|e| JitError::Cranelift(e.to_string()))
    };
    set(&mut flags, "opt_level", "speed")?;
    set(&mut flags, "is_pic", "false")?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    // A frame over a page (the 16-bit float scratch tiles of a loop nest run to 64 KiB) touches
    // each page on entry, so it cannot step over a thread's guard page.
    set(&mut flags, "enable_probestack", "true")?;
    set(&mut flags, "probestack_strategy", "inline")?;
    let builder = cranelift_native::builder().map_err(|e| JitError::Cranelift(e.to_string()))?;
    builder
        .finish(settings::Flags::new(flags))
        .map_err(|e| JitError::Cranelift(e.to_string()))
}

/// The signature of an offset function of the coordinates `c0 < dims[0]`, `c1 < dims[1]`, ..
/// (an empty extent admits only 0, and nothing runs on it).
pub(crate) fn coords_signature(dims: &[i64]) -> Signature {
    let args: Vec<Var> = (0..dims.len()).map(|d| Var::Coord(d as u32)).collect();
    Signature {
        name: "offset".into(),
        assumptions: args
            .iter()
            .zip(dims)
            .map(|(var, &n)| Assumption {
                var: var.clone(),
                lo: Some(0),
                hi: Some((n - 1).max(0)),
                modulus: 1,
            })
            .collect(),
        args,
        notes: Vec::new(),
    }
}

/// A parameter of a compiled function.
#[derive(Clone, Copy)]
pub(crate) enum Param {
    /// A pointer.
    Ptr,
    /// A 64-bit integer.
    I64,
}

/// Compiles one function of `params` (no results, the platform's C calling convention) whose
/// body `body` builds from the entry block's parameters, before the return; returns the
/// module, which owns the code, and the code's address.
pub(crate) fn compile_fn(
    params: &[Param],
    body: impl FnOnce(&mut FunctionBuilder<'_>, &[Value]),
) -> Result<(JITModule, *const u8), JitError> {
    compile_returning(params, None, |b, p| {
        body(b, p);
        b.ins().return_(&[]);
    })
}

/// Compiles one function of `params` returning one value of type `ret` (or nothing), whose
/// body `body` builds from the entry block's parameters, every `return` included; returns
/// the module, which owns the code, and the code's address.
pub(crate) fn compile_returning(
    params: &[Param],
    ret: Option<cranelift_codegen::ir::Type>,
    body: impl FnOnce(&mut FunctionBuilder<'_>, &[Value]),
) -> Result<(JITModule, *const u8), JitError> {
    let cranelift = |e: &dyn std::fmt::Debug| JitError::Cranelift(format!("{e:?}"));
    let mut module = JITModule::new(JITBuilder::with_isa(isa()?, default_libcall_names()));
    let mut ctx = module.make_context();
    let ptr = module.target_config().pointer_type();
    let mut s = module.make_signature();
    for p in params {
        s.params.push(AbiParam::new(match p {
            Param::Ptr => ptr,
            Param::I64 => types::I64,
        }));
    }
    if let Some(t) = ret {
        s.returns.push(AbiParam::new(t));
    }
    let id = module
        .declare_function("f", Linkage::Local, &s)
        .map_err(|e| cranelift(&e))?;
    ctx.func.signature = s;
    ctx.func.name = UserFuncName::user(0, id.as_u32());
    let mut fctx = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let block = b.create_block();
        b.append_block_params_for_function_params(block);
        b.switch_to_block(block);
        let p = b.block_params(block).to_vec();
        body(&mut b, &p);
        b.seal_all_blocks();
        b.finalize(module.target_config());
    }
    module.define_function(id, &mut ctx).map_err(|e| cranelift(&e))?;
    module.clear_context(&mut ctx);
    module.finalize_definitions().map_err(|e| cranelift(&e))?;
    let code = module.get_finalized_function(id);
    Ok((module, code))
}

impl IndexFn {
    /// Compiles `e` with the arguments and assumptions of `sig`.
    ///
    /// @pre none: a signature that does not fit, or an expression that is not total on the
    /// assumptions' domain, is an error.
    /// @post [`IndexFn::call`] computes `e`'s outputs (the IR's semantics) at every point of the
    /// domain.
    pub fn compile(e: &IndexExpr, sig: &Signature) -> Result<IndexFn, JitError> {
        let start = Instant::now();
        let plan = Plan::new(e, sig, Lang::C)?;
        check_total(&plan)?;
        let (module, code) = compile_fn(&[Param::Ptr, Param::Ptr], |b, p| {
            let (args, outs) = (p[0], p[1]);
            let flags = MemFlagsData::trusted();
            let mut inputs = HashMap::new();
            for (k, v) in sig.args.iter().enumerate() {
                let x = b.ins().load(types::I64, flags, args, (8 * k) as i32);
                inputs.insert(v.clone(), x);
            }
            let values = index::build(b, &plan, &inputs);
            for (k, x) in values.into_iter().enumerate() {
                b.ins().store(flags, x, outs, (8 * k) as i32);
            }
        })?;
        // SAFETY: `code` is the function just defined with the signature
        // `(pointer, pointer) -> ()` in the platform's C calling convention, which `Entry` is;
        // it stays mapped while `module` lives, and `module` lives as long as `self`.
        let entry = unsafe { std::mem::transmute::<*const u8, Entry>(code) };
        Ok(IndexFn {
            module: Some(module),
            entry,
            args: sig.args.clone(),
            assumptions: sig.assumptions.clone(),
            outputs: e.outputs().len(),
            compile_time: start.elapsed(),
        })
    }

    /// Time spent compiling (the checks, Cranelift and linking).
    pub fn compile_time(&self) -> Duration {
        self.compile_time
    }

    /// The outputs at `args` (in the signature's order) into `out` (one per output).
    ///
    /// Errors: the wrong number of arguments or outputs, an argument outside its assumptions.
    pub fn call(&self, args: &[i64], out: &mut [i64]) -> Result<(), JitError> {
        if args.len() != self.args.len() {
            return Err(JitError::Arity {
                what: "arguments",
                want: self.args.len(),
                got: args.len(),
            });
        }
        if out.len() != self.outputs {
            return Err(JitError::Arity {
                what: "outputs",
                want: self.outputs,
                got: out.len(),
            });
        }
        for a in &self.assumptions {
            let Some(k) = self.args.iter().position(|v| *v == a.var) else {
                continue;
            };
            let x = args[k];
            if !a.admits(x) {
                return Err(JitError::OutOfDomain {
                    var: a.var.clone(),
                    value: x,
                    facts: a.facts(&a.var.to_string()).join(", "),
                });
            }
        }
        // SAFETY: the code reads `self.args.len()` values from the first pointer and writes
        // `self.outputs` values through the second, and both slices have those lengths (checked
        // above); the arguments lie in the domain on which `compile` proved every operation
        // total (no trap, no overflow).
        (self.entry)(args.as_ptr(), out.as_mut_ptr());
        Ok(())
    }
}

impl std::fmt::Debug for IndexFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IndexFn")
            .field("args", &self.args)
            .field("outputs", &self.outputs)
            .finish_non_exhaustive()
    }
}

impl Drop for IndexFn {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: the only pointer into the module's memory is `self.entry`, which dies
            // with `self`.
            unsafe { m.free_memory() };
        }
    }
}
