//! `TiledCopy`: a copy atom tiled over threads and values, as CuTe C++ builds it
//! (`include/cute/atom/copy_atom.hpp`).
//!
//! * `make_tiled_copy(atom, thr, val)`: `layout_mn = raked_product(thr, val)`, `layout_tv =
//!   right_inverse(layout_mn).with_shape(size(thr), size(val))`, `tiler =
//!   product_each(shape(layout_mn))`; `make_tiled_copy_A/B/C(atom, mma)`: the MMA's
//!   `get_layoutA_TV` and `(tile_size<0>, tile_size<2>)` (B: `<1>,<2>`; C: `<0>,<1>`);
//! * `tile2thrfrg(T, ref2trg)`: `zipped_divide(layout_tv, (AtomNumThr, AtomNumVal))`
//!   composed with `ref2trg` on the atom mode, zipped, coalesced by `(1,(1,1))`, composed
//!   into `T`'s tile mode: `(Thr,(FrgV,FrgX),(Rest...))`; `ref2trg =
//!   right_inverse(ValLayoutRef) o ValLayoutSrc` (Dst for the destination);
//! * `get_layoutS_TV = tile2thrfrg(make_layout((tiler, 1)), ...)(_,_,0)`;
//! * `partition_S(T, t) = tile2thrfrg(zipped_divide(T, tiler), ...)(t, _, (_,...))`.

use super::copy::CopyAtom;
use super::cute::{compact, unit_strides_zero, with_shape, zip2};
use super::partition::{Crd, Fragment, slice_flat};
use super::tiled_mma::{Operand, TiledMma};
use crate::algebra::{
    Tiler, coalesce_by, composition, composition_tiler, raked_product, right_inverse, zipped_divide,
};
use crate::error::{Error, Result};
use crate::htuple::HTuple;
use crate::int::Int;
use crate::layout::Layout;
use crate::swizzle::ComposedLayout;
use std::fmt;

/// CuTe's `TiledCopy<Copy_Atom, LayoutCopy_TV, ShapeTiler_MN>` (shape tilers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TiledCopy {
    /// The atom.
    pub atom: CopyAtom,
    /// `TiledLayout_TV`: `(thread, value) -> ` column-major index in the tile.
    pub layout_tv: Layout,
    /// `Tiler_MN`, a shape.
    pub tiler: HTuple<i64>,
    /// How it was made, as an expression (its printed form).
    pub text: String,
}

impl fmt::Display for TiledCopy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Source or destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The source (`S`).
    Src,
    /// The destination (`D`).
    Dst,
}

impl TiledCopy {
    fn checked(atom: CopyAtom, layout_tv: Layout, tiler: HTuple<i64>, text: String) -> Result<TiledCopy> {
        let tn = layout_tv.mode(0).map(|m| m.size()).transpose()?.unwrap_or(1);
        let tv = layout_tv.mode(1).map(|m| m.size()).transpose()?.unwrap_or(1);
        let an = atom.val_ref.mode(0).map(|m| m.size()).transpose()?.unwrap_or(1);
        let av = atom.val_ref.mode(1).map(|m| m.size()).transpose()?.unwrap_or(1);
        if tn % an != 0 {
            return Err(Error::invalid(format!(
                "{text}: TiledCopy uses too few thrs for selected CopyAtom ({tn} threads, the atom takes {an})"
            )));
        }
        if tv % av != 0 {
            return Err(Error::invalid(format!(
                "{text}: TiledCopy uses too few vals for selected CopyAtom ({tv} values per thread, the atom takes {av})"
            )));
        }
        Ok(TiledCopy {
            atom,
            layout_tv,
            tiler,
            text,
        })
    }

    /// `make_tiled_copy(atom, thr_layout, val_layout)`.
    ///
    /// # Pre-conditions
    /// CuTe's checks (threads and values multiples of the atom's).
    /// # Post-conditions
    /// `layout_tv` is a bijection from `(size(thr), size(val))` onto the tile when
    /// `raked_product(thr, val)` is.
    ///
    /// ```
    /// use tessera_ir::{atom::{copy_op, CopyAtom, TiledCopy}, parse_layout};
    /// let (thr, val) = (parse_layout("(32,8):(1,32)").unwrap(), parse_layout("(4,1):(1,0)").unwrap());
    /// let atom = CopyAtom::new(copy_op("UniversalCopy_128").unwrap(), 32).unwrap();
    /// let t = TiledCopy::make(atom, &thr, &val).unwrap();
    /// assert_eq!(t.layout_tv.to_string(), "(256,4):(4,1)");
    /// assert_eq!(t.tiler.to_string(), "(128,8)");
    /// // Four 16-bit values are half of what a 128-bit copy moves:
    /// let half = CopyAtom::new(copy_op("UniversalCopy_128").unwrap(), 16).unwrap();
    /// let e = TiledCopy::make(half, &thr, &val).unwrap_err();
    /// assert!(e.to_string().contains("TiledCopy uses too few vals for selected CopyAtom"));
    /// ```
    pub fn make(atom: CopyAtom, thr: &Layout, val: &Layout) -> Result<TiledCopy> {
        let text = format!("make_tiled_copy({atom},{thr},{val})");
        let layout_mn = raked_product(thr, val)?;
        let shape = HTuple::flat([thr.size()?, val.size()?]);
        let layout_tv = unit_strides_zero(&with_shape(&right_inverse(&layout_mn)?, &shape)?)?;
        let tiler = HTuple::from_modes(
            layout_mn
                .modes()
                .iter()
                .map(|m| m.size().map(HTuple::leaf))
                .collect::<Result<Vec<_>>>()?,
        );
        TiledCopy::checked(atom, layout_tv, tiler, text)
    }

