//! `TiledMMA`: an MMA atom tiled over threads and values, as CuTe C++ builds it
//! (`include/cute/atom/mma_atom.hpp`).
//!
//! * `make_tiled_mma(atom, atom_layout, permutation)`: the atom layout padded to rank 3 with
//!   `1:0`, `ThrLayoutVMNK = tiled_product(ThrID, atom_layout)`;
//! * `permutation_mnk<I>`: the given layout, or `size<I>(Shape_MNK) * size<I+1>(VMNK)`;
//!   `tile_size<I>` its size;
//! * `thrfrg_C(L) = zipped_divide(logical_divide(L, (P0,P1)) zipped by (M,N) composed with
//!   CLayout, by (_, (ThrM, ThrN)))`: `((ThrV,(ThrM,ThrN)),(FrgV,(RestM,RestN)))`;
//! * `get_layoutC_TV = thrfrg_C(make_layout(T0,T1)) o (thridx_2_thrid, _)` with
//!   `thridx_2_thrid = (size(VMNK),1):(1,0) o right_inverse(make_layout(VMNK,
//!   complement(VMNK)))`; A and B first drop the N (M) thread mode by a stride-0 tile;
//! * `partition_A(L, t)`: `thrfrg_A(L)` at `((v,(m,k)),(_,(_,...)))`, the thread's flat
//!   coordinate `(v,m,n,k)` in `VMNK`'s shape.

use super::cute::{compact, unit_strides_zero};
use super::mma::MmaAtom;
use super::partition::{Crd, Fragment, slice_flat};
use crate::algebra::{
    Tiler, complement, composition, composition_tiler, logical_divide, right_inverse, tiled_product,
    zipped_divide,
};
use crate::error::{Error, Result};
use crate::htuple::HTuple;
use crate::int::Int;
use crate::layout::Layout;
use crate::stride::Stride;
use crate::swizzle::ComposedLayout;
use std::fmt;

/// A mode's permutation: `_` (the atom's extent times the atoms along the mode) or a layout.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Permutation {
    /// `_`.
    Keep,
    /// A layout (an integer `n` is `n:1`).
    Layout(Layout),
}

/// CuTe's `TiledMMA<MMA_Atom<Op>, AtomLayoutMNK, PermutationMNK>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TiledMma {
    /// The atom.
    pub atom: MmaAtom,
    /// `AtomLayoutMNK`, padded to rank 3 with `1:0`.
    pub atom_layout: Layout,
    /// `PermutationMNK`, one per mode.
    pub perm: [Permutation; 3],
    /// `ThrLayoutVMNK = tiled_product(ThrID, AtomLayoutMNK)`.
    pub thr_layout_vmnk: Layout,
}

impl fmt::Display for TiledMma {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "make_tiled_mma({},{}", self.atom.name, self.atom_layout)?;
        if self.perm.iter().any(|p| *p != Permutation::Keep) {
            f.write_str(",(")?;
            for (k, p) in self.perm.iter().enumerate() {
                if k > 0 {
                    f.write_str(",")?;
                }
                match p {
                    Permutation::Keep => f.write_str("_")?,
                    Permutation::Layout(l) => write!(f, "{l}")?,
                }
            }
            f.write_str(")")?;
        }
        f.write_str(")")
    }
}

/// Which operand: A `(M,K)`, B `(N,K)`, C `(M,N)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A.
    A,
    /// B.
    B,
    /// C.
    C,
}

impl Operand {
    /// The two MNK modes of the operand.
    fn modes(self) -> [usize; 2] {
        match self {
            Operand::A => [0, 2],
            Operand::B => [1, 2],
            Operand::C => [0, 1],
        }
    }
}

fn lift<I: Int>(l: &Layout) -> Result<Layout<I>> {
    l.lift()
}

fn leaf_layout<I: Int>(n: i64) -> Result<Layout<I>> {
    compact(&HTuple::leaf(I::lit(n)))
}

impl TiledMma {
    /// `make_tiled_mma(atom, atom_layout)`: the atom tiled by `atom_layout` (CuTe's
    /// `Layout<Shape<M,N,K>>` for extents `[M,N,K]`).
    ///
    /// # Pre-conditions
    /// Positive extents, at most 3.
    /// # Post-conditions
    /// No permutation.
    ///
    /// ```
    /// use tessera_ir::atom::{mma_atom, TiledMma};
    /// let t = TiledMma::new(mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(), &[2, 2, 1]).unwrap();
    /// assert_eq!(t.thr_layout_vmnk.to_string(), "(32,2,2,1):(1,32,64,0)");
    /// ```
    pub fn new(atom: MmaAtom, extents: &[i64]) -> Result<TiledMma> {
        let l = compact(&HTuple::flat(extents.iter().copied()))?;
        TiledMma::with(atom, &l, vec![])
    }

