//! Kernels of the kernel language compiled to native code with Cranelift.
//!
//! [`CompiledKernel::compile`] takes a [`Proved`] kernel (its accesses proved inside their
//! buffers, its outputs written once) and the launch's parameter values, and compiles each
//! statement:
//! * a rank-2 copy between two tensors of one type, through [`crate::CopyKernel`] (tiled,
//!   vectorised or transposed in registers where contiguity is proved);
//! * anything else to a loop nest over the statement's tiles ([`StmtPath::Loop`]): index code
//!   from the layouts (simplified with egg, validated, invariant parts left to Cranelift's
//!   loop-invariant code motion), four lanes at a time along the innermost index where every
//!   access is proved contiguous or invariant along it, and the interpreter's semantics
//!   exactly, so results are bit-identical to [`crate::kernel::run`]; the `f16`/`bf16`
//!   elements a four-lane `=` loads and stores are converted a tile at a time outside the
//!   loop ([`HalfPath::Tiles`], the CPU's F16C instructions where it has them).
//!
//! [`CompiledKernel::run`] checks the buffers against the cosizes and runs the statements in
//! order, each split over threads by tiles.
//!
//! ```
//! use std::collections::HashMap;
//! use std::sync::Arc;
//! use tessera_codegen::kernel::*;
//! use tessera_codegen::{CompiledKernel, JitOptions};
//! use tessera_ir::{Int, sym::{Facts, SymInt}};
//! use tessera_verifier::{Func, Options};
//! let facts = Arc::new(Facts::default());
//! let tensor = |name: &str, l: &str| {
//!     let layout = Func::parse(l, &facts).unwrap();
//!     let Func::Layout(ly) = &layout else { unreachable!() };
//!     Tensor { name: name.into(), elem: ElemType::F32, dims: ly.shape().modes().iter()
//!         .map(|m| SymInt::product(m.leaves()).unwrap()).collect(),
//!         cosize: ly.cosize().unwrap(), layout }
//! };
//! let (src, dst) = (TensorId::new(0), TensorId::new(1));
//! let (i, j) = (IndexId::new(0), IndexId::new(1));
//! let k = Kernel {
//!     name: "scale".into(),
//!     tensors: vec![tensor("src", "(8,3):(1,8)"), tensor("dst", "(8,3):(3,1)")],
//!     indices: vec![Index { name: "i".into(), extent: SymInt::lit(8) },
//!                   Index { name: "j".into(), extent: SymInt::lit(3) }],
//!     tiles: vec![],
//!     threads: vec![],
//!     stages: vec![],
//!     vector: None,
//!     stmts: vec![Stmt {
//!         target: Access { tensor: dst, indices: vec![i, j] },
//!         kind: StoreKind::Assign,
//!         nodes: vec![
//!             Node { op: Op::Load(Access { tensor: src, indices: vec![i, j] }), ty: ElemType::F32 },
//!             Node { op: Op::Float(2.0), ty: ElemType::F32 },
//!             Node { op: Op::Binary(BinOp::Mul, ValueId::new(0), ValueId::new(1)), ty: ElemType::F32 },
//!         ],
//!         value: ValueId::new(2),
//!         outer: vec![i, j],
//!         contraction: vec![],
//!     }],
//! };
//! let p = Proved::check(k, &Options::default(), false).unwrap();
//! let jit = CompiledKernel::compile(&p, &HashMap::new(), &JitOptions::default()).unwrap();
//! let mut bufs = vec![Buffer::F32((0..24).map(|x| x as f32).collect()), Buffer::zeros(ElemType::F32, 24)];
//! jit.run(&mut bufs, 2).unwrap();
//! let Buffer::F32(d) = &bufs[1] else { unreachable!() };
//! assert_eq!(d[3 * 5 + 2], 2.0 * (5 + 8 * 2) as f32); // dst[5, 2] = 2 * src[5, 2]
//! ```

mod matmul;
mod prepare;
mod staging;
mod stmt;
mod value;

