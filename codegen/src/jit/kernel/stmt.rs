//! One statement compiled to a loop nest: the tiles of the statement's outer indices (a range
//! of them per call, so that threads split them), the points of a tile, the contraction loops
//! of a `+=` (in the reference interpreter's order, so sums are bit-exact), and four lanes at a
//! time along the innermost index where every access is proved contiguous or invariant along
//! it.

use super::HalfPath;
use super::prepare::{TensorCode, apparent_step, proves_step};
use super::staging;
use super::value::{Along, Env, scalar_type, vectorizable_types};
use crate::jit::loops::for_loop;
use crate::jit::{JitError, Param, check_total, compile_returning};
use crate::kernel::{Access, IndexId, Kernel, Op, Stmt, StoreKind};
use crate::lang::Lang;
use crate::memo::Memo;
use crate::plan::Plan;
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value, types};
use cranelift_frontend::FunctionBuilder;
use cranelift_jit::JITModule;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// The machine code: the buffers' base addresses, the first and end tile, the slot for a
/// failing offset; returns 0 or a status (see `value::division_status`, `OUT_OF_BOUNDS`).
type Entry = extern "C" fn(*const usize, i64, i64, *mut i64) -> i64;

/// The number of tiles a statement without declared tiles is cut into along its outermost
/// loop, so that threads can share it.
const AUTO_TILES: i64 = 64;

/// A compiled statement.
pub(crate) struct LoopFn {
    module: Option<JITModule>,
    entry: Entry,
    /// The number of tiles.
    pub tiles: i64,
    /// The innermost index, and whether it runs four lanes at a time.
    pub inner: IndexId,
    /// Whether the innermost loop is vectorised.
    pub vector: bool,
    /// Whether 16-bit floats are converted in tiles (see `super::staging`).
    pub half_tiles: bool,
    /// Time spent in Cranelift.
    pub compile_time: Duration,
}

/// The accesses of `s`: the target first, then every load.
fn accesses(s: &Stmt) -> Vec<&Access> {
    let mut v = vec![&s.target];
    v.extend(s.nodes.iter().filter_map(|n| match &n.op {
        Op::Load(a) => Some(a),
        _ => None,
    }));
    v
}

/// The dimensions of `a` that index `x` reads.
fn dims_of(a: &Access, x: IndexId) -> Vec<usize> {
    a.indices
        .iter()
        .enumerate()
        .filter(|(_, y)| **y == x)
        .map(|(d, _)| d)
        .collect()
}

/// The load a plain copy moves bits from: `=` of one load of the target's type.
pub(crate) fn copy_source<'s>(k: &Kernel, s: &'s Stmt) -> Option<&'s Access> {
    match (&s.nodes[s.value.index()].op, s.kind) {
        (Op::Load(a), StoreKind::Assign)
            if k.tensors[a.tensor.index()].elem == k.tensors[s.target.tensor.index()].elem =>
        {
            Some(a)
        }
        _ => None,
    }
}

/// How each tensor of `s` moves along `x`, if every access is contiguous or invariant
/// along it (the target contiguous); the proofs' time is added to `proofs`.
fn lanes_along(
    s: &Stmt,
    x: IndexId,
    tensors: &[TensorCode],
    timeout_ms: u64,
    proofs: &mut Duration,
    memo: &dyn Memo,
) -> Option<HashMap<usize, Along>> {
    let start = Instant::now();
    let mut modes: HashMap<usize, Along> = HashMap::new();
    let mut ok = true;
    for (k, a) in accesses(s).into_iter().enumerate() {
        let t = a.tensor.index();
        let dims = dims_of(a, x);
        let code = &tensors[t];
        let along = match dims.as_slice() {
            [] => Along::Invariant,
            [d] if apparent_step(code, *d) == Some(1) && proves_step(code, *d, 1, timeout_ms, memo) => {
                Along::Contiguous
            }
            [d] if apparent_step(code, *d) == Some(0) && proves_step(code, *d, 0, timeout_ms, memo) => {
                Along::Invariant
            }
            _ => {
                ok = false;
                break;
            }
        };
        if (k == 0 && along != Along::Contiguous) || modes.get(&t).is_some_and(|m| *m != along) {
            ok = false;
            break;
        }
        modes.insert(t, along);
    }
    *proofs += start.elapsed();
    ok.then_some(modes)
}

