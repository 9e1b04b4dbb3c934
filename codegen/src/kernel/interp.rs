//! The reference interpreter: runs a proved kernel on typed buffers, evaluating the layouts
//! directly (no JIT, no index IR). It is the oracle a compiled backend is compared against.
//!
//! Semantics, exactly:
//! * Statements run one after the other, each over its whole iteration domain.
//! * `=`: for every point of the target's indices, the value is computed and stored. A copy
//!   (`dst[..] = src[..]` of one element type) moves the bits unchanged (NaN payloads included).
//! * `+=`: for every point of the target's indices, the accumulator starts at the target's
//!   current element (converted to the compute type), the value is added for every point of the
//!   contraction indices in row-major order (the first contraction index outermost, the last
//!   fastest), and the sum is stored once. A read of the target itself (at the indices it
//!   writes: the front end refuses other indices) reads the buffer, that is the element as it
//!   was before this statement stored it, not the running sum.
//! * Compute types: `f32` for `f32`, `f16` and `bf16` (f16/bf16 are widened exactly on load and
//!   rounded to nearest even on store), `f64`, `i32`, `i64`. Integer arithmetic wraps (two's
//!   complement, as a compiled kernel's would), integer division truncates, and an integer
//!   division by zero is an error. `fma` is fused (`mul_add`). Casts from floats to integers
//!   saturate (NaN becomes 0), as Rust's `as` does; casts between integer types wrap (two's
//!   complement).
//! * NaN: a statement that computes its value (any operation, cast or `+=`) stores a NaN as the
//!   canonical quiet NaN ([`canonical`]: `0x7fc00000` in f32, `0x7ff8000000000000` in f64,
//!   `0x7e00` in f16, `0x7fc0` in bf16), whatever sign and payload the arithmetic gave; a plain
//!   copy moves bits, NaN payloads included. The JIT follows the same rule.
//! * Float `max`/`min` are IEEE 754-2019 `maximumNumber`/`minimumNumber`: a NaN operand is
//!   ignored and `+0 > -0`. f16/bf16 narrowing rounds to nearest even ([`super::f32_to_f16`]).
//! * The outer iteration order is row-major over the target's indices; it does not change the
//!   result, since the output layout is proved injective and no statement reads its own
//!   output at other indices (the front end refuses that race).
//! * Every offset is checked against its buffer before it is used; for a proved kernel the
//!   check never fails, for one accepted `unchecked` it is an error instead of a wild access.

use super::buffer::Buffer;
use super::error::RunError;
use super::ir::{Access, BinOp, ElemType, Kernel, Op, Stmt, StoreKind, UnOp};
use super::proof::Proved;
use super::round::{bf16_to_f32, f16_to_f32, f32_to_bf16, f32_to_f16};
use half::{bf16, f16};
use std::collections::HashMap;

/// A value in its compute type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// `f32`, also the compute type of `f16` and `bf16`.
    F32(f32),
    /// `f64`.
    F64(f64),
    /// `i32`.
    I32(i32),
    /// `i64`.
    I64(i64),
}

/// The offsets of one tensor at the bound values.
struct Table {
    /// The layout's offset at each linear (colexicographic) index of its domain.
    offsets: Vec<i64>,
    /// The multiplier of each dimension's index in the linear index.
    mult: Vec<i64>,
    /// The buffer's length.
    len: usize,
}

