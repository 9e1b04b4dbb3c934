//! 16-bit float tiles staged in `f32`: in four-lane code of a plain `=`, the innermost loop runs
//! in chunks of [`CHUNK`] elements; before a chunk computes, each load of an `f16`/`bf16`
//! tensor that is proved contiguous along the innermost index is widened into an `f32` scratch
//! tile of the function's frame by a helper (`crate::jit::half_tiles`: the CPU's conversion
//! instructions where it has them); the chunk's code then reads and writes `f32` tiles, and
//! after it the target's tile is narrowed into the buffer by a helper.
//!
//! The helpers touch exactly the elements the loop would: a staged access's offsets over the
//! chunk are `offset(first) + k` (its contiguity along the innermost index is proved) and each
//! is inside its buffer (the kernel's proof), and a thread's chunks lie in its own tiles. A
//! load of the target itself reads the element the statement is about to write (the front end
//! refuses other indices), so widening the whole chunk before narrowing it reads what the
//! interpreter reads. The results are the interpreter's bits: the helpers convert exactly as
//! it does, the chunk computes in `f32` as the unstaged code does, and a computed store makes
//! its NaN canonical before the tile is narrowed.

use super::HalfPath;
use super::prepare::TensorCode;
use super::value::{Along, Env, Staged};
use crate::jit::half_tiles::Routine;
use crate::jit::loops::for_loop;
use crate::kernel::{Access, ElemType, IndexId, Op, Stmt, StoreKind};
use cranelift_codegen::ir::{
    AbiParam, InstBuilder, SigRef, Signature, StackSlotData, StackSlotKind, Value, types,
};
use cranelift_frontend::FunctionBuilder;
use std::collections::HashMap;

/// The elements of one chunk: each scratch tile holds this many `f32` (2 KiB), so a
/// statement's tiles stay in the level-1 cache.
pub(crate) const CHUNK: i64 = 512;

/// What a statement stages: its distinct 16-bit float loads contiguous along the innermost
/// index, and its target when that is a 16-bit float, each with its conversion routine.
#[derive(Clone, Debug)]
pub(crate) struct Staging {
    loads: Vec<(Access, Routine)>,
    target: Option<Routine>,
}

/// The staging of `s` in four-lane code where each tensor moves along the innermost index as
/// `modes` says; `None` where nothing is staged: a copy (`copy`: it moves bits), a `+=`, no
/// 16-bit float access, or `path` [`HalfPath::Inline`].
///
/// @pre `modes` is the statement's proved contiguity (every tensor of `s` has an entry, the
/// target [`Along::Contiguous`]).
/// @post every staged load is [`Along::Contiguous`] and of type `f16` or `bf16`; no routine
/// is hardware unless the CPU has it.
pub(crate) fn plan(
    s: &Stmt,
    tensors: &[TensorCode],
    modes: &HashMap<usize, Along>,
    copy: bool,
    path: HalfPath,
) -> Option<Staging> {
    if path == HalfPath::Inline || copy || s.kind != StoreKind::Assign {
        return None;
    }
    let software = path == HalfPath::SoftwareTiles;
    let routine = |t: ElemType| match t {
        ElemType::F16 => Some(Routine::pick(false, software)),
        ElemType::BF16 => Some(Routine::pick(true, software)),
        _ => None,
    };
    let mut loads: Vec<(Access, Routine)> = Vec::new();
    for n in &s.nodes {
        let Op::Load(a) = &n.op else { continue };
        let t = a.tensor.index();
        if modes.get(&t) != Some(&Along::Contiguous) || loads.iter().any(|(x, _)| x == a) {
            continue;
        }
        if let Some(r) = routine(tensors[t].elem) {
            loads.push((a.clone(), r));
        }
    }
    let target = routine(tensors[s.target.tensor.index()].elem);
    (!loads.is_empty() || target.is_some()).then_some(Staging { loads, target })
}

/// The code at one point of the innermost loop, in the environment given (four lanes or one).
pub(crate) type AtLane<'f> =
    &'f mut dyn FnMut(&mut FunctionBuilder<'_>, &Env<'_, '_>, &HashMap<IndexId, Value>);

/// The innermost loop over `last` in `[first, end)` (`bounds`), in chunks: the staged loads
/// widened, `at` over the chunk four lanes at a time (`wide`) and then one (`scalar`), the
/// target narrowed. `point` holds the outer indices' values.
///
/// @pre `st` is [`plan`]'s answer for the statement `wide` compiles, whose target is
/// `target`; `wide` is its four-lane environment along `last`, `scalar` its one-lane one;
/// `first <= end`, both within the tile of the current point.
/// @post the code computes what the unstaged loop computes, bit for bit.
#[allow(clippy::too_many_arguments)]
pub(crate) fn chunks(
    b: &mut FunctionBuilder<'_>,
    st: &Staging,
    (wide, scalar): (&Env<'_, '_>, &Env<'_, '_>),
    target: &Access,
    point: &HashMap<IndexId, Value>,
    last: IndexId,
    (first, end): (Value, Value),
    at: AtLane<'_>,
) {
    let slot = |b: &mut FunctionBuilder<'_>| {
        b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (CHUNK * 4) as u32,
            4,
        ))
    };
    let load_slots: Vec<_> = st.loads.iter().map(|_| slot(b)).collect();
    let helper = helper_signature(b);
    let target_slot = st.target.map(|_| slot(b));
    for_loop(b, (first, end, CHUNK), |b, c| {
        let cap = b.ins().iadd_imm_s(c, CHUNK);
        let cend = b.ins().smin(cap, end);
        let n = b.ins().isub(cend, c);
        let mut p = point.clone();
        p.insert(last, c);
        let mut loads = Vec::with_capacity(st.loads.len());
        for ((a, r), s) in st.loads.iter().zip(&load_slots) {
            let tile = b.ins().stack_addr(types::I64, *s, 0);
            let src = wide.address(b, a, &p, 1);
            call(b, helper, r.widen_fn() as usize, [src, tile, n]);
            loads.push((a.clone(), tile));
        }
        let target_tile = target_slot.map(|s| b.ins().stack_addr(types::I64, s, 0));
        let staged = Staged {
            inner: last,
            start: c,
            loads,
            target: target_tile,
        };
        let (w, s) = (wide.with_staged(staged.clone()), scalar.with_staged(staged));
        let whole = b.ins().band_imm_s(n, !3);
        let split = b.ins().iadd(c, whole);
        for_loop(b, (c, split, 4), |b, xv| {
            let mut q = point.clone();
            q.insert(last, xv);
            at(b, &w, &q);
        });
        for_loop(b, (split, cend, 1), |b, xs| {
            let mut q = point.clone();
            q.insert(last, xs);
            at(b, &s, &q);
        });
        if let (Some(r), Some(tile)) = (st.target, target_tile) {
            let dst = wide.address(b, target, &p, 1);
            call(b, helper, r.narrow_fn() as usize, [tile, dst, n]);
        }
    });
}

/// The helpers' signature, three 64-bit arguments in the platform's C calling convention (the
/// compiled function's own), imported once into the function.
fn helper_signature(b: &mut FunctionBuilder<'_>) -> SigRef {
    let mut sig = Signature::new(b.func.signature.call_conv);
    sig.params.extend([AbiParam::new(types::I64); 3]);
    b.import_signature(sig)
}

/// A call of the helper at address `f`, of signature `sig` ([`helper_signature`]).
fn call(b: &mut FunctionBuilder<'_>, sig: SigRef, f: usize, args: [Value; 3]) {
    let callee = b.ins().iconst(types::I64, f as i64);
    b.ins().call_indirect(sig, callee, &args);
}
