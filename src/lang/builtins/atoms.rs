//! The atom built-ins: CuTe's MMA and copy atoms, `make_tiled_mma`, `make_tiled_copy` and
//! their thread-value layouts and thread partitions (`tessera_ir::atom`).
//!
//! An atom is named as CuTe C++ names it (`SM80_16x8x16_F32F16F16F32_TN`,
//! `SM75_U32x4_LDSM_N`), a type template argument as its bit width (`UniversalCopy_128`,
//! `UniversalFMA_F32`), GMMA's `Major` arguments as a suffix (`SM90_64x64x16_F16F16F16_SS_TN`).

use super::Call;
use crate::lang::Value;
use crate::lang::atom_value::AtomValue;
use std::sync::Arc;
use tessera_ir::atom::{
    CopyAtom, Operand, Permutation, Side, TiledCopy, TiledMma, copy_op, cute, mma_atom,
    smem_atom as smem_atom_of, tma_swizzle as tma_swizzle_of,
};
use tessera_ir::text::ExprKind;
use tessera_ir::{ComposedLayout, Error, HTuple, Int, Layout, Result, Stride};

/// A concrete integer.
fn konst<I: Int>(v: &I) -> Result<i64> {
    v.as_const()
        .ok_or_else(|| Error::invalid(format!("atoms need concrete integers, found {v}")))
}

/// A layout of concrete integers with integer strides.
fn concrete<I: Int>(l: &Layout<I>) -> Result<Layout<i64>> {
    let shape = l.shape().try_map(konst)?;
    let stride = l.stride().try_map(|d| match d {
        Stride::Int(v) => Ok(Stride::Int(konst(v)?)),
        d => Err(Error::invalid(format!("atoms need integer strides, found {d}"))),
    })?;
    Layout::new(shape, stride)
}

/// An int tuple as CuTe's `Layout<Shape<...>>` (a size-1 mode with stride 0), a layout as
/// itself.
fn layout_or_shape<I: Int>(v: &Value<I>) -> Result<Layout<i64>> {
    match v {
        Value::Layout(l) => concrete(l),
        v => cute::compact(&v.to_int_tuple()?.try_map(konst)?),
    }
}

/// The atom name of argument `k`: a bare name (not evaluated).
fn name_arg<I: Int>(c: &Call<'_, I>, k: usize) -> Result<String> {
    match &c.args[k].kind {
        ExprKind::Name(n) => Ok(n.clone()),
        _ => Err(c.err(format!(
            "{}: argument {} must be an atom name such as SM80_16x8x16_F32F16F16F32_TN",
            c.name,
            k + 1
        ))),
    }
}

fn atom_arg<'v, I: Int>(c: &'v Call<'_, I>, k: usize) -> Result<&'v AtomValue> {
    match c.arg(k)? {
        Value::Atom(a) => Ok(a),
        v => Err(c.err(format!(
            "{}: argument {} must be a tiled MMA, a copy atom or a tiled copy, found {} ({v})",
            c.name,
            k + 1,
            v.kind()
        ))),
    }
}

fn mma_arg<'v, I: Int>(c: &'v Call<'_, I>, k: usize) -> Result<&'v TiledMma> {
    match atom_arg(c, k)? {
        AtomValue::Mma(t) => Ok(t),
        a => Err(c.err(format!(
            "{}: expected a tiled MMA, found {} ({a})",
            c.name,
            a.kind()
        ))),
    }
}

fn copy_arg<'v, I: Int>(c: &'v Call<'_, I>, k: usize) -> Result<&'v TiledCopy> {
    match atom_arg(c, k)? {
        AtomValue::Copy(t) => Ok(t),
        a => Err(c.err(format!(
            "{}: expected a tiled copy, found {} ({a})",
            c.name,
            a.kind()
        ))),
    }
}

fn atom<I>(a: AtomValue) -> Value<I> {
    Value::Atom(Arc::new(a))
}

/// `make_tiled_mma(ATOM[, ATOM_LAYOUT[, PERMUTATION]])`.
pub(super) fn make_tiled_mma<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let name = name_arg(c, 0)?;
    let a = mma_atom(&name).map_err(|e| c.err(e.to_string()))?;
    let layout = if c.len() > 1 {
        layout_or_shape(c.arg(1)?)?
    } else {
        cute::compact(&HTuple::flat([1, 1, 1]))?
    };
    let mut perms = Vec::new();
    if c.len() > 2 {
        let items = match c.arg(2)? {
            Value::Tuple(vs) => vs.clone(),
            v => vec![v.clone()],
        };
        for v in &items {
            perms.push(match v {
                Value::Keep => Permutation::Keep,
                Value::Int(n) => Permutation::Layout(Layout::leaf(konst(n)?, 1)),
                Value::Layout(l) => Permutation::Layout(concrete(l)?),
                v => {
                    return Err(c.err(format!(
                        "make_tiled_mma: a permutation is '_', an integer or a layout, found {v}"
                    )));
                }
            });
        }
    }
    let t = TiledMma::with(a, &layout, perms).map_err(|e| c.err(e.to_string()))?;
    Ok(atom(AtomValue::Mma(t)))
}

