//! Matrix products among kernel statements: `C[x, y] += A[.., ..] * B[.., ..]` in `f32`, one
//! contraction index `k`, `A` indexed by `x` and `k`, `B` by `y` and `k` (in either order each),
//! mapped onto the register-blocked [`GemmKernel`]. Its sums are reordered (blocks of `k`,
//! fused multiply-adds), so a kernel compiled this way agrees with the interpreter within a
//! tolerance rather than bit for bit; [`super::JitOptions::gemm`] turns it off.

use super::prepare::TensorCode;
use crate::jit::gemm::{GemmKernel, GemmMicro, GemmSpec};
use crate::kernel::{Access, BinOp, ElemType, IndexId, Kernel, Op, Stmt, StoreKind};
use std::collections::HashMap;
use tessera_ir::index::{IndexExpr, Var};

/// The operands of a matrix-product statement: the tensors of `C`, `A` and `B` (positions in
/// the kernel's tensors) and the product's extents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatMul {
    /// The accumulated tensor.
    pub c: usize,
    /// The left operand (indexed by the target's first index and `k`).
    pub a: usize,
    /// The right operand (indexed by the target's second index and `k`).
    pub b: usize,
}

/// `e` over the coordinates named by `order`: the tensor's dimension `d`, indexed by
/// `access.indices[d]`, reads `Coord(position of that index in order)`.
fn over(e: &IndexExpr, access: &Access, order: &[IndexId]) -> Option<IndexExpr> {
    let mut names = HashMap::new();
    for (d, x) in access.indices.iter().enumerate() {
        let p = order.iter().position(|y| y == x)?;
        names.insert(Var::Coord(d as u32), Var::Coord(p as u32));
    }
    Some(e.renamed(&names))
}

/// Whether `s` is a matrix product (see the module documentation), and its operands.
pub fn matmul(k: &Kernel, s: &Stmt) -> Option<(MatMul, [IndexId; 3])> {
    let f32s = |t: usize| k.tensors[t].elem == ElemType::F32;
    let (x, kk) = match (s.kind, s.target.indices.as_slice(), s.contraction.as_slice()) {
        (StoreKind::Accumulate, [x0, x1], [kk]) if x0 != x1 => ([*x0, *x1], *kk),
        _ => return None,
    };
    let (l, r) = match (&s.nodes[s.value.index()].op, s.nodes.len()) {
        (Op::Binary(BinOp::Mul, l, r), 3) => (*l, *r),
        _ => return None,
    };
    let load = |v: crate::kernel::ValueId| match &s.nodes[v.index()].op {
        Op::Load(a) if a.indices.len() == 2 => Some(a),
        _ => None,
    };
    let (p, q) = (load(l)?, load(r)?);
    let has = |a: &Access, i: IndexId| a.indices.contains(&i) && a.indices.contains(&kk);
    let (a, b) = if has(p, x[0]) && has(q, x[1]) {
        (p, q)
    } else if has(q, x[0]) && has(p, x[1]) {
        (q, p)
    } else {
        return None;
    };
    let c = s.target.tensor.index();
    let ids = MatMul {
        c,
        a: a.tensor.index(),
        b: b.tensor.index(),
    };
    if ids.a == c || ids.b == c || ![c, ids.a, ids.b].into_iter().all(f32s) {
        return None;
    }
    Some((ids, [x[0], x[1], kk]))
}

/// The compiled product of `s` with the micro-kernel `micro`, when it is one and the GEMM
/// accepts it (`None` otherwise: the loop nest compiles the statement).
pub fn compile_matmul(
    k: &Kernel,
    s: &Stmt,
    codes: &[TensorCode],
    extents: &[i64],
    micro: GemmMicro,
) -> Option<(GemmKernel, MatMul)> {
    let (ids, [x, y, kk]) = matmul(k, s)?;
    let a = s.nodes.iter().find_map(|n| match &n.op {
        Op::Load(acc) if acc.tensor.index() == ids.a && acc.indices.contains(&x) => Some(acc),
        _ => None,
    })?;
    let b = s.nodes.iter().find_map(|n| match &n.op {
        Op::Load(acc) if acc.tensor.index() == ids.b && acc.indices.contains(&y) => Some(acc),
        _ => None,
    })?;
    let spec = GemmSpec {
        a: over(&codes[ids.a].expr, a, &[x, kk])?,
        b: over(&codes[ids.b].expr, b, &[y, kk])?,
        c: over(&codes[ids.c].expr, &s.target, &[x, y])?,
        m: extents[x.index()],
        n: extents[y.index()],
        k: extents[kk.index()],
    };
    let g = GemmKernel::compile_with(&spec, micro).ok()?;
    (g.a_len <= codes[ids.a].len && g.b_len <= codes[ids.b].len && g.c_len <= codes[ids.c].len)
        .then_some((g, ids))
}