/// Runs a proved kernel with the parameters `bindings` on `buffers`, one per tensor in the
/// order of [`Kernel::tensors`], each exactly the tensor's cosize long.
///
/// ```
/// use std::collections::HashMap;
/// use std::sync::Arc;
/// use tessera_codegen::kernel::*;
/// use tessera_ir::{Int, sym::{Facts, SymInt}};
/// use tessera_verifier::{Func, Options};
/// let facts = Arc::new(Facts::default());
/// let tensor = |name: &str, l: &str| {
///     let layout = Func::parse(l, &facts).unwrap();
///     let Func::Layout(ly) = &layout else { unreachable!() };
///     Tensor { name: name.into(), elem: ElemType::F32, dims: ly.shape().modes().iter()
///         .map(|m| SymInt::product(m.leaves()).unwrap()).collect(),
///         cosize: ly.cosize().unwrap(), layout }
/// };
/// let (src, dst) = (TensorId::new(0), TensorId::new(1));
/// let (i, j) = (IndexId::new(0), IndexId::new(1));
/// let k = Kernel {
///     name: "transpose".into(),
///     tensors: vec![tensor("src", "(2,3):(1,2)"), tensor("dst", "(2,3):(3,1)")],
///     indices: vec![Index { name: "i".into(), extent: SymInt::lit(2) },
///                   Index { name: "j".into(), extent: SymInt::lit(3) }],
///     tiles: vec![],
///     threads: vec![],
///     stages: vec![],
///     vector: None,
///     stmts: vec![Stmt {
///         target: Access { tensor: dst, indices: vec![i, j] },
///         kind: StoreKind::Assign,
///         nodes: vec![Node { op: Op::Load(Access { tensor: src, indices: vec![i, j] }), ty: ElemType::F32 }],
///         value: ValueId::new(0),
///         outer: vec![i, j],
///         contraction: vec![],
///     }],
/// };
/// let p = Proved::check(k, &Options::default(), false).unwrap();
/// let mut bufs = vec![Buffer::F32((0..6).map(|x| x as f32).collect()), Buffer::zeros(ElemType::F32, 6)];
/// run(&p, &HashMap::new(), &mut bufs).unwrap();
/// assert_eq!(bufs[1], Buffer::F32(vec![0.0, 2.0, 4.0, 1.0, 3.0, 5.0]));
/// ```
pub fn run(p: &Proved, bindings: &HashMap<String, i64>, buffers: &mut [Buffer]) -> Result<(), RunError> {
    run_impl(p, bindings, buffers, None)
}

