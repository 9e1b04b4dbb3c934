//! `vector W`: which accesses of a statement move `W` consecutive elements with one `.vW`
//! instruction, granted only where proved for every parameter value the facts admit.
//!
//! The statement must be an `=`; its innermost (last outer) index `x` must have a tile that is
//! a multiple of `W` times the threads along `x` (with a `threads` clause, thread `t_x` takes
//! the groups of `W` elements `t_x + T_x * v`), and an extent that is a multiple of `W` (from
//! the facts' congruences); `W` elements of
//! each tensor moved must fit 16 bytes. Each access that reads or writes along `x` must be:
//! * **contiguous** along `x`: `e(x + 1) == e(x) + 1` on the domain;
//! * **aligned**: `e % W == x % W` on the domain, so that the first element of every group
//!   sits at a multiple of `W` elements (the buffers themselves being 16-byte aligned, as
//!   `cudaMalloc`'s are: an assumption of the launch).
//!
//! Both follow by structure where the layout is plain or offset, the index's mode one leaf of
//! stride 1 and `W` divides the offset and every other stride (decided from the facts'
//! divisors, before any solver); otherwise they are equivalences of index expressions, proved
//! by the verifier (enumeration or z3) over the symbolic domain, within the build's
//! `--timeout`. An access that does not use `x` is loaded once per lane (a broadcast),
//! and so is a staged tensor, from its shared copy (its staging copy stays scalar).
//! A refusal names the fact that failed.

use super::OffsetFunc;
use crate::EmitError;
use crate::kernel::{Access, IndexId, Kernel, Op, Stmt, StoreKind};
use std::collections::HashMap;
use std::sync::Arc;
use tessera_ir::Int;
use tessera_ir::index::{Builder, IndexExpr, Var};
use tessera_ir::sym::{Facts, Interval};
use tessera_verifier::{Options, Verdict, prove_equivalent};

/// The vectorisation of a statement.
pub(crate) struct VectorPlan {
    /// The width.
    pub width: i64,
    /// The vectorised index (the statement's last outer index).
    pub x: IndexId,
}

/// `e`'s output reduced modulo `w` (or `Coord(d) % w` when `coord` is given).
fn modulo(e: &IndexExpr, w: i64, coord: Option<u32>) -> IndexExpr {
    let mut b = Builder::new();
    let out = match coord {
        Some(d) => b.var(Var::Coord(d)),
        None => e.rebuild(&mut b, |b, v| b.var(v.clone()))[0].1,
    };
    let k = b.konst(w);
    let r = b.rem(out, k);
    b.finish(vec![("offset".into(), r)])
}

/// Whether tensor `t`, indexed in dimension `dim` by the vectorised index, is contiguous and
/// aligned along it by structure, before any solver: its layout is plain or offset (no
/// swizzle), the mode of `dim` is one leaf of stride 1 (leaves of extent 1 aside), and `w`
/// divides the offset and every other stride (decided on the symbolic values under the facts,
/// whose congruences the algebra tracks as divisors: `N % 4 == 0` makes `4 | N`). Then the
/// offset is `x + w * (..)`, so `offset % w == x % w` and `offset(x + 1) == offset(x) + 1`.
fn by_structure(t: &crate::kernel::Tensor, dim: usize, w: i64) -> bool {
    use tessera_ir::sym::SymInt;
    use tessera_verifier::Func;
    let (l, o) = match &t.layout {
        Func::Layout(l) => (l, SymInt::zero()),
        Func::Composed(c) if c.swizzle.is_none() => (&c.inner, c.offset.clone()),
        Func::Composed(_) => return false,
    };
    let wd = SymInt::lit(w);
    let divisible = |x: &SymInt| wd.divides(x) == Ok(true);
    if !divisible(&o) {
        return false;
    }
    for (m, mode) in l.modes().iter().enumerate() {
        let leaves: Vec<(&SymInt, &tessera_ir::Stride<SymInt>)> = mode
            .shape()
            .leaves()
            .iter()
            .zip(mode.stride().leaves())
            .filter(|(s, _)| !s.is(1))
            .collect();
        for (_, d) in &leaves {
            let Some(d) = d.as_int() else { return false };
            if m == dim {
                if leaves.len() != 1 || !d.is(1) {
                    return false;
                }
            } else if !divisible(d) {
                return false;
            }
        }
    }
    true
}

