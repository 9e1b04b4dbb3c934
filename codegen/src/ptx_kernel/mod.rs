//! Kernels of the kernel language as PTX: one `.entry` per statement (`<kernel>` when the
//! kernel has one statement, `<kernel>_s<k>` otherwise, launched in order), the tensors'
//! global pointers and every runtime value (the parameters the layouts read, and each index's
//! extent) as entry parameters, and each tensor's offsets as a `.func` of its dimensions'
//! coordinates and the parameters: the layout lowered symbolically, simplified with egg and
//! validated under the file's facts (the naive lowering where validation does not prove the
//! rewrite), with a comment block naming the layout and the facts it assumes.
//!
//! **Thread mapping:** the grid is one CTA per tile of the statement's outer indices (declared
//! `tile`s; an undeclared index is one tile of extent 1, except the last outer index, tiled by
//! 256). Without a `threads` clause a CTA has `min(points of a tile, 256)` threads, and thread
//! `t` takes the tile's points `t, t + ntid, ...` in row-major order (the last outer index
//! fastest, so consecutive threads touch consecutive elements of a row-major output); with
//! one, the CTA is the listed threads and each takes its `local_partition` (see `stage.rs`).
//! Points outside the extents (partial tiles) are predicated off. A `+=` runs its contraction
//! loops in the interpreter's order per point.
//!
//! **Stages:** `stage X in L` copies X's tile into shared memory before the statement
//! (`stage.rs`, `phases.rs`); a stage along a contraction index makes the statement a staged
//! contraction, the shared-memory GEMM of `contraction.rs`: one k-tile copied at a time, the
//! sums in registers, fused multiply-adds.
//!
//! **Values:** `f32`, `f64`, `s32`, `s64` registers; f16 and bf16 are loaded as `b16` and
//! widened to `f32` (`cvt.f32.f16`; bf16 by a shift), computed in `f32`, and rounded to nearest
//! even on store (`cvt.rn.f16.f32`, `cvt.rn.bf16.f32`); float `max`/`min` are PTX's (`maxNum`);
//! float-to-integer casts `cvt.rzi` (saturating, NaN to 0); an integer division by zero
//! executes `trap`. NaN payloads follow the hardware (the CPU backends define them).

mod body;
mod builder;
mod contraction;
mod phases;
mod stage;
mod vector;

pub use contraction::MAX_POINTS_PER_THREAD;
pub use stage::{StageReport, stage_banks};

use crate::EmitError;
use crate::kernel::{IndexId, Kernel, Stmt};
use crate::signature::Signature;
use std::collections::{BTreeSet, HashMap};
use std::fmt::Write;
use std::sync::Arc;
use tessera_ir::index::{IndexExpr, Var, lower_composed_modes, lower_modes};
use tessera_ir::simplify::{Domain, Limits};
use tessera_ir::sym::{Facts, Interval};
use tessera_verifier::{Func, Options, Property, facts, simplify_validated};

/// A PTX target architecture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Arch {
    /// Volta (`sm_70`): no bf16 conversions.
    Sm70,
    /// Ampere (`sm_80`).
    Sm80,
    /// Hopper (`sm_90`).
    Sm90,
}

impl Arch {
    /// The `.target` name.
    pub fn name(self) -> &'static str {
        match self {
            Arch::Sm70 => "sm_70",
            Arch::Sm80 => "sm_80",
            Arch::Sm90 => "sm_90",
        }
    }

    /// The architecture named `sm_70`, `sm_80` or `sm_90`.
    pub fn from_name(s: &str) -> Option<Arch> {
        match s {
            "sm_70" => Some(Arch::Sm70),
            "sm_80" => Some(Arch::Sm80),
            "sm_90" => Some(Arch::Sm90),
            _ => None,
        }
    }
}

/// The threads per CTA at most.
pub const MAX_THREADS: i64 = 256;