    /// `make_tiled_mma(atom, atom_layout, permutations)`.
    ///
    /// # Pre-conditions
    /// `atom_layout` of rank at most 3 (CuTe: "TiledMMA requires rank-3 AtomLayoutMNK"), at
    /// most 3 permutations.
    /// # Post-conditions
    /// Missing modes are `1:0` and `_`.
    ///
    /// ```
    /// use tessera_ir::{atom::{mma_atom, Permutation, TiledMma}, parse_layout};
    /// let atom = mma_atom("SM70_8x8x4_F32F16F16F32_NT").unwrap();
    /// let p = vec![Permutation::Layout(parse_layout("32:1").unwrap()); 2];
    /// let t = TiledMma::with(atom, &parse_layout("(2,2):(2,1)").unwrap(), p).unwrap();
    /// assert_eq!(t.tile_size().unwrap(), [32, 32, 4]);
    /// ```
    pub fn with(atom: MmaAtom, atom_layout: &Layout, perms: Vec<Permutation>) -> Result<TiledMma> {
        let mut modes: Vec<Layout> = atom_layout.modes().into_iter().collect();
        if modes.len() > 3 {
            return Err(Error::invalid(format!(
                "make_tiled_mma: TiledMMA requires rank-3 AtomLayoutMNK, found {atom_layout}"
            )));
        }
        if perms.len() > 3 {
            return Err(Error::invalid(
                "make_tiled_mma: TiledMMA requires rank-3 PermutationMNK",
            ));
        }
        while modes.len() < 3 {
            modes.push(Layout::leaf(1, 0));
        }
        let atom_layout = Layout::concat(modes);
        let mut perm = [Permutation::Keep, Permutation::Keep, Permutation::Keep];
        for (k, p) in perms.into_iter().enumerate() {
            perm[k] = p;
        }
        let thr_layout_vmnk =
            unit_strides_zero(&tiled_product(&atom.thr_id, &Tiler::Layout(atom_layout.clone()))?)?;
        let t = TiledMma {
            atom,
            atom_layout,
            perm,
            thr_layout_vmnk,
        };
        // CuTe divides each permuted mode by the atom, then by the atoms along it; a size
        // that does not divide fails its static divisibility check.
        for i in 0..3 {
            let p = t.permutation(i)?.size()?;
            let unit = t.atom.shape_mnk[i].mul(&t.vmnk_size(i + 1)?)?;
            if p % unit != 0 {
                return Err(Error::invalid(format!(
                    "make_tiled_mma: the permutation of mode {} has size {p}, not a multiple of \
                     the atom's {} times its {} atoms along the mode (CuTe: Divisibility condition)",
                    ["M", "N", "K"][i],
                    t.atom.shape_mnk[i],
                    t.vmnk_size(i + 1)?
                )));
            }
        }
        Ok(t)
    }

    /// The number of threads: `size(ThrLayoutVMNK)`.
    pub fn num_threads(&self) -> Result<i64> {
        self.thr_layout_vmnk.size()
    }

    fn vmnk_size(&self, i: usize) -> Result<i64> {
        self.thr_layout_vmnk
            .mode(i)
            .ok_or_else(|| Error::internal("ThrLayoutVMNK has rank 4"))?
            .size()
    }

    /// `permutation_mnk<I>()` as a layout.
    fn permutation(&self, i: usize) -> Result<Layout> {
        match &self.perm[i] {
            Permutation::Layout(l) => Ok(l.clone()),
            Permutation::Keep => {
                let n = self.atom.shape_mnk[i].mul(&self.vmnk_size(i + 1)?)?;
                Ok(Layout::leaf(n, 1))
            }
        }
    }

    /// `(tile_size<0>, tile_size<1>, tile_size<2>)`: the size of each mode's permutation.
    ///
    /// # Post-conditions
    /// Without permutations, the atom's shape times the atom layout's extents.
    pub fn tile_size(&self) -> Result<[i64; 3]> {
        Ok([
            self.permutation(0)?.size()?,
            self.permutation(1)?.size()?,
            self.permutation(2)?.size()?,
        ])
    }

    fn atom_tv(&self, op: Operand) -> &Layout {
        match op {
            Operand::A => &self.atom.a,
            Operand::B => &self.atom.b,
            Operand::C => &self.atom.c,
        }
    }

