//! The body of one `.entry`: the tile of the CTA, the points of the tile per thread, the
//! predicate of partial tiles, the accesses through the offset functions, and the statement's
//! values (see the module documentation for the mapping and the semantics).

use super::OffsetFunc;
use super::builder::{Builder, Class, suffix};
use super::contraction::staged_contraction;
use super::phases::{stage_copy, vector_body};
use super::stage::StageCode;
use super::vector::VectorPlan;
use crate::EmitError;
use crate::kernel::{Access, IndexId, Kernel, Op, Stmt, StoreKind};
use std::collections::HashMap;
use std::fmt::Write;

/// The `.entry` of statement `s` named `name`.
pub(super) fn entry(
    k: &Kernel,
    s: &Stmt,
    name: &str,
    params: &[(String, String)],
    funcs: &[OffsetFunc],
    tiles: &[(IndexId, i64)],
    (stages, vector): (&[StageCode], Option<&VectorPlan>),
) -> Result<String, EmitError> {
    let mut b = Builder {
        k,
        funcs,
        out: String::new(),
        counts: HashMap::new(),
        labels: 0,
        calls: 0,
        bases: Vec::new(),
        params: HashMap::new(),
        extents: Vec::new(),
        stages,
        overrides: HashMap::new(),
        starts: HashMap::new(),
    };
    let decl: Vec<String> = params
        .iter()
        .map(|(kind, n)| {
            let ty = if kind == "t" { ".u64" } else { ".s64" };
            format!(".param {ty} {kind}_{}", crate::sanitize(n))
        })
        .collect();
    for (kind, n) in params {
        let p = format!("{kind}_{}", crate::sanitize(n));
        let r = b.reg(Class::Rd);
        match kind.as_str() {
            "t" => {
                b.ins(format!("ld.param.u64 {r}, [{p}]"));
                b.ins(format!("cvta.to.global.u64 {r}, {r}"));
                b.bases.push(r);
            }
            "p" => {
                b.ins(format!("ld.param.s64 {r}, [{p}]"));
                b.params.insert(n.clone(), r);
            }
            _ => {
                b.ins(format!("ld.param.s64 {r}, [{p}]"));
                b.extents.push(r);
            }
        }
    }
    let sreg = |b: &mut Builder<'_>, special: &str| {
        let r32 = b.reg(Class::R);
        b.ins(format!("mov.u32 {r32}, %{special}"));
        let r = b.reg(Class::Rd);
        b.ins(format!("cvt.u64.u32 {r}, {r32}"));
        r
    };
    let (cta, tid, ntid) = (
        sreg(&mut b, "ctaid.x"),
        sreg(&mut b, "tid.x"),
        sreg(&mut b, "ntid.x"),
    );
    // The CTA's tile: its coordinates, row-major over the outer indices, and its first point.
    // Tile and point coordinates are never negative: their divisions are unsigned.
    b.comment("the CTA's tile (row-major over the outer indices)");
    let mut start: HashMap<IndexId, String> = HashMap::new();
    let rem = b.reg(Class::Rd);
    b.ins(format!("mov.s64 {rem}, {cta}"));
    for (x, t) in tiles.iter().rev() {
        let n = b.extents[x.index()].clone();
        let count = b.reg(Class::Rd);
        b.ins(format!("add.s64 {count}, {n}, {}", t - 1));
        b.ins(format!("div.u64 {count}, {count}, {t}"));
        let c = b.reg(Class::Rd);
        b.ins(format!("rem.u64 {c}, {rem}, {count}"));
        b.ins(format!("div.u64 {rem}, {rem}, {count}"));
        b.ins(format!("mul.lo.s64 {c}, {c}, {t}"));
        start.insert(*x, c);
    }
    b.starts = start.clone();
    // A stage along a contraction index is copied per k-tile, inside the staged contraction.
    let summed = stages.iter().any(|sc| {
        sc.dims
            .iter()
            .any(|d| s.contraction.iter().any(|x| x.index() == *d))
    });
    if !summed {
        for (n, sc) in stages.iter().enumerate() {
            stage_copy(&mut b, n, sc, &start, (&tid, &ntid), false);
        }
        if !stages.is_empty() {
            b.comment("every thread has stored its part of the staged tiles");
            b.ins("bar.sync 0");
        }
    }
    // The thread's points: with a `threads` clause, CuTe's local_partition (thread coordinate
    // `t_x` in the listed order, the first fastest; points `t_x + T_x * v`); otherwise points
    // `tid, tid + ntid, ...` of the tile in row-major order.
    let counts: HashMap<IndexId, i64> = k.threads.iter().map(|t| (t.index, t.size)).collect();
    let mut tcoord: HashMap<IndexId, String> = HashMap::new();
    if !k.threads.is_empty() {
        let r = b.reg(Class::Rd);
        b.ins(format!("mov.s64 {r}, {tid}"));
        for t in &k.threads {
            let c = b.reg(Class::Rd);
            b.ins(format!("rem.u64 {c}, {r}, {}", t.size));
            b.ins(format!("div.u64 {r}, {r}, {}", t.size));
            tcoord.insert(t.index, c);
        }
    }
    if summed {
        staged_contraction(&mut b, s, tiles, &tcoord, (&tid, &ntid))?;
        return Ok(finish(&b, k, s, name, &decl, tiles, stages));
    }
    let count = |x: &IndexId| counts.get(x).copied().unwrap_or(1);
    let mapped = !k.threads.is_empty();
    // With `vector W`, a thread takes groups of W consecutive points along the innermost
    // index (a multiple of W, times its threads, in every tile): p counts groups. Mapped, the
    // groups are local_partitioned: thread t_x takes the groups t_x + T_x * v.
    let w = vector.map_or(1, |v| v.width);
    let grouped = |x: &IndexId| vector.is_some_and(|v| v.x == *x);
    let values: Vec<(IndexId, i64)> = tiles
        .iter()
        .map(|(x, t)| {
            let v = if mapped { t / count(x) } else { *t };
            (*x, if mapped && grouped(x) { v / w } else { v })
        })
        .collect();
    let points: i64 = values.iter().map(|(_, v)| *v).product();
    let points = if mapped { points } else { points / w };
    let p = b.reg(Class::Rd);
    let (head, next, done) = (b.label("point"), b.label("next"), b.label("done"));
    if mapped {
        b.comment(&if w > 1 {
            format!("local_partition: each thread takes {points} groups of {w} points of the tile")
        } else {
            format!("local_partition: each thread takes {points} points of the tile")
        });
        b.ins(format!("mov.s64 {p}, 0"));
    } else {
        b.comment(&format!(
            "thread tid takes points tid, tid + ntid, ... of the tile's {points}"
        ));
        b.ins(format!("mov.s64 {p}, {tid}"));
    }
    b.put_label(&head);
    let stop = b.reg(Class::P);
    b.ins(format!("setp.ge.s64 {stop}, {p}, {points}"));
    b.ins(format!("@{stop} bra {done}"));
    let mut point: HashMap<IndexId, String> = HashMap::new();
    let r2 = b.reg(Class::Rd);
    b.ins(format!("mul.lo.s64 {r2}, {p}, {}", if mapped { 1 } else { w }));
    let inside = b.reg(Class::P);
    b.ins(format!("setp.ge.s64 {inside}, {p}, 0"));
    b.only_first_along_unused(&inside, tiles, &tcoord);
    for (x, t) in values.iter().rev() {
        let c = b.reg(Class::Rd);
        b.ins(format!("rem.u64 {c}, {r2}, {t}"));
        b.ins(format!("div.u64 {r2}, {r2}, {t}"));
        if let Some(tc) = tcoord.get(x) {
            // local = t_x + T_x * v (times W for the groups of `vector W`)
            b.ins(format!("mad.lo.s64 {c}, {c}, {}, {tc}", count(x)));
            if grouped(x) {
                b.ins(format!("mul.lo.s64 {c}, {c}, {w}"));
            }
        } else if mapped && grouped(x) {
            b.ins(format!("mul.lo.s64 {c}, {c}, {w}"));
        }
        b.ins(format!("add.s64 {c}, {c}, {}", start[x]));
        let q = b.reg(Class::P);
        let n = b.extents[x.index()].clone();
        b.ins(format!("setp.lt.s64 {q}, {c}, {n}"));
        b.ins(format!("and.pred {inside}, {inside}, {q}"));
        point.insert(*x, c);
    }
    b.comment("partial tiles: points outside the extents do nothing");
    b.ins(format!("@!{inside} bra {next}"));
    let target = &s.target;
    let copy = match (&s.nodes[s.value.index()].op, s.kind) {
        (Op::Load(a), StoreKind::Assign)
            if k.tensors[a.tensor.index()].elem == k.tensors[target.tensor.index()].elem =>
        {
            Some(a)
        }
        _ => None,
    };
    match (s.kind, copy, vector) {
        (_, _, Some(v)) => vector_body(&mut b, s, copy, v, &point),
        (StoreKind::Assign, Some(src), None) => {
            // A copy moves bits.
            let elem = k.tensors[target.tensor.index()].elem;
            let (bits, c) = match elem.bytes() {
                2 => ("b16", Class::H),
                4 => ("b32", Class::R),
                _ => ("b64", Class::Rd),
            };
            let v = b.reg(c);
            match stages.iter().position(|sc| sc.tensor == src.tensor.index()) {
                // A staged source is read from its shared copy.
                Some(n) => {
                    let from = b.shared_address(n, src, &point);
                    b.ins(format!("ld.shared.{bits} {v}, [{from}]"));
                }
                None => {
                    let from = b.address(src, &point);
                    b.ins(format!("ld.global.{bits} {v}, [{from}]"));
                }
            }
            let to = b.address(target, &point);
            b.ins(format!("st.global.{bits} [{to}], {v}"));
        }
        (StoreKind::Assign, None, None) => {
            let v = b.eval(s, &point);
            b.store(target, &point, &v);
        }
        (StoreKind::Accumulate, _, None) => {
            let elem = k.tensors[target.tensor.index()].elem;
            let acc = b.load(target, &point);
            // The operands that do not move with the contraction, hoisted out of its loops.
            b.overrides.clear();
            for (n, node) in s.nodes.iter().enumerate() {
                if let Op::Load(a) = &node.op
                    && !a.indices.iter().any(|x| s.contraction.contains(x))
                {
                    let v = b.load(a, &point);
                    b.overrides.insert(n, v);
                }
            }
            let mut pt = point.clone();
            let t = suffix(elem);
            let float = elem.is_float();
            b.contraction(&s.contraction, &mut pt, &mut |b, p| {
                let v = b.eval(s, p);
                if float {
                    b.ins(format!("add.rn.{t} {acc}, {acc}, {v}"));
                } else {
                    b.ins(format!("add.{t} {acc}, {acc}, {v}"));
                }
            });
            b.overrides.clear();
            b.store(target, &point, &acc);
        }
    }
    b.put_label(&next);
    if mapped {
        b.ins(format!("add.s64 {p}, {p}, 1"));
    } else {
        b.ins(format!("add.s64 {p}, {p}, {ntid}"));
    }
    b.ins(format!("bra {head}"));
    b.put_label(&done);
    b.ins("ret");
    Ok(finish(&b, k, s, name, &decl, tiles, stages))
}