/// One `.entry` and how to launch it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The entry's name.
    pub name: String,
    /// The parameters, in order: `("t", tensor name)` for a tensor's pointer (`.u64`),
    /// `("p", name)` for a layout parameter and `("n", index name)` for an index's extent
    /// (`.s64`).
    pub params: Vec<(String, String)>,
    /// Threads per CTA (`ntid.x`).
    pub block: i64,
    /// The tile size of each outer index of the statement, in order (the grid is the product
    /// of `ceil(extent / tile)`).
    pub tiles: Vec<(String, i64)>,
    /// The staged tensors, with their bank-conflict degrees.
    pub stages: Vec<StageReport>,
}

/// A kernel's PTX module.
#[derive(Clone, Debug)]
pub struct PtxKernel {
    /// The module text.
    pub text: String,
    /// The entries, in launch order.
    pub entries: Vec<Entry>,
}

/// The offsets of one tensor: its `.func` name and argument order.
pub(crate) struct OffsetFunc {
    /// The function's name.
    pub name: String,
    /// Its arguments: the coordinates `c0, c1, ..` then the parameters.
    pub args: Vec<Var>,
    /// The offsets it computes (simplified and validated).
    pub expr: IndexExpr,
    /// The ranges of its arguments under the facts.
    pub ranges: HashMap<Var, Interval>,
}

/// The facts of every parameter the kernel's tensors mention.
fn kernel_facts(k: &Kernel) -> Arc<Facts> {
    // Every tensor's facts come from the same file; the first that knows a parameter wins.
    let mut all: Option<Arc<Facts>> = None;
    for t in &k.tensors {
        let f = facts(&Property::InBounds(t.layout.clone(), t.cosize.clone()));
        if all.as_ref().is_none_or(|a| f.names().count() > a.names().count()) {
            all = Some(f);
        }
    }
    all.unwrap_or_default()
}

/// The `.func` of tensor `t`'s offsets (and its text).
fn offset_func(k: &Kernel, t: usize, facts: &Arc<Facts>) -> Result<(OffsetFunc, String), EmitError> {
    let tensor = &k.tensors[t];
    let bad = |e: tessera_ir::Error| EmitError::Unsupported(format!("tensor {}: {e}", tensor.name));
    let e: IndexExpr = match &tensor.layout {
        Func::Layout(l) => lower_modes(l),
        Func::Composed(c) => lower_composed_modes(c),
    }
    .map_err(bad)?;
    let mut domain = Domain::default();
    let mut ranges: HashMap<Var, Interval> = HashMap::new();
    let mut moduli: HashMap<Var, i64> = HashMap::new();
    for (d, ext) in tensor.dims.iter().enumerate() {
        let hi = facts.range(ext).hi().map(|h| h - 1);
        let iv = Interval::new(Some(0), hi);
        ranges.insert(Var::Coord(d as u32), iv);
        domain.interval(Var::Coord(d as u32), iv);
    }
    for v in e.inputs() {
        if let Var::Param(n) = &v
            && let Some(f) = facts.get(n)
        {
            ranges.insert(v.clone(), f.interval());
            domain.interval(v.clone(), f.interval());
            // Divisibility only: the divisor the congruence implies (`N % 4 == 1`: none).
            let m = f.divisor();
            if m > 1 {
                moduli.insert(v.clone(), m);
                domain.modulus(v.clone(), m);
            }
        }
    }
    let opts = Options { timeout_ms: None };
    // Validated under divisibility only, the assumptions the emitted code states.
    let weak = Arc::new(facts.divisibility_only());
    let v = simplify_validated(&e, &domain, &weak, &Limits::default(), &opts, true).map_err(bad)?;
    let name = format!(
        "{}_offset_{}",
        crate::sanitize(&k.name),
        crate::sanitize(&tensor.name)
    );
    let mut sig = Signature::for_expr(&v.expr, &name, &ranges, &moduli)?;
    // The coordinates first, in order (every dimension, even one the layout ignores), then
    // the parameters.
    let params: BTreeSet<Var> = sig
        .args
        .iter()
        .filter(|a| matches!(a, Var::Param(_)))
        .cloned()
        .collect();
    sig.args = (0..tensor.dims.len())
        .map(|d| Var::Coord(d as u32))
        .chain(params)
        .collect();
    for a in &sig.args {
        if !sig.assumptions.iter().any(|x| x.var == *a)
            && let Some(iv) = ranges.get(a)
        {
            sig.assumptions.push(crate::signature::Assumption {
                var: a.clone(),
                lo: iv.lo().and_then(|x| i64::try_from(x).ok()),
                hi: iv.hi().and_then(|x| i64::try_from(x).ok()),
                modulus: 1,
            });
        }
    }
    sig.notes = vec![
        format!(
            "Offsets of tensor {} : {}[{}]",
            tensor.name,
            tensor.elem.name(),
            tensor.layout
        ),
        match (&v.validation, v.fell_back) {
            (_, true) => "Not simplified: the rewrite was not proved on the domain.".to_string(),
            (Some(_), false) => format!(
                "Simplified by egg and validated: cost {} -> {}.",
                v.before.weighted, v.after.weighted
            ),
            (None, false) => "egg found nothing to simplify.".to_string(),
        },
    ];
    let text = crate::emit(&v.expr, crate::Lang::Ptx, &sig)?;
    // The module header is written once, by the caller.
    let body: String = text
        .lines()
        .filter(|l| {
            !(l.starts_with(".version") || l.starts_with(".target") || l.starts_with(".address_size"))
        })
        .map(|l| format!("{l}\n"))
        .collect();
    Ok((
        OffsetFunc {
            name,
            args: sig.args,
            expr: v.expr,
            ranges,
        },
        body,
    ))
}