use super::JitError;
use super::copy::{CopyKernel, CopyMode, CopySpec, TransposePath};
use super::gemm::{GemmKernel, GemmMicro};
use crate::kernel::{Buffer, Cells, ElemType, Proved, RunError, check_bindings};
use crate::memo::{Memo, NoMemo};
use prepare::{PrepTime, TensorCode, tensor_code};
use std::cell::Cell;
use std::collections::HashMap;
use std::time::{Duration, Instant};
use stmt::{LoopFn, StepProofs, compile_stmt, copy_source};
use tessera_ir::index::Var;

/// How [`CompiledKernel::compile`] works.
#[derive(Clone, Debug)]
pub struct JitOptions {
    /// Validate the simplified index code (the default); without it, the naive lowering is
    /// used (never an unvalidated rewrite).
    pub validate: bool,
    /// The time limit of each contiguity proof, in milliseconds.
    pub proof_timeout_ms: u64,
    /// The tile of rank-2 copies without a declared tiling (`[rows, columns]`).
    pub copy_tile: [i64; 2],
    /// Compile `f32` matrix products with the register-blocked GEMM (the default; its sums are
    /// reordered, so results agree with the interpreter within a tolerance). Without it they
    /// are loop nests, bit-identical to the interpreter.
    pub gemm: bool,
    /// Which micro-kernel the register-blocked GEMM multiplies with (see [`GemmMicro`]: the
    /// widest this CPU runs by default; every choice gives the same bits).
    pub gemm_micro: GemmMicro,
    /// How loop nests convert `f16` and `bf16` elements (see [`HalfPath`]).
    pub half: HalfPath,
    /// How rank-2 copies move a transpose of 4-byte elements (see [`TransposePath`]).
    pub transpose: TransposePath,
}

impl Default for JitOptions {
    fn default() -> Self {
        JitOptions {
            validate: true,
            proof_timeout_ms: 1_000,
            copy_tile: [8, 128],
            gemm: true,
            gemm_micro: GemmMicro::default(),
            half: HalfPath::default(),
            transpose: TransposePath::default(),
        }
    }
}

/// How a loop nest converts the 16-bit float elements it loads and stores (every choice
/// gives the reference interpreter's bits; they differ in speed only).
///
/// ```
/// use tessera_codegen::{HalfPath, JitOptions};
/// assert_eq!(JitOptions::default().half, HalfPath::Tiles);
/// // The path before tiles, e.g. to measure both in one run:
/// let inline = JitOptions { half: HalfPath::Inline, ..JitOptions::default() };
/// assert_ne!(inline.half, HalfPath::default());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HalfPath {
    /// In four-lane code of a plain `=`, each run of contiguous `f16`/`bf16` elements along
    /// the innermost index is widened into an `f32` scratch tile before the loop computes, and
    /// the target's tile narrowed after, by helpers outside Cranelift code: `f16` with the
    /// CPU's conversion instructions (x86 F16C) where it has them, else (and `bf16` always) by
    /// the interpreter's conversions in a compiled loop (the default).
    #[default]
    Tiles,
    /// As [`HalfPath::Tiles`], but never the conversion instructions: the path a CPU without
    /// F16C takes, forced (to test it on any CPU, and to measure it).
    SoftwareTiles,
    /// Every element converted where it is used, by Cranelift integer code (about 16 vector
    /// operations per element: the path before tiles, kept for comparison).
    Inline,
}

/// Where compilation spent its time.
#[derive(Clone, Copy, Debug, Default)]
pub struct Times {
    /// Lowering the layouts and simplifying them with egg.
    pub simplify: Duration,
    /// Validating the simplified index code (enumeration or z3).
    pub validate: Duration,
    /// The contiguity proofs that decide vectorisation.
    pub proofs: Duration,
    /// Cranelift: code generation and linking, every statement.
    pub compile: Duration,
}