    /// `thrfrg_A/B/C(layout)`: `((ThrV,(Thr0,Thr1)),(FrgV,(Rest0,Rest1,...)))`.
    ///
    /// # Pre-conditions
    /// The layout has rank at least 2 and its modes divide by the permutations and the atom
    /// (the algebra's errors otherwise, naming the fact a symbolic extent needs).
    /// # Post-conditions
    /// CuTe's `thrfrg_*`.
    pub fn thrfrg<I: Int>(&self, op: Operand, l: &Layout<I>) -> Result<Layout<I>> {
        if l.rank() < 2 {
            return Err(Error::invalid(format!(
                "partition: the tensor {l} has rank {}, expected at least 2",
                l.rank()
            )));
        }
        let [i, j] = op.modes();
        let t_tile = Tiler::Tuple(vec![
            Tiler::Layout(lift(&self.permutation(i)?)?),
            Tiler::Layout(lift(&self.permutation(j)?)?),
        ]);
        let t = logical_divide(l, &t_tile)?;
        let a_tile = Tiler::Tuple(vec![
            Tiler::Layout(leaf_layout(self.atom.shape_mnk[i])?),
            Tiler::Layout(leaf_layout(self.atom.shape_mnk[j])?),
        ]);
        let z = zipped_divide(&t, &a_tile)?;
        let tv = composition_tiler(
            &z,
            &Tiler::Tuple(vec![Tiler::Layout(lift(self.atom_tv(op))?), Tiler::Keep]),
        )?;
        // zipped_divide(tv, (_, (ThrM, ThrN))): CuTe's `_` guide splits the rank-2 mode
        // (ThrV, FrgV) between the tile and the rest.
        let modes = tv.modes();
        let [atom_tv, rest] = modes.as_slice() else {
            return Err(Error::internal(format!("zipped_divide gave {tv}")));
        };
        let rest_tile = Tiler::Tuple(vec![
            Tiler::Layout(leaf_layout(self.vmnk_size(i + 1)?)?),
            Tiler::Layout(leaf_layout(self.vmnk_size(j + 1)?)?),
        ]);
        let d = logical_divide(rest, &rest_tile)?;
        let dm = d.modes();
        let tv_modes = atom_tv.modes();
        if tv_modes.len() != 2 {
            return Err(Error::internal(format!("an atom thread-value mode {atom_tv}")));
        }
        let mut thr_rest = Vec::new();
        let mut val_rest = Vec::new();
        for (k, m) in dm.iter().enumerate() {
            if k < 2 {
                let mm = m.modes();
                let [a, b] = mm.as_slice() else {
                    return Err(Error::internal(format!("logical_divide gave the mode {m}")));
                };
                thr_rest.push(a.clone());
                val_rest.push(b.clone());
            } else {
                val_rest.push(m.clone());
            }
        }
        Ok(Layout::concat([
            Layout::concat([tv_modes[0].clone(), Layout::concat(thr_rest)]),
            Layout::concat([tv_modes[1].clone(), Layout::concat(val_rest)]),
        ]))
    }

    /// `thridx_2_thrid`: thread index -> `(ThrV,ThrM,ThrN,ThrK)` index.
    fn thridx_2_thrid(&self) -> Result<Layout> {
        let v = &self.thr_layout_vmnk;
        let n = v.size()?;
        let head = Layout::new(
            HTuple::flat([n, 1]),
            HTuple::flat([Stride::Int(1), Stride::Int(0)]),
        )?;
        let full = Layout::concat([v.clone(), complement(v, None)?]);
        composition(&head, &right_inverse(&full)?)
    }

