//! Shared-memory staging (`stage X in L`) and the CTA's thread mapping (`threads`): the
//! shared buffer of each staged tensor, the `.func` of its layout, the thread-value layouts of
//! the two phases (the staging copy and the compute), and their bank-conflict degrees,
//! computed by the verifier's exact bank analysis.
//!
//! **The staging copy** gives the tile's points, in colexicographic order over the staged
//! tensor's dimensions (its first dimension fastest), to the threads round-robin: thread `t`
//! takes points `t, t + ntid, ...`, so consecutive threads read consecutive elements along the
//! tensor's first dimension (coalesced when that is its contiguous one). Each stores its
//! element at `L(p)` in the shared buffer. Then `bar.sync 0`.
//!
//! **The compute phase** reads the staged tensor at `L(colex(local coordinates))`. With a
//! `threads x:Tx, y:Ty` clause, thread `t = tx + Tx * (ty + Ty * ..)` (the first listed
//! fastest) takes the tile points `(tx + Tx * a, ty + Ty * b, ..)`: CuTe's `local_partition`.
//!
//! **Bank degrees.** Both phases are thread-value layouts over the tile's colexicographic
//! index: staging `(n, P/n):(1, n)` for `n` threads and `P` points; compute, per listed index,
//! a thread mode of its thread count with the index's colexicographic stride (0 for an index the
//! tensor does not have), and a value mode per dimension. The verifier's `analyze` gives the
//! degree of each warp-wide access of `elem` bytes through `L`.

use crate::EmitError;
use crate::kernel::{Kernel, Stage, Tile};
use std::collections::HashMap;
use std::sync::Arc;
use tessera_ir::index::{Var, lower_composed, lower_index};
use tessera_ir::simplify::{Domain, Limits};
use tessera_ir::sym::{Facts, Interval};
use tessera_verifier::{Bank, Concrete, Func, analyze, simplify_validated};

/// The static shared memory one entry may declare (48 KiB: `ptxas` refuses more, "uses too
/// much shared data (0x10000 bytes, 0xc000 max)"; the larger carve-outs of sm_80 and sm_90
/// need dynamic shared memory, not built). A larger stage is refused before its layout is
/// evaluated, and the stages of a kernel together must fit.
pub const MAX_SHARED_BYTES: i64 = 48 * 1024;

/// What the build reports of one staged tensor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageReport {
    /// The staged tensor.
    pub tensor: String,
    /// The shared-memory layout.
    pub layout: String,
    /// Bytes of shared memory.
    pub bytes: i64,
    /// The degree of the staging copy's stores (`None` when not analysed: the tile's points
    /// are not a multiple of the threads).
    pub store_degree: Option<i64>,
    /// The degree of the compute phase's loads (`None` without a `threads` clause).
    pub load_degree: Option<i64>,
}

/// A staged tensor's code: its shared buffer, the `.func` of its layout, and the report.
pub(crate) struct StageCode {
    /// The tensor's position in the kernel.
    pub tensor: usize,
    /// The shared buffer's name.
    pub buffer: String,
    /// The layout's function (argument: the tile's colexicographic index).
    pub func: String,
    /// The indices the tensor is read at (one per dimension).
    pub dims: Vec<usize>,
    /// The tile's extent along each of the tensor's dimensions.
    pub tile: Vec<i64>,
    /// Elements of the shared buffer (the layout's largest offset on the tile, plus one).
    pub elems: i64,
}

impl StageCode {
    /// The `stage` line of `k` this is the code of.
    fn stage<'k>(&self, k: &'k Kernel) -> &'k Stage {
        k.stages
            .iter()
            .find(|s| s.tensor.index() == self.tensor)
            .expect("the stage of the code")
    }
}

