//! The semantic checks of a kernel, and its lowering to the kernel IR.
//!
//! In order: every access names a declared tensor with one index per dimension; every index
//! sees one extent (decided on the symbolic extents under the facts: unequal or undecided is
//! an error naming both tensors); an index on the right of `=` only is an error (`+=` sums
//! over those: the contraction indices); a statement does not read its output at other indices
//! than it writes (a race); bare names are not values; the types agree without implicit
//! conversion (an integer literal takes the type its context needs, a decimal literal any
//! float type); tiles name indices, once each, with positive sizes.

use super::ast::{AccessDecl, AssignOp, Call, ExprDecl, ExprKind, KernelDecl, StmtDecl};
use super::error::{ErrorKind, KernelError};
use super::types::{Ty, infer, unify};
use tessera_codegen::kernel::{
    Access, ElemType, Index, IndexId, Kernel, Node, Op, Stage, Stmt, StoreKind, Tensor, TensorId, Tile, UnOp,
    ValueId,
};
use tessera_ir::{Error, Int};
use tessera_verifier::Func;

/// The kernel's tables while it is checked.
struct Scope<'a> {
    declared: &'a [Tensor],
    /// Tensors used, with the declared tensor each one is.
    tensors: Vec<(usize, Tensor)>,
    /// Indices used, with the tensor and dimension of their first use.
    indices: Vec<(Index, String, usize)>,
}

type R<T> = Result<T, KernelError>;

impl Scope<'_> {
    fn tensor(&mut self, a: &AccessDecl) -> R<TensorId> {
        let d = self
            .declared
            .iter()
            .position(|t| t.name == a.tensor)
            .ok_or_else(|| KernelError::new(a.pos, ErrorKind::UnknownTensor(a.tensor.clone())))?;
        if let Some(k) = self.tensors.iter().position(|(x, _)| *x == d) {
            return Ok(TensorId::new(k));
        }
        self.tensors.push((d, self.declared[d].clone()));
        Ok(TensorId::new(self.tensors.len() - 1))
    }

    /// Checks and lowers an access: its tensor, its arity, and the extent of each index.
    fn access(&mut self, a: &AccessDecl) -> R<Access> {
        let t = self.tensor(a)?;
        let tensor = self.tensors[t.index()].1.clone();
        if tensor.dims.len() != a.indices.len() {
            let at = a.indices.get(tensor.dims.len()).map_or(a.pos, |x| x.pos);
            return Err(KernelError::new(
                at,
                ErrorKind::Arity {
                    tensor: a.tensor.clone(),
                    expected: tensor.dims.len(),
                    got: a.indices.len(),
                },
            ));
        }
        let mut indices = Vec::with_capacity(a.indices.len());
        for (dim, (x, extent)) in a.indices.iter().zip(&tensor.dims).enumerate() {
            if let Some(k) = self.indices.iter().position(|(i, ..)| i.name == x.name) {
                let (first, ftensor, fdim) = &self.indices[k];
                match first.extent.eq_val(extent) {
                    Ok(true) => {}
                    Ok(false) => {
                        return Err(KernelError::new(
                            x.pos,
                            ErrorKind::ExtentMismatch {
                                index: x.name.clone(),
                                first: ftensor.clone(),
                                first_dim: *fdim,
                                first_extent: first.extent.to_string(),
                                second: a.tensor.clone(),
                                second_dim: dim,
                                second_extent: extent.to_string(),
                            },
                        ));
                    }
                    Err(e) => {
                        return Err(KernelError::new(
                            x.pos,
                            ErrorKind::ExtentUndecided {
                                index: x.name.clone(),
                                first: ftensor.clone(),
                                first_extent: first.extent.to_string(),
                                second: a.tensor.clone(),
                                second_extent: extent.to_string(),
                                reason: reason(e),
                            },
                        ));
                    }
                }
                indices.push(IndexId::new(k));
            } else {
                self.indices.push((
                    Index {
                        name: x.name.clone(),
                        extent: extent.clone(),
                    },
                    a.tensor.clone(),
                    dim,
                ));
                indices.push(IndexId::new(self.indices.len() - 1));
            }
        }
        Ok(Access { tensor: t, indices })
    }
}

/// The message of an undecided decision (it names the fact that would settle it).
fn reason(e: Error) -> String {
    e.to_string()
}