/// How one statement was compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StmtPath {
    /// Nothing to run: an index has extent 0.
    Empty,
    /// A rank-2 copy ([`crate::CopyKernel`]) in the given mode.
    Copy(CopyMode),
    /// An `f32` matrix product through the register-blocked [`crate::GemmKernel`] (sums
    /// reordered).
    Gemm,
    /// A loop nest: the innermost index, and whether it runs four lanes at a time.
    Loop {
        /// The innermost index's name.
        inner: String,
        /// Whether the innermost loop is vectorised.
        vector: bool,
        /// The number of tiles the threads share.
        tiles: i64,
    },
}

impl std::fmt::Display for StmtPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StmtPath::Empty => write!(f, "empty"),
            StmtPath::Copy(m) => write!(f, "copy kernel ({m:?})"),
            StmtPath::Gemm => write!(f, "register-blocked GEMM"),
            StmtPath::Loop { inner, vector, tiles } => write!(
                f,
                "loop nest, {} along {inner}, {tiles} tile(s)",
                if *vector { "4 lanes" } else { "1 lane" }
            ),
        }
    }
}

enum Code {
    Empty,
    Copy {
        kernel: CopyKernel,
        src: usize,
        dst: usize,
    },
    Gemm {
        kernel: GemmKernel,
        ids: matmul::MatMul,
    },
    Loop(LoopFn),
}

/// A kernel compiled for one set of parameter values (see the module documentation).
pub struct CompiledKernel {
    name: String,
    tensors: Vec<(String, ElemType, usize)>,
    code: Vec<Code>,
    paths: Vec<StmtPath>,
    /// Per statement, whether it converts 16-bit floats in tiles (see [`HalfPath::Tiles`]).
    half_tiles: Vec<bool>,
    times: Times,
    /// Whether the kernel runs unproved (`--unchecked`): offsets not proved are checked, and
    /// statements run on one thread.
    unchecked: bool,
}

impl CompiledKernel {
    /// Compiles the proved kernel `p` for the parameter values `bindings`.
    ///
    /// @pre none: unbound or inadmissible parameters, values other than those a kernel was
    /// proved at, and index code that is not total on the domain are errors.
    /// @post [`CompiledKernel::run`] computes what [`crate::kernel::run`] computes, bit for bit.
    pub fn compile(
        p: &Proved,
        bindings: &HashMap<String, i64>,
        opts: &JitOptions,
    ) -> Result<CompiledKernel, JitError> {
        CompiledKernel::compile_memo(p, bindings, opts, &NoMemo)
    }

