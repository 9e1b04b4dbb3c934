//! The two special phases of an entry's code: the staging copy of a `stage` (into shared
//! memory, before the barrier) and the groups of a `vector W` statement (`.vW` accesses).

use super::builder::{Builder, Class, class, suffix};
use super::stage::StageCode;
use super::vector::VectorPlan;
use crate::kernel::{Access, ElemType, IndexId, Op, Stmt};
use std::collections::HashMap;

/// The staging copy of stage `n`: the tile's points in colexicographic order over the tensor's
/// dimensions, thread `tid` taking `tid, tid + ntid, ...`, each loaded from global memory
/// (bits) and stored at the layout's offset in the shared buffer. Points past the extents are
/// skipped, or, with `zero_fill`, stored as zero bits (a staged contraction's loads then read
/// every point of the tile unconditionally).
pub(super) fn stage_copy(
    b: &mut Builder<'_>,
    n: usize,
    sc: &StageCode,
    start: &HashMap<IndexId, String>,
    (tid, ntid): (&str, &str),
    zero_fill: bool,
) {
    let k = b.k;
    let t = sc.tensor;
    let elem = k.tensors[t].elem;
    let points: i64 = sc.tile.iter().product();
    b.comment(&format!(
        "stage {}: {points} elements into {} (thread tid takes tid, tid + ntid, ...)",
        k.tensors[t].name, sc.buffer
    ));
    let p = b.reg(Class::Rd);
    let (head, next, done) = (b.label("stage"), b.label("snext"), b.label("sdone"));
    b.ins(format!("mov.s64 {p}, {tid}"));
    b.put_label(&head);
    let stop = b.reg(Class::P);
    b.ins(format!("setp.ge.s64 {stop}, {p}, {points}"));
    b.ins(format!("@{stop} bra {done}"));
    let r = b.reg(Class::Rd);
    b.ins(format!("mov.s64 {r}, {p}"));
    let inside = b.reg(Class::P);
    b.ins(format!("setp.ge.s64 {inside}, {p}, 0"));
    let mut point: HashMap<IndexId, String> = HashMap::new();
    let ids: Vec<IndexId> = sc.dims.iter().map(|d| IndexId::new(*d)).collect();
    for (d, x) in ids.iter().enumerate() {
        let c = b.reg(Class::Rd);
        b.ins(format!("rem.u64 {c}, {r}, {}", sc.tile[d]));
        b.ins(format!("div.u64 {r}, {r}, {}", sc.tile[d]));
        b.ins(format!("add.s64 {c}, {c}, {}", start[x]));
        let q = b.reg(Class::P);
        let e = b.extents[x.index()].clone();
        b.ins(format!("setp.lt.s64 {q}, {c}, {e}"));
        b.ins(format!("and.pred {inside}, {inside}, {q}"));
        point.insert(*x, c);
    }
    if !zero_fill {
        b.ins(format!("@!{inside} bra {next}"));
    }
    let access = Access {
        tensor: crate::kernel::TensorId::new(t),
        indices: ids,
    };
    let (bits, c) = match elem.bytes() {
        2 => ("b16", Class::H),
        4 => ("b32", Class::R),
        _ => ("b64", Class::Rd),
    };
    let from = b.address(&access, &point);
    let v = b.reg(c);
    if zero_fill {
        b.ins(format!("mov.{bits} {v}, 0"));
        b.ins(format!("@{inside} ld.global.{bits} {v}, [{from}]"));
    } else {
        b.ins(format!("ld.global.{bits} {v}, [{from}]"));
    }
    let to = b.shared_address(n, &access, &point);
    b.ins(format!("st.shared.{bits} [{to}], {v}"));
    b.put_label(&next);
    b.ins(format!("add.s64 {p}, {p}, {ntid}"));
    b.ins(format!("bra {head}"));
    b.put_label(&done);
}

/// The PTX type of `n`-byte bits.
fn bits(n: usize) -> (&'static str, Class) {
    match n {
        2 => ("b16", Class::H),
        4 => ("b32", Class::R),
        _ => ("b64", Class::Rd),
    }
}