/// The tile size of each outer index of `s` (see the module documentation).
fn tile_sizes(k: &Kernel, s: &Stmt) -> Vec<(IndexId, i64)> {
    let declared: HashMap<IndexId, i64> = k.tiles.iter().map(|t| (t.index, t.size)).collect();
    let last = s.outer.len().saturating_sub(1);
    s.outer
        .iter()
        .enumerate()
        .map(|(p, x)| {
            let size = declared
                .get(x)
                .copied()
                .unwrap_or(if p == last && !declared.contains_key(x) {
                    MAX_THREADS
                } else {
                    1
                });
            (*x, size)
        })
        .collect()
}

/// The PTX module of kernel `k` for `arch`.
///
/// @pre `k` passed the front end (its proof is the caller's: `tessera build` proves first).
/// @post the text assembles with `ptxas --gpu-name <arch>`; launched as [`Entry`] says, each
/// entry computes its statement as the reference interpreter does (floats up to NaN payloads).
pub fn emit_kernel(k: &Kernel, arch: Arch) -> Result<PtxKernel, EmitError> {
    emit_module(std::slice::from_ref(k), arch)
}

/// One PTX module holding every kernel of `ks` (their functions prefixed by the kernel's
/// name), for `arch`.
///
/// @pre as [`emit_kernel`]; the kernels' names are distinct (a check file's are).
/// @post as [`emit_kernel`], for every entry of every kernel.
pub fn emit_module(ks: &[Kernel], arch: Arch) -> Result<PtxKernel, EmitError> {
    emit_module_within(ks, arch, Some(10_000))
}

