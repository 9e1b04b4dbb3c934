//! A statement's expression DAG as Cranelift instructions, one lane or four at a time, with the
//! reference interpreter's semantics exactly (see [`crate::kernel::run`]): f16/bf16 widened on
//! load and rounded to nearest even on store, `maximumNumber`/`minimumNumber` for float
//! `max`/`min`, wrapping integer arithmetic, saturating float-to-integer casts, integer
//! division by zero reported (never a trap).

use super::prepare::TensorCode;
use crate::jit::convert::{self, Width};
use crate::jit::index;
use crate::kernel::{Access, BinOp, ElemType, IndexId, Node, Op, Scalar, Stmt, UnOp, constant};
use crate::plan::Plan;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{Block, InstBuilder, MemFlagsData, Type, Value, types};
use cranelift_frontend::FunctionBuilder;
use std::collections::HashMap;
use tessera_ir::index::Var;

/// The status a compiled statement returns for an integer division by zero of type `t`.
pub(crate) fn division_status(t: ElemType) -> i64 {
    1 + ElemType::ALL.iter().position(|x| *x == t).unwrap_or(0) as i64
}

/// The status for an offset outside the buffer of tensor `t` (kernels run `unchecked` only).
pub(crate) const OUT_OF_BOUNDS: i64 = 100;

/// The Cranelift type of one lane of `t`'s compute type.
pub(crate) fn scalar_type(t: ElemType) -> Type {
    match t {
        ElemType::F32 | ElemType::F16 | ElemType::BF16 => types::F32,
        ElemType::F64 => types::F64,
        ElemType::I32 => types::I32,
        ElemType::I64 => types::I64,
    }
}

/// The four-lane vector type of `t`'s compute type (only for 32-bit compute types).
fn vector_type(t: ElemType) -> Type {
    match t {
        ElemType::I32 => types::I32X4,
        _ => types::F32X4,
    }
}

/// Whether a statement computes in four lanes: every value a 32-bit lane (`f32`, `f16`,
/// `bf16`, `i32`), and no integer division (which has no vector form that reports a zero
/// divisor).
pub(crate) fn vectorizable_types(s: &Stmt, target: ElemType) -> bool {
    let lane32 = |t: ElemType| !matches!(t, ElemType::F64 | ElemType::I64);
    lane32(target)
        && s.nodes
            .iter()
            .all(|n| lane32(n.ty) && (n.ty.is_float() || !matches!(n.op, Op::Binary(BinOp::Div, ..))))
}

/// How an access moves with the vectorised index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Along {
    /// Four consecutive elements (proved contiguous).
    Contiguous,
    /// One element for all four lanes (the access does not move).
    Invariant,
}

/// Everything the code of one statement reads: the kernel, the tensors' index code, the
/// buffers' base addresses, the failure block.
pub(crate) struct Env<'a, 'p> {
    /// Each tensor's index code and buffer.
    pub tensors: &'a [TensorCode],
    /// Each tensor's plan (`None` for a tensor the kernel never touches with a non-empty
    /// domain).
    pub plans: &'a [Option<Plan<'p>>],
    /// Each tensor's base address (`None` where unused).
    pub bases: Vec<Option<Value>>,
    /// The block that returns a status: parameters (status, offset).
    pub fail: Block,
    /// Whether offsets not proved in bounds are checked (kernels run `unchecked`).
    pub checked: bool,
    /// In four-lane code: the vectorised index and how each tensor moves along it.
    pub vector: Option<(IndexId, HashMap<usize, Along>)>,
    /// Within a chunk of 16-bit float tiles: the scratch tiles that stand for the staged
    /// accesses (see [`super::staging`]).
    pub staged: Option<Staged>,
}

/// The `f32` scratch tiles of one chunk along the innermost index: a staged load reads its
/// tile (widened before the chunk runs), a staged target's store writes its tile (narrowed
/// after).
#[derive(Clone)]
pub(crate) struct Staged {
    /// The innermost index.
    pub inner: IndexId,
    /// Its value at the chunk's first element.
    pub start: Value,
    /// Each staged load and the address of its tile.
    pub loads: Vec<(Access, Value)>,
    /// The target's tile, when the target is staged.
    pub target: Option<Value>,
}