/// Every access of an expression, in order.
fn reads<'e>(e: &'e ExprDecl, out: &mut Vec<&'e AccessDecl>) {
    match &e.kind {
        ExprKind::Read(a) => out.push(a),
        ExprKind::Neg(x) => reads(x, out),
        ExprKind::Binary(_, _, a, b) => {
            reads(a, out);
            reads(b, out);
        }
        ExprKind::Call(_, args) => args.iter().for_each(|x| reads(x, out)),
        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Name(_) => {}
    }
}

/// Checks a kernel against the file's tensors and lowers it to the kernel IR; `stage_layouts`
/// holds the value of each `stage` line's layout name, in order.
///
/// ```
/// use std::sync::Arc;
/// use tessera::kernel::{check, parse_kernel, parse_tensor, tensor};
/// use tessera_verifier::Func;
/// let facts = Arc::new(Default::default());
/// let t = |s: &str| { let d = parse_tensor(s, 1).unwrap(); tensor(&d, Func::parse(&d.layout, &facts).unwrap()).unwrap() };
/// let tensors = [t("tensor x : f32[(4,8):(8,1)]"), t("tensor y : f32[(4,8):(1,4)]")];
/// let k = check(&parse_kernel("kernel k { y[i,j] = max(x[i,j], 0) }", 2).unwrap(), &tensors, &[]).unwrap();
/// assert_eq!((k.tensors.len(), k.indices.len(), k.stmts[0].nodes.len()), (2, 2, 3));
/// let bad = check(&parse_kernel("kernel k { y[i,j] = x[j,i] }", 2).unwrap(), &tensors, &[]).unwrap_err();
/// assert_eq!(bad.to_string(), "index j: extent 4 (dimension 0 of x) differs from extent 8 (dimension 1 of y)");
/// ```
pub fn check(decl: &KernelDecl, declared: &[Tensor], stage_layouts: &[Func]) -> Result<Kernel, KernelError> {
    let mut scope = Scope {
        declared,
        tensors: Vec::new(),
        indices: Vec::new(),
    };
    let mut stmts = Vec::with_capacity(decl.body.len());
    for s in &decl.body {
        stmts.push(stmt(&mut scope, s)?);
    }
    let mut tiles: Vec<Tile> = Vec::new();
    for t in &decl.tiles {
        let Some(k) = scope.indices.iter().position(|(i, ..)| i.name == t.name) else {
            return Err(KernelError::new(t.pos, ErrorKind::TileNotIndex(t.name.clone())));
        };
        if t.size < 1 {
            return Err(KernelError::new(t.size_pos, ErrorKind::TileSize(t.size)));
        }
        let index = IndexId::new(k);
        if tiles.iter().any(|x| x.index == index) {
            return Err(KernelError::new(t.pos, ErrorKind::TileTwice(t.name.clone())));
        }
        tiles.push(Tile { index, size: t.size });
    }
    let threads = threads(decl, &scope, &tiles)?;
    let stages = stages(decl, &scope, &tiles, &stmts, stage_layouts)?;
    let vector = match decl.vector {
        None => None,
        Some((w, pos)) if w != 2 && w != 4 => {
            return Err(KernelError::new(
                pos,
                ErrorKind::Vector(format!("the width must be 2 or 4, not {w}")),
            ));
        }
        Some((w, _)) => Some(w),
    };
    Ok(Kernel {
        name: decl.name.clone(),
        tensors: scope.tensors.into_iter().map(|(_, t)| t).collect(),
        indices: scope.indices.into_iter().map(|(i, ..)| i).collect(),
        tiles,
        threads,
        stages,
        vector,
        stmts,
    })
}

/// The `threads` clause: tiled indices, once each, counts dividing their tiles, at most 1024
/// threads in all.
fn threads(decl: &KernelDecl, scope: &Scope<'_>, tiles: &[Tile]) -> R<Vec<Tile>> {
    let mut out: Vec<Tile> = Vec::new();
    for t in &decl.threads {
        let bad = |msg: String| KernelError::new(t.pos, ErrorKind::Threads(msg));
        let Some(k) = scope.indices.iter().position(|(i, ..)| i.name == t.name) else {
            return Err(bad(format!("'{}' is not an index of the kernel", t.name)));
        };
        let index = IndexId::new(k);
        let Some(tile) = tiles.iter().find(|x| x.index == index) else {
            return Err(bad(format!("'{}' is not tiled (threads divide a tile)", t.name)));
        };
        if t.size < 1 || tile.size % t.size != 0 {
            return Err(KernelError::new(
                t.size_pos,
                ErrorKind::Threads(format!(
                    "{} threads do not divide the tile {}:{}",
                    t.size, t.name, tile.size
                )),
            ));
        }
        if out.iter().any(|x| x.index == index) {
            return Err(bad(format!("'{}' is listed twice", t.name)));
        }
        out.push(Tile { index, size: t.size });
    }
    let total = out.iter().try_fold(1i64, |a, t| a.checked_mul(t.size));
    if total.is_none_or(|n| n > 1024) {
        return Err(KernelError::new(
            decl.pos,
            ErrorKind::Threads("more than 1024 threads per CTA".into()),
        ));
    }
    Ok(out)
}