    /// [`CompiledKernel::compile`], recalling from `memo` (and recording there) each tensor's
    /// simplified and validated index code and each contiguity proof (see [`crate::Memo`]);
    /// Cranelift compiles every time.
    ///
    /// @pre as [`CompiledKernel::compile`]. @post as [`CompiledKernel::compile`]: the same code
    /// paths and results whether or not `memo` recalls an answer.
    ///
    /// ```
    /// # use std::collections::HashMap;
    /// # use std::sync::Arc;
    /// # use tessera_codegen::kernel::*;
    /// # use tessera_codegen::{CompiledKernel, JitOptions, NoMemo};
    /// # use tessera_ir::sym::Facts;
    /// # use tessera_verifier::{Func, Options};
    /// let layout = Func::parse("8:1", &Arc::new(Facts::default())).unwrap();
    /// let Func::Layout(l) = &layout else { unreachable!() };
    /// let t = Tensor { name: "x".into(), elem: ElemType::F32, dims: vec![l.size().unwrap()],
    ///     cosize: l.cosize().unwrap(), layout: layout.clone() };
    /// let k = Kernel { name: "k".into(), tensors: vec![t], indices: vec![], tiles: vec![],
    ///     threads: vec![], stages: vec![], vector: None, stmts: vec![] };
    /// let p = Proved::check(k, &Options::default(), false).unwrap();
    /// let jit = CompiledKernel::compile_memo(&p, &HashMap::new(), &JitOptions::default(), &NoMemo);
    /// assert!(jit.unwrap().paths().is_empty());
    /// ```
    pub fn compile_memo(
        p: &Proved,
        bindings: &HashMap<String, i64>,
        opts: &JitOptions,
        memo: &dyn Memo,
    ) -> Result<CompiledKernel, JitError> {
        let k = p.kernel();
        check_bindings(k, bindings).map_err(JitError::Kernel)?;
        if let Some(b) = p.bound() {
            for (name, v) in b {
                if bindings.get(name) != Some(v) {
                    return Err(JitError::Kernel(RunError::NotProvedFor {
                        name: name.clone(),
                        proved: *v,
                    }));
                }
            }
        }
        let mut times = Times::default();
        let mut prep = PrepTime::default();
        let codes: Vec<TensorCode> = k
            .tensors
            .iter()
            .map(|t| tensor_code(t, bindings, opts.validate, &mut prep, memo))
            .collect::<Result<_, _>>()
            .map_err(|e| JitError::Kernel(RunError::Layout(e)))?;
        times.simplify = prep.simplify;
        times.validate = prep.validate;
        let extents: Vec<i64> = k
            .indices
            .iter()
            .map(|x| x.extent.eval(bindings))
            .collect::<Result<_, _>>()
            .map_err(|e| JitError::Kernel(RunError::Layout(e.to_string())))?;
        let unchecked = p.unchecked().is_some();
        let mut code = Vec::with_capacity(k.stmts.len());
        let mut paths = Vec::with_capacity(k.stmts.len());
        let mut half_tiles = vec![false; k.stmts.len()];
        for (si, s) in k.stmts.iter().enumerate() {
            if s.outer
                .iter()
                .chain(&s.contraction)
                .any(|x| extents[x.index()] <= 0)
            {
                code.push(Code::Empty);
                paths.push(StmtPath::Empty);
                continue;
            }
            // An unchecked kernel's statements run as checked loop nests in the interpreter's
            // order (see `compile_stmt`): no copy kernel, no GEMM.
            let copy = (!unchecked)
                .then(|| copy_kernel(k, s, &codes, &extents, opts, &mut times, memo))
                .flatten();
            if let Some(c) = copy {
                paths.push(StmtPath::Copy(c.0.mode()));
                code.push(Code::Copy {
                    kernel: c.0,
                    src: c.1,
                    dst: c.2,
                });
                continue;
            }
            if opts.gemm && !unchecked {
                let start = Instant::now();
                if let Some((kernel, ids)) = matmul::compile_matmul(k, s, &codes, &extents, opts.gemm_micro) {
                    times.compile += start.elapsed();
                    paths.push(StmtPath::Gemm);
                    code.push(Code::Gemm { kernel, ids });
                    continue;
                }
            }
            let f = compile_stmt(
                k,
                s,
                &codes,
                &extents,
                unchecked,
                StepProofs {
                    timeout_ms: opts.proof_timeout_ms,
                    time: &mut times.proofs,
                    memo,
                },
                opts.half,
            )?;
            times.compile += f.compile_time;
            half_tiles[si] = f.half_tiles;
            paths.push(StmtPath::Loop {
                inner: k.indices[f.inner.index()].name.clone(),
                vector: f.vector,
                tiles: f.tiles,
            });
            code.push(Code::Loop(f));
        }
        Ok(CompiledKernel {
            name: k.name.clone(),
            tensors: k
                .tensors
                .iter()
                .zip(&codes)
                .map(|(t, c)| (t.name.clone(), t.elem, c.len))
                .collect(),
            code,
            paths,
            half_tiles,
            times,
            unchecked,
        })
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How each statement was compiled, in order.
    pub fn paths(&self) -> &[StmtPath] {
        &self.paths
    }

    /// Per statement, in order, whether its loop nest converts 16-bit floats in tiles
    /// ([`HalfPath::Tiles`] or [`HalfPath::SoftwareTiles`]) rather than element by element.
    ///
    /// @pre none. @post one entry per statement; `true` only for a four-lane loop nest.
    ///
    /// ```
    /// # use std::collections::HashMap;
    /// # use std::sync::Arc;
    /// # use tessera_codegen::kernel::*;
    /// # use tessera_codegen::{CompiledKernel, JitOptions};
    /// # use tessera_ir::sym::Facts;
    /// # use tessera_verifier::{Func, Options};
    /// let layout = Func::parse("8:1", &Arc::new(Facts::default())).unwrap();
    /// let Func::Layout(l) = &layout else { unreachable!() };
    /// let t = Tensor { name: "x".into(), elem: ElemType::F16, dims: vec![l.size().unwrap()],
    ///     cosize: l.cosize().unwrap(), layout: layout.clone() };
    /// let k = Kernel { name: "k".into(), tensors: vec![t], indices: vec![], tiles: vec![],
    ///     threads: vec![], stages: vec![], vector: None, stmts: vec![] };
    /// let p = Proved::check(k, &Options::default(), false).unwrap();
    /// let jit = CompiledKernel::compile(&p, &HashMap::new(), &JitOptions::default()).unwrap();
    /// assert_eq!(jit.half_tiles().len(), jit.paths().len()); // one per statement (none here)
    /// ```
    pub fn half_tiles(&self) -> &[bool] {
        &self.half_tiles
    }

    /// The micro-kernel of each statement compiled as a register-blocked GEMM
    /// ([`StmtPath::Gemm`]), in order (never [`GemmMicro::Auto`]).
    ///
    /// @pre none. @post one entry per `StmtPath::Gemm` of [`CompiledKernel::paths`].
    pub fn gemm_micros(&self) -> Vec<GemmMicro> {
        self.code
            .iter()
            .filter_map(|c| match c {
                Code::Gemm { kernel, .. } => Some(kernel.micro()),
                _ => None,
            })
            .collect()
    }

    /// Whether every statement computes exactly what the reference interpreter computes, bit
    /// for bit (sums in the interpreter's order); otherwise results agree within a tolerance.
    pub fn bit_exact(&self) -> bool {
        !self.paths.contains(&StmtPath::Gemm)
    }

    /// Where compilation spent its time.
    pub fn times(&self) -> Times {
        self.times
    }

    /// Runs the kernel on `buffers` (one per tensor, in the kernel's order, each exactly its
    /// cosize at the compiled values) over `threads` threads.
    ///
    /// Errors: the wrong number, type or length of buffers, no thread; while running (a kernel
    /// run unchecked, or integer arithmetic), an offset outside its buffer (never accessed) or
    /// an integer division by zero; other statements' writes may have happened then.
    pub fn run(&self, buffers: &mut [Buffer], threads: usize) -> Result<(), RunError> {
        let cells: Vec<Cells<'_>> = buffers.iter_mut().map(Cells::of).collect();
        self.run_cells(&cells, threads)
    }

    /// Runs the kernel on borrowed buffers (memory the caller owns, such as a NumPy array's),
    /// without copying them: as [`CompiledKernel::run`] otherwise.
    ///
    /// @pre none (checked): one buffer per tensor, of its type and length, no two sharing a
    /// byte (an error otherwise: the proofs hold for distinct buffers).
    /// @post the buffers hold what [`CompiledKernel::run`] leaves in owned ones.
    ///
    /// ```
    /// # use std::collections::HashMap;
    /// # use std::sync::Arc;
    /// # use tessera_codegen::kernel::*;
    /// # use tessera_codegen::{CompiledKernel, JitOptions};
    /// # use tessera_ir::{Int, sym::{Facts, SymInt}};
    /// # use tessera_verifier::{Func, Options};
    /// # let facts = Arc::new(Facts::default());
    /// # let tensor = |name: &str, l: &str| {
    /// #     let layout = Func::parse(l, &facts).unwrap();
    /// #     let Func::Layout(ly) = &layout else { unreachable!() };
    /// #     Tensor { name: name.into(), elem: ElemType::F32, dims: ly.shape().modes().iter()
    /// #         .map(|m| SymInt::product(m.leaves()).unwrap()).collect(),
    /// #         cosize: ly.cosize().unwrap(), layout }
    /// # };
    /// # let (src, dst) = (TensorId::new(0), TensorId::new(1));
    /// # let (i, j) = (IndexId::new(0), IndexId::new(1));
    /// # let k = Kernel {
    /// #     name: "scale".into(),
    /// #     tensors: vec![tensor("src", "(8,3):(1,8)"), tensor("dst", "(8,3):(3,1)")],
    /// #     indices: vec![Index { name: "i".into(), extent: SymInt::lit(8) },
    /// #                   Index { name: "j".into(), extent: SymInt::lit(3) }],
    /// #     tiles: vec![],
    /// #     threads: vec![],
    /// #     stages: vec![],
    /// #     vector: None,
    /// #     stmts: vec![Stmt {
    /// #         target: Access { tensor: dst, indices: vec![i, j] },
    /// #         kind: StoreKind::Assign,
    /// #         nodes: vec![
    /// #             Node { op: Op::Load(Access { tensor: src, indices: vec![i, j] }), ty: ElemType::F32 },
    /// #             Node { op: Op::Float(2.0), ty: ElemType::F32 },
    /// #             Node { op: Op::Binary(BinOp::Mul, ValueId::new(0), ValueId::new(1)), ty: ElemType::F32 },
    /// #         ],
    /// #         value: ValueId::new(2),
    /// #         outer: vec![i, j],
    /// #         contraction: vec![],
    /// #     }],
    /// # };
    /// # let p = Proved::check(k, &Options::default(), false).unwrap();
    /// # let jit = CompiledKernel::compile(&p, &HashMap::new(), &JitOptions::default()).unwrap();
    /// use std::cell::Cell;
    /// use tessera_codegen::kernel::Cells;
    /// let mut src: Vec<f32> = (0..24).map(|x| x as f32).collect();
    /// let mut dst = vec![0.0f32; 24];
    /// fn cells(v: &mut [f32]) -> Cells<'_> {
    ///     Cells::F32(Cell::from_mut(v).as_slice_of_cells())
    /// }
    /// let (s, d) = (cells(&mut src), cells(&mut dst));
    /// jit.run_cells(&[s, d], 2).unwrap();
    /// assert!(jit.run_cells(&[s, s], 1).is_err()); // one memory for two tensors
    /// assert_eq!(dst[3 * 5 + 2], 2.0 * (5 + 8 * 2) as f32);
    /// ```
    pub fn run_cells(&self, buffers: &[Cells<'_>], threads: usize) -> Result<(), RunError> {
        if buffers.len() != self.tensors.len() {
            return Err(RunError::BufferCount {
                expected: self.tensors.len(),
                got: buffers.len(),
            });
        }
        for ((name, elem, len), b) in self.tensors.iter().zip(buffers.iter()) {
            if b.elem() != *elem {
                return Err(RunError::BufferType {
                    tensor: name.clone(),
                    expected: elem.name(),
                    got: b.elem().name(),
                });
            }
            if b.len() != *len {
                return Err(RunError::BufferLength {
                    tensor: name.clone(),
                    expected: *len as i64,
                    got: b.len(),
                });
            }
        }
        for (i, a) in buffers.iter().enumerate() {
            for (j, b) in buffers.iter().enumerate().skip(i + 1) {
                let (x, y) = (a.span(), b.span());
                if !x.is_empty() && !y.is_empty() && x.start < y.end && y.start < x.end {
                    return Err(RunError::Layout(format!(
                        "the buffers of tensors {} and {} share memory",
                        self.tensors[i].0, self.tensors[j].0
                    )));
                }
            }
        }
        if threads == 0 {
            return Err(RunError::Layout("no thread to run on".into()));
        }
        let threads = if self.unchecked { 1 } else { threads };
        for c in &self.code {
            match c {
                Code::Empty => {}
                Code::Copy { kernel, src, dst } => run_copy(kernel, buffers, *src, *dst, threads)?,
                Code::Gemm { kernel, ids } => run_gemm(kernel, buffers, *ids, threads)?,
                Code::Loop(f) => {
                    let bases: Vec<usize> = buffers.iter().map(Cells::address).collect();
                    if let Err((status, off)) = f.run(&bases, threads) {
                        return Err(self.failure(status, off));
                    }
                }
            }
        }
        Ok(())
    }

    fn failure(&self, status: i64, off: i64) -> RunError {
        if (1..=ElemType::ALL.len() as i64).contains(&status) {
            return RunError::DivisionByZero(ElemType::ALL[(status - 1) as usize]);
        }
        let t = (status - value::OUT_OF_BOUNDS) as usize;
        match self.tensors.get(t) {
            Some((name, _, len)) if status >= value::OUT_OF_BOUNDS => RunError::OutOfBounds {
                tensor: name.clone(),
                offset: off,
                len: *len,
            },
            _ => RunError::Layout(format!(
                "internal: a compiled statement failed with status {status}"
            )),
        }
    }
}

/// A rank-2 copy `dst[x, y] = src[..]` between two tensors of one type, the source's indices
/// the target's (in any order), compiled as a [`CopyKernel`]; `None` when it does not apply or
/// the copy kernel refuses it (the loop nest then compiles it).
fn copy_kernel(
    k: &crate::kernel::Kernel,
    s: &crate::kernel::Stmt,
    codes: &[TensorCode],
    extents: &[i64],
    opts: &JitOptions,
    times: &mut Times,
    memo: &dyn Memo,
) -> Option<(CopyKernel, usize, usize)> {
    let src = copy_source(k, s)?;
    let (t, u) = (s.target.tensor.index(), src.tensor.index());
    let mut x = s.target.indices.clone();
    if t == u || x.len() != 2 || x[0] == x[1] || src.indices.len() != 2 {
        return None;
    }
    // The copy kernel's innermost loop runs over c0: the index along which the source is
    // contiguous (or else the destination), when one is.
    let unit = |code: &TensorCode, a: &crate::kernel::Access, i| {
        a.indices
            .iter()
            .position(|y| *y == i)
            .is_some_and(|d| prepare::apparent_step(code, d) == Some(1))
    };
    let first = |i| (unit(&codes[u], src, i), unit(&codes[t], &s.target, i));
    if first(x[1]) > first(x[0]) {
        x.swap(0, 1);
    }
    let x = &x;
    // Coordinates of the copy: c0 = x[0], c1 = x[1]; the source's dimension d reads the
    // coordinate of its index.
    let pos = |i| x.iter().position(|y| *y == i).map(|p| Var::Coord(p as u32));
    let names: HashMap<Var, Var> = src
        .indices
        .iter()
        .enumerate()
        .map(|(d, i)| Some((Var::Coord(d as u32), pos(*i)?)))
        .collect::<Option<_>>()?;
    if names.len() != 2 || names.values().collect::<std::collections::HashSet<_>>().len() != 2 {
        return None;
    }
    // The copy kernel blocks for the cache itself (`copy_tile`, measured best); a declared
    // tiling changes neither the result nor the threads' share, so it is not used here.
    // Both contiguous along c0: long rows (a tile of short rows would touch a page per row).
    let tile = if first(x[0]) == (true, true) {
        [extents[x[0].index()].clamp(1, 4096), 4]
    } else {
        opts.copy_tile
    };
    // The destination over the copy's coordinates (its dimensions in the target's order).
    let dnames: HashMap<Var, Var> = s
        .target
        .indices
        .iter()
        .enumerate()
        .map(|(d, i)| (Var::Coord(d as u32), pos(*i).expect("a target index")))
        .collect();
    let spec = CopySpec {
        src: codes[u].expr.renamed(&names),
        dst: codes[t].expr.renamed(&dnames),
        extents: [extents[x[0].index()], extents[x[1].index()]],
        elem_bytes: codes[t].elem.bytes() as u8,
        tile,
    };
    let start = Instant::now();
    let c = CopyKernel::compile_path(&spec, memo, opts.transpose).ok()?;
    let total = start.elapsed();
    times.proofs += c.proof_time();
    times.compile += total.saturating_sub(c.proof_time());
    // The copy kernel's own interval proof must fit the buffers.
    (c.src_len <= codes[u].len && c.dst_len <= codes[t].len).then_some((c, u, t))
}

/// The elements of a read buffer and of a written one.
///
/// # Safety
///
/// `src` and `dst` share no byte, and nothing else reads or writes them while the slices
/// live: [`CompiledKernel::run_cells`] checks the first for every pair of its buffers, and
/// holds the cells (not `Sync`: no other thread has them) for the whole call.
#[expect(
    clippy::mut_from_ref,
    reason = "cells lend their memory mutably through a shared borrow; the contract excludes aliases"
)]
unsafe fn read_write<'b, T>(src: &'b [Cell<T>], dst: &'b [Cell<T>]) -> (&'b [T], &'b mut [T]) {
    // SAFETY: `Cell<T>` has `T`'s layout and allows mutation through a shared borrow; the
    // ranges are disjoint and unaliased while the slices live (the contract).
    unsafe {
        (
            std::slice::from_raw_parts(src.as_ptr().cast::<T>(), src.len()),
            std::slice::from_raw_parts_mut(dst.as_ptr().cast::<T>().cast_mut(), dst.len()),
        )
    }
}

