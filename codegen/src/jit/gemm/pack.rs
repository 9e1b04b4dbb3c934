//! The packing functions: a block of one operand copied, through its offset expression, into
//! panels of `w` consecutive rows (A: rows `i`, `w = MR`; B: columns `j`, `w = NR`): panel after
//! panel, and inside a panel for each `k` the `w` values of its rows, zeros past the last row.

use super::super::loops::for_loop;
use super::super::{JitError, Param, compile_fn, index};
use crate::plan::Plan;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value, types};
use cranelift_frontend::FunctionBuilder;
use cranelift_jit::JITModule;
use std::collections::HashMap;
use tessera_ir::index::Var;

/// The packing function's signature: source, destination, first and end row, first and end
/// `k`. The rows are clamped to `[0, rows)` and the `k` to `[0, depth)` of the compiled
/// extents, so the source is read only on the domain of its offset expression.
pub(super) type PackEntry = unsafe extern "C" fn(*const f32, *mut f32, i64, i64, i64, i64);

/// Compiles the packing of the operand whose offsets `plan` computes from `(row, k)`, over a
/// domain of `rows x depth`, into panels of `w` rows, each value written `copies` times in a
/// row (4: a broadcast ready for a vector load).
///
/// @pre `plan` passed [`super::super::check_total`] on `row < rows`, `k < depth`; `w >= 1`;
/// `copies` a power of two.
/// @post the function writes `ceil((r1 - r0) / w) * w * copies * (k1 - k0)` floats at the
/// destination
/// (the clamped bounds), in the panel order of the module documentation.
pub(super) fn compile(
    plan: &Plan<'_>,
    rows: i64,
    depth: i64,
    w: i64,
    copies: i64,
) -> Result<(JITModule, *const u8), JitError> {
    let shift = 2 + i64::from(copies.trailing_zeros());
    let params = [
        Param::Ptr,
        Param::Ptr,
        Param::I64,
        Param::I64,
        Param::I64,
        Param::I64,
    ];
    compile_fn(&params, |b, p| {
        let (src, dst) = (p[0], p[1]);
        let flags = MemFlagsData::trusted();
        let zero = b.ins().iconst(types::I64, 0);
        let r0 = b.ins().smax(p[2], zero);
        let cap = b.ins().iconst(types::I64, rows);
        let r1 = b.ins().smin(p[3], cap);
        let k0 = b.ins().smax(p[4], zero);
        let cap = b.ins().iconst(types::I64, depth);
        let k1 = b.ins().smin(p[5], cap);
        let out = b.declare_var(types::I64);
        b.def_var(out, dst);
        let fzero = b.ins().f32const(0.0);
        let at = |b: &mut FunctionBuilder<'_>, row: Value, k: Value| -> Value {
            let inputs = HashMap::from([(Var::Coord(0), row), (Var::Coord(1), k)]);
            let off = index::build(b, plan, &inputs)[0];
            let bytes = b.ins().ishl_imm_u(off, 2);
            let addr = b.ins().iadd(src, bytes);
            b.ins().load(types::F32, flags, addr, 0)
        };
        for_loop(b, (r0, r1, w), |b, r| {
            let left = b.ins().isub(r1, r);
            let width = b.ins().iconst(types::I64, w);
            let n = b.ins().smin(left, width);
            let full = b.ins().icmp_imm_s(IntCC::Equal, n, w);
            let (whole, edge, join) = (b.create_block(), b.create_block(), b.create_block());
            b.ins().brif(full, whole, &[], edge, &[]);
            // A whole panel: the `w` rows unrolled.
            b.switch_to_block(whole);
            for_loop(b, (k0, k1, 1), |b, k| {
                let o = b.use_var(out);
                for x in 0..w {
                    let row = b.ins().iadd_imm_s(r, x);
                    let v = at(b, row, k);
                    for t in 0..copies {
                        b.ins().store(flags, v, o, (4 * (x * copies + t)) as i32);
                    }
                }
                let next = b.ins().iadd_imm_s(o, 4 * w * copies);
                b.def_var(out, next);
            });
            b.ins().jump(join, &[]);
            // The last panel: `n < w` rows, then zeros.
            b.switch_to_block(edge);
            for_loop(b, (k0, k1, 1), |b, k| {
                let o = b.use_var(out);
                for_loop(b, (zero, n, 1), |b, x| {
                    let row = b.ins().iadd(r, x);
                    let v = at(b, row, k);
                    let bytes = b.ins().ishl_imm_u(x, shift);
                    let a = b.ins().iadd(o, bytes);
                    for t in 0..copies {
                        b.ins().store(flags, v, a, (4 * t) as i32);
                    }
                });
                let end = b.ins().iconst(types::I64, w);
                for_loop(b, (n, end, 1), |b, x| {
                    let bytes = b.ins().ishl_imm_u(x, shift);
                    let a = b.ins().iadd(o, bytes);
                    for t in 0..copies {
                        b.ins().store(flags, fzero, a, (4 * t) as i32);
                    }
                });
                let next = b.ins().iadd_imm_s(o, 4 * w * copies);
                b.def_var(out, next);
            });
            b.ins().jump(join, &[]);
            b.switch_to_block(join);
        });
    })
}