/// As [`run`], and also returns, for every element of every float tensor a statement stores
/// (the others get no entries: their values are inputs, or integers, which are exact), the
/// magnitude its value was computed from: `|initial value|` for an element no statement
/// stores, `|v|` for a value
/// `v` stored by `=`, and `|m| + |v_1| + ... + |v_n|` for a `+=` of the terms `v_1 .. v_n`
/// onto an element of magnitude `m` (in f64, from the terms as the interpreter computed
/// them). A sum computed in another order, or fused, differs from the interpreter's by at most
/// a few units of rounding times this magnitude (not times the sum, which cancellation may
/// make small): it is what a tolerance for reordered sums is relative to.
///
/// @pre as [`run`].
/// @post `Ok(m)`: `m.len() == buffers.len()`; `m[t].len() == buffers[t].len()` and every
/// `m[t][i] >= |buffers[t][i]|` (NaN where the value is NaN) for a float tensor a statement
/// stores, `m[t]` empty for any other; the buffers hold what [`run`] leaves.
///
/// ```
/// use std::collections::HashMap;
/// use std::sync::Arc;
/// use tessera_codegen::kernel::*;
/// use tessera_ir::{Int, sym::{Facts, SymInt}};
/// use tessera_verifier::{Func, Options};
/// let facts = Arc::new(Facts::default());
/// let tensor = |name: &str, l: &str| {
///     let layout = Func::parse(l, &facts).unwrap();
///     let Func::Layout(ly) = &layout else { unreachable!() };
///     Tensor { name: name.into(), elem: ElemType::F32, dims: ly.shape().modes().iter()
///         .map(|m| SymInt::product(m.leaves()).unwrap()).collect(),
///         cosize: ly.cosize().unwrap(), layout }
/// };
/// // y[i] += a[i,j]: a 2 x 2 sum over j.
/// let (a, y) = (TensorId::new(0), TensorId::new(1));
/// let (i, j) = (IndexId::new(0), IndexId::new(1));
/// let k = Kernel {
///     name: "rowsum".into(),
///     tensors: vec![tensor("a", "(2,2):(1,2)"), tensor("y", "2:1")],
///     indices: vec![Index { name: "i".into(), extent: SymInt::lit(2) },
///                   Index { name: "j".into(), extent: SymInt::lit(2) }],
///     tiles: vec![],
///     threads: vec![],
///     stages: vec![],
///     vector: None,
///     stmts: vec![Stmt {
///         target: Access { tensor: y, indices: vec![i] },
///         kind: StoreKind::Accumulate,
///         nodes: vec![Node { op: Op::Load(Access { tensor: a, indices: vec![i, j] }), ty: ElemType::F32 }],
///         value: ValueId::new(0),
///         outer: vec![i],
///         contraction: vec![j],
///     }],
/// };
/// let p = Proved::check(k, &Options::default(), false).unwrap();
/// // a = [[1, 2.5], [-1, 2.5]] (column-major), y = [0.5, 0].
/// let mut bufs = vec![Buffer::F32(vec![1.0, -1.0, 2.5, 2.5]), Buffer::F32(vec![0.5, 0.0])];
/// let m = run_with_magnitudes(&p, &HashMap::new(), &mut bufs).unwrap();
/// assert_eq!(bufs[1], Buffer::F32(vec![4.0, 1.5]));
/// assert_eq!(m[1], vec![4.0, 3.5]);
/// assert!(m[0].is_empty()); // an input: no magnitudes kept
/// ```
pub fn run_with_magnitudes(
    p: &Proved,
    bindings: &HashMap<String, i64>,
    buffers: &mut [Buffer],
) -> Result<Vec<Vec<f64>>, RunError> {
    // Only the float tensors a statement stores: an input's magnitudes would be its values,
    // kept again for every element.
    let k = p.kernel();
    let stored = |t: usize| {
        k.stmts.iter().any(|s| s.target.tensor.index() == t)
            && k.tensors.get(t).is_some_and(|x| x.elem.is_float())
    };
    let mut mags: Vec<Vec<f64>> = buffers
        .iter()
        .enumerate()
        .map(|(t, b)| match stored(t) {
            true => (0..b.len()).map(|i| magnitude(load(b, i))).collect(),
            false => Vec::new(),
        })
        .collect();
    run_impl(p, bindings, buffers, Some(&mut mags))?;
    Ok(mags)
}

fn run_impl(
    p: &Proved,
    bindings: &HashMap<String, i64>,
    buffers: &mut [Buffer],
    mut mags: Option<&mut Vec<Vec<f64>>>,
) -> Result<(), RunError> {
    let k = p.kernel();
    super::bind::check_bindings(k, bindings)?;
    if let Some(b) = p.bound() {
        for (name, v) in b {
            if bindings.get(name) != Some(v) {
                return Err(RunError::NotProvedFor {
                    name: name.clone(),
                    proved: *v,
                });
            }
        }
    }
    if buffers.len() != k.tensors.len() {
        return Err(RunError::BufferCount {
            expected: k.tensors.len(),
            got: buffers.len(),
        });
    }
    let lay = |e: tessera_ir::Error| RunError::Layout(e.to_string());
    let mut tables = Vec::with_capacity(k.tensors.len());
    for (t, b) in k.tensors.iter().zip(buffers.iter()) {
        if b.elem() != t.elem {
            return Err(RunError::BufferType {
                tensor: t.name.clone(),
                expected: t.elem.name(),
                got: b.elem().name(),
            });
        }
        let cosize = t.cosize.eval(bindings).map_err(lay)?;
        if usize::try_from(cosize).ok() != Some(b.len()) {
            return Err(RunError::BufferLength {
                tensor: t.name.clone(),
                expected: cosize,
                got: b.len(),
            });
        }
        let c = t.layout.at(bindings).map_err(lay)?;
        let offsets = match c.offsets().map_err(lay)? {
            Some(o) => o,
            None => {
                let n = c.size().map_err(lay)?;
                (0..n)
                    .map(|i| c.offset(i))
                    .collect::<Result<_, _>>()
                    .map_err(lay)?
            }
        };
        let mut mult = Vec::with_capacity(t.dims.len());
        let mut m = 1i64;
        for d in &t.dims {
            mult.push(m);
            m = m
                .checked_mul(d.eval(bindings).map_err(lay)?)
                .ok_or_else(|| RunError::Layout("size overflows i64".into()))?;
        }
        tables.push(Table {
            offsets,
            mult,
            len: b.len(),
        });
    }
    let extents: Vec<i64> = k
        .indices
        .iter()
        .map(|x| x.extent.eval(bindings).map_err(lay))
        .collect::<Result<_, _>>()?;
    for s in &k.stmts {
        let mag = mags
            .as_deref_mut()
            .map(|m| &mut m[s.target.tensor.index()][..])
            .filter(|m| !m.is_empty());
        run_stmt(k, s, &extents, &tables, buffers, mag)?;
    }
    Ok(())
}

