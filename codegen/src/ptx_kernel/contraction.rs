//! The staged contraction, the shared-memory GEMM: a `+=` statement with a staged tensor
//! tiled along a contraction index, e.g. `C[i,j] += A[i,k] * B[j,k]` with `stage A in SA` and
//! `stage B in SB` under `tile i:128, j:128, k:8 threads i:16, j:16`.
//!
//! Each thread keeps the sums of its points (its `local_partition` of the CTA's tile, at most
//! [`MAX_POINTS_PER_THREAD`]) in registers. Stages along outer indices only are copied once,
//! and the operands that do not move with the contraction are loaded once per point, before
//! the loop (hoisted). Then the contraction runs one k-tile at a time:
//! 1. every thread copies its part of each staged tensor's k-tile into shared memory (points
//!    past the extents as zero bits), then `bar.sync`;
//! 2. for each `k` of the tile (up to the extent), it loads each distinct operand once, e.g.
//!    `A[i_a, k]` for each of its rows `i_a` and `B[j_b, k]` for each of its columns, from
//!    shared memory (unstaged tensors from global memory, predicated on their coordinates), and
//!    updates every sum: `fma.rn` when the summand is a float product `x * y`, else `add`;
//! 3. `bar.sync` before the next k-tile's copy.
//!
//! Then each point inside the extents stores its sum. With one contraction index the sums run
//! in the interpreter's order; fused, so a float sum agrees with the reference interpreter
//! within rounding, not bit for bit (as the CPU GEMM). Integer sums are exact.

use super::builder::{Builder, Class, class, suffix};
use super::phases::stage_copy;
use super::stage::StageCode;
use crate::EmitError;
use crate::kernel::{Access, BinOp, IndexId, Op, Stmt};
use std::collections::HashMap;

/// The points whose sums one thread keeps in registers, at most.
pub const MAX_POINTS_PER_THREAD: i64 = 64;

/// One of the thread's points: its coordinates and whether it is inside the extents (and the
/// thread one that computes).
struct Point {
    at: HashMap<IndexId, String>,
    inside: String,
}

/// The zero of register class `c`.
fn zero(c: Class) -> &'static str {
    match c {
        Class::F => "0f00000000",
        Class::Fd => "0d0000000000000000",
        _ => "0",
    }
}

