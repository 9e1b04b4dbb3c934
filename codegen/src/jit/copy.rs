//! A JIT-compiled copy between two layouts of one 2-D iteration space (a transpose, a
//! relayout, a gather): `dst[D(c0, c1)] = src[S(c0, c1)]` for every `c0 < n0`, `c1 < n1`, the
//! offsets from the index IR (simplified and validated by the caller, if wanted), tiled
//! `t0 x t1`, split over threads by rows of tiles. Every offset is proved inside its buffer
//! before the code is compiled (interval analysis of the index expressions over the whole
//! iteration space), and the buffers are checked against the proved extents at every run.

use super::loops::for_loop;
use super::transpose_tiles::{BAND_ROWS, band_fn, fence, has_avx2};
use super::{JitError, Param, index};
use crate::lang::Lang;
use crate::memo::{Memo, NoMemo, proved_memo};
use crate::plan::Plan;

use cranelift_codegen::ir::{
    AbiParam, ConstantData, Endianness, InstBuilder, MemFlagsData, SigRef, Signature, Value, types,
};
use cranelift_frontend::FunctionBuilder;
use cranelift_jit::JITModule;
use std::collections::HashMap;
use std::time::{Duration, Instant};
use tessera_ir::index::{IndexExpr, Var};
use tessera_ir::sym::Interval;

/// The machine code's signature: source, destination, first and end row of tiles.
type Entry = extern "C" fn(*const u8, *mut u8, i64, i64);

/// What to copy: the two offset expressions over `c0, c1` (output `offset`), the extents, the
/// element size and the tile.
#[derive(Clone, Debug)]
pub struct CopySpec {
    /// Offsets read, in elements, as a function of `c0, c1`.
    pub src: IndexExpr,
    /// Offsets written, in elements, as a function of `c0, c1`.
    pub dst: IndexExpr,
    /// The extents of `c0` and `c1`.
    pub extents: [i64; 2],
    /// Bytes per element: 1, 2, 4 or 8.
    pub elem_bytes: u8,
    /// The tile: `c0` and `c1` extents of one tile (the innermost loop runs over `c0`).
    pub tile: [i64; 2],
}

/// How the innermost loops move data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyMode {
    /// One element at a time.
    Scalar,
    /// 128-bit vectors along `c0`: both offsets proved contiguous along `c0`.
    Vector,
    /// 4 x 4 blocks of 4-byte elements transposed in registers: the source proved contiguous
    /// along `c0`, the destination along `c1`.
    Transpose4,
    /// Bands of 4-byte elements transposed by a helper compiled for the CPU's 256-bit vectors
    /// (x86 AVX2), 8 x 16 blocks with streaming stores where it pays: the source proved
    /// contiguous along `c0` with a constant step along `c1`, the destination contiguous
    /// along `c1` with a constant step along `c0` (see [`TransposePath`]).
    TransposeWide,
}

/// How a copy moves a transpose of 4-byte elements (the source contiguous along `c0`, the
/// destination along `c1`); every choice copies the same bits, they differ in speed only.
///
/// ```
/// use tessera_codegen::TransposePath;
/// assert_eq!(TransposePath::default(), TransposePath::Auto);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TransposePath {
    /// [`CopyMode::TransposeWide`] with streaming stores where the CPU has AVX2, the steps
    /// are proved constant and the destination holds at least [`STREAM_MIN_BYTES`]; else the
    /// modes before it (the default: below that size, or without streaming stores, the helper
    /// was measured no faster than [`CopyMode::Transpose4`]).
    #[default]
    Auto,
    /// [`CopyMode::TransposeWide`] wherever the CPU has AVX2 and the steps are proved
    /// constant, streaming at any size (where the rows are aligned for it).
    Stream,
    /// As [`TransposePath::Stream`], never streaming.
    Cached,
    /// Never [`CopyMode::TransposeWide`]: the in-register 4 x 4 transposes of Cranelift code
    /// (the path before the helper, kept for comparison and for CPUs without AVX2).
    Registers,
}