/// The `stage` lines: a tensor the kernel reads, at one list of tiled indices everywhere,
/// through a layout whose size is the tile's.
fn stages(
    decl: &KernelDecl,
    scope: &Scope<'_>,
    tiles: &[Tile],
    stmts: &[Stmt],
    layouts: &[Func],
) -> R<Vec<Stage>> {
    let mut out: Vec<Stage> = Vec::new();
    for (st, layout) in decl.stages.iter().zip(layouts) {
        let bad = |msg: String| {
            KernelError::new(
                st.pos,
                ErrorKind::Stage {
                    tensor: st.tensor.clone(),
                    msg,
                },
            )
        };
        let Some(t) = scope.tensors.iter().position(|(_, x)| x.name == st.tensor) else {
            return Err(bad("the kernel does not read it".into()));
        };
        let tensor = TensorId::new(t);
        let mut uses = stmts.iter().flat_map(|s| {
            s.nodes.iter().filter_map(|n| match &n.op {
                Op::Load(a) if a.tensor == tensor => Some(a.indices.clone()),
                _ => None,
            })
        });
        let Some(first) = uses.next() else {
            return Err(bad("the kernel does not read it".into()));
        };
        if uses.any(|u| u != first) || stmts.iter().any(|s| s.target.tensor == tensor) {
            return Err(bad("it is read at several index lists, or written".into()));
        }
        let mut points = 1i64;
        for x in &first {
            let Some(tile) = tiles.iter().find(|t| t.index == *x) else {
                let name = &scope.indices[x.index()].0.name;
                return Err(bad(format!("its index '{name}' is not tiled")));
            };
            points = points.saturating_mul(tile.size);
        }
        let size = match layout {
            Func::Layout(l) => l.size(),
            Func::Composed(c) => c.inner.size(),
        }
        .map_err(|e| bad(e.to_string()))?;
        if size.as_const() != Some(points) {
            return Err(KernelError::new(
                st.layout_pos,
                ErrorKind::Stage {
                    tensor: st.tensor.clone(),
                    msg: format!(
                        "{} = {layout} has size {size}, the tile has {points} elements",
                        st.layout
                    ),
                },
            ));
        }
        if out.iter().any(|s| s.tensor == tensor) {
            return Err(bad("staged twice".into()));
        }
        out.push(Stage {
            tensor,
            layout: layout.clone(),
        });
    }
    Ok(out)
}