/// The plan of statement `s` of `k` under `vector W`, or the refusal naming the failed fact;
/// the solver's proofs (after the structural one) each end by `timeout_ms`.
pub(crate) fn plan(
    k: &Kernel,
    s: &Stmt,
    funcs: &[OffsetFunc],
    facts: &Arc<Facts>,
    (w, timeout_ms): (i64, Option<u64>),
) -> Result<VectorPlan, EmitError> {
    let no = |m: String| EmitError::Unsupported(format!("vector {w}: {m}"));
    if s.kind != StoreKind::Assign {
        return Err(no("a '+=' statement is not vectorised yet".into()));
    }
    if !k.stages.is_empty() && k.threads.is_empty() {
        return Err(no("a stage needs a threads clause to be vectorised".into()));
    }
    let x = *s.outer.last().ok_or_else(|| no("no outer index".into()))?;
    let name = &k.indices[x.index()].name;
    let tile = super::tile_sizes(k, s).last().map_or(1, |t| t.1);
    let threads = k.threads.iter().find(|t| t.index == x).map_or(1, |t| t.size);
    if tile % (w * threads) != 0 {
        return Err(no(if threads > 1 {
            format!("the tile {name}:{tile} is not a multiple of {w} times its {threads} threads")
        } else {
            format!("the tile {name}:{tile} is not a multiple of {w}")
        }));
    }
    let ext = &k.indices[x.index()].extent;
    let multiple = match ext.as_const() {
        Some(c) => c % w == 0,
        None => {
            let p = ext.to_string();
            facts.get(&p).is_some_and(|f| f.divisor() % w == 0)
        }
    };
    if !multiple {
        return Err(no(match ext.as_const() {
            Some(c) => format!("the extent {c} of {name} is not a multiple of {w}"),
            None => format!(
                "the extent {ext} of {name} is not proved a multiple of {w} (add a fact {ext} % {w} == 0)"
            ),
        }));
    }
    let opts = Options { timeout_ms };
    let mut accesses: Vec<&Access> = vec![&s.target];
    accesses.extend(s.nodes.iter().filter_map(|n| match &n.op {
        Op::Load(a) => Some(a),
        _ => None,
    }));
    for a in accesses {
        // A staged tensor is read lane by lane from its shared copy: nothing to prove of its
        // global layout here (its staging copy is scalar).
        if k.stages.iter().any(|st| st.tensor == a.tensor) {
            continue;
        }
        let t = &k.tensors[a.tensor.index()];
        if t.elem.bytes() as i64 * w > 16 {
            return Err(no(format!(
                "{w} elements of {} ({}) exceed 16 bytes",
                t.name,
                t.elem.name()
            )));
        }
        let dims: Vec<usize> = (0..a.indices.len()).filter(|d| a.indices[*d] == x).collect();
        let d = match dims.as_slice() {
            [] if a.tensor != s.target.tensor => continue,
            [d] => *d as u32,
            _ => {
                return Err(no(format!(
                    "{} is not indexed by {name} in exactly one dimension",
                    t.name
                )));
            }
        };
        if by_structure(t, d as usize, w) {
            continue;
        }
        let f = &funcs[a.tensor.index()];
        let mut ranges: HashMap<Var, Interval> = f.ranges.clone();
        let v = Var::Coord(d);
        let full = ranges.get(&v).copied().unwrap_or(Interval::UNBOUNDED);
        ranges.insert(v.clone(), Interval::new(full.lo(), full.hi().map(|h| h - 1)));
        let next = f.expr.shifted(&v, 1, -1);
        if prove_equivalent(&next, &f.expr, &ranges, facts, &opts) != Verdict::Proved {
            return Err(no(format!(
                "{} is not proved contiguous along {name} ({} at {name} + 1 is not {} + 1)",
                t.name, t.layout, t.layout
            )));
        }
        let (lhs, rhs) = (modulo(&f.expr, w, None), modulo(&f.expr, w, Some(d)));
        if prove_equivalent(&lhs, &rhs, &f.ranges, facts, &opts) != Verdict::Proved {
            return Err(no(format!(
                "{} is not proved aligned: its offset % {w} is not {name} % {w} everywhere",
                t.name
            )));
        }
    }
    Ok(VectorPlan { width: w, x })
}