impl TransposePath {
    /// Every path, the default first.
    ///
    /// ```
    /// use tessera_codegen::TransposePath;
    /// assert_eq!(TransposePath::ALL[0], TransposePath::default());
    /// ```
    pub const ALL: [TransposePath; 4] = [
        TransposePath::Auto,
        TransposePath::Stream,
        TransposePath::Cached,
        TransposePath::Registers,
    ];
}

/// The destination size from which [`TransposePath::Auto`] takes the helper, with streaming
/// stores (which bypass the caches: a smaller result is left in cache for its reader; at 1 MiB
/// they were measured no faster, at 4 MiB twice as fast).
pub const STREAM_MIN_BYTES: usize = 4 << 20;

/// Whether `e(c + 1) == e(c) + 1` on the iteration space (`c` below its last value), proved by
/// the verifier (enumeration or z3, one second at most); a proof is recalled from `memo`, or
/// recorded there, and so is a refutation (a counterexample, re-checked); an unknown is not (it
/// may be the time limit's).
fn contiguous(e: &IndexExpr, v: &Var, extents: [i64; 2], memo: &dyn Memo) -> bool {
    steps_by(e, v, 1, extents, memo)
}

/// Whether `e(c + 1) == e(c) + step` on the iteration space (`c` below its last value), as
/// [`contiguous`] (which is `step` 1; its questions keep their text).
fn steps_by(e: &IndexExpr, v: &Var, step: i64, extents: [i64; 2], memo: &dyn Memo) -> bool {
    let by = if step == 1 {
        String::new()
    } else {
        format!(" step={step}")
    };
    let question = format!(
        "var={v}{by} extents={extents:?} timeout_ms=1000\nexpr:\n{}",
        e.record()
    );
    proved_memo(memo, "copystep", &question, || {
        let ranges = HashMap::from([
            (
                Var::Coord(0),
                Interval::new(Some(0), Some(i128::from(extents[0]) - 1)),
            ),
            (
                Var::Coord(1),
                Interval::new(Some(0), Some(i128::from(extents[1]) - 1)),
            ),
        ]);
        contiguous_uncached(e, v, step, &ranges)
    })
}

/// The steps of a transpose for [`CopyMode::TransposeWide`] whose source is proved contiguous
/// along `c0` and destination along `c1`: `(ss, ds)`, the source's step along `c1` and the
/// destination's along `c0`, each proved constant (a step along an extent of 1 needs no
/// proof: it is never taken); `None` where one is not proved.
///
/// @pre the source is contiguous along `c0` and the destination along `c1` (proved).
/// @post `Some((ss, ds))`: `src(c0, c1) = src(0, 0) + c0 + ss * c1` and `dst(c0, c1) = dst(0,
/// 0) + c1 + ds * c0` on the whole iteration space.
fn transpose_steps(spec: &CopySpec, memo: &dyn Memo) -> Option<(i64, i64)> {
    let [n0, n1] = spec.extents;
    let (c0, c1) = (Var::Coord(0), Var::Coord(1));
    let at = |e: &IndexExpr, x: i64, y: i64| -> Option<i64> {
        let v = e
            .eval_vars(&HashMap::from([(c0.clone(), x), (c1.clone(), y)]))
            .ok()?;
        v.first().copied()
    };
    // The step between the first two points along `v`, then proved everywhere.
    let step = |e: &IndexExpr, v: &Var, n: i64, next: (i64, i64)| -> Option<i64> {
        if n < 2 {
            return Some(0);
        }
        let k = at(e, next.0, next.1)?.checked_sub(at(e, 0, 0)?)?;
        steps_by(e, v, k, spec.extents, memo).then_some(k)
    };
    Some((
        step(&spec.src, &c1, n1, (0, 1))?,
        step(&spec.dst, &c0, n0, (1, 0))?,
    ))
}