/// Advances a row-major odometer over `idx` (the last fastest); false when it wraps.
fn advance(point: &mut [i64], idx: &[usize], extents: &[i64]) -> bool {
    for &x in idx.iter().rev() {
        point[x] += 1;
        if point[x] < extents[x] {
            return true;
        }
        point[x] = 0;
    }
    false
}

/// The checked offset of an access at a point.
fn offset(k: &Kernel, a: &Access, point: &[i64], tables: &[Table]) -> Result<usize, RunError> {
    let t = &tables[a.tensor.index()];
    let lin: i64 = a
        .indices
        .iter()
        .zip(&t.mult)
        .map(|(x, m)| point[x.index()] * m)
        .sum();
    let off = usize::try_from(lin)
        .ok()
        .and_then(|l| t.offsets.get(l).copied())
        .unwrap_or(-1);
    match usize::try_from(off) {
        Ok(o) if o < t.len => Ok(o),
        _ => Err(RunError::OutOfBounds {
            tensor: k.tensors[a.tensor.index()].name.clone(),
            offset: off,
            len: t.len,
        }),
    }
}

fn run_stmt(
    k: &Kernel,
    s: &Stmt,
    extents: &[i64],
    tables: &[Table],
    bufs: &mut [Buffer],
    mut mag: Option<&mut [f64]>,
) -> Result<(), RunError> {
    let outer: Vec<usize> = s.outer.iter().map(|x| x.index()).collect();
    let inner: Vec<usize> = s.contraction.iter().map(|x| x.index()).collect();
    if outer.iter().chain(&inner).any(|&x| extents[x] <= 0) {
        return Ok(());
    }
    let mut point = vec![0i64; extents.len()];
    let mut vals = vec![Scalar::I64(0); s.nodes.len()];
    let ty = k.tensors[s.target.tensor.index()].elem;
    // A plain copy moves bits.
    let copy = match (&s.nodes[s.value.index()].op, s.kind) {
        (Op::Load(a), StoreKind::Assign) if k.tensors[a.tensor.index()].elem == ty => Some(a),
        _ => None,
    };
    loop {
        let dst = offset(k, &s.target, &point, tables)?;
        if let Some(a) = copy {
            let src = offset(k, a, &point, tables)?;
            copy_elem(bufs, a.tensor.index(), src, s.target.tensor.index(), dst);
            if let Some(m) = mag.as_deref_mut() {
                m[dst] = magnitude(load(&bufs[s.target.tensor.index()], dst));
            }
        } else {
            let v = match s.kind {
                StoreKind::Assign => {
                    let v = eval(k, s, &point, tables, bufs, &mut vals)?;
                    if let Some(m) = mag.as_deref_mut() {
                        m[dst] = magnitude(v);
                    }
                    v
                }
                StoreKind::Accumulate => {
                    let mut acc = load(&bufs[s.target.tensor.index()], dst);
                    loop {
                        let v = eval(k, s, &point, tables, bufs, &mut vals)?;
                        acc = binary(BinOp::Add, acc, v)?;
                        if let Some(m) = mag.as_deref_mut() {
                            m[dst] += magnitude(v);
                        }
                        if !advance(&mut point, &inner, extents) {
                            break;
                        }
                    }
                    acc
                }
            };
            store(&mut bufs[s.target.tensor.index()], dst, canonical(v));
        }
        if !advance(&mut point, &outer, extents) {
            return Ok(());
        }
    }
}

