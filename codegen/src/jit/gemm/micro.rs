//! The micro-kernel: one `MR x NR` tile of C from an A panel (`MR` floats per `k`) and a B
//! panel (`NR` broadcasts of four floats per `k`), the products accumulated in `MR / 4 x NR`
//! registers of four floats (one `fma` per register and `k`, the `k` loop optionally unrolled),
//! then added to C through C's offset expression, element by element, only inside the tile's
//! bounds.

use super::super::{JitError, Param, compile_fn};
use super::update;
use crate::plan::Plan;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{Block, BlockArg, InstBuilder, MemFlagsData, Value, types};
use cranelift_frontend::{FunctionBuilder, Variable};
use cranelift_jit::JITModule;

/// The micro-kernel's signature: A panel, B panel, C, `kc` (the panels' depth), the tile's
/// first row and column `i0, j0`, and the end row and column `i1, j1` it may write (clamped to
/// the compiled `m, n`).
pub(super) type MicroEntry = unsafe extern "C" fn(*const f32, *const f32, *mut f32, i64, i64, i64, i64, i64);

/// The shape of the register tile and the unrolling.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tile {
    /// Rows (a multiple of 4).
    pub mr: i64,
    /// Columns.
    pub nr: i64,
    /// Steps of `k` per iteration of the main loop.
    pub unroll: i64,
}

/// Compiles the micro-kernel for C's offsets `plan` over `(i, j)`, `i < m`, `j < n`.
///
/// @pre `plan` passed [`super::super::check_total`] on `i < m`, `j < n`; `tile.mr % 4 == 0`,
/// `tile.nr >= 1`, `tile.unroll >= 1`.
/// @post the function reads `kc * mr` floats of the A panel and `4 * kc * nr` of the B panel
/// (each B value four times in a row) and
/// adds `sum_k A[r, k] * B[c, k]` to `C[i0 + r, j0 + c]` for the `r < mr`, `c < nr` with
/// `0 <= i0 + r < min(i1, m)` and `0 <= j0 + c < min(j1, n)`, and touches no other element of C.
pub(super) fn compile(
    plan: &Plan<'_>,
    m: i64,
    n: i64,
    tile: Tile,
) -> Result<(JITModule, *const u8), JitError> {
    let Tile { mr, nr, unroll } = tile;
    let params = [
        Param::Ptr,
        Param::Ptr,
        Param::Ptr,
        Param::I64,
        Param::I64,
        Param::I64,
        Param::I64,
        Param::I64,
    ];
    compile_fn(&params, |b, p| {
        let (ap, bp, c, kc, i0, j0) = (p[0], p[1], p[2], p[3], p[4], p[5]);
        let vecs = (mr / 4) as usize;
        let cols = nr as usize;
        let fzero = b.ins().f32const(0.0);
        let vzero = b.ins().splat(types::F32X4, fzero);
        // The accumulators, `acc[jc * vecs + v]` for rows `4v..4v+4` of column `jc`: passed as
        // block parameters in that order, which is the order Cranelift's elaboration computes
        // them in (each column's broadcast used by its `vecs` products, then dead, so that few
        // registers beside the accumulators are live).
        let count = vecs * cols;
        let zero = b.ins().iconst(types::I64, 0);
        let kc = b.ins().smax(kc, zero); // a negative depth: no step
        let main = b.ins().srem_imm_s(kc, unroll);
        let main = b.ins().isub(kc, main);
        let mut acc = kloop(b, (ap, bp), (zero, main), unroll, tile, vec![vzero; count]);
        if unroll > 1 {
            acc = kloop(b, (ap, bp), (main, kc), 1, tile, acc);
        }
        let acc: Vec<Vec<Variable>> = (0..vecs)
            .map(|v| {
                (0..cols)
                    .map(|jc| {
                        let var = b.declare_var(types::F32X4);
                        b.def_var(var, acc[jc * vecs + v]);
                        var
                    })
                    .collect()
            })
            .collect();

        // The update of C, inside `[0, min(i1, m)) x [0, min(j1, n))`.
        let value = |b: &mut FunctionBuilder<'_>, r: i64, jc: i64| {
            let v = b.use_var(acc[(r / 4) as usize][jc as usize]);
            b.ins().extractlane(v, (r % 4) as u8)
        };
        update::add_tile(b, plan, (m, n), (mr, nr), c, (i0, j0), (p[6], p[7]), value);
    })
}