/// One group of `W` consecutive points along the vectorised index: every access along it one
/// `.vW` load or store (proved contiguous and aligned by the plan), the others per lane.
pub(super) fn vector_body(
    b: &mut Builder<'_>,
    s: &Stmt,
    copy: Option<&Access>,
    v: &VectorPlan,
    point: &HashMap<IndexId, String>,
) {
    let k = b.k;
    let w = v.width;
    let lanes: Vec<HashMap<IndexId, String>> = (0..w)
        .map(|l| {
            let mut p = point.clone();
            let x = b.reg(Class::Rd);
            b.ins(format!("add.s64 {x}, {}, {l}", point[&v.x]));
            p.insert(v.x, x);
            p
        })
        .collect();
    let along = |a: &Access| a.indices.contains(&v.x);
    let list = |r: &[String]| format!("{{{}}}", r.join(", "));
    let target = &s.target;
    let telem = k.tensors[target.tensor.index()].elem;
    let staged = |b: &Builder<'_>, a: &Access| b.stages.iter().position(|sc| sc.tensor == a.tensor.index());
    if let Some(src) = copy.filter(|a| along(a)) {
        // A copy moves bits, W elements at a time (a staged source read lane by lane from its
        // shared copy).
        let (ty, c) = bits(telem.bytes());
        let regs: Vec<String> = (0..w).map(|_| b.reg(c)).collect();
        match staged(b, src) {
            Some(n) => {
                for (l, r) in regs.iter().enumerate() {
                    let from = b.shared_address(n, src, &lanes[l]);
                    b.ins(format!("ld.shared.{ty} {r}, [{from}]"));
                }
            }
            None => {
                let from = b.address(src, point);
                b.ins(format!("ld.global.v{w}.{ty} {}, [{from}]", list(&regs)));
            }
        }
        let to = b.address(target, point);
        b.ins(format!("st.global.v{w}.{ty} [{to}], {}", list(&regs)));
        return;
    }
    // Vector loads, widened lane by lane.
    b.overrides.clear();
    let mut lane_values: Vec<HashMap<usize, String>> = vec![HashMap::new(); w as usize];
    for (n, node) in s.nodes.iter().enumerate() {
        let Op::Load(a) = &node.op else { continue };
        if !along(a) {
            continue;
        }
        let elem = k.tensors[a.tensor.index()].elem;
        if staged(b, a).is_some() {
            // From the shared copy, lane by lane.
            for (l, lane) in lanes.iter().enumerate() {
                let v = b.load(a, lane);
                lane_values[l].insert(n, v);
            }
            continue;
        }
        let addr = b.address(a, point);
        match elem {
            ElemType::F16 | ElemType::BF16 => {
                let hs: Vec<String> = (0..w).map(|_| b.reg(Class::H)).collect();
                b.ins(format!("ld.global.v{w}.b16 {}, [{addr}]", list(&hs)));
                for (l, h) in hs.iter().enumerate() {
                    let f = b.reg(Class::F);
                    b.widen(elem, h, &f);
                    lane_values[l].insert(n, f);
                }
            }
            t => {
                let rs: Vec<String> = (0..w).map(|_| b.reg(class(t))).collect();
                b.ins(format!("ld.global.v{w}.{} {}, [{addr}]", suffix(t), list(&rs)));
                for (l, r) in rs.into_iter().enumerate() {
                    lane_values[l].insert(n, r);
                }
            }
        }
    }
    let mut outs = Vec::with_capacity(w as usize);
    for (l, p) in lanes.iter().enumerate() {
        b.overrides = lane_values[l].clone();
        let v = b.eval(s, p);
        outs.push(v);
    }
    b.overrides.clear();
    let to = b.address(target, point);
    // Computed values: a NaN stored as the canonical NaN, f16/bf16 rounded to their bits.
    let outs: Vec<String> = outs.iter().map(|v| b.canonical(telem, v)).collect();
    b.ins(format!(
        "st.global.v{w}.{} [{to}], {}",
        super::builder::store_suffix(telem),
        list(&outs)
    ));
}