/// Copies one element between buffers of one type, bit for bit.
fn copy_elem(bufs: &mut [Buffer], src_t: usize, src: usize, dst_t: usize, dst: usize) {
    macro_rules! cp {
        ($($v:ident),*) => {
            match bufs[src_t] {
                $(Buffer::$v(ref b) => {
                    let x = b[src];
                    if let Buffer::$v(ref mut d) = bufs[dst_t] {
                        d[dst] = x;
                    }
                })*
            }
        };
    }
    cp!(F32, F64, I32, I64, F16, BF16);
}

/// Evaluates the statement's DAG at a point; the stored value.
fn eval(
    k: &Kernel,
    s: &Stmt,
    point: &[i64],
    tables: &[Table],
    bufs: &[Buffer],
    vals: &mut [Scalar],
) -> Result<Scalar, RunError> {
    for (n, node) in s.nodes.iter().enumerate() {
        let v = match &node.op {
            Op::Load(a) => load(&bufs[a.tensor.index()], offset(k, a, point, tables)?),
            Op::Int(c) => cast_i64(*c, node.ty),
            Op::Float(c) => cast_f64(*c, node.ty),
            Op::Unary(op, a) => unary(*op, vals[a.index()]),
            Op::Binary(op, a, b) => binary(*op, vals[a.index()], vals[b.index()])?,
            Op::Fma(a, b, c) => fma(vals[a.index()], vals[b.index()], vals[c.index()]),
            Op::Cast(a) => cast(vals[a.index()], node.ty),
        };
        vals[n] = v;
    }
    Ok(vals[s.value.index()])
}

/// A computed value with a NaN replaced by the canonical quiet NaN (sign clear, quiet bit set,
/// payload zero), the rule every backend follows for a value it computes (a plain copy moves
/// bits instead): `0x7fc00000` in f32, which f16 and bf16 round to `0x7e00` and `0x7fc0`.
///
/// ```
/// use tessera_codegen::kernel::{Scalar, canonical};
/// let Scalar::F32(x) = canonical(Scalar::F32(f32::from_bits(0xffc0_0001))) else { panic!() };
/// assert_eq!(x.to_bits(), 0x7fc0_0000);
/// ```
pub fn canonical(x: Scalar) -> Scalar {
    match x {
        Scalar::F32(v) if v.is_nan() => Scalar::F32(f32::from_bits(0x7fc0_0000)),
        Scalar::F64(v) if v.is_nan() => Scalar::F64(f64::from_bits(0x7ff8_0000_0000_0000)),
        x => x,
    }
}

/// `|x|` in f64 (exact for every type but an i64 beyond 2^53).
fn magnitude(x: Scalar) -> f64 {
    match x {
        Scalar::F32(v) => f64::from(v).abs(),
        Scalar::F64(v) => v.abs(),
        Scalar::I32(v) => f64::from(v).abs(),
        Scalar::I64(v) => (v as f64).abs(),
    }
}

fn load(b: &Buffer, o: usize) -> Scalar {
    match b {
        Buffer::F32(v) => Scalar::F32(v[o]),
        Buffer::F64(v) => Scalar::F64(v[o]),
        Buffer::I32(v) => Scalar::I32(v[o]),
        Buffer::I64(v) => Scalar::I64(v[o]),
        Buffer::F16(v) => Scalar::F32(f16_to_f32(v[o].to_bits())),
        Buffer::BF16(v) => Scalar::F32(bf16_to_f32(v[o].to_bits())),
    }
}