/// The bank-conflict questions of stage `sc` of `k` in an entry of `block` threads: the
/// staging copy's stores and the compute phase's loads (`None` where not posed).
fn phase_banks(k: &Kernel, sc: &StageCode, block: i64) -> [(&'static str, Option<Bank>); 2] {
    let st = sc.stage(k);
    let tensor = &k.tensors[sc.tensor];
    let facts = Arc::new(Facts::default());
    let bank = |tv: Option<String>| -> Option<Bank> {
        Some(Bank {
            smem: st.layout.clone(),
            tv: Func::parse(&tv?, &facts).ok()?,
            elem: tensor.elem.bytes() as i64,
            access: tensor.elem.bytes() as i64,
        })
    };
    // With `vector W`, the compute phase's threads take groups of W along the innermost index.
    let group = k
        .vector
        .and_then(|w| Some((k.stmts.first()?.outer.last()?.index(), w)));
    let (staging, compute) = tv_layouts(&sc.dims, &sc.tile, &k.threads, block, group);
    [
        ("staging stores", bank(staging)),
        ("compute loads", bank(compute)),
    ]
}

/// The report of stage `sc` of `k` in an entry of `block` threads.
pub(crate) fn report(k: &Kernel, sc: &StageCode, block: i64) -> StageReport {
    let st = sc.stage(k);
    let tensor = &k.tensors[sc.tensor];
    let [(_, store), (_, load)] = phase_banks(k, sc, block);
    let degree = |b: Option<Bank>| analyze(&b?).ok().map(|a| a.degree);
    StageReport {
        tensor: tensor.name.clone(),
        layout: st.layout.to_string(),
        bytes: sc.elems * tensor.elem.bytes() as i64,
        store_degree: degree(store),
        load_degree: degree(load),
    }
}

/// Tile sizes by index.
fn tile_of(k: &Kernel) -> HashMap<usize, i64> {
    k.tiles.iter().map(|t| (t.index.index(), t.size)).collect()
}

/// The thread-value layouts of a stage (staging, compute) as text, over the tile's
/// colexicographic index. `group` is `vector W`'s index and width: along it, a thread takes
/// groups of W consecutive points (thread mode stride W times the index's, value modes
/// `(W, tile / (threads * W))`).
fn tv_layouts(
    dims: &[usize],
    tile: &[i64],
    threads: &[Tile],
    block: i64,
    group: Option<(usize, i64)>,
) -> (Option<String>, Option<String>) {
    let w_of = |ix: usize| group.filter(|g| g.0 == ix).map_or(1, |g| g.1);
    let points: i64 = tile.iter().product();
    let n = block.max(1);
    let staging = (points % n == 0).then(|| format!("({n},{}):(1,{n})", points / n));
    if threads.is_empty() {
        return (staging, None);
    }
    let mut stride = Vec::with_capacity(dims.len());
    let mut s = 1i64;
    for t in tile {
        stride.push(s);
        s *= t;
    }
    let pos = |ix: usize| dims.iter().position(|d| *d == ix);
    let (mut ts, mut tstr) = (Vec::new(), Vec::new());
    for t in threads {
        ts.push(t.size.to_string());
        tstr.push(
            pos(t.index.index())
                .map_or(0, |d| stride[d] * w_of(t.index.index()))
                .to_string(),
        );
    }
    let (mut vs, mut vstr) = (Vec::new(), Vec::new());
    for (d, ix) in dims.iter().enumerate() {
        let tcount = threads
            .iter()
            .find(|t| t.index.index() == *ix)
            .map_or(1, |t| t.size);
        let w = w_of(*ix);
        if w > 1 {
            vs.push(w.to_string());
            vstr.push(stride[d].to_string());
        }
        vs.push((tile[d] / (tcount * w)).to_string());
        vstr.push((tcount * w * stride[d]).to_string());
    }
    let compute = format!(
        "(({}),({})):(({}),({}))",
        ts.join(","),
        vs.join(","),
        tstr.join(","),
        vstr.join(",")
    );
    (staging, Some(compute))
}

/// The code of every stage of `k`, or an error naming what the PTX backend cannot stage.
pub(crate) fn stages(k: &Kernel) -> Result<(Vec<StageCode>, String), EmitError> {
    let tiles = tile_of(k);
    let mut out = Vec::new();
    let mut text = String::new();
    let mut total = 0i64;
    for st in &k.stages {
        let t = st.tensor.index();
        let tensor = &k.tensors[t];
        let bad = |m: String| EmitError::Unsupported(format!("stage {}: {m}", tensor.name));
        // The indices the tensor is read at (the front end made them one list, tiled).
        let dims: Vec<usize> = k
            .stmts
            .iter()
            .flat_map(|s| s.nodes.iter())
            .find_map(|n| match &n.op {
                crate::kernel::Op::Load(a) if a.tensor == st.tensor => {
                    Some(a.indices.iter().map(|x| x.index()).collect())
                }
                _ => None,
            })
            .ok_or_else(|| bad("not read".into()))?;
        // Each index is an outer index of every statement (a tile of the CTA's) or a
        // contraction index of every statement (a k-tile of the staged contraction's loop).
        let outer = |s: &crate::kernel::Stmt, d: usize| s.outer.iter().any(|o| o.index() == d);
        let summed = |s: &crate::kernel::Stmt, d: usize| s.contraction.iter().any(|o| o.index() == d);
        if dims
            .iter()
            .any(|d| !(k.stmts.iter().all(|s| outer(s, *d)) || k.stmts.iter().all(|s| summed(s, *d))))
        {
            return Err(bad(
                "each of its indices must be an outer index of every statement, or a contraction index of every statement"
                    .into(),
            ));
        }
        let tile: Vec<i64> = dims.iter().map(|d| tiles[d]).collect();
        let points = tile
            .iter()
            .try_fold(1i64, |a, t| a.checked_mul(*t))
            .unwrap_or(i64::MAX);
        if points.saturating_mul(tensor.elem.bytes() as i64) > MAX_SHARED_BYTES {
            return Err(bad(format!(
                "a tile of {points} elements exceeds the {MAX_SHARED_BYTES} bytes of shared memory an entry may declare"
            )));
        }
        let conc = st.layout.at(&HashMap::new()).map_err(|e| bad(e.to_string()))?;
        let mut max = -1i64;
        for i in 0..points {
            let o = conc.offset(i).map_err(|e| bad(e.to_string()))?;
            if o < 0 {
                return Err(bad(format!("{} maps {i} to the negative offset {o}", st.layout)));
            }
            max = max.max(o);
        }
        let elems = max + 1;
        if elems.saturating_mul(tensor.elem.bytes() as i64) > MAX_SHARED_BYTES {
            return Err(bad(format!(
                "{} spans {elems} elements, beyond the {MAX_SHARED_BYTES} bytes of shared memory an entry may declare",
                st.layout
            )));
        }
        // The buffers are 16-byte aligned, one after the other.
        total = total.saturating_add((elems * tensor.elem.bytes() as i64 + 15) / 16 * 16);
        if total > MAX_SHARED_BYTES {
            return Err(bad(format!(
                "the kernel's stages take {total} bytes of shared memory together, beyond the {MAX_SHARED_BYTES} an entry may declare"
            )));
        }
        let e = match &conc {
            Concrete::Layout(l) => lower_index(l),
            Concrete::Composed(c) => lower_composed(c),
        }
        .map_err(|e| bad(e.to_string()))?;
        // Simplified with egg and validated on the tile's indices, as the offsets are.
        let mut domain = Domain::default();
        domain.interval(Var::Index, Interval::new(Some(0), Some(i128::from(points) - 1)));
        let opts = tessera_verifier::Options { timeout_ms: None };
        let v = simplify_validated(
            &e,
            &domain,
            &Arc::new(Facts::default()),
            &Limits::default(),
            &opts,
            true,
        )
        .map_err(|e| bad(e.to_string()))?;
        let simplified = match (&v.validation, v.fell_back) {
            (_, true) => "Not simplified: the rewrite was not proved on the tile.".to_string(),
            (Some(_), false) => format!(
                "Simplified by egg and validated on the tile: cost {} -> {}.",
                v.before.weighted, v.after.weighted
            ),
            (None, false) => "egg found nothing to simplify.".to_string(),
        };
        let e = v.expr;
        let name = format!(
            "{}_smem_{}",
            crate::sanitize(&k.name),
            crate::sanitize(&tensor.name)
        );
        let ranges = HashMap::from([(Var::Index, Interval::new(Some(0), Some(i128::from(points) - 1)))]);
        let mut sig = crate::Signature::for_expr(&e, &name, &ranges, &HashMap::new())?;
        if sig.args.is_empty() {
            sig.args = vec![Var::Index];
        }
        sig.notes = vec![
            format!(
                "Shared-memory layout of the staged tensor {}: {} ({elems} elements)",
                tensor.name, st.layout
            ),
            simplified,
        ];
        let f = crate::emit(&e, crate::Lang::Ptx, &sig)?;
        for l in f.lines() {
            if !(l.starts_with(".version") || l.starts_with(".target") || l.starts_with(".address_size")) {
                text.push_str(l);
                text.push('\n');
            }
        }
        text.push('\n');
        out.push(StageCode {
            tensor: t,
            buffer: format!("smem_{}", crate::sanitize(&tensor.name)),
            func: name,
            dims,
            tile,
            elems,
        });
    }
    Ok((out, text))
}

/// The bank-conflict questions of `k`'s stages: for each staged tensor, its staging copy's
/// stores and (with a `threads` clause) its compute phase's loads, each named
/// (`stage src: staging stores`), for the prover to answer with counterexamples.
///
/// @pre `k` passed the front end.
/// @post the questions whose degrees [`StageReport`] gives (for the block of `k`'s first
/// statement).
pub fn stage_banks(k: &Kernel) -> Result<Vec<(String, Bank)>, EmitError> {
    let (codes, _) = stages(k)?;
    let block = match k.stmts.first() {
        Some(s) if k.threads.is_empty() => {
            let points: i64 = super::tile_sizes(k, s).iter().map(|(_, t)| *t).product();
            points.clamp(1, super::MAX_THREADS)
        }
        _ => k.threads.iter().map(|t| t.size).product(),
    };
    let mut out = Vec::new();
    for sc in &codes {
        let name = &k.tensors[sc.tensor].name;
        for (what, bank) in phase_banks(k, sc, block) {
            if let Some(bank) = bank {
                out.push((format!("stage {name}: {what}"), bank));
            }
        }
    }
    Ok(out)
}