    /// `make_tiled_copy_A/B/C(atom, mma)`: the MMA's thread-value layout of the operand and
    /// its tile.
    ///
    /// # Pre-conditions
    /// CuTe's checks.
    /// # Post-conditions
    /// `layout_tv` is `get_layout{A,B,C}_TV()`.
    pub fn for_mma(atom: CopyAtom, mma: &TiledMma, op: Operand) -> Result<TiledCopy> {
        let (name, [i, j]) = match op {
            Operand::A => ("make_tiled_copy_A", [0, 2]),
            Operand::B => ("make_tiled_copy_B", [1, 2]),
            Operand::C => ("make_tiled_copy_C", [0, 1]),
        };
        let text = format!("{name}({atom},{mma})");
        let ts = mma.tile_size()?;
        TiledCopy::checked(atom, mma.tv_layout(op)?, HTuple::flat([ts[i], ts[j]]), text)
    }

    /// `tile_size(TC)`: the tiler's extents.
    pub fn tile_size(&self) -> Vec<i64> {
        self.tiler
            .modes()
            .iter()
            .map(|m| m.leaves().iter().product())
            .collect()
    }

    /// The number of threads: `size<0>(TiledLayout_TV)`.
    pub fn num_threads(&self) -> Result<i64> {
        self.layout_tv
            .mode(0)
            .map(|m| m.size())
            .transpose()
            .map(|s| s.unwrap_or(1))
    }

    fn ref2trg(&self, side: Side) -> Result<Layout> {
        let trg = match side {
            Side::Src => &self.atom.val_src,
            Side::Dst => &self.atom.val_dst,
        };
        composition(&right_inverse(&self.atom.val_ref)?, trg)
    }

    /// `tile2thrfrg(tensor, ref2trg)`: `((TileM,TileN,...),(Rest...)) -> (Thr,(FrgV,FrgX),(Rest...))`.
    fn tile2thrfrg<I: Int>(&self, tensor: &Layout<I>, side: Side) -> Result<Layout<I>> {
        let an = self
            .atom
            .val_ref
            .mode(0)
            .map(|m| m.size())
            .transpose()?
            .unwrap_or(1);
        let av = self
            .atom
            .val_ref
            .mode(1)
            .map(|m| m.size())
            .transpose()?
            .unwrap_or(1);
        let atom_tv = zipped_divide(&self.layout_tv, &Tiler::from_shape(&HTuple::flat([an, av])))?;
        let trg = composition_tiler(
            &atom_tv,
            &Tiler::Tuple(vec![Tiler::Layout(self.ref2trg(side)?), Tiler::Keep]),
        )?;
        let profile = HTuple::from_modes([
            HTuple::leaf(true),
            HTuple::from_modes([HTuple::leaf(true), HTuple::leaf(true)]),
        ]);
        let thrval2mn: Layout<I> = coalesce_by(&zip2(&trg)?, &profile)?.lift()?;
        let tv = composition_tiler(tensor, &Tiler::Tuple(vec![Tiler::Layout(thrval2mn), Tiler::Keep]))?;
        let (_, out) = slice_flat(
            &tv,
            &Crd::Tuple(vec![Crd::Tuple(vec![Crd::Keep, Crd::Keep]), Crd::Keep]),
        )?;
        Ok(out)
    }