fn store(b: &mut Buffer, o: usize, x: Scalar) {
    // A value of the buffer's own compute type is stored as it is (through f64 a signalling
    // NaN would be made quiet).
    match (&mut *b, x) {
        (Buffer::F32(v), Scalar::F32(x)) => return v[o] = x,
        (Buffer::F16(v), Scalar::F32(x)) => return v[o] = f16::from_bits(f32_to_f16(x)),
        (Buffer::BF16(v), Scalar::F32(x)) => return v[o] = bf16::from_bits(f32_to_bf16(x)),
        _ => {}
    }
    match b {
        Buffer::F32(v) => v[o] = as_f64(x) as f32,
        Buffer::F64(v) => v[o] = as_f64(x),
        Buffer::I32(v) => v[o] = as_i64(x) as i32,
        Buffer::I64(v) => v[o] = as_i64(x),
        // Rounded to nearest, ties to even (see `round`).
        Buffer::F16(v) => v[o] = f16::from_bits(f32_to_f16(as_f64(x) as f32)),
        Buffer::BF16(v) => v[o] = bf16::from_bits(f32_to_bf16(as_f64(x) as f32)),
    }
}

fn as_f64(x: Scalar) -> f64 {
    match x {
        Scalar::F32(v) => f64::from(v),
        Scalar::F64(v) => v,
        Scalar::I32(v) => f64::from(v),
        Scalar::I64(v) => v as f64,
    }
}

fn as_i64(x: Scalar) -> i64 {
    match x {
        Scalar::F32(v) => v as i64,
        Scalar::F64(v) => v as i64,
        Scalar::I32(v) => i64::from(v),
        Scalar::I64(v) => v,
    }
}

/// The value of a constant node (`Int` or `Float`) in its compute type, as every backend
/// uses it; `None` for other operations.
pub(crate) fn constant(op: &Op, ty: ElemType) -> Option<Scalar> {
    match op {
        Op::Int(c) => Some(cast_i64(*c, ty)),
        Op::Float(c) => Some(cast_f64(*c, ty)),
        _ => None,
    }
}

fn cast_i64(c: i64, ty: ElemType) -> Scalar {
    cast(Scalar::I64(c), ty)
}

fn cast_f64(c: f64, ty: ElemType) -> Scalar {
    cast(Scalar::F64(c), ty)
}

/// Converts to the compute type of `ty`; f16/bf16 values are rounded to the type (and held
/// in f32).
fn cast(x: Scalar, ty: ElemType) -> Scalar {
    match ty {
        ElemType::F32 => Scalar::F32(match x {
            Scalar::F32(v) => v,
            Scalar::F64(v) => v as f32,
            Scalar::I32(v) => v as f32,
            Scalar::I64(v) => v as f32,
        }),
        ElemType::F64 => Scalar::F64(as_f64(x)),
        ElemType::I32 => Scalar::I32(match x {
            Scalar::F32(v) => v as i32,
            Scalar::F64(v) => v as i32,
            Scalar::I32(v) => v,
            Scalar::I64(v) => v as i32,
        }),
        ElemType::I64 => Scalar::I64(as_i64(x)),
        ElemType::F16 => Scalar::F32(f16_to_f32(f32_to_f16(cast_f32(x)))),
        ElemType::BF16 => Scalar::F32(bf16_to_f32(f32_to_bf16(cast_f32(x)))),
    }
}

fn cast_f32(x: Scalar) -> f32 {
    match cast(x, ElemType::F32) {
        Scalar::F32(v) => v,
        _ => 0.0,
    }
}

