//! A proved kernel's PTX run in the interpreter on typed buffers (`tessera run --target
//! ptx-sim`): the module the PTX backend writes for `arch`, each entry launched in order with
//! one CTA per tile, its tensors at distinct addresses, its parameters and extents at the
//! launch's values; the buffers hold the result.

use super::{Memory, Module, SimError, Stats, launch};
use crate::kernel::{Buffer, Proved, check_bindings};
use crate::{Arch, Entry, emit_kernel};
use std::collections::HashMap;

/// One entry as run: the backend's description (its proved bank degrees among them) and the
/// wavefronts the interpreter measured.
#[derive(Clone, Debug)]
pub struct EntryRun {
    /// The entry, as the PTX backend described it.
    pub entry: Entry,
    /// What the interpreter measured over its grid.
    pub stats: Stats,
}

/// Runs the PTX of `p` for `arch` on `buffers` (one per tensor, in the kernel's order, each of
/// the tensor's buffer length) at the parameter values `bindings`; each entry as run.
///
/// @pre none: unbound or inadmissible values, wrong buffers, a kernel the backend refuses and
/// any failure of the interpreter are errors.
/// @post the buffers hold what the PTX stored; every global access was inside its buffer.
///
/// ```
/// use std::collections::HashMap;
/// use tessera_codegen::Arch;
/// use tessera_codegen::kernel::{Buffer, Proved};
/// use tessera_codegen::ptx_sim::run_kernel;
/// # use std::sync::Arc;
/// # use tessera_codegen::kernel::*;
/// # use tessera_ir::{Int, sym::SymInt};
/// # use tessera_verifier::{Func, Options};
/// # let f = Arc::new(Default::default());
/// # let t = |n: &str, l: &str| { let layout = Func::parse(l, &f).unwrap();
/// #     let Func::Layout(ly) = &layout else { unreachable!() };
/// #     Tensor { name: n.into(), elem: ElemType::F32, dims: ly.shape().modes().iter()
/// #         .map(|m| SymInt::product(m.leaves()).unwrap()).collect(), cosize: ly.cosize().unwrap(), layout } };
/// # let (i, j) = (IndexId::new(0), IndexId::new(1));
/// # let k = Kernel { name: "t".into(), tensors: vec![t("d", "(2,3):(3,1)"), t("s", "(2,3):(1,2)")],
/// #     indices: vec![Index { name: "i".into(), extent: SymInt::lit(2) }, Index { name: "j".into(), extent: SymInt::lit(3) }],
/// #     tiles: vec![], threads: vec![], stages: vec![], vector: None,
/// #     stmts: vec![Stmt { target: Access { tensor: TensorId::new(0), indices: vec![i, j] }, kind: StoreKind::Assign,
/// #         nodes: vec![Node { op: Op::Load(Access { tensor: TensorId::new(1), indices: vec![i, j] }), ty: ElemType::F32 }],
/// #         value: ValueId::new(0), outer: vec![i, j], contraction: vec![] }] };
/// # let p = Proved::check(k, &Options::default(), false).unwrap();
/// // `p`: the transpose d[i,j] = s[i,j], d row-major (2,3):(3,1), s column-major (2,3):(1,2).
/// let mut bufs = vec![Buffer::F32(vec![0.0; 6]), Buffer::F32(vec![0., 1., 2., 3., 4., 5.])];
/// run_kernel(&p, &HashMap::new(), &mut bufs, Arch::Sm80).unwrap();
/// assert_eq!(bufs[0], Buffer::F32(vec![0., 2., 4., 1., 3., 5.]));
/// ```
pub fn run_kernel(
    p: &Proved,
    bindings: &HashMap<String, i64>,
    buffers: &mut [Buffer],
    arch: Arch,
) -> Result<Vec<EntryRun>, SimError> {
    let k = p.kernel();
    let err = |m: String| SimError(format!("kernel {}: {m}", k.name));
    check_bindings(k, bindings).map_err(|e| err(e.to_string()))?;
    if buffers.len() != k.tensors.len() {
        return Err(err(format!(
            "{} buffers for {} tensors",
            buffers.len(),
            k.tensors.len()
        )));
    }
    for (t, b) in k.tensors.iter().zip(buffers.iter()) {
        let len = t.cosize.eval(bindings).map_err(|e| err(e.to_string()))?;
        if b.elem() != t.elem || usize::try_from(len).ok() != Some(b.len()) {
            return Err(err(format!(
                "tensor {} needs {len} {}, got {} {}",
                t.name,
                t.elem.name(),
                b.len(),
                b.elem().name()
            )));
        }
    }
    let m = emit_kernel(k, arch).map_err(|e| err(e.to_string()))?;
    let module = Module::parse(&m.text)?;
    let mut mem = Memory::new(buffers.iter().map(Buffer::to_le_bytes).collect());
    let extent = |name: &str| -> Result<i64, SimError> {
        let x = k
            .indices
            .iter()
            .find(|x| x.name == name)
            .ok_or_else(|| err(format!("no index {name}")))?;
        x.extent.eval(bindings).map_err(|e| err(e.to_string()))
    };
    let mut runs = Vec::with_capacity(m.entries.len());
    for e in &m.entries {
        let mut args = Vec::with_capacity(e.params.len());
        for (kind, n) in &e.params {
            args.push(match kind.as_str() {
                "t" => {
                    let t = k
                        .tensors
                        .iter()
                        .position(|t| &t.name == n)
                        .ok_or_else(|| err(format!("no tensor {n}")))?;
                    mem.buffers[t].0
                }
                "p" => *bindings.get(n).ok_or_else(|| err(format!("{n} is not bound")))? as u64,
                _ => extent(n)? as u64,
            });
        }
        let mut grid: i64 = 1;
        for (x, t) in &e.tiles {
            let tiles = (extent(x)? + t - 1) / t;
            grid = grid
                .checked_mul(tiles)
                .ok_or_else(|| err("the grid overflows".into()))?;
        }
        let stats = launch(&module, &e.name, grid as u64, e.block as u64, &args, &mut mem)?;
        runs.push(EntryRun {
            entry: e.clone(),
            stats,
        });
    }
    for (b, (_, bytes)) in buffers.iter_mut().zip(&mem.buffers) {
        *b = Buffer::from_le_bytes(b.elem(), bytes);
    }
    Ok(runs)
}