fn tv_mma<I: Int>(c: &mut Call<'_, I>, op: Operand) -> Result<Value<I>> {
    let l = mma_arg(c, 0)?.tv_layout(op)?;
    Ok(Value::Layout(l.lift()?))
}

/// `tv_layout_A(T)`: CuTe's `get_layoutA_TV()`.
pub(super) fn tv_layout_a<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    tv_mma(c, Operand::A)
}

/// `tv_layout_B(T)`.
pub(super) fn tv_layout_b<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    tv_mma(c, Operand::B)
}

/// `tv_layout_C(T)`.
pub(super) fn tv_layout_c<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    tv_mma(c, Operand::C)
}

/// `tile_size(T)`: `(tile_size<0>, tile_size<1>, tile_size<2>)` of a tiled MMA, the tiler's
/// extents of a tiled copy.
pub(super) fn tile_size<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let sizes: Vec<i64> = match atom_arg(c, 0)? {
        AtomValue::Mma(t) => t.tile_size()?.to_vec(),
        AtomValue::Copy(t) => t.tile_size(),
        a => return Err(c.err(format!("tile_size: {} has no tile", a.kind()))),
    };
    Ok(Value::Tuple(
        sizes.into_iter().map(|v| Value::Int(I::lit(v))).collect(),
    ))
}

/// `copy_atom(OP, BITS)`: `Copy_Atom<OP, T>` for a `BITS`-bit `T`.
pub(super) fn copy_atom<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let name = name_arg(c, 0)?;
    let op = copy_op(&name).map_err(|e| c.err(e.to_string()))?;
    let bits = konst(&c.arg(1)?.to_int()?)?;
    let a = CopyAtom::new(op, bits).map_err(|e| c.err(e.to_string()))?;
    Ok(atom(AtomValue::CopyAtom(a)))
}

fn copy_atom_arg<I: Int>(c: &Call<'_, I>, k: usize) -> Result<CopyAtom> {
    match atom_arg(c, k)? {
        AtomValue::CopyAtom(a) => Ok(a.clone()),
        a => Err(c.err(format!(
            "{}: expected a copy atom (copy_atom(OP, BITS)), found {} ({a})",
            c.name,
            a.kind()
        ))),
    }
}

/// `make_tiled_copy(CA, THR_LAYOUT, VAL_LAYOUT)`.
pub(super) fn make_tiled_copy<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let a = copy_atom_arg(c, 0)?;
    let thr = layout_or_shape(c.arg(1)?)?;
    let val = if c.len() > 2 {
        layout_or_shape(c.arg(2)?)?
    } else {
        Layout::leaf(1, 0)
    };
    let t = TiledCopy::make(a, &thr, &val).map_err(|e| c.err(e.to_string()))?;
    Ok(atom(AtomValue::Copy(t)))
}

fn tiled_copy_for<I: Int>(c: &mut Call<'_, I>, op: Operand) -> Result<Value<I>> {
    let a = copy_atom_arg(c, 0)?;
    let t = TiledCopy::for_mma(a, mma_arg(c, 1)?, op).map_err(|e| c.err(e.to_string()))?;
    Ok(atom(AtomValue::Copy(t)))
}

/// `make_tiled_copy_A(CA, T)`.
pub(super) fn make_tiled_copy_a<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    tiled_copy_for(c, Operand::A)
}

/// `make_tiled_copy_B(CA, T)`.
pub(super) fn make_tiled_copy_b<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    tiled_copy_for(c, Operand::B)
}

/// `make_tiled_copy_C(CA, T)`.
pub(super) fn make_tiled_copy_c<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    tiled_copy_for(c, Operand::C)
}

fn tv_copy<I: Int>(c: &mut Call<'_, I>, side: Side) -> Result<Value<I>> {
    let l = copy_arg(c, 0)?.tv_layout(side)?;
    Ok(Value::Layout(l.lift()?))
}

/// `tv_layout_S(TC)`: CuTe's `get_layoutS_TV()`.
pub(super) fn tv_layout_s<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    tv_copy(c, Side::Src)
}

/// `tv_layout_D(TC)`.
pub(super) fn tv_layout_d<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    tv_copy(c, Side::Dst)
}

/// The tensor argument of a partition: a layout, a bare shape or a view.
fn tensor_arg<I: Int>(c: &Call<'_, I>, k: usize) -> Result<ComposedLayout<I>> {
    match c.arg(k)? {
        Value::Composed(v) => Ok(v.clone()),
        v => Ok(ComposedLayout {
            swizzle: None,
            offset: I::zero(),
            inner: v.to_layout()?,
        }),
    }
}