/// The body of a staged contraction's entry, after the CTA's tile and the threads'
/// coordinates (`tcoord`, by index): the sums, the k-tile loop with its staging copies and
/// barriers, and the stores (see the module documentation).
pub(super) fn staged_contraction(
    b: &mut Builder<'_>,
    s: &Stmt,
    tiles: &[(IndexId, i64)],
    tcoord: &HashMap<IndexId, String>,
    (tid, ntid): (&str, &str),
) -> Result<(), EmitError> {
    let k = b.k;
    let name = |x: &IndexId| k.indices[x.index()].name.clone();
    let unsupported = |m: String| EmitError::Unsupported(format!("kernel {}: {m}", k.name));
    if k.threads.is_empty() {
        return Err(unsupported(
            "a staged contraction needs a `threads` clause (each thread keeps the sums of its points in registers)".into(),
        ));
    }
    if let Some(t) = k.threads.iter().find(|t| s.contraction.contains(&t.index)) {
        return Err(unsupported(format!(
            "threads along the contraction index {} (a split contraction) are not built",
            name(&t.index)
        )));
    }
    let count = |x: &IndexId| k.threads.iter().find(|t| t.index == *x).map_or(1, |t| t.size);
    let values: Vec<(IndexId, i64)> = tiles.iter().map(|(x, t)| (*x, t / count(x))).collect();
    let points: i64 = values.iter().map(|(_, v)| *v).product();
    if points > MAX_POINTS_PER_THREAD {
        return Err(unsupported(format!(
            "each thread would keep {points} sums in registers, more than {MAX_POINTS_PER_THREAD}: list more threads"
        )));
    }
    // Only the first thread along an index the statement does not iterate computes (all of
    // them copy and wait at the barriers).
    let lead = b.reg(Class::P);
    b.ins(format!("setp.ge.s64 {lead}, {tid}, 0"));
    b.only_first_along_unused(&lead, tiles, tcoord);
    // The thread's coordinates along each outer index, and whether each is inside.
    let mut coords: Vec<Vec<String>> = Vec::with_capacity(values.len());
    let mut inside_of: HashMap<String, String> = HashMap::new();
    for (x, v) in &values {
        b.comment(&format!("the thread's {v} coordinates along {}", name(x)));
        let mut cs = Vec::with_capacity(*v as usize);
        for a in 0..*v {
            let c = b.reg(Class::Rd);
            let start = b.starts[x].clone();
            match tcoord.get(x) {
                Some(tc) => {
                    b.ins(format!("add.s64 {c}, {tc}, {}", count(x) * a));
                    b.ins(format!("add.s64 {c}, {c}, {start}"));
                }
                None => b.ins(format!("add.s64 {c}, {start}, {a}")),
            }
            let q = b.reg(Class::P);
            let n = b.extents[x.index()].clone();
            b.ins(format!("setp.lt.s64 {q}, {c}, {n}"));
            inside_of.insert(c.clone(), q);
            cs.push(c);
        }
        coords.push(cs);
    }
    // The points, row-major over the values (the last outer index fastest).
    let mut pts: Vec<Point> = Vec::with_capacity(points as usize);
    for p in 0..points {
        let (mut r, mut at) = (p, HashMap::new());
        let inside = b.reg(Class::P);
        b.ins(format!("mov.pred {inside}, {lead}"));
        for (d, (x, v)) in values.iter().enumerate().rev() {
            let c = coords[d][(r % v) as usize].clone();
            r /= v;
            b.ins(format!("and.pred {inside}, {inside}, {}", inside_of[&c]));
            at.insert(*x, c);
        }
        pts.push(Point { at, inside });
    }
    // The sums start from the target's values.
    let target = &s.target;
    let telem = k.tensors[target.tensor.index()].elem;
    let (tc, ty) = (class(telem), suffix(telem));
    b.comment(&format!("{points} sums per thread, in registers"));
    let mut sums = Vec::with_capacity(pts.len());
    for p in &pts {
        let acc = b.reg(tc);
        b.ins(format!("mov.{ty} {acc}, {}", zero(tc)));
        let skip = b.label("init");
        b.ins(format!("@!{} bra {skip}", p.inside));
        let v = b.load(target, &p.at);
        b.ins(format!("mov.{ty} {acc}, {v}"));
        b.put_label(&skip);
        sums.push(acc);
    }
    // Stages along the outer indices only are copied once, and the operands that do not move
    // with the contraction are loaded once per point: hoisted out of the k-tiles.
    let stages = b.stages;
    let along_k = |sc: &StageCode| {
        sc.dims
            .iter()
            .any(|d| s.contraction.iter().any(|x| x.index() == *d))
    };
    let starts0 = b.starts.clone();
    if stages.iter().any(|sc| !along_k(sc)) {
        for (n, sc) in stages.iter().enumerate().filter(|(_, sc)| !along_k(sc)) {
            stage_copy(b, n, sc, &starts0, (tid, ntid), true);
        }
        b.comment("every thread has stored its part of the tiles that do not move with the contraction");
        b.ins("bar.sync 0");
    }
    let mut loaded: HashMap<(usize, Vec<String>), String> = HashMap::new();
    b.comment("loop-invariant operands, hoisted out of the contraction");
    for p in &pts {
        for node in &s.nodes {
            if let Op::Load(a) = &node.op
                && !a.indices.iter().any(|x| s.contraction.contains(x))
            {
                let key = (
                    a.tensor.index(),
                    a.indices.iter().map(|x| p.at[x].clone()).collect::<Vec<_>>(),
                );
                loaded
                    .entry(key)
                    .or_insert_with(|| operand(b, a, &p.at, &inside_of));
            }
        }
    }
    // The k-tiles, the first contraction index outermost.
    let ktile = |x: &IndexId| k.tiles.iter().find(|t| t.index == *x).map_or(1, |t| t.size);
    let mut tile_loops = Vec::new();
    let mut starts = b.starts.clone();
    for x in &s.contraction {
        let k0 = b.reg(Class::Rd);
        let (head, done) = (b.label("ktile"), b.label("ktdone"));
        let n = b.extents[x.index()].clone();
        b.comment(&format!("the k-tiles of {}: {} at a time", name(x), ktile(x)));
        b.ins(format!("mov.s64 {k0}, 0"));
        b.put_label(&head);
        let p = b.reg(Class::P);
        b.ins(format!("setp.ge.s64 {p}, {k0}, {n}"));
        b.ins(format!("@{p} bra {done}"));
        starts.insert(*x, k0.clone());
        tile_loops.push((*x, k0, head, done));
    }
    b.starts = starts.clone();
    for (n, sc) in stages.iter().enumerate().filter(|(_, sc)| along_k(sc)) {
        stage_copy(b, n, sc, &starts, (tid, ntid), true);
    }
    b.comment("every thread has stored its part of the k-tiles");
    b.ins("bar.sync 0");
    let mut in_loops = Vec::new();
    let mut kpoint: HashMap<IndexId, String> = HashMap::new();
    for (x, k0, ..) in &tile_loops {
        let (kk, end) = (b.reg(Class::Rd), b.reg(Class::Rd));
        let (head, done) = (b.label("k"), b.label("kdone"));
        let n = b.extents[x.index()].clone();
        b.ins(format!("mov.s64 {kk}, {k0}"));
        b.ins(format!("add.s64 {end}, {k0}, {}", ktile(x)));
        b.ins(format!("min.s64 {end}, {end}, {n}"));
        b.put_label(&head);
        let p = b.reg(Class::P);
        b.ins(format!("setp.ge.s64 {p}, {kk}, {end}"));
        b.ins(format!("@{p} bra {done}"));
        kpoint.insert(*x, kk.clone());
        in_loops.push((kk, head, done));
    }
    sum_step(b, s, (&pts, &sums), &kpoint, &inside_of, loaded);
    for (kk, head, done) in in_loops.iter().rev() {
        b.ins(format!("add.s64 {kk}, {kk}, 1"));
        b.ins(format!("bra {head}"));
        b.put_label(done);
    }
    b.comment("every thread is done with the k-tiles before they are overwritten");
    b.ins("bar.sync 0");
    for (x, k0, head, done) in tile_loops.iter().rev() {
        b.ins(format!("add.s64 {k0}, {k0}, {}", ktile(x)));
        b.ins(format!("bra {head}"));
        b.put_label(done);
    }
    b.comment("the sums of the points inside the extents");
    for (p, acc) in pts.iter().zip(&sums) {
        let skip = b.label("store");
        b.ins(format!("@!{} bra {skip}", p.inside));
        b.store(target, &p.at, acc);
        b.put_label(&skip);
    }
    b.ins("ret");
    Ok(())
}