/// How a statement's contiguity proofs are made: their time limit, where their time is added,
/// and the memo that recalls and records them.
pub(crate) struct StepProofs<'a> {
    /// The time limit of each proof, in milliseconds.
    pub timeout_ms: u64,
    /// The time spent proving, added to.
    pub time: &'a mut Duration,
    /// Where proofs are recalled and recorded.
    pub memo: &'a dyn Memo,
}

/// Compiles statement `s` of `k`; `extents` are the indices' extents (all positive for the
/// statement's indices), `checked` asks for bounds checks on offsets not proved in bounds.
pub(crate) fn compile_stmt(
    k: &Kernel,
    s: &Stmt,
    tensors: &[TensorCode],
    extents: &[i64],
    checked: bool,
    proofs: StepProofs<'_>,
    half: HalfPath,
) -> Result<LoopFn, JitError> {
    let mut plans: Vec<Option<Plan<'_>>> = (0..tensors.len()).map(|_| None).collect();
    for a in accesses(s) {
        let t = a.tensor.index();
        if plans[t].is_none() {
            let p = Plan::new(&tensors[t].expr, &tensors[t].sig, Lang::C)?;
            check_total(&p)?;
            plans[t] = Some(p);
        }
    }
    // The innermost index: the one most accesses appear to step by one along.
    let score = |x: IndexId| {
        accesses(s)
            .iter()
            .filter(|a| {
                let d = dims_of(a, x);
                d.len() == 1 && apparent_step(&tensors[a.tensor.index()], d[0]) == Some(1)
            })
            .count()
    };
    // An unchecked kernel runs in the interpreter's order (row-major over the target's
    // indices, the last innermost), so colliding writes leave the interpreter's last writer.
    let inner = if checked {
        *s.outer.last().expect("a statement has outer indices")
    } else {
        *s.outer
            .iter()
            .rev()
            .max_by_key(|x| score(**x))
            .expect("a statement has outer indices")
    };
    let order: Vec<IndexId> = s
        .outer
        .iter()
        .copied()
        .filter(|x| *x != inner)
        .chain([inner])
        .collect();
    // Tile sizes, in the order of `s.outer`.
    let declared: HashMap<IndexId, i64> = if checked {
        // Tiles along the first index only, run in order: the interpreter's order.
        HashMap::new()
    } else {
        k.tiles.iter().map(|t| (t.index, t.size)).collect()
    };
    let mut sizes: Vec<i64> = s
        .outer
        .iter()
        .map(|x| {
            declared
                .get(x)
                .copied()
                .unwrap_or(extents[x.index()])
                .clamp(1, extents[x.index()])
        })
        .collect();
    if s.outer.iter().all(|x| !declared.contains_key(x)) {
        let first = s.outer.iter().position(|x| *x == order[0]).expect("in outer");
        let n = extents[order[0].index()];
        sizes[first] = ((n + AUTO_TILES - 1) / AUTO_TILES).max(1);
    }
    let counts: Vec<i64> = s
        .outer
        .iter()
        .zip(&sizes)
        .map(|(x, &t)| (extents[x.index()] + t - 1) / t)
        .collect();
    let tiles = counts
        .iter()
        .try_fold(1i64, |a, &c| a.checked_mul(c))
        .ok_or_else(|| JitError::Cranelift("tile count overflows".into()))?;
    let target = tensors[s.target.tensor.index()].elem;
    let copy = copy_source(k, s);
    let inner_tile = sizes[s.outer.iter().position(|x| *x == inner).expect("in outer")];
    let modes = if !checked && (copy.is_some() || vectorizable_types(s, target)) && inner_tile >= 4 {
        lanes_along(s, inner, tensors, proofs.timeout_ms, proofs.time, proofs.memo)
    } else {
        None
    };
    let vector = modes.is_some();
    let mut staged = modes
        .as_ref()
        .and_then(|m| staging::plan(s, tensors, m, copy.is_some(), half));
    // Loads indexed by the innermost index alone are widened once per tile, where the nest has
    // other loops to hoist them out of.
    if let Some(st) = staged.as_mut().filter(|_| order.len() > 1) {
        st.hoist(inner, inner_tile);
    }
    let half_tiles = staged.is_some();
    let start = Instant::now();
    let (module, code) = compile_returning(
        &[Param::Ptr, Param::I64, Param::I64, Param::Ptr],
        Some(types::I64),
        |b, p| {
            let (bufs, lo, hi, err) = (p[0], p[1], p[2], p[3]);
            let fail = b.create_block();
            b.append_block_param(fail, types::I64);
            b.append_block_param(fail, types::I64);
            let flags = MemFlagsData::trusted();
            let ptr = b.func.dfg.value_type(bufs);
            let bases: Vec<Option<Value>> = (0..tensors.len())
                .map(|t| {
                    plans[t]
                        .as_ref()
                        .map(|_| b.ins().load(ptr, flags, bufs, (8 * t) as i32))
                })
                .collect();
            let scalar = Env {
                tensors,
                plans: &plans,
                bases: bases.clone(),
                fail,
                checked,
                vector: None,
                staged: None,
            };
            let wide = modes.clone().map(|m| Env {
                tensors,
                plans: &plans,
                bases,
                fail,
                checked,
                vector: Some((inner, m)),
                staged: None,
            });
            for_loop(b, (lo, hi, 1), |b, t| {
                // The tile's coordinates, row-major over `s.outer`.
                let mut rem = t;
                let mut bounds: HashMap<IndexId, (Value, Value)> = HashMap::new();
                for (i, x) in s.outer.iter().enumerate().rev() {
                    let c = b.ins().urem_imm_s(rem, counts[i]);
                    rem = b.ins().udiv_imm_s(rem, counts[i]);
                    let first = b.ins().imul_imm_s(c, sizes[i]);
                    let end = b.ins().iadd_imm_s(first, sizes[i]);
                    let cap = b.ins().iconst(types::I64, extents[x.index()]);
                    let end = b.ins().smin(end, cap);
                    bounds.insert(*x, (first, end));
                }
                // Before the loops over the other indices (each non-empty in the tile).
                let hoisted = match (&wide, &staged) {
                    (Some(w), Some(st)) => {
                        staging::widen_hoisted(b, st, w, inner, bounds[&inner], inner_tile)
                    }
                    _ => staging::Hoisted::default(),
                };
                nest(b, &order, &bounds, HashMap::new(), &mut |b, point, last| {
                    let (first, end) = bounds[&inner];
                    match (&wide, &staged) {
                        (Some(w), Some(st)) => staging::chunks(
                            b,
                            st,
                            (w, &scalar),
                            &s.target,
                            point,
                            last,
                            (first, end),
                            &hoisted,
                            &mut |b, env, p| body(b, env, k, s, copy, extents, p),
                        ),
                        (Some(w), None) => {
                            let n = b.ins().isub(end, first);
                            let whole = b.ins().band_imm_s(n, !3);
                            let split = b.ins().iadd(first, whole);
                            for_loop(b, (first, split, 4), |b, xv| {
                                let mut p = point.clone();
                                p.insert(last, xv);
                                body(b, w, k, s, copy, extents, &p);
                            });
                            for_loop(b, (split, end, 1), |b, xs| {
                                let mut p = point.clone();
                                p.insert(last, xs);
                                body(b, &scalar, k, s, copy, extents, &p);
                            });
                        }
                        (None, _) => for_loop(b, (first, end, 1), |b, xs| {
                            let mut p = point.clone();
                            p.insert(last, xs);
                            body(b, &scalar, k, s, copy, extents, &p);
                        }),
                    }
                });
            });
            let ok = b.ins().iconst(types::I64, 0);
            b.ins().return_(&[ok]);
            b.switch_to_block(fail);
            let (status, off) = (b.block_params(fail)[0], b.block_params(fail)[1]);
            b.ins().store(flags, off, err, 0);
            b.ins().return_(&[status]);
        },
    )?;
    // SAFETY: `code` is the function just defined with the signature
    // `(pointer, i64, i64, pointer) -> i64` in the platform's C calling convention, which
    // `Entry` is; it stays mapped while `module` lives, as long as the `LoopFn`.
    let entry = unsafe { std::mem::transmute::<*const u8, Entry>(code) };
    Ok(LoopFn {
        module: Some(module),
        entry,
        tiles,
        inner,
        vector,
        half_tiles,
        compile_time: start.elapsed(),
    })
}