/// [`steps_by`] without the memo: the verifier's verdict, `None` for an empty range.
fn contiguous_uncached(
    e: &IndexExpr,
    v: &Var,
    step: i64,
    ranges: &HashMap<Var, Interval>,
) -> Option<tessera_verifier::Verdict> {
    let mut r = ranges.clone();
    let iv = r.get(v).copied()?;
    let (Some(lo), Some(hi)) = (iv.lo(), iv.hi()) else {
        return None;
    };
    if hi <= lo {
        return None;
    }
    r.insert(v.clone(), Interval::new(Some(lo), Some(hi - 1)));
    let next = e.shifted(v, 1, step.checked_neg()?);
    let facts = std::sync::Arc::new(tessera_ir::sym::Facts::default());
    let opts = tessera_verifier::Options {
        timeout_ms: Some(1_000),
    };
    Some(tessera_verifier::prove_equivalent(&next, e, &r, &facts, &opts))
}

/// A compiled copy (see the module documentation).
pub struct CopyKernel {
    module: Option<JITModule>,
    entry: Entry,
    spec_extents: [i64; 2],
    tiles0: i64,
    /// Elements the source buffer must hold (the largest offset read, plus one).
    pub src_len: usize,
    /// Elements the destination buffer must hold.
    pub dst_len: usize,
    elem_bytes: usize,
    mode: CopyMode,
    compile_time: Duration,
    proof_time: Duration,
}

/// The offsets' interval over the iteration space, checked non-negative and finite: the buffer
/// length it needs (the message of the error names the expression `which`).
pub(super) fn needed(e: &IndexExpr, ranges: &HashMap<Var, Interval>, which: &str) -> Result<usize, String> {
    let iv = e.intervals(ranges);
    let outs = e.outputs();
    if outs.len() != 1 {
        return Err(format!(
            "the {which} expression has {} outputs, not one offset",
            outs.len()
        ));
    }
    let r = iv[outs[0].1.index()];
    match (r.lo(), r.hi()) {
        (Some(lo), Some(hi)) if lo >= 0 => {
            usize::try_from(hi + 1).map_err(|_| format!("the {which} offsets reach {hi}"))
        }
        _ => Err(format!(
            "the {which} offsets are not proved inside [0, n): the interval analysis gives {r:?}"
        )),
    }
}

impl CopyKernel {
    /// Compiles the copy of `spec`.
    ///
    /// @post [`CopyKernel::run`] writes `dst[D(c)] = src[S(c)]` for every `c` of the
    /// iteration space, every access inside buffers of `src_len` and `dst_len` elements.
    pub fn compile(spec: &CopySpec) -> Result<CopyKernel, JitError> {
        CopyKernel::compile_memo(spec, &NoMemo)
    }

    /// [`CopyKernel::compile`], recalling its contiguity proofs from `memo` and recording them
    /// there (see [`crate::Memo`]).
    ///
    /// @pre none. @post as [`CopyKernel::compile`]: the same mode and code with any memo.
    ///
    /// ```
    /// use tessera_codegen::{CopyKernel, CopySpec, CopyMode, NoMemo};
    /// use tessera_ir::{index::lower_coords, parse_layout};
    /// let e = lower_coords(&parse_layout("(8,8):(1,8)").unwrap()).unwrap();
    /// let spec = CopySpec { src: e.clone(), dst: e, extents: [8, 8], elem_bytes: 4, tile: [4, 4] };
    /// let k = CopyKernel::compile_memo(&spec, &NoMemo).unwrap();
    /// assert_eq!(k.mode(), CopyMode::Vector);
    /// ```
    pub fn compile_memo(spec: &CopySpec, memo: &dyn Memo) -> Result<CopyKernel, JitError> {
        CopyKernel::compile_path(spec, memo, TransposePath::Auto)
    }