    /// `get_layoutS_TV()` / `get_layoutD_TV()`: `(thread, value) -> ` the column-major
    /// index in the tile.
    ///
    /// # Post-conditions
    /// CuTe's value, printed alike.
    ///
    /// ```
    /// use tessera_ir::atom::{copy_op, mma_atom, CopyAtom, Operand, Side, TiledCopy, TiledMma};
    /// let mma = TiledMma::new(mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(), &[2, 2, 1]).unwrap();
    /// let atom = CopyAtom::new(copy_op("SM75_U32x4_LDSM_N").unwrap(), 16).unwrap();
    /// let t = TiledCopy::for_mma(atom, &mma, Operand::A).unwrap();
    /// assert_eq!(t.tv_layout(Side::Src).unwrap().to_string(), "((16,2,2,2),(8,1)):((1,256,16,0),(32,0))");
    /// ```
    pub fn tv_layout(&self, side: Side) -> Result<Layout> {
        let r = compact(&HTuple::from_modes([self.tiler.clone(), HTuple::leaf(1)]))?;
        let l = self.tile2thrfrg(&r, side)?;
        let crd = Crd::Tuple(vec![Crd::Keep, Crd::Keep, Crd::At(0)]);
        unit_strides_zero(&slice_flat(&l, &crd)?.1)
    }

    /// `tidfrg_S(tensor)` / `tidfrg_D(tensor)`: every thread's values over the whole tensor,
    /// `(Thr,(FrgV,FrgX),(Rest...))`.
    ///
    /// # Pre-conditions
    /// The tensor's rank at least the tiler's, its modes divisible by the tile.
    /// # Post-conditions
    /// Mode 0 at `t` with the rest kept is [`TiledCopy::partition`] of thread `t`.
    ///
    /// ```
    /// use tessera_ir::{atom::{copy_op, CopyAtom, Side, TiledCopy}, parse_layout};
    /// let atom = CopyAtom::new(copy_op("SM80_CP_ASYNC_CACHEALWAYS_128").unwrap(), 16).unwrap();
    /// let t = TiledCopy::make(atom, &parse_layout("(32,4):(4,1)").unwrap(), &parse_layout("(1,8):(0,1)").unwrap()).unwrap();
    /// let l = t.tidfrg(Side::Dst, &parse_layout("(128,32):(32,1)").unwrap()).unwrap();
    /// assert_eq!(l.to_string(), "((4,32),(8,1),(4,1)):((8,32),(1,0),(1024,0))");
    /// ```
    pub fn tidfrg<I: Int>(&self, side: Side, tensor: &Layout<I>) -> Result<Layout<I>> {
        if tensor.rank() < self.tiler.rank() {
            return Err(Error::invalid(format!(
                "Rank of tensor to be partitioned too small ({tensor} for a tile of rank {})",
                self.tiler.rank()
            )));
        }
        let z = zipped_divide(tensor, &Tiler::from_shape(&self.tiler.lift_i()?))?;
        unit_strides_zero(&self.tile2thrfrg(&z, side)?)
    }

    /// `thr_copy.partition_S/D(tensor)` of thread `thread`: `((FrgV,FrgX),Rest...)` and its
    /// offset, over the tensor's swizzle if any.
    ///
    /// # Pre-conditions
    /// `thread` below the number of threads; the tensor's rank at least the tiler's, its
    /// modes divisible by the tile (the algebra's errors otherwise).
    /// # Post-conditions
    /// CuTe's value.
    pub fn partition<I: Int>(
        &self,
        side: Side,
        tensor: &ComposedLayout<I>,
        thread: i64,
    ) -> Result<Fragment<I>> {
        let n = self.num_threads()?;
        if !(0..n).contains(&thread) {
            return Err(Error::invalid(format!(
                "thread {thread} is not one of the tiled copy's {n} threads"
            )));
        }
        let rank = tensor.inner.rank();
        if rank < self.tiler.rank() {
            return Err(Error::invalid(format!(
                "partition: Rank of tensor to be partitioned too small ({} for a tile of rank {})",
                tensor.inner,
                self.tiler.rank()
            )));
        }
        let z = zipped_divide(&tensor.inner, &Tiler::from_shape(&self.tiler.lift_i()?))?;
        let l = self.tile2thrfrg(&z, side)?;
        let rest_rank = l.mode(2).map(|m| m.rank()).unwrap_or(1);
        let crd = Crd::Tuple(vec![
            Crd::At(I::lit(thread)),
            Crd::Keep,
            Crd::Tuple(vec![Crd::Keep; rest_rank]),
        ]);
        let (off, inner) = slice_flat(&l, &crd)?;
        Ok(Fragment {
            view: ComposedLayout {
                swizzle: tensor.swizzle,
                offset: tensor.offset.add(&off)?,
                inner: unit_strides_zero(&inner)?,
            },
        })
    }
}

trait LiftTuple {
    fn lift_i<I: Int>(&self) -> Result<HTuple<I>>;
}

impl LiftTuple for HTuple<i64> {
    fn lift_i<I: Int>(&self) -> Result<HTuple<I>> {
        Ok(self.map(|v| I::lit(*v)))
    }
}
