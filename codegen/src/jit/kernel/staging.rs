//! 16-bit float tiles staged in `f32`: in four-lane code of a plain `=`, the innermost loop runs
//! in chunks of [`CHUNK`] elements; before a chunk computes, each load of an `f16`/`bf16`
//! tensor that is proved contiguous along the innermost index is widened into an `f32` scratch
//! tile of the function's frame by a helper (`crate::jit::half_tiles`: the CPU's conversion
//! instructions where it has them); the chunk's code then reads and writes `f32` tiles, and
//! after it the target's tile is narrowed into the buffer by a helper. A staged load indexed
//! by the innermost index alone (`b[j]` in `y[i,j] = max(x[i,j] + b[j], 0)`) reads the same
//! elements for every point of the other indices: it is widened once per tile, over the tile's
//! whole range along the innermost index, before the loops over the other indices
//! ([`Staging::hoist`], [`widen_hoisted`]), and each chunk reads its part of that scratch. The
//! chunk's four-lane loop runs [`UNROLL`] vectors per iteration.
//!
//! The helpers touch exactly the elements the loop would: a staged access's offsets over the
//! chunk are `offset(first) + k` (its contiguity along the innermost index is proved) and each
//! is inside its buffer (the kernel's proof), and a thread's chunks lie in its own tiles; a
//! hoisted load's elements over the tile are those its chunks read at any point of the other
//! indices (each has a non-empty range in a tile), and no statement writes a tensor it reads
//! at other elements (the target's own loads have the target's indices, so a load indexed by
//! the innermost index alone is never the target's when there are other indices). A
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
    AbiParam, InstBuilder, SigRef, Signature, StackSlot, StackSlotData, StackSlotKind, Value, types,
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
    /// Per load: whether it is widened once per tile rather than per chunk (see
    /// [`Staging::hoist`]).
    hoisted: Vec<bool>,
}

/// The most bytes of `f32` scratch a load widened once per tile may take ([`Staging::hoist`]):
/// 16384 elements, a 64 KiB tile of the function's frame.
pub(crate) const HOIST_BYTES: i64 = 64 * 1024;

/// The loads widened once per tile ([`widen_hoisted`]): the tile's first element along the
/// innermost index, and per staged load (in the order of [`Staging`]'s loads) the address of
/// its tile-long scratch (element `first` at offset 0) where it is hoisted. Empty when no load
/// is hoisted.
#[derive(Clone, Default)]
pub(crate) struct Hoisted {
    tiles: Vec<Option<Value>>,
    first: Option<Value>,
}

/// Where a chunk reads a staged load from.
#[derive(Clone, Copy)]
enum Source {
    /// A chunk-long scratch, widened before each chunk.
    Chunk(StackSlot),
    /// Its tile's scratch (hoisted), which starts at the tile's `first` element.
    Tile { base: Value, first: Value },
}

/// Four-lane bodies per iteration of a chunk's loop (32 elements): the loop's own
/// instructions (the counter, the branch, reloading the tiles' addresses) are paid once per
/// eight vectors rather than per vector.
pub(crate) const UNROLL: i64 = 8;

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
    let hoisted = vec![false; loads.len()];
    (!loads.is_empty() || target.is_some()).then_some(Staging {
        loads,
        target,
        hoisted,
    })
}

impl Staging {
    /// Marks for widening once per tile each staged load indexed by `inner` alone (`b[j]` in
    /// `y[i,j] = x[i,j] + b[j]`: the same elements for every point of the other indices), where
    /// the tile's `inner_tile` elements fit [`HOIST_BYTES`] of `f32`.
    ///
    /// @pre `inner` is the innermost index of the loop nest this staging is compiled into and
    /// `inner_tile` the most elements a tile spans along it.
    /// @post only loads whose every index is `inner` are hoisted; none when the tile's scratch
    /// would exceed [`HOIST_BYTES`].
    pub(crate) fn hoist(&mut self, inner: IndexId, inner_tile: i64) {
        if inner_tile.saturating_mul(4) > HOIST_BYTES {
            self.hoisted.iter_mut().for_each(|h| *h = false);
            return;
        }
        for ((a, _), h) in self.loads.iter().zip(&mut self.hoisted) {
            *h = !a.indices.is_empty() && a.indices.iter().all(|x| *x == inner);
        }
    }
}