    /// [`CopyKernel::compile_memo`], a transpose of 4-byte elements moved as `path` says.
    ///
    /// @pre none. @post as [`CopyKernel::compile`]; never [`CopyMode::TransposeWide`] with
    /// [`TransposePath::Registers`] or on a CPU without AVX2.
    ///
    /// ```
    /// use tessera_codegen::{CopyKernel, CopyMode, CopySpec, NoMemo, TransposePath};
    /// use tessera_ir::{index::lower_coords, parse_layout};
    /// let lower = |s: &str| lower_coords(&parse_layout(s).unwrap()).unwrap();
    /// let spec = CopySpec {
    ///     src: lower("(8,8):(1,8)"),
    ///     dst: lower("(8,8):(8,1)"),
    ///     extents: [8, 8],
    ///     elem_bytes: 4,
    ///     tile: [4, 4],
    /// };
    /// let k = CopyKernel::compile_path(&spec, &NoMemo, TransposePath::Registers).unwrap();
    /// assert_eq!(k.mode(), CopyMode::Transpose4);
    /// ```
    pub fn compile_path(
        spec: &CopySpec,
        memo: &dyn Memo,
        path: TransposePath,
    ) -> Result<CopyKernel, JitError> {
        let start = Instant::now();
        let [n0, n1] = spec.extents;
        let [t0, t1] = spec.tile;
        if n0 < 1 || n1 < 1 || t0 < 1 || t1 < 1 {
            return Err(JitError::Copy(format!(
                "extents {n0} x {n1} and tile {t0} x {t1} must be positive"
            )));
        }
        if ![1u8, 2, 4, 8].contains(&spec.elem_bytes) {
            return Err(JitError::Copy(format!("elements of {} bytes", spec.elem_bytes)));
        }
        let ranges = HashMap::from([
            (Var::Coord(0), Interval::new(Some(0), Some(i128::from(n0) - 1))),
            (Var::Coord(1), Interval::new(Some(0), Some(i128::from(n1) - 1))),
        ]);
        let src_len = needed(&spec.src, &ranges, "source").map_err(JitError::Copy)?;
        let dst_len = needed(&spec.dst, &ranges, "destination").map_err(JitError::Copy)?;
        // Both offsets are functions of `c0 < n0` and `c1 < n1`.
        let sig = super::coords_signature(&[n0, n1]);
        let (ps, pd) = (
            Plan::new(&spec.src, &sig, Lang::C)?,
            Plan::new(&spec.dst, &sig, Lang::C)?,
        );
        super::check_total(&ps)?;
        super::check_total(&pd)?;
        let ty = match spec.elem_bytes {
            1 => types::I8,
            2 => types::I16,
            4 => types::I32,
            _ => types::I64,
        };
        let shift = i64::from(spec.elem_bytes.trailing_zeros());
        let lanes = 16 / i64::from(spec.elem_bytes);
        let proofs = Instant::now();
        let (c0, c1) = (Var::Coord(0), Var::Coord(1));
        // Each proof only where a mode needs it, each at most once.
        let lanes_fit = n0 % lanes == 0 && t0 % lanes == 0;
        let wide_fits = spec.elem_bytes == 4
            && match path {
                TransposePath::Auto => dst_len.saturating_mul(4) >= STREAM_MIN_BYTES,
                TransposePath::Stream | TransposePath::Cached => true,
                TransposePath::Registers => false,
            }
            && has_avx2();
        let fours_fit = spec.elem_bytes == 4 && n1 % 4 == 0 && t1 % 4 == 0;
        let src_c0 = (lanes_fit || wide_fits) && contiguous(&spec.src, &c0, [n0, n1], memo);
        let dst_c0 = lanes_fit && src_c0 && contiguous(&spec.dst, &c0, [n0, n1], memo);
        let dst_c1 =
            src_c0 && !dst_c0 && (fours_fit || wide_fits) && contiguous(&spec.dst, &c1, [n0, n1], memo);
        let wide = if wide_fits && dst_c1 {
            transpose_steps(spec, memo)
        } else {
            None
        };
        let mode = if wide.is_some() {
            CopyMode::TransposeWide
        } else if !(lanes_fit && src_c0) {
            CopyMode::Scalar
        } else if dst_c0 {
            CopyMode::Vector
        } else if fours_fit && dst_c1 {
            CopyMode::Transpose4
        } else {
            CopyMode::Scalar
        };
        let proof_time = proofs.elapsed();
        let vty = match spec.elem_bytes {
            1 => types::I8X16,
            2 => types::I16X8,
            4 => types::I32X4,
            _ => types::I64X2,
        };

        let (module, code) = super::compile_fn(&[Param::Ptr, Param::Ptr, Param::I64, Param::I64], |b, p| {
            let (src, dst, row_lo, row_hi) = (p[0], p[1], p[2], p[3]);
            let flags = MemFlagsData::trusted();
            let zero = b.ins().iconst(types::I64, 0);
            let tiles1 = b.ins().iconst(types::I64, (n1 + t1 - 1) / t1);
            let unaligned = MemFlagsData::new().with_notrap();
            let addr = |b: &mut FunctionBuilder<'_>, base: Value, off: Value| {
                let bytes = b.ins().ishl_imm_u(off, shift);
                b.ins().iadd(base, bytes)
            };
            let at = |b: &mut FunctionBuilder<'_>, p: &Plan<'_>, x: Value, y: Value| {
                let inputs = HashMap::from([(Var::Coord(0), x), (Var::Coord(1), y)]);
                index::build(b, p, &inputs)[0]
            };
            if let Some((ss, ds)) = wide {
                // One call of the helper per band of `BAND_ROWS` rows (`c0`) and every column:
                // its corners' offsets by the index code, the rest by the proved steps.
                let stream = matches!(path, TransposePath::Auto | TransposePath::Stream);
                let sig = band_signature(b);
                for_loop(b, (row_lo, row_hi, 1), |b, r0| {
                    let lo0 = b.ins().imul_imm_s(r0, BAND_ROWS);
                    let end0 = b.ins().iadd_imm_s(lo0, BAND_ROWS);
                    let cap0 = b.ins().iconst(types::I64, n0);
                    let hi0 = b.ins().smin(end0, cap0);
                    let rows = b.ins().isub(hi0, lo0);
                    let (so, d_o) = (at(b, &ps, lo0, zero), at(b, &pd, lo0, zero));
                    let (sa, da) = (addr(b, src, so), addr(b, dst, d_o));
                    let callee = b.ins().iconst(types::I64, band_fn(stream) as usize as i64);
                    let cols = b.ins().iconst(types::I64, n1);
                    let ss = b.ins().iconst(types::I64, ss);
                    let ds = b.ins().iconst(types::I64, ds);
                    b.ins().call_indirect(sig, callee, &[sa, da, rows, cols, ss, ds]);
                });
                return;
            }
            for_loop(b, (row_lo, row_hi, 1), |b, r0| {
                for_loop(b, (zero, tiles1, 1), |b, r1| {
                    let lo0 = b.ins().imul_imm_s(r0, t0);
                    let lo1 = b.ins().imul_imm_s(r1, t1);
                    let end0 = b.ins().iadd_imm_s(lo0, t0);
                    let end1 = b.ins().iadd_imm_s(lo1, t1);
                    let cap0 = b.ins().iconst(types::I64, n0);
                    let cap1 = b.ins().iconst(types::I64, n1);
                    let hi0 = b.ins().smin(end0, cap0);
                    let hi1 = b.ins().smin(end1, cap1);
                    match mode {
                        CopyMode::Scalar => for_loop(b, (lo1, hi1, 1), |b, c1| {
                            for_loop(b, (lo0, hi0, 1), |b, c0| {
                                let (so, d_o) = (at(b, &ps, c0, c1), at(b, &pd, c0, c1));
                                let (sa, da) = (addr(b, src, so), addr(b, dst, d_o));
                                let x = b.ins().load(ty, flags, sa, 0);
                                b.ins().store(flags, x, da, 0);
                            })
                        }),
                        CopyMode::Vector => for_loop(b, (lo1, hi1, 1), |b, c1| {
                            for_loop(b, (lo0, hi0, lanes), |b, c0| {
                                let (so, d_o) = (at(b, &ps, c0, c1), at(b, &pd, c0, c1));
                                let (sa, da) = (addr(b, src, so), addr(b, dst, d_o));
                                let x = b.ins().load(vty, unaligned, sa, 0);
                                b.ins().store(unaligned, x, da, 0);
                            })
                        }),
                        CopyMode::TransposeWide => {}
                        CopyMode::Transpose4 => for_loop(b, (lo1, hi1, 4), |b, c1| {
                            for_loop(b, (lo0, hi0, 4), |b, c0| {
                                let mut rows = Vec::with_capacity(4);
                                for k in 0..4 {
                                    let y = b.ins().iadd_imm_s(c1, k);
                                    let so = at(b, &ps, c0, y);
                                    let sa = addr(b, src, so);
                                    rows.push(b.ins().load(types::I32X4, unaligned, sa, 0));
                                }
                                let cols = transpose4(b, &rows);
                                for (j, col) in cols.into_iter().enumerate() {
                                    let x = b.ins().iadd_imm_s(c0, j as i64);
                                    let d_o = at(b, &pd, x, c1);
                                    let da = addr(b, dst, d_o);
                                    b.ins().store(unaligned, col, da, 0);
                                }
                            })
                        }),
                    }
                });
            });
        })?;
        // SAFETY: `code` is the function just defined with the signature
        // `(pointer, pointer, i64, i64) -> ()` in the platform's C calling convention, which
        // `Entry` is; it stays mapped while `module` lives, as long as `self`.
        let entry = unsafe { std::mem::transmute::<*const u8, Entry>(code) };
        Ok(CopyKernel {
            module: Some(module),
            entry,
            spec_extents: spec.extents,
            tiles0: if mode == CopyMode::TransposeWide {
                (n0 + BAND_ROWS - 1) / BAND_ROWS
            } else {
                (n0 + t0 - 1) / t0
            },
            src_len,
            dst_len,
            elem_bytes: usize::from(spec.elem_bytes),
            mode,
            compile_time: start.elapsed() - proof_time,
            proof_time,
        })
    }

    /// Time spent compiling: the interval checks, Cranelift and linking (the contiguity proofs
    /// excluded: [`CopyKernel::proof_time`]).
    pub fn compile_time(&self) -> Duration {
        self.compile_time
    }

    /// Time spent proving the offsets contiguous (enumeration or z3), which picks the mode.
    pub fn proof_time(&self) -> Duration {
        self.proof_time
    }

    /// How the innermost loops move data (decided by the contiguity proofs).
    pub fn mode(&self) -> CopyMode {
        self.mode
    }

    /// The extents of the iteration space.
    pub fn extents(&self) -> [i64; 2] {
        self.spec_extents
    }

    /// Copies on `threads` threads (rows of tiles split evenly).
    ///
    /// Errors: an element type of another size than compiled, a buffer shorter than the proved
    /// extent of its offsets, no thread.
    pub fn run<T: Copy + Send + Sync>(
        &self,
        src: &[T],
        dst: &mut [T],
        threads: usize,
    ) -> Result<(), JitError> {
        if size_of::<T>() != self.elem_bytes {
            return Err(JitError::Copy(format!(
                "elements of {} bytes given to a copy compiled for {}",
                size_of::<T>(),
                self.elem_bytes
            )));
        }
        if src.len() < self.src_len || dst.len() < self.dst_len {
            return Err(JitError::Copy(format!(
                "buffers of {} and {} elements, the copy reads {} and writes {}",
                src.len(),
                dst.len(),
                self.src_len,
                self.dst_len
            )));
        }
        if threads == 0 {
            return Err(JitError::Copy("no thread to run on".into()));
        }
        let n = self.tiles0;
        let parts = (threads as i64).min(n).max(1);
        let (s, d) = (src.as_ptr() as usize, dst.as_mut_ptr() as usize);
        let entry = self.entry;
        let wide = self.mode == CopyMode::TransposeWide;
        let run = move |lo: i64, hi: i64| {
            // SAFETY: the code reads `src` at offsets the interval analysis proved in
            // `[0, src_len)` and writes `dst` at offsets in `[0, dst_len)`, and the buffers are at
            // least that long (checked above); rows `lo..hi` of tiles lie in `0..tiles0`. Threads
            // write disjoint rows of tiles of the iteration space; the writes of two threads can
            // meet only if the destination map is not injective, which makes the result
            // depend on the order as in any racing copy but never touches memory outside `dst`.
            entry(s as *const u8, d as *mut u8, lo, hi);
            if wide {
                // The helper's streaming stores, ordered before the thread's end (its join).
                fence();
            }
        };
        if parts == 1 {
            run(0, n);
            return Ok(());
        }
        std::thread::scope(|scope| {
            for k in 0..parts {
                let (lo, hi) = (n * k / parts, n * (k + 1) / parts);
                scope.spawn(move || run(lo, hi));
            }
        });
        Ok(())
    }
}