impl Env<'_, '_> {
    /// This environment within a chunk of staged tiles.
    pub(crate) fn with_staged(&self, staged: Staged) -> Self {
        Env {
            tensors: self.tensors,
            plans: self.plans,
            bases: self.bases.clone(),
            fail: self.fail,
            checked: self.checked,
            vector: self.vector.clone(),
            staged: Some(staged),
        }
    }

    /// The address in its scratch tile of the element `point` of the staged `tile` (the
    /// element's distance from the chunk's start, in `f32`s).
    fn in_tile(&self, b: &mut FunctionBuilder<'_>, tile: Value, point: &HashMap<IndexId, Value>) -> Value {
        let st = self.staged.as_ref().expect("a staged chunk");
        let k = b.ins().isub(point[&st.inner], st.start);
        let bytes = b.ins().imul_imm_s(k, 4);
        b.ins().iadd(tile, bytes)
    }

    /// The tile standing for load `a`, if it is staged.
    fn staged_load(&self, a: &Access) -> Option<Value> {
        let st = self.staged.as_ref()?;
        st.loads.iter().find(|(x, _)| x == a).map(|(_, t)| *t)
    }

    /// The width of the code being built.
    pub(crate) fn width(&self) -> Width {
        if self.vector.is_some() {
            Width::Vector
        } else {
            Width::Scalar
        }
    }

    /// The element offset of `a` at `point` (the value of each index).
    pub(crate) fn offset(
        &self,
        b: &mut FunctionBuilder<'_>,
        a: &Access,
        point: &HashMap<IndexId, Value>,
    ) -> Value {
        let t = a.tensor.index();
        let inputs: HashMap<Var, Value> = a
            .indices
            .iter()
            .enumerate()
            .map(|(d, x)| (Var::Coord(d as u32), point[x]))
            .collect();
        let plan = self.plans[t].as_ref().expect("a plan for every accessed tensor");
        index::build(b, plan, &inputs)[0]
    }

    /// The address of `a` at `point`, after the bounds check where one is due (`lanes`
    /// consecutive elements).
    pub(crate) fn address(
        &self,
        b: &mut FunctionBuilder<'_>,
        a: &Access,
        point: &HashMap<IndexId, Value>,
        lanes: i64,
    ) -> Value {
        let t = a.tensor.index();
        let off = self.offset(b, a, point);
        let code = &self.tensors[t];
        if self.checked && !code.in_bounds {
            // Unsigned: a negative offset fails too.
            let limit = code.len as i64 - (lanes - 1);
            let ok = b.ins().icmp_imm_u(IntCC::UnsignedLessThan, off, limit.max(0));
            let next = b.create_block();
            let status = b.ins().iconst(types::I64, OUT_OF_BOUNDS + t as i64);
            b.ins()
                .brif(ok, next, &[], self.fail, &[status.into(), off.into()]);
            b.switch_to_block(next);
        }
        let bytes = b.ins().imul_imm_s(off, code.elem.bytes() as i64);
        b.ins()
            .iadd(self.bases[t].expect("a base for every accessed tensor"), bytes)
    }

    /// How `a` moves in four-lane code (`None` in one-lane code).
    fn along(&self, a: &Access) -> Option<Along> {
        let (_, modes) = self.vector.as_ref()?;
        Some(modes[&a.tensor.index()])
    }