/// The loop `for k in (lo..hi).step_by(steps)` of the products, from the accumulators `acc`
/// (see [`compile`]); returns the accumulators after it.
///
/// @pre `hi - lo` is a multiple of `steps`, `0 <= lo <= hi`.
///
/// The panels' loads are pure (read-only, non-trapping, movable: the panels are not written
/// while the micro-kernel runs), so Cranelift places each next to its first use instead of all
/// at the top of the body, which would keep them all live beside the accumulators.
fn kloop(
    b: &mut FunctionBuilder<'_>,
    (ap, bp): (Value, Value),
    (lo, hi): (Value, Value),
    steps: i64,
    tile: Tile,
    acc: Vec<Value>,
) -> Vec<Value> {
    let Tile { mr, nr, .. } = tile;
    let vecs = (mr / 4) as usize;
    let pure = MemFlagsData::new().with_notrap().with_readonly().with_can_move();
    let params = |b: &mut FunctionBuilder<'_>, block: Block, ints: usize| -> Vec<Value> {
        for _ in 0..ints {
            b.append_block_param(block, types::I64);
        }
        for _ in &acc {
            b.append_block_param(block, types::F32X4);
        }
        b.block_params(block).to_vec()
    };
    let args = |ints: &[Value], acc: &[Value]| -> Vec<BlockArg> {
        ints.iter()
            .chain(acc.iter())
            .copied()
            .map(BlockArg::from)
            .collect()
    };
    // The loop runs the panels' pointers, not `k`: fewer instructions per step.
    let ptr = |b: &mut FunctionBuilder<'_>, base: Value, k: Value, bytes: i64| {
        let off = b.ins().imul_imm_s(k, bytes);
        b.ins().iadd(base, off)
    };
    let (abytes, bbytes) = (4 * mr, 16 * nr);
    let (pa0, pb0) = (ptr(b, ap, lo, abytes), ptr(b, bp, lo, bbytes));
    let end = ptr(b, ap, hi, abytes);
    let head = b.create_block();
    let exit = b.create_block();
    let head_p = params(b, head, 2);
    b.ins().jump(head, &args(&[pa0, pb0], &acc));
    b.switch_to_block(head);
    let (pa, pb) = (head_p[0], head_p[1]);
    let more = b.ins().icmp(IntCC::UnsignedLessThan, pa, end);
    let first = b.create_block();
    b.ins().brif(more, first, &[], exit, &[]);
    b.switch_to_block(first);
    let mut cur = head_p[2..].to_vec();
    for u in 0..steps {
        let xs: Vec<Value> = (0..vecs)
            .map(|v| {
                b.ins()
                    .load(types::F32X4, pure, pa, (4 * (u * mr + 4 * v as i64)) as i32)
            })
            .collect();
        let mut out = Vec::with_capacity(cur.len());
        for jc in 0..nr {
            let y = b.ins().load(types::F32X4, pure, pb, (16 * (u * nr + jc)) as i32);
            for (v, x) in xs.iter().enumerate() {
                out.push(b.ins().fma(y, *x, cur[jc as usize * vecs + v]));
            }
        }
        cur = out;
    }
    let pa1 = b.ins().iadd_imm_s(pa, abytes * steps);
    let pb1 = b.ins().iadd_imm_s(pb, bbytes * steps);
    b.ins().jump(head, &args(&[pa1, pb1], &cur));
    b.switch_to_block(exit);
    head_p[2..].to_vec()
}