/// Runs a compiled copy between two distinct buffers of `bufs`.
fn run_copy(
    c: &CopyKernel,
    bufs: &[Cells<'_>],
    src: usize,
    dst: usize,
    threads: usize,
) -> Result<(), RunError> {
    if src == dst {
        return Err(RunError::Layout("internal: a copy within one buffer".into()));
    }
    let r = match (bufs[src], bufs[dst]) {
        (Cells::F32(a), Cells::F32(b)) => {
            // SAFETY: distinct tensors' buffers, disjoint (checked by `run_cells`).
            let (a, b) = unsafe { read_write(a, b) };
            c.run(a, b, threads)
        }
        (Cells::F64(a), Cells::F64(b)) => {
            // SAFETY: distinct tensors' buffers, disjoint (checked by `run_cells`).
            let (a, b) = unsafe { read_write(a, b) };
            c.run(a, b, threads)
        }
        (Cells::I32(a), Cells::I32(b)) => {
            // SAFETY: distinct tensors' buffers, disjoint (checked by `run_cells`).
            let (a, b) = unsafe { read_write(a, b) };
            c.run(a, b, threads)
        }
        (Cells::I64(a), Cells::I64(b)) => {
            // SAFETY: distinct tensors' buffers, disjoint (checked by `run_cells`).
            let (a, b) = unsafe { read_write(a, b) };
            c.run(a, b, threads)
        }
        (Cells::F16(a), Cells::F16(b)) | (Cells::BF16(a), Cells::BF16(b)) => {
            // SAFETY: distinct tensors' buffers, disjoint (checked by `run_cells`).
            let (a, b) = unsafe { read_write(a, b) };
            c.run(a, b, threads)
        }
        _ => {
            return Err(RunError::Layout(
                "internal: a copy between buffers of two types".into(),
            ));
        }
    };
    r.map_err(|e| RunError::Layout(e.to_string()))
}

/// Runs a compiled matrix product: `C` written, `A` and `B` (possibly one tensor) read.
fn run_gemm(g: &GemmKernel, bufs: &[Cells<'_>], ids: matmul::MatMul, threads: usize) -> Result<(), RunError> {
    if ids.c == ids.a || ids.c == ids.b {
        return Err(RunError::Layout(
            "internal: a product written into a factor".into(),
        ));
    }
    let r = match (bufs[ids.a], bufs[ids.b], bufs[ids.c]) {
        (Cells::F32(a), Cells::F32(b), Cells::F32(c)) => {
            // SAFETY: C is neither factor, and distinct tensors' buffers are disjoint (checked
            // by `run_cells`); A and B are only read.
            let (a, c) = unsafe { read_write(a, c) };
            let (b, _) = unsafe { read_write(b, &[]) };
            g.run(a, b, c, threads)
        }
        _ => Err(JitError::Gemm(
            "internal: a product of buffers other than f32".into(),
        )),
    };
    r.map_err(|e| RunError::Layout(e.to_string()))
}

impl std::fmt::Debug for CompiledKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledKernel")
            .field("name", &self.name)
            .field("paths", &self.paths)
            .field("unchecked", &self.unchecked)
            .finish_non_exhaustive()
    }
}