    /// The value of `a` at `point`, in its compute type (and the code's width).
    pub(crate) fn load(
        &self,
        b: &mut FunctionBuilder<'_>,
        a: &Access,
        point: &HashMap<IndexId, Value>,
    ) -> Value {
        let elem = self.tensors[a.tensor.index()].elem;
        let flags = MemFlagsData::trusted();
        if let Some(tile) = self.staged_load(a) {
            // Widened before the chunk: f32 lanes in the scratch tile.
            let addr = self.in_tile(b, tile, point);
            let unaligned = MemFlagsData::new().with_notrap();
            return match self.width() {
                Width::Vector => b.ins().load(types::F32X4, unaligned, addr, 0),
                Width::Scalar => b.ins().load(types::F32, unaligned, addr, 0),
            };
        }
        match self.along(a) {
            Some(Along::Contiguous) => {
                let addr = self.address(b, a, point, 4);
                let unaligned = MemFlagsData::new().with_notrap();
                match elem {
                    ElemType::F16 | ElemType::BF16 => {
                        let h = b.ins().uload16x4(unaligned, addr, 0);
                        widen(b, Width::Vector, elem, h)
                    }
                    _ => b.ins().load(vector_type(elem), unaligned, addr, 0),
                }
            }
            along => {
                let addr = self.address(b, a, point, 1);
                let x = match elem {
                    ElemType::F16 | ElemType::BF16 => {
                        let h = b.ins().uload16(types::I32, flags, addr, 0);
                        widen(b, Width::Scalar, elem, h)
                    }
                    _ => b.ins().load(scalar_type(elem), flags, addr, 0),
                };
                match along {
                    Some(_) => b.ins().splat(vector_type(elem), x),
                    None => x,
                }
            }
        }
    }

    /// Stores `x` (the target's compute type, the code's width) into `a` at `point`; `nan`:
    /// whether `x` may be a NaN (see [`never_nan`]).
    pub(crate) fn store(
        &self,
        b: &mut FunctionBuilder<'_>,
        a: &Access,
        point: &HashMap<IndexId, Value>,
        x: Value,
        nan: bool,
    ) {
        let elem = self.tensors[a.tensor.index()].elem;
        let w = self.width();
        let lanes = if w == Width::Vector { 4 } else { 1 };
        // A computed value: a NaN is stored as the canonical NaN (see `crate::jit::nan`).
        let x = if nan { crate::jit::nan::canonical(b, x) } else { x };
        if let Some(tile) = self.staged.as_ref().and_then(|st| st.target) {
            // Narrowed after the chunk: f32 lanes into the scratch tile.
            let addr = self.in_tile(b, tile, point);
            b.ins().store(MemFlagsData::new().with_notrap(), x, addr, 0);
            return;
        }
        let addr = self.address(b, a, point, lanes);
        let (flags, unaligned) = (MemFlagsData::trusted(), MemFlagsData::new().with_notrap());
        match (elem, w) {
            (ElemType::F16 | ElemType::BF16, Width::Scalar) => {
                let h = narrow(b, w, elem, x);
                b.ins().istore16(flags, h, addr, 0);
            }
            (ElemType::F16 | ElemType::BF16, Width::Vector) => {
                let h = narrow(b, w, elem, x);
                let packed = b.ins().unarrow(h, h);
                let words = w.bits(b, types::I64X2, packed);
                let low = b.ins().extractlane(words, 0);
                b.ins().store(unaligned, low, addr, 0);
            }
            (_, Width::Scalar) => {
                b.ins().store(flags, x, addr, 0);
            }
            (_, Width::Vector) => {
                b.ins().store(unaligned, x, addr, 0);
            }
        }
    }

