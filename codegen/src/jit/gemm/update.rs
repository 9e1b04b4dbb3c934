//! The update of C by a tile of sums: `C[i0 + r, j0 + c] += T[r, c]` for the `r < mr`,
//! `c < nr` inside the tile's bounds, each element's offset from C's offset expression. Both
//! micro-kernels end with it: the Cranelift one adds its registers' lanes (built inline by
//! [`add_tile`]), the wide ones (`super::wide`, Rust) leave their tile in a scratch buffer that
//! the function [`compile`] builds adds to C, looping over the tile's columns (unrolled, a
//! 32 x 12 tile and its edge made 768 element updates to compile). So C is written only by compiled code through
//! its proved offsets, and the two paths round the same way: one `fadd` per element, a NaN
//! stored as the canonical NaN.

use super::super::loops::for_loop;
use super::super::{JitError, Param, compile_fn, index};
use crate::plan::Plan;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value, types};
use cranelift_frontend::FunctionBuilder;
use cranelift_jit::JITModule;
use std::collections::HashMap;
use tessera_ir::index::Var;

/// The update's signature: the tile (`mr * nr` floats, column after column: `T[r, c]` at
/// `c * mr + r`), C, the tile's first row and column `i0, j0`, and the end row and column
/// `i1, j1` it may write (clamped to the compiled `m, n`).
pub(super) type UpdateEntry = unsafe extern "C" fn(*const f32, *mut f32, i64, i64, i64, i64);

/// Builds, in the current block of `b`, the addition of an `mr x nr` tile to C: the values
/// `value(b, r, c)` added to `C[i0 + r, j0 + c]` for `0 <= i0 + r < min(i1, m)` and
/// `0 <= j0 + c < min(j1, n)`, through C's offsets `plan`; C's other elements untouched.
/// A whole tile inside the bounds takes one branch without tests; an edge tile tests each
/// element. Leaves `b` in a fresh block after the update.
///
/// @pre `plan` passed [`super::super::check_total`] on `i < m`, `j < n`; `mr, nr >= 1`;
/// `c, i0, j0, i1, j1` are values of `b`'s function (`c` a pointer, the others `i64`).
/// @post the code touches C only at offsets of `(i, j)` with `i < m`, `j < n`, each at most
/// once, as `C = canonical(C + value)`.
#[allow(clippy::too_many_arguments)] // the tile's place: pointer, corner, bounds, extents
pub(super) fn add_tile<F>(
    b: &mut FunctionBuilder<'_>,
    plan: &Plan<'_>,
    (m, n): (i64, i64),
    (mr, nr): (i64, i64),
    c: Value,
    (i0, j0): (Value, Value),
    (i1, j1): (Value, Value),
    mut value: F,
) where
    F: FnMut(&mut FunctionBuilder<'_>, i64, i64) -> Value,
{
    let (i1, j1, full) = bounds(b, (m, n), (mr, nr), (i0, j0), (i1, j1));
    let (whole, edge, done) = (b.create_block(), b.create_block(), b.create_block());
    b.ins().brif(full, whole, &[], edge, &[]);
    let mut update = |b: &mut FunctionBuilder<'_>, r: i64, jc: i64| {
        let x = value(b, r, jc);
        let i = b.ins().iadd_imm_s(i0, r);
        let j = b.ins().iadd_imm_s(j0, jc);
        add_at(b, plan, c, (i, j), x);
    };
    // A whole tile: every element, no test.
    b.switch_to_block(whole);
    for jc in 0..nr {
        for r in 0..mr {
            update(b, r, jc);
        }
    }
    b.ins().jump(done, &[]);
    // An edge tile: each element tested.
    b.switch_to_block(edge);
    for jc in 0..nr {
        let j = b.ins().iadd_imm_s(j0, jc);
        let in_j = b.ins().icmp(IntCC::UnsignedLessThan, j, j1);
        for r in 0..mr {
            let i = b.ins().iadd_imm_s(i0, r);
            let in_i = b.ins().icmp(IntCC::UnsignedLessThan, i, i1);
            let inside = b.ins().band(in_i, in_j);
            let (yes, next) = (b.create_block(), b.create_block());
            b.ins().brif(inside, yes, &[], next, &[]);
            b.switch_to_block(yes);
            update(b, r, jc);
            b.ins().jump(next, &[]);
            b.switch_to_block(next);
        }
    }
    b.ins().jump(done, &[]);
    b.switch_to_block(done);
}