/// Widens each hoisted load of `st` over the tile's `[first, end)` along `last` into a
/// scratch of `inner_tile` `f32`, once per tile (outside the loops over the other indices).
///
/// @pre `st` was [`Staging::hoist`]ed with `last` and `inner_tile`; `first <= end`,
/// `end - first <= inner_tile`, the tile's range along `last`; every other index of the
/// statement has a non-empty range in the tile (so each widened element is one the loop nest
/// reads).
/// @post [`chunks`] given the answer reads each hoisted load's chunk from its tile.
pub(crate) fn widen_hoisted(
    b: &mut FunctionBuilder<'_>,
    st: &Staging,
    wide: &Env<'_, '_>,
    last: IndexId,
    (first, end): (Value, Value),
    inner_tile: i64,
) -> Hoisted {
    if !st.hoisted.iter().any(|h| *h) {
        return Hoisted::default();
    }
    let mut tiles = Vec::with_capacity(st.loads.len());
    let helper = helper_signature(b);
    let n = b.ins().isub(end, first);
    for ((a, r), hoisted) in st.loads.iter().zip(&st.hoisted) {
        if !hoisted {
            tiles.push(None);
            continue;
        }
        let slot = b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (inner_tile * 4) as u32,
            4,
        ));
        let tile = b.ins().stack_addr(types::I64, slot, 0);
        let p = HashMap::from([(last, first)]);
        let src = wide.address(b, a, &p, 1);
        call(b, helper, r.widen_fn() as usize, [src, tile, n]);
        tiles.push(Some(tile));
    }
    Hoisted {
        tiles,
        first: Some(first),
    }
}

/// The code at one point of the innermost loop, in the environment given (four lanes or one).
pub(crate) type AtLane<'f> =
    &'f mut dyn FnMut(&mut FunctionBuilder<'_>, &Env<'_, '_>, &HashMap<IndexId, Value>);

/// The innermost loop over `last` in `[first, end)` (`bounds`), in chunks: the staged loads
/// widened, `at` over the chunk four lanes at a time (`wide`) and then one (`scalar`), the
/// target narrowed. `point` holds the outer indices' values; a load in `hoisted` is not
/// widened per chunk but read from its tile's scratch.
///
/// @pre `st` is [`plan`]'s answer for the statement `wide` compiles, whose target is
/// `target`; `wide` is its four-lane environment along `last`, `scalar` its one-lane one;
/// `first <= end`, both within the tile of the current point; `hoisted` is
/// [`widen_hoisted`]'s answer for this tile's `first` (or empty).
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
    hoisted: &Hoisted,
    at: AtLane<'_>,
) {
    let slot = |b: &mut FunctionBuilder<'_>| {
        b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (CHUNK * 4) as u32,
            4,
        ))
    };
    // A hoisted load has its tile already; every other staged load a chunk-long scratch.
    let sources: Vec<Source> = (0..st.loads.len())
        .map(
            |i| match (hoisted.tiles.get(i).copied().flatten(), hoisted.first) {
                (Some(base), Some(first)) => Source::Tile { base, first },
                _ => Source::Chunk(slot(b)),
            },
        )
        .collect();
    let helper = helper_signature(b);
    let target_slot = st.target.map(|_| slot(b));
    for_loop(b, (first, end, CHUNK), |b, c| {
        let cap = b.ins().iadd_imm_s(c, CHUNK);
        let cend = b.ins().smin(cap, end);
        let n = b.ins().isub(cend, c);
        let mut p = point.clone();
        p.insert(last, c);
        let mut loads = Vec::with_capacity(st.loads.len());
        for ((a, r), s) in st.loads.iter().zip(&sources) {
            let tile = match *s {
                Source::Chunk(s) => {
                    let tile = b.ins().stack_addr(types::I64, s, 0);
                    let src = wide.address(b, a, &p, 1);
                    call(b, helper, r.widen_fn() as usize, [src, tile, n]);
                    tile
                }
                // Widened once per tile: this chunk starts `c - first` elements into it.
                Source::Tile { base, first } => {
                    let k = b.ins().isub(c, first);
                    let bytes = b.ins().imul_imm_s(k, 4);
                    b.ins().iadd(base, bytes)
                }
            };
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
        // Whole groups of `UNROLL` vectors, then single vectors, then single elements.
        let whole = b.ins().band_imm_s(n, !(4 * UNROLL - 1));
        let split_u = b.ins().iadd(c, whole);
        for_loop(b, (c, split_u, 4 * UNROLL), |b, xv| {
            for l in 0..UNROLL {
                let mut q = point.clone();
                let x = if l == 0 { xv } else { b.ins().iadd_imm_s(xv, 4 * l) };
                q.insert(last, x);
                at(b, &w, &q);
            }
        });
        let whole = b.ins().band_imm_s(n, !3);
        let split = b.ins().iadd(c, whole);
        for_loop(b, (split_u, split, 4), |b, xv| {
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