/// [`emit_module`] whose proofs by the verifier (the `vector` clause's contiguity and
/// alignment, where structure does not decide them) each end by `timeout_ms` (`tessera build
/// --timeout`).
///
/// @pre as [`emit_module`].
/// @post as [`emit_module`]; a proof past the limit refuses the `vector` clause.
///
/// ```
/// use tessera_codegen::{Arch, emit_module_within};
/// assert!(emit_module_within(&[], Arch::Sm80, Some(1)).unwrap().entries.is_empty());
/// ```
pub fn emit_module_within(
    ks: &[Kernel],
    arch: Arch,
    timeout_ms: Option<u64>,
) -> Result<PtxKernel, EmitError> {
    let mut text = String::new();
    let _ = writeln!(text, "// Generated by Tessera.");
    let _ = writeln!(text, ".version 8.0\n.target {}\n.address_size 64\n", arch.name());
    let mut entries = Vec::new();
    for k in ks {
        let (body, e) = kernel_text(k, timeout_ms)?;
        requires(&body, k, arch)?;
        text.push_str(&body);
        entries.extend(e);
    }
    Ok(PtxKernel { text, entries })
}

/// The instructions an architecture must have: their mnemonic prefix, what they do, and the
/// first architecture that has them.
const FEATURES: &[(&str, &str, Arch)] = &[("cvt.rn.bf16.f32", "rounding to bf16", Arch::Sm80)];

/// Refuses kernel `k`'s PTX `body` when it uses an instruction `arch` lacks.
fn requires(body: &str, k: &Kernel, arch: Arch) -> Result<(), EmitError> {
    for (ins, what, needs) in FEATURES {
        if arch < *needs && body.lines().any(|l| l.trim_start().starts_with(ins)) {
            return Err(EmitError::Arch {
                what: format!("kernel {}: {what} (`{ins}`)", k.name),
                needs: needs.name(),
                arch: arch.name(),
            });
        }
    }
    Ok(())
}

/// A kernel's functions and entries (no module header).
fn kernel_text(k: &Kernel, timeout_ms: Option<u64>) -> Result<(String, Vec<Entry>), EmitError> {
    let facts = kernel_facts(k);
    let mut text = String::new();
    let _ = writeln!(text, "// Kernel `{}`.", k.name);
    let (stages, stage_text) = stage::stages(k)?;
    text.push_str(&stage_text);
    let mut funcs = Vec::with_capacity(k.tensors.len());
    for t in 0..k.tensors.len() {
        let (f, body) = offset_func(k, t, &facts)?;
        text.push_str(&body);
        text.push('\n');
        funcs.push(f);
    }
    let params: Vec<String> = {
        let mut p = BTreeSet::new();
        for f in &funcs {
            for a in &f.args {
                if let Var::Param(n) = a {
                    p.insert(n.clone());
                }
            }
        }
        p.into_iter().collect()
    };
    let mut entries = Vec::new();
    for (n, s) in k.stmts.iter().enumerate() {
        let name = if k.stmts.len() == 1 {
            crate::sanitize(&k.name)
        } else {
            format!("{}_s{n}", crate::sanitize(&k.name))
        };
        let tiles = tile_sizes(k, s);
        let points: i64 = tiles.iter().map(|(_, t)| *t).product();
        let block = if k.threads.is_empty() {
            points.clamp(1, MAX_THREADS)
        } else {
            k.threads.iter().map(|t| t.size).product()
        };
        let mut eparams: Vec<(String, String)> = k
            .tensors
            .iter()
            .map(|t| ("t".to_string(), t.name.clone()))
            .collect();
        eparams.extend(params.iter().map(|p| ("p".to_string(), p.clone())));
        eparams.extend(k.indices.iter().map(|x| ("n".to_string(), x.name.clone())));
        let plan = match k.vector {
            Some(w) => Some(vector::plan(k, s, &funcs, &facts, (w, timeout_ms))?),
            None => None,
        };
        let code = body::entry(k, s, &name, &eparams, &funcs, &tiles, (&stages, plan.as_ref()))?;
        text.push_str(&code);
        text.push('\n');
        entries.push(Entry {
            name,
            params: eparams,
            block,
            tiles: tiles
                .iter()
                .map(|(x, t)| (k.indices[x.index()].name.clone(), *t))
                .collect(),
            stages: stages.iter().map(|sc| stage::report(k, sc, block)).collect(),
        });
    }
    Ok((text, entries))
}