/// Code built at one point of a loop nest (the indices' values so far).
type AtPoint<'f> = &'f mut dyn FnMut(&mut FunctionBuilder<'_>, &HashMap<IndexId, Value>);

/// Code built at the innermost loop's level: the point so far and the innermost index.
type AtInner<'f> = &'f mut dyn FnMut(&mut FunctionBuilder<'_>, &HashMap<IndexId, Value>, IndexId);

/// The loops over `order` but the last (each within its tile's bounds), then `f` with the
/// point so far and the last index (whose loop `f` builds).
fn nest(
    b: &mut FunctionBuilder<'_>,
    order: &[IndexId],
    bounds: &HashMap<IndexId, (Value, Value)>,
    point: HashMap<IndexId, Value>,
    f: AtInner<'_>,
) {
    match order {
        [last] => f(b, &point, *last),
        [x, rest @ ..] => {
            let (first, end) = bounds[x];
            for_loop(b, (first, end, 1), |b, v| {
                let mut p = point;
                p.insert(*x, v);
                nest(b, rest, bounds, p, f);
            });
        }
        [] => {}
    }
}

/// The loops over the contraction indices `idx` (first outermost, each over its whole
/// extent), then `f` at every point.
fn contraction(
    b: &mut FunctionBuilder<'_>,
    idx: &[IndexId],
    extents: &[i64],
    point: HashMap<IndexId, Value>,
    f: AtPoint<'_>,
) {
    match idx {
        [] => f(b, &point),
        [x, rest @ ..] => {
            let zero = b.ins().iconst(types::I64, 0);
            let end = b.ins().iconst(types::I64, extents[x.index()]);
            for_loop(b, (zero, end, 1), |b, v| {
                let mut p = point;
                p.insert(*x, v);
                contraction(b, rest, extents, p, f);
            });
        }
    }
}

/// The statement at one point (one lane or four, as `env` says).
fn body(
    b: &mut FunctionBuilder<'_>,
    env: &Env<'_, '_>,
    k: &Kernel,
    s: &Stmt,
    copy: Option<&Access>,
    extents: &[i64],
    point: &HashMap<IndexId, Value>,
) {
    match s.kind {
        StoreKind::Assign => match copy {
            Some(src) => env.move_bits(b, src, &s.target, point),
            None => {
                let v = env.eval(b, s, point);
                env.store(b, &s.target, point, v, !super::value::never_nan(s));
            }
        },
        StoreKind::Accumulate => {
            let elem = k.tensors[s.target.tensor.index()].elem;
            let ty = match &env.vector {
                Some(_) => scalar_type(elem).by(4).expect("a 32-bit lane type"),
                None => scalar_type(elem),
            };
            let acc = b.declare_var(ty);
            let init = env.load(b, &s.target, point);
            b.def_var(acc, init);
            contraction(b, &s.contraction, extents, point.clone(), &mut |b, p| {
                let v = env.eval(b, s, p);
                let cur = b.use_var(acc);
                let sum = if elem.is_float() {
                    b.ins().fadd(cur, v)
                } else {
                    b.ins().iadd(cur, v)
                };
                b.def_var(acc, sum);
            });
            let r = b.use_var(acc);
            env.store(b, &s.target, point, r, true);
        }
    }
}

impl LoopFn {
    /// Runs tiles `0..tiles` over `threads` threads on the buffers at `bases` (one address per
    /// tensor); the first failure's (status, offset).
    ///
    /// @pre `bases` holds, for every tensor the statement touches, the address of a live buffer
    /// of the tensor's cosize, exclusively borrowed by the caller for the call; a tensor the
    /// statement writes is not read by another thread at other elements (the statement's
    /// output is proved injective, or `threads` is 1).
    pub(crate) fn run(&self, bases: &[usize], threads: usize) -> Result<(), (i64, i64)> {
        let n = self.tiles;
        let parts = (threads as i64).clamp(1, n.max(1));
        let entry = self.entry;
        let at = bases.as_ptr() as usize;
        let go = move |lo: i64, hi: i64| -> Result<(), (i64, i64)> {
            let mut off = 0i64;
            // SAFETY: the code reads the base addresses (one per tensor, `bases` outlives the
            // call), and accesses each buffer at offsets proved inside its cosize (or checked,
            // for a kernel run unchecked), which the caller guarantees the buffers hold (the
            // precondition); tiles `lo..hi` lie in `0..tiles`; `off` is a live i64.
            let status = entry(at as *const usize, lo, hi, &mut off);
            if status == 0 { Ok(()) } else { Err((status, off)) }
        };
        if parts == 1 {
            return go(0, n);
        }
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..parts)
                .map(|k| {
                    let (lo, hi) = (n * k / parts, n * (k + 1) / parts);
                    scope.spawn(move || go(lo, hi))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or(Err((-1, 0))))
                .find(|r| r.is_err())
                .unwrap_or(Ok(()))
        })
    }
}

impl Drop for LoopFn {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: the only pointer into the module's memory is `self.entry`, which dies
            // with `self` (every thread that used it has joined: `run` is scoped).
            unsafe { m.free_memory() };
        }
    }
}