fn unary(op: UnOp, x: Scalar) -> Scalar {
    match (op, x) {
        (UnOp::Neg, Scalar::F32(v)) => Scalar::F32(-v),
        (UnOp::Neg, Scalar::F64(v)) => Scalar::F64(-v),
        (UnOp::Neg, Scalar::I32(v)) => Scalar::I32(v.wrapping_neg()),
        (UnOp::Neg, Scalar::I64(v)) => Scalar::I64(v.wrapping_neg()),
        (UnOp::Abs, Scalar::F32(v)) => Scalar::F32(v.abs()),
        (UnOp::Abs, Scalar::F64(v)) => Scalar::F64(v.abs()),
        (UnOp::Abs, Scalar::I32(v)) => Scalar::I32(v.wrapping_abs()),
        (UnOp::Abs, Scalar::I64(v)) => Scalar::I64(v.wrapping_abs()),
    }
}

/// IEEE 754-2019 `maximumNumber` (with `>`) or `minimumNumber` (with `<`): a NaN operand is
/// ignored (two NaNs give the second), and `+0` is above `-0`. Every backend computes these
/// bits (Rust's own `max` leaves the zeros' order open).
macro_rules! max_num {
    ($a:expr, $b:expr, $cmp:tt) => {{
        let (a, b) = ($a, $b);
        if a.is_nan() {
            b
        } else if b.is_nan() {
            a
        } else if a == b {
            // Equal: differ only for zeros of opposite signs.
            if (a.is_sign_negative() $cmp b.is_sign_negative()) { b } else { a }
        } else if a $cmp b {
            a
        } else {
            b
        }
    }};
}

macro_rules! float_op {
    ($op:expr, $a:expr, $b:expr) => {
        match $op {
            BinOp::Add => $a + $b,
            BinOp::Sub => $a - $b,
            BinOp::Mul => $a * $b,
            BinOp::Div => $a / $b,
            BinOp::Max => max_num!($a, $b, >),
            BinOp::Min => max_num!($a, $b, <),
        }
    };
}

macro_rules! int_op {
    ($op:expr, $a:expr, $b:expr, $ty:expr) => {
        match $op {
            BinOp::Add => $a.wrapping_add($b),
            BinOp::Sub => $a.wrapping_sub($b),
            BinOp::Mul => $a.wrapping_mul($b),
            BinOp::Div if $b == 0 => return Err(RunError::DivisionByZero($ty)),
            BinOp::Div => $a.wrapping_div($b),
            BinOp::Max => $a.max($b),
            BinOp::Min => $a.min($b),
        }
    };
}

fn binary(op: BinOp, a: Scalar, b: Scalar) -> Result<Scalar, RunError> {
    Ok(match (a, b) {
        (Scalar::F32(x), Scalar::F32(y)) => Scalar::F32(float_op!(op, x, y)),
        (Scalar::F64(x), Scalar::F64(y)) => Scalar::F64(float_op!(op, x, y)),
        (Scalar::I32(x), Scalar::I32(y)) => Scalar::I32(int_op!(op, x, y, ElemType::I32)),
        (Scalar::I64(x), Scalar::I64(y)) => Scalar::I64(int_op!(op, x, y, ElemType::I64)),
        // The front end types both operands alike; mixed operands are computed in f64.
        (x, y) => Scalar::F64(float_op!(op, as_f64(x), as_f64(y))),
    })
}

fn fma(a: Scalar, b: Scalar, c: Scalar) -> Scalar {
    match (a, b, c) {
        (Scalar::F32(x), Scalar::F32(y), Scalar::F32(z)) => Scalar::F32(x.mul_add(y, z)),
        (Scalar::I32(x), Scalar::I32(y), Scalar::I32(z)) => Scalar::I32(x.wrapping_mul(y).wrapping_add(z)),
        (Scalar::I64(x), Scalar::I64(y), Scalar::I64(z)) => Scalar::I64(x.wrapping_mul(y).wrapping_add(z)),
        (x, y, z) => Scalar::F64(as_f64(x).mul_add(as_f64(y), as_f64(z))),
    }
}