    /// Moves the bits of `src` into `dst` at `point` (a copy between tensors of one type).
    pub(crate) fn move_bits(
        &self,
        b: &mut FunctionBuilder<'_>,
        src: &Access,
        dst: &Access,
        point: &HashMap<IndexId, Value>,
    ) {
        let elem = self.tensors[dst.tensor.index()].elem;
        let (lanes, ty, flags) = match (self.along(src), elem.bytes()) {
            (Some(Along::Contiguous), 2) => (4, types::I64, MemFlagsData::new().with_notrap()),
            (Some(Along::Contiguous), 4) => (4, types::I32X4, MemFlagsData::new().with_notrap()),
            (Some(Along::Contiguous), _) => (4, types::I64X2, MemFlagsData::new().with_notrap()),
            (_, 2) => (1, types::I16, MemFlagsData::trusted()),
            (_, 4) => (1, types::I32, MemFlagsData::trusted()),
            _ => (1, types::I64, MemFlagsData::trusted()),
        };
        let from = self.address(b, src, point, lanes);
        let x = b.ins().load(ty, flags, from, 0);
        match self.along(src) {
            Some(Along::Contiguous) if elem.bytes() == 8 => {
                // Four 8-byte elements: two vectors.
                let y = b.ins().load(ty, flags, from, 16);
                let to = self.address(b, dst, point, lanes);
                b.ins().store(flags, x, to, 0);
                b.ins().store(flags, y, to, 16);
            }
            Some(Along::Contiguous) => {
                let to = self.address(b, dst, point, lanes);
                b.ins().store(flags, x, to, 0);
            }
            Some(Along::Invariant) => {
                // One element for four lanes: stored four times, one lane at a time.
                let (ix, _) = self.vector.as_ref().expect("four-lane code");
                for l in 0..4 {
                    let mut p = point.clone();
                    let at = b.ins().iadd_imm_s(point[ix], l);
                    p.insert(*ix, at);
                    let to = self.address(b, dst, &p, 1);
                    b.ins().store(flags, x, to, 0);
                }
            }
            None => {
                let to = self.address(b, dst, point, 1);
                b.ins().store(flags, x, to, 0);
            }
        }
    }

    /// The value of the statement's DAG at `point` (the stored value, before rounding to a
    /// 16-bit type).
    pub(crate) fn eval(
        &self,
        b: &mut FunctionBuilder<'_>,
        s: &Stmt,
        point: &HashMap<IndexId, Value>,
    ) -> Value {
        let w = self.width();
        let mut vals: Vec<Value> = Vec::with_capacity(s.nodes.len());
        for node in &s.nodes {
            let ty = node.ty;
            let v = match &node.op {
                Op::Load(a) => self.load(b, a, point),
                Op::Int(_) | Op::Float(_) => {
                    let c = constant(&node.op, ty).expect("a constant node");
                    let x = konst(b, c);
                    match w {
                        Width::Scalar => x,
                        Width::Vector => b.ins().splat(vector_type(ty), x),
                    }
                }
                Op::Unary(op, a) => {
                    let x = vals[a.index()];
                    match (op, ty.is_float()) {
                        (UnOp::Neg, true) => b.ins().fneg(x),
                        (UnOp::Neg, false) => b.ins().ineg(x),
                        (UnOp::Abs, true) => b.ins().fabs(x),
                        (UnOp::Abs, false) => b.ins().iabs(x),
                    }
                }
                Op::Binary(op, x, y) => {
                    // A constant operand that is not a NaN needs no NaN test.
                    let number = |v: crate::kernel::ValueId| float_number(&s.nodes[v.index()]);
                    let (xv, yv) = (vals[x.index()], vals[y.index()]);
                    self.binary(b, *op, ty, (xv, number(*x)), (yv, number(*y)))
                }
                Op::Fma(x, y, z) => {
                    let (x, y, z) = (vals[x.index()], vals[y.index()], vals[z.index()]);
                    if ty.is_float() {
                        b.ins().fma(x, y, z)
                    } else {
                        let p = b.ins().imul(x, y);
                        b.ins().iadd(p, z)
                    }
                }
                Op::Cast(a) => cast(b, w, s.nodes[a.index()].ty, ty, vals[a.index()]),
            };
            vals.push(v);
        }
        vals[s.value.index()]
    }