fn thread_arg<I: Int>(c: &Call<'_, I>, k: usize) -> Result<i64> {
    konst(&c.arg(k)?.to_int()?).map_err(|_| c.err(format!("{}: the thread must be an integer", c.name)))
}

fn part_mma<I: Int>(c: &mut Call<'_, I>, op: Operand) -> Result<Value<I>> {
    let t = mma_arg(c, 0)?;
    let f = t
        .partition(op, &tensor_arg(c, 1)?, thread_arg(c, 2)?)
        .map_err(|e| c.err(format!("{}: {e}", c.name)))?;
    Ok(Value::Composed(f.view))
}

/// `partition_A(T, TENSOR, THREAD)`: `thr_mma.partition_A(tensor)`, a view.
pub(super) fn partition_a<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    part_mma(c, Operand::A)
}

/// `partition_B(T, TENSOR, THREAD)`.
pub(super) fn partition_b<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    part_mma(c, Operand::B)
}

/// `partition_C(T, TENSOR, THREAD)`.
pub(super) fn partition_c<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    part_mma(c, Operand::C)
}

fn part_copy<I: Int>(c: &mut Call<'_, I>, side: Side) -> Result<Value<I>> {
    let t = copy_arg(c, 0)?;
    let f = t
        .partition(side, &tensor_arg(c, 1)?, thread_arg(c, 2)?)
        .map_err(|e| c.err(format!("{}: {e}", c.name)))?;
    Ok(Value::Composed(f.view))
}

/// `partition_S(TC, TENSOR, THREAD)`: `thr_copy.partition_S(tensor)`, a view.
pub(super) fn partition_s<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    part_copy(c, Side::Src)
}

/// `partition_D(TC, TENSOR, THREAD)`.
pub(super) fn partition_d<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    part_copy(c, Side::Dst)
}

fn tidfrg<I: Int>(c: &mut Call<'_, I>, side: Side) -> Result<Value<I>> {
    let t = copy_arg(c, 0)?;
    let l = match c.arg(1)? {
        Value::Layout(l) => l.clone(),
        v => cute::compact(&v.to_int_tuple()?)?,
    };
    let out = t
        .tidfrg(side, &l)
        .map_err(|e| c.err(format!("{}: {e}", c.name)))?;
    Ok(Value::Layout(out))
}

/// `tidfrg_S(TC, TENSOR)`: every thread's source values over a tensor (a shape: its
/// indices), `(Thr,(FrgV,FrgX),(Rest...))`.
pub(super) fn tidfrg_s<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    tidfrg(c, Side::Src)
}

/// `tidfrg_D(TC, TENSOR)`.
pub(super) fn tidfrg_d<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    tidfrg(c, Side::Dst)
}

fn thrfrg<I: Int>(c: &mut Call<'_, I>, op: Operand) -> Result<Value<I>> {
    let t = mma_arg(c, 0)?;
    let l = match c.arg(1)? {
        Value::Layout(l) => l.clone(),
        v => cute::compact(&v.to_int_tuple()?)?,
    };
    let out = t.thrfrg(op, &l).map_err(|e| c.err(format!("{}: {e}", c.name)))?;
    Ok(Value::Layout(out))
}

/// `thrfrg_A(T, TENSOR)`: `((ThrV,(ThrM,ThrK)),(FrgV,(RestM,RestK)))` over a tensor.
pub(super) fn thrfrg_a<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    thrfrg(c, Operand::A)
}

/// `thrfrg_B(T, TENSOR)`.
pub(super) fn thrfrg_b<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    thrfrg(c, Operand::B)
}

/// `thrfrg_C(T, TENSOR)`.
pub(super) fn thrfrg_c<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    thrfrg(c, Operand::C)
}

/// `smem_atom(NAME, BITS)`: GMMA's `Layout_K_SW128_Atom<T>` and siblings, as a swizzled
/// layout of element offsets.
pub(super) fn smem_atom<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let name = name_arg(c, 0)?;
    let bits = konst(&c.arg(1)?.to_int()?)?;
    let v = smem_atom_of(&name, bits).map_err(|e| c.err(e.to_string()))?;
    Ok(Value::Composed(ComposedLayout {
        swizzle: v.swizzle,
        offset: I::zero(),
        inner: v.inner.lift()?,
    }))
}

/// `tma_swizzle(MODE, BITS)`: TMA's (and GMMA's) swizzle mode `INTER`/`NONE`, `SW32`, `SW64`,
/// `SW128` on offsets of `BITS`-bit elements.
pub(super) fn tma_swizzle<I: Int>(c: &mut Call<'_, I>) -> Result<Value<I>> {
    let name = name_arg(c, 0)?;
    let bits = konst(&c.arg(1)?.to_int()?)?;
    let sw = tma_swizzle_of(&name, bits).map_err(|e| c.err(e.to_string()))?;
    Ok(Value::Swizzle(sw))
}