    /// `get_layoutA_TV()` / `B` / `C`: `(thread index, value) -> ` the column-major index of
    /// the operand's coordinate in the tile `(tile_size<i>, tile_size<j>)`.
    ///
    /// # Post-conditions
    /// CuTe's value, printed alike; except C of a tiled MMA with atoms along K, where CuTe's
    /// layout reaches past the tile: here each K group of threads holds the whole tile.
    ///
    /// ```
    /// use tessera_ir::atom::{mma_atom, TiledMma, Operand};
    /// let t = TiledMma::new(mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(), &[2, 2, 1]).unwrap();
    /// assert_eq!(t.tv_layout(Operand::C).unwrap().to_string(),
    ///            "((4,8,2,2),((2,2),(1,1))):((64,1,16,256),((32,8),(0,0)))");
    /// ```
    pub fn tv_layout(&self, op: Operand) -> Result<Layout> {
        let [i, j] = op.modes();
        let ts = self.tile_size()?;
        let r = compact(&HTuple::flat([ts[i], ts[j]]))?;
        let mut l = self.thrfrg(op, &r)?;
        let (s1, s2) = (self.vmnk_size(1)?, self.vmnk_size(2)?);
        let drop = match op {
            Operand::A => Some((1, 0)),
            Operand::B => Some((0, 1)),
            Operand::C => None,
        };
        if let Some((d1, d2)) = drop {
            let t = Layout::new(
                HTuple::flat([s1, s2]),
                HTuple::flat([Stride::Int(d1), Stride::Int(d2)]),
            )?;
            let tile = Tiler::Tuple(vec![
                Tiler::Keep,
                Tiler::Tuple(vec![Tiler::Layout(t), Tiler::Keep]),
            ]);
            l = composition_tiler(&l, &Tiler::Tuple(vec![tile, Tiler::Keep]))?;
        }
        let s3 = self.vmnk_size(3)?;
        if op == Operand::C && s3 > 1 {
            // Atoms along K each hold the whole C tile. CuTe's get_layoutC_TV composes the
            // (ThrV,(ThrM,ThrN)) mode with a thread index over (V,M,N,K) and sends the K
            // threads past the tile; here they drop K, as A drops N and B drops M.
            let t = Layout::new(
                HTuple::flat([s1, s2, s3]),
                HTuple::flat([Stride::Int(1), Stride::Int(s1), Stride::Int(0)]),
            )?;
            let tile = Tiler::Tuple(vec![Tiler::Keep, Tiler::Layout(t)]);
            l = composition_tiler(&l, &Tiler::Tuple(vec![tile, Tiler::Keep]))?;
        }
        unit_strides_zero(&composition_tiler(
            &l,
            &Tiler::Tuple(vec![Tiler::Layout(self.thridx_2_thrid()?), Tiler::Keep]),
        )?)
    }

    /// The flat coordinate `(v,m,n,k)` of a thread: CuTe's `get_flat_coord`, each leaf's
    /// coordinate `(t / d) % s` by the layout's own strides (`idx2crd(t, shape, stride)`),
    /// each mode's leaves then read as one column-major index.
    fn thr_vmnk(&self, thread: i64) -> Result<[i64; 4]> {
        let n = self.num_threads()?;
        if !(0..n).contains(&thread) {
            return Err(Error::invalid(format!(
                "thread {thread} is not one of the tiled MMA's {n} threads"
            )));
        }
        let mut out = [0; 4];
        for (k, o) in out.iter_mut().enumerate() {
            let m = self
                .thr_layout_vmnk
                .mode(k)
                .ok_or_else(|| Error::internal("ThrLayoutVMNK has rank 4"))?;
            let (mut idx, mut scale) = (0i64, 1i64);
            for (s, d) in m.flat_shape().iter().zip(m.flat_stride()) {
                let d = d.as_int().copied().unwrap_or(0);
                let c = if d == 0 { 0 } else { (thread / d) % s };
                idx += c * scale;
                scale *= s;
            }
            *o = idx;
        }
        Ok(out)
    }

    /// `thr_mma.partition_A/B/C(tensor)` of thread `thread`: the thread's fragment
    /// `(FrgV, Rest0, Rest1, ...)` and its offset, over the tensor's swizzle if any.
    ///
    /// # Pre-conditions
    /// `thread` below the number of threads; [`TiledMma::thrfrg`]'s.
    /// # Post-conditions
    /// `view(x) == tensor(coordinate of (thread, x))`.
    ///
    /// ```
    /// use tessera_ir::{atom::{mma_atom, TiledMma, Operand}, parse_layout, ComposedLayout};
    /// let t = TiledMma::new(mma_atom("UniversalFMA_F32").unwrap(), &[16, 16, 1]).unwrap();
    /// let c = ComposedLayout { swizzle: None, offset: 0, inner: parse_layout("(128,128):(1,128)").unwrap() };
    /// let f = t.partition(Operand::C, &c, 17).unwrap();
    /// assert_eq!(f.view.offset, 129);
    /// assert_eq!(f.view.inner.to_string(), "(1,8,8):(0,16,2048)");
    /// ```
    pub fn partition<I: Int>(
        &self,
        op: Operand,
        tensor: &ComposedLayout<I>,
        thread: i64,
    ) -> Result<Fragment<I>> {
        let c = self.thr_vmnk(thread)?;
        let l = self.thrfrg(op, &tensor.inner)?;
        let [i, j] = op.modes();
        let rest_rank = l
            .get(&[1, 1])
            .ok_or_else(|| Error::internal("thrfrg without a rest mode"))?
            .rank();
        let lit = |x: i64| Crd::At(I::lit(x));
        let crd = Crd::Tuple(vec![
            Crd::Tuple(vec![lit(c[0]), Crd::Tuple(vec![lit(c[i + 1]), lit(c[j + 1])])]),
            Crd::Tuple(vec![Crd::Keep, Crd::Tuple(vec![Crd::Keep; rest_rank])]),
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