    /// `x op y` in type `ty`; each operand with its value where it is a constant other than
    /// NaN.
    fn binary(
        &self,
        b: &mut FunctionBuilder<'_>,
        op: BinOp,
        ty: ElemType,
        (x, x_number): (Value, Option<f64>),
        (y, y_number): (Value, Option<f64>),
    ) -> Value {
        if ty.is_float() {
            return match op {
                BinOp::Add => b.ins().fadd(x, y),
                BinOp::Sub => b.ins().fsub(x, y),
                BinOp::Mul => b.ins().fmul(x, y),
                BinOp::Div => b.ins().fdiv(x, y),
                BinOp::Max | BinOp::Min => {
                    let max = op == BinOp::Max;
                    // Against a constant number `c` other than the zero that loses the tie
                    // (-0 for max, +0 for min): maximumNumber(v, c) is `v > c ? v : c` and
                    // minimumNumber(v, c) is `v < c ? v : c` (a NaN `v` fails the comparison
                    // and gives `c`, as the other operand of a NaN is the answer; `v == c`
                    // gives `c`, the same bits; `c` is the one zero that wins against the
                    // other). Both are symmetric, so `c` may be either operand.
                    let simple =
                        |c: Option<f64>| c.is_some_and(|c| !(c == 0.0 && c.is_sign_negative() == max));
                    let against = if simple(y_number) {
                        Some((x, y))
                    } else if simple(x_number) {
                        Some((y, x))
                    } else {
                        None
                    };
                    if let Some((v, c)) = against {
                        let cc = if max {
                            FloatCC::GreaterThan
                        } else {
                            FloatCC::LessThan
                        };
                        let keep = b.ins().fcmp(cc, v, c);
                        return select(b, keep, v, c);
                    }
                    // maximumNumber: IEEE `maximum` (NaN-propagating, +0 > -0) with a NaN
                    // operand replaced by the other.
                    let m = if max {
                        b.ins().fmax(x, y)
                    } else {
                        b.ins().fmin(x, y)
                    };
                    let r = if y_number.is_some() {
                        m
                    } else {
                        let y_nan = b.ins().fcmp(FloatCC::Unordered, y, y);
                        select(b, y_nan, x, m)
                    };
                    if x_number.is_some() {
                        r
                    } else {
                        let x_nan = b.ins().fcmp(FloatCC::Unordered, x, x);
                        select(b, x_nan, y, r)
                    }
                }
            };
        }
        match op {
            BinOp::Add => b.ins().iadd(x, y),
            BinOp::Sub => b.ins().isub(x, y),
            BinOp::Mul => b.ins().imul(x, y),
            BinOp::Max => b.ins().smax(x, y),
            BinOp::Min => b.ins().smin(x, y),
            BinOp::Div => {
                // One lane (vector code has no integer division): a zero divisor fails the
                // run; `MIN / -1` wraps to `MIN` as `wrapping_div` does, without the trap.
                let zero = b.ins().icmp_imm_s(IntCC::Equal, y, 0);
                let next = b.create_block();
                let status = b.ins().iconst(types::I64, division_status(ty));
                let off = b.ins().iconst(types::I64, 0);
                b.ins()
                    .brif(zero, self.fail, &[status.into(), off.into()], next, &[]);
                b.switch_to_block(next);
                let t = scalar_type(ty);
                let minus_one = b.ins().icmp_imm_s(IntCC::Equal, y, -1);
                let one = b.ins().iconst(t, 1);
                let safe = b.ins().select(minus_one, one, y);
                let q = b.ins().sdiv(x, safe);
                let neg = b.ins().ineg(x);
                b.ins().select(minus_one, neg, q)
            }
        }
    }
}

/// Whether the value of statement `s` is never a NaN, whatever its inputs: an integer, a
/// constant other than NaN, a float `max`/`min` with such an operand (`maximumNumber` gives a
/// NaN only for two), and a negation, absolute value or cast of such a value. Its store then
/// needs no canonical NaN.
///
/// @pre `s`'s nodes are in order (operands before their uses), as the front end builds them.
pub(crate) fn never_nan(s: &Stmt) -> bool {
    let mut never = Vec::with_capacity(s.nodes.len());
    for n in &s.nodes {
        let v = !n.ty.is_float()
            || match &n.op {
                Op::Int(_) => true,
                Op::Float(_) => float_number(n).is_some(),
                Op::Binary(BinOp::Max | BinOp::Min, x, y) => {
                    never.get(x.index()).copied().unwrap_or(false)
                        || never.get(y.index()).copied().unwrap_or(false)
                }
                Op::Unary(_, a) | Op::Cast(a) => never.get(a.index()).copied().unwrap_or(false),
                Op::Load(_) | Op::Binary(..) | Op::Fma(..) => false,
            };
        never.push(v);
    }
    never.get(s.value.index()).copied().unwrap_or(false)
}