fn stmt(scope: &mut Scope<'_>, s: &StmtDecl) -> R<Stmt> {
    let target = scope.access(&s.target)?;
    let mut rs = Vec::new();
    reads(&s.value, &mut rs);
    let mut contraction: Vec<IndexId> = Vec::new();
    for a in &rs {
        let acc = scope.access(a)?;
        if acc.tensor == target.tensor && acc.indices != target.indices {
            let names = |a: &AccessDecl| {
                a.indices
                    .iter()
                    .map(|x| x.name.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            };
            return Err(KernelError::new(
                a.pos,
                ErrorKind::Race {
                    tensor: a.tensor.clone(),
                    written: names(&s.target),
                    read: names(a),
                },
            ));
        }
        for (x, id) in a.indices.iter().zip(&acc.indices) {
            if !target.indices.contains(id) && !contraction.contains(id) {
                if s.op == AssignOp::Assign {
                    return Err(KernelError::new(
                        x.pos,
                        ErrorKind::ContractionOnAssign(x.name.clone()),
                    ));
                }
                contraction.push(*id);
            }
        }
    }
    let ty = scope.tensors[target.tensor.index()].1.elem;
    let lookup = |a: &AccessDecl| {
        scope
            .tensors
            .iter()
            .find(|(d, _)| scope.declared[*d].name == a.tensor)
            .map(|(_, t)| t.elem)
    };
    let is_index = |n: &str| scope.indices.iter().any(|(i, ..)| i.name == n);
    let found = infer(&s.value, &lookup, &is_index)?;
    unify(Ty::Known(ty), found, s.value.pos)?;
    let mut b = Builder {
        scope,
        nodes: Vec::new(),
    };
    let value = b.build(&s.value, ty)?;
    let mut outer: Vec<IndexId> = Vec::new();
    for x in &target.indices {
        if !outer.contains(x) {
            outer.push(*x);
        }
    }
    Ok(Stmt {
        target,
        kind: match s.op {
            AssignOp::Assign => StoreKind::Assign,
            AssignOp::Accumulate => StoreKind::Accumulate,
        },
        nodes: b.nodes,
        value,
        outer,
        contraction,
    })
}

/// Builds a statement's DAG, sharing equal nodes.
struct Builder<'s, 'a> {
    scope: &'s mut Scope<'a>,
    nodes: Vec<Node>,
}

impl Builder<'_, '_> {
    fn node(&mut self, op: Op, ty: ElemType) -> ValueId {
        let n = Node { op, ty };
        if let Some(k) = self.nodes.iter().position(|x| *x == n) {
            return ValueId::new(k);
        }
        self.nodes.push(n);
        ValueId::new(self.nodes.len() - 1)
    }

    /// The type an operand resolves to when its context is `ty`.
    fn operand_type(&self, e: &ExprDecl, ty: ElemType) -> R<ElemType> {
        let scope = &*self.scope;
        let lookup = |a: &AccessDecl| {
            scope
                .tensors
                .iter()
                .find(|(d, _)| scope.declared[*d].name == a.tensor)
                .map(|(_, t)| t.elem)
        };
        let is_index = |n: &str| scope.indices.iter().any(|(i, ..)| i.name == n);
        Ok(match infer(e, &lookup, &is_index)? {
            Ty::Known(t) => t,
            Ty::AnyFloat if !ty.is_float() => ElemType::F64,
            Ty::AnyInt | Ty::AnyFloat => ty,
        })
    }

    /// Lowers `e`, whose type the checks resolved to `ty`.
    fn build(&mut self, e: &ExprDecl, ty: ElemType) -> R<ValueId> {
        Ok(match &e.kind {
            ExprKind::Int(v) => {
                if ty == ElemType::I32 && i32::try_from(*v).is_err() {
                    return Err(KernelError::new(e.pos, ErrorKind::LiteralRange(*v, ty.name())));
                }
                self.node(Op::Int(*v), ty)
            }
            ExprKind::Float(v) => self.node(Op::Float(*v), ty),
            ExprKind::Name(n) => return Err(KernelError::new(e.pos, ErrorKind::UnknownName(n.clone()))),
            ExprKind::Read(a) => {
                let acc = self.scope.access(a)?;
                self.node(Op::Load(acc), ty)
            }
            ExprKind::Neg(x) => {
                let x = self.build(x, ty)?;
                self.node(Op::Unary(UnOp::Neg, x), ty)
            }
            ExprKind::Binary(op, _, a, b) => {
                let (a, b) = (self.build(a, ty)?, self.build(b, ty)?);
                self.node(Op::Binary(*op, a, b), ty)
            }
            ExprKind::Call(f, args) => {
                let mut v = Vec::with_capacity(args.len());
                for x in args {
                    let t = match f {
                        Call::Cast(_) => self.operand_type(x, ty)?,
                        _ => ty,
                    };
                    v.push(self.build(x, t)?);
                }
                let op = match (f, v.as_slice()) {
                    (Call::Max, [a, b]) => Op::Binary(tessera_codegen::kernel::BinOp::Max, *a, *b),
                    (Call::Min, [a, b]) => Op::Binary(tessera_codegen::kernel::BinOp::Min, *a, *b),
                    (Call::Abs, [a]) => Op::Unary(UnOp::Abs, *a),
                    (Call::Neg, [a]) => Op::Unary(UnOp::Neg, *a),
                    (Call::Fma, [a, b, c]) => Op::Fma(*a, *b, *c),
                    (Call::Cast(_), [a]) => Op::Cast(*a),
                    _ => {
                        return Err(KernelError::new(
                            e.pos,
                            ErrorKind::BadCall("wrong number of arguments".into()),
                        ));
                    }
                };
                self.node(op, ty)
            }
        })
    }
}