/// One `k` of the contraction: each distinct operand loaded once, then every sum updated.
fn sum_step(
    b: &mut Builder<'_>,
    s: &Stmt,
    (pts, sums): (&[Point], &[String]),
    kpoint: &HashMap<IndexId, String>,
    inside_of: &HashMap<String, String>,
    mut loaded: HashMap<(usize, Vec<String>), String>,
) {
    let k = b.k;
    let telem = k.tensors[s.target.tensor.index()].elem;
    let ty = suffix(telem);
    let value = &s.nodes[s.value.index()];
    let product = match value.op {
        Op::Binary(BinOp::Mul, x, y) if telem.is_float() => Some((x, y)),
        _ => None,
    };
    // An integer division traps on a zero divisor: a point outside the extents must not
    // compute.
    let guarded = s
        .nodes
        .iter()
        .any(|n| matches!(n.op, Op::Binary(BinOp::Div, ..)) && !n.ty.is_float());
    for (p, acc) in pts.iter().zip(sums) {
        let mut at = p.at.clone();
        at.extend(kpoint.iter().map(|(x, r)| (*x, r.clone())));
        b.overrides.clear();
        for (n, node) in s.nodes.iter().enumerate() {
            let Op::Load(a) = &node.op else { continue };
            let key = (
                a.tensor.index(),
                a.indices.iter().map(|x| at[x].clone()).collect::<Vec<_>>(),
            );
            if !loaded.contains_key(&key) {
                let v = operand(b, a, &at, inside_of);
                loaded.insert(key.clone(), v);
            }
            b.overrides.insert(n, loaded[&key].clone());
        }
        let skip = b.label("sum");
        if guarded {
            b.ins(format!("@!{} bra {skip}", p.inside));
        }
        match product {
            Some((x, y)) => {
                let vals = b.values(s, &at, s.value.index());
                let (x, y) = (&vals[x.index()], &vals[y.index()]);
                b.ins(format!("fma.rn.{ty} {acc}, {x}, {y}, {acc}"));
            }
            None => {
                let v = b.eval(s, &at);
                let rn = if telem.is_float() { ".rn" } else { "" };
                b.ins(format!("add{rn}.{ty} {acc}, {acc}, {v}"));
            }
        }
        if guarded {
            b.put_label(&skip);
        }
    }
    b.overrides.clear();
}

/// The value of operand `a` at `at`: a staged tile's is read unconditionally (zero-filled past
/// the extents), global memory only inside the extents (zero outside).
fn operand(
    b: &mut Builder<'_>,
    a: &Access,
    at: &HashMap<IndexId, String>,
    inside_of: &HashMap<String, String>,
) -> String {
    let staged = b.stages.iter().any(|sc| sc.tensor == a.tensor.index());
    let guards: Vec<String> = a
        .indices
        .iter()
        .filter_map(|x| inside_of.get(&at[x]).cloned())
        .collect();
    if staged || guards.is_empty() {
        return b.load(a, at);
    }
    let elem = b.k.tensors[a.tensor.index()].elem;
    let (c, ty) = (class(elem), suffix(elem));
    let v = b.reg(c);
    b.ins(format!("mov.{ty} {v}, {}", zero(c)));
    let q = b.reg(Class::P);
    b.ins(format!("mov.pred {q}, {}", guards[0]));
    for g in &guards[1..] {
        b.ins(format!("and.pred {q}, {q}, {g}"));
    }
    let skip = b.label("operand");
    b.ins(format!("@!{q} bra {skip}"));
    let x = b.load(a, at);
    b.ins(format!("mov.{ty} {v}, {x}"));
    b.put_label(&skip);
    v
}