/// The value of `n` when it is a float constant other than NaN (as `f64`, exact for an `f32`).
fn float_number(n: &Node) -> Option<f64> {
    match constant(&n.op, n.ty) {
        Some(Scalar::F32(c)) => Some(f64::from(c)).filter(|c| !c.is_nan()),
        Some(Scalar::F64(c)) => Some(c).filter(|c| !c.is_nan()),
        _ => None,
    }
}

/// Lane-wise `c ? x : y` for a comparison `c` of `x`'s width (a vector mask is reread as
/// `x`'s type).
fn select(b: &mut FunctionBuilder<'_>, c: Value, x: Value, y: Value) -> Value {
    let ty = b.func.dfg.value_type(x);
    if ty.is_vector() {
        let c = if b.func.dfg.value_type(c) == ty {
            c
        } else {
            Width::Vector.bits(b, ty, c)
        };
        b.ins().bitselect(c, x, y)
    } else {
        b.ins().select(c, x, y)
    }
}

/// A constant in its compute type.
fn konst(b: &mut FunctionBuilder<'_>, c: Scalar) -> Value {
    match c {
        Scalar::F32(v) => b.ins().f32const(v),
        Scalar::F64(v) => b.ins().f64const(v),
        // An `i32` immediate is given zero-extended.
        Scalar::I32(v) => b.ins().iconst(types::I32, i64::from(v as u32)),
        Scalar::I64(v) => b.ins().iconst(types::I64, v),
    }
}

/// `f32` lanes from the 16-bit float bits `h` (zero-extended `i32` lanes) of type `t`.
fn widen(b: &mut FunctionBuilder<'_>, w: Width, t: ElemType, h: Value) -> Value {
    match t {
        ElemType::BF16 => convert::bf16_to_f32(b, w, h),
        _ => convert::f16_to_f32(b, w, h),
    }
}

/// The 16-bit float bits (in `i32` lanes) of the `f32` lanes `x`, rounded to nearest even.
fn narrow(b: &mut FunctionBuilder<'_>, w: Width, t: ElemType, x: Value) -> Value {
    match t {
        ElemType::BF16 => convert::f32_to_bf16(b, w, x),
        _ => convert::f32_to_f16(b, w, x),
    }
}

/// Converts `x` of compute type `from` to the compute type of `to` (the interpreter's `cast`).
fn cast(b: &mut FunctionBuilder<'_>, w: Width, from: ElemType, to: ElemType, x: Value) -> Value {
    use ElemType::*;
    let lanes = |t: Type| {
        if w == Width::Vector {
            t.by(4).unwrap_or(t)
        } else {
            t
        }
    };
    let as_f32 = |b: &mut FunctionBuilder<'_>, x: Value| match from {
        F32 | F16 | BF16 => x,
        F64 => b.ins().fdemote(types::F32, x),
        I32 | I64 => b.ins().fcvt_from_sint(lanes(types::F32), x),
    };
    match to {
        F32 => as_f32(b, x),
        F16 | BF16 => {
            let f = as_f32(b, x);
            let h = narrow(b, w, to, f);
            widen(b, w, to, h)
        }
        F64 => match from {
            F32 | F16 | BF16 => b.ins().fpromote(types::F64, x),
            F64 => x,
            I32 | I64 => b.ins().fcvt_from_sint(types::F64, x),
        },
        I32 => match from {
            F32 | F16 | BF16 | F64 => b.ins().fcvt_to_sint_sat(lanes(types::I32), x),
            I32 => x,
            I64 => b.ins().ireduce(types::I32, x),
        },
        I64 => match from {
            F32 | F16 | BF16 | F64 => b.ins().fcvt_to_sint_sat(types::I64, x),
            I32 => b.ins().sextend(types::I64, x),
            I64 => x,
        },
    }
}