/// The entry's text: its signature, shared buffers and registers around the body `b` built.
fn finish(
    b: &Builder<'_>,
    k: &Kernel,
    s: &Stmt,
    name: &str,
    decl: &[String],
    tiles: &[(IndexId, i64)],
    stages: &[StageCode],
) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "// Statement: {} (tiles: {})", describe(k, s), {
        let v: Vec<String> = tiles
            .iter()
            .map(|(x, t)| format!("{}:{t}", k.indices[x.index()].name))
            .collect();
        v.join(", ")
    });
    let _ = writeln!(text, ".visible .entry {name}(\n\t{}\n)\n{{", decl.join(",\n\t"));
    for sc in stages {
        let bytes = sc.elems * k.tensors[sc.tensor].elem.bytes() as i64;
        let _ = writeln!(text, "\t.shared .align 16 .b8 {}[{bytes}];", sc.buffer);
    }
    let mut classes = [Class::R, Class::Rd, Class::F, Class::Fd, Class::H, Class::P];
    classes.sort_by_key(|c| c.prefix());
    for c in classes {
        if let Some(n) = b.counts.get(&c) {
            let _ = writeln!(text, "\t.reg {} %{}<{n}>;", c.decl(), c.prefix());
        }
    }
    text.push_str(&b.out);
    text.push_str("}\n");
    text
}

/// A statement as text, for the comment above its entry.
fn describe(k: &Kernel, s: &Stmt) -> String {
    let access = |a: &Access| {
        let idx: Vec<&str> = a
            .indices
            .iter()
            .map(|x| k.indices[x.index()].name.as_str())
            .collect();
        format!("{}[{}]", k.tensors[a.tensor.index()].name, idx.join(","))
    };
    let reads: Vec<String> = s
        .nodes
        .iter()
        .filter_map(|n| match &n.op {
            Op::Load(a) => Some(access(a)),
            _ => None,
        })
        .collect();
    let op = if s.kind == StoreKind::Assign { "=" } else { "+=" };
    format!("{} {op} f({})", access(&s.target), reads.join(", "))
}