/// The band helper's signature ([`super::transpose_tiles::BandFn`]: two pointers and four
/// 64-bit integers in the platform's C calling convention, the compiled function's own),
/// imported into the function.
fn band_signature(b: &mut FunctionBuilder<'_>) -> SigRef {
    let mut sig = Signature::new(b.func.signature.call_conv);
    sig.params.extend([AbiParam::new(types::I64); 6]);
    b.import_signature(sig)
}

/// The 4 x 4 transpose of four `i32x4` rows: column `j` holds element `j` of every row.
fn transpose4(b: &mut FunctionBuilder<'_>, rows: &[Value]) -> Vec<Value> {
    let bytes = |b: &mut FunctionBuilder<'_>, v: Value| {
        b.ins().bitcast(
            types::I8X16,
            MemFlagsData::new().with_endianness(Endianness::Little),
            v,
        )
    };
    let words = |b: &mut FunctionBuilder<'_>, v: Value| {
        b.ins().bitcast(
            types::I32X4,
            MemFlagsData::new().with_endianness(Endianness::Little),
            v,
        )
    };
    // A shuffle of two vectors by word index (0..4 the first, 4..8 the second).
    let shuffle = |b: &mut FunctionBuilder<'_>, x: Value, y: Value, w: [u8; 4]| {
        let mask: Vec<u8> = w.iter().flat_map(|k| (0..4).map(move |j| k * 4 + j)).collect();
        let imm = b.func.dfg.immediates.push(ConstantData::from(mask));
        let (x, y) = (bytes(b, x), bytes(b, y));
        let r = b.ins().shuffle(x, y, imm);
        words(b, r)
    };
    let t0 = shuffle(b, rows[0], rows[1], [0, 4, 1, 5]);
    let t1 = shuffle(b, rows[0], rows[1], [2, 6, 3, 7]);
    let t2 = shuffle(b, rows[2], rows[3], [0, 4, 1, 5]);
    let t3 = shuffle(b, rows[2], rows[3], [2, 6, 3, 7]);
    vec![
        shuffle(b, t0, t2, [0, 1, 4, 5]),
        shuffle(b, t0, t2, [2, 3, 6, 7]),
        shuffle(b, t1, t3, [0, 1, 4, 5]),
        shuffle(b, t1, t3, [2, 3, 6, 7]),
    ]
}

impl std::fmt::Debug for CopyKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CopyKernel")
            .field("extents", &self.spec_extents)
            .field("src_len", &self.src_len)
            .field("dst_len", &self.dst_len)
            .field("elem_bytes", &self.elem_bytes)
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

impl Drop for CopyKernel {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: the only pointer into the module's memory is `self.entry`, which dies
            // with `self` (every thread that used it has joined: `run` is scoped).
            unsafe { m.free_memory() };
        }
    }
}