/// The clamped end row and column `min(i1, m)`, `min(j1, n)` (at least 0), and whether the
/// whole `mr x nr` tile at `(i0, j0)` lies inside them.
fn bounds(
    b: &mut FunctionBuilder<'_>,
    (m, n): (i64, i64),
    (mr, nr): (i64, i64),
    (i0, j0): (Value, Value),
    (i1, j1): (Value, Value),
) -> (Value, Value, Value) {
    let zero = b.ins().iconst(types::I64, 0);
    let clamp = |b: &mut FunctionBuilder<'_>, x: Value, cap: i64| {
        let cap = b.ins().iconst(types::I64, cap);
        let x = b.ins().smin(x, cap);
        b.ins().smax(x, zero)
    };
    let i1 = clamp(b, i1, m);
    let j1 = clamp(b, j1, n);
    // Unsigned comparisons: a negative or wrapped coordinate is never below the bound.
    let i_last = b.ins().iadd_imm_s(i0, mr - 1);
    let j_last = b.ins().iadd_imm_s(j0, nr - 1);
    let conds = [
        b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, i0, 0),
        b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, j0, 0),
        b.ins().icmp(IntCC::UnsignedLessThan, i_last, i1),
        b.ins().icmp(IntCC::UnsignedLessThan, j_last, j1),
    ];
    let full = conds[1..].iter().fold(conds[0], |x, y| b.ins().band(x, *y));
    (i1, j1, full)
}

/// `C[i, j] = canonical(C[i, j] + x)`, at C's offset of `(i, j)` from `plan`.
fn add_at(b: &mut FunctionBuilder<'_>, plan: &Plan<'_>, c: Value, (i, j): (Value, Value), x: Value) {
    let flags = MemFlagsData::trusted();
    let inputs = HashMap::from([(Var::Coord(0), i), (Var::Coord(1), j)]);
    let off = index::build(b, plan, &inputs)[0];
    let bytes = b.ins().ishl_imm_u(off, 2);
    let addr = b.ins().iadd(c, bytes);
    let old = b.ins().load(types::F32, flags, addr, 0);
    let new = b.ins().fadd(old, x);
    // A computed value: a NaN is stored as the canonical NaN.
    let new = crate::jit::nan::canonical(b, new);
    b.ins().store(flags, new, addr, 0);
}

/// Compiles the update of C (offsets `plan` over `(i, j)`, `i < m`, `j < n`) by a tile of
/// `mr x nr` sums held in memory (see [`UpdateEntry`]).
///
/// @pre `plan` passed [`super::super::check_total`] on `i < m`, `j < n`; `mr, nr >= 1`.
/// @post the function reads `mr * nr` floats of the tile and adds `T[r, c]` to
/// `C[i0 + r, j0 + c]` for `0 <= i0 + r < min(i1, m)`, `0 <= j0 + c < min(j1, n)`, touching no
/// other element of C.
pub(super) fn compile(
    plan: &Plan<'_>,
    m: i64,
    n: i64,
    mr: i64,
    nr: i64,
) -> Result<(JITModule, *const u8), JitError> {
    let params = [
        Param::Ptr,
        Param::Ptr,
        Param::I64,
        Param::I64,
        Param::I64,
        Param::I64,
    ];
    compile_fn(&params, |b, p| {
        let (tile, c, i0, j0) = (p[0], p[1], p[2], p[3]);
        // The scratch tile is the caller's and only read here.
        let flags = MemFlagsData::trusted().with_readonly();
        let (i1, j1, full) = bounds(b, (m, n), (mr, nr), (i0, j0), (p[4], p[5]));
        // A loop over the tile's columns (a 32 x 12 tile unrolled whole, with its edge, made
        // the function's compilation take 20-30 ms); in a column, the rows of a whole tile
        // unrolled, those of an edge tile in a loop, each tested.
        let (zero, cols, rows) = (
            b.ins().iconst(types::I64, 0),
            b.ins().iconst(types::I64, nr),
            b.ins().iconst(types::I64, mr),
        );
        for_loop(b, (zero, cols, 1), |b, jc| {
            let j = b.ins().iadd(j0, jc);
            let col_bytes = b.ins().imul_imm_s(jc, 4 * mr);
            let col = b.ins().iadd(tile, col_bytes);
            let (whole, edge, rows_edge, next) = (
                b.create_block(),
                b.create_block(),
                b.create_block(),
                b.create_block(),
            );
            b.ins().brif(full, whole, &[], edge, &[]);
            b.switch_to_block(whole);
            for r in 0..mr {
                let x = b.ins().load(types::F32, flags, col, (4 * r) as i32);
                let i = b.ins().iadd_imm_s(i0, r);
                add_at(b, plan, c, (i, j), x);
            }
            b.ins().jump(next, &[]);
            b.switch_to_block(edge);
            let in_j = b.ins().icmp(IntCC::UnsignedLessThan, j, j1);
            b.ins().brif(in_j, rows_edge, &[], next, &[]);
            b.switch_to_block(rows_edge);
            for_loop(b, (zero, rows, 1), |b, r| {
                let i = b.ins().iadd(i0, r);
                let in_i = b.ins().icmp(IntCC::UnsignedLessThan, i, i1);
                let (yes, skip) = (b.create_block(), b.create_block());
                b.ins().brif(in_i, yes, &[], skip, &[]);
                b.switch_to_block(yes);
                let r_bytes = b.ins().ishl_imm_u(r, 2);
                let addr = b.ins().iadd(col, r_bytes);
                let x = b.ins().load(types::F32, flags, addr, 0);
                add_at(b, plan, c, (i, j), x);
                b.ins().jump(skip, &[]);
                b.switch_to_block(skip);
            });
            b.ins().jump(next, &[]);
            b.switch_to_block(next);
        });
    })
}
