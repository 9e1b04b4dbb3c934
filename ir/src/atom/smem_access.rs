//! The shared-memory accesses of a tiled copy, as a bank question reads them.
//!
//! The copy atom decides which side is shared memory (`ldmatrix` reads it, `stmatrix` and
//! `cp.async` write it), the element size (the atom's `T`) and the bytes each thread moves per
//! instruction (the bits of one thread's values on that side: 16 bytes for `ldmatrix`,
//! `stmatrix` and a 128-bit `cp.async`). The thread-value layout is the tiled copy's
//! `get_layoutS_TV()` (or `D`) carried over the whole shared-memory tile: CuTe's
//! `partition_S` tiles the tensor by the copy's tiler, so `(thread, (value, tile))` reaches
//! `Z(tv(thread, value), tile)` with `Z = zipped_divide(make_layout(shape), tiler)`.

use super::copy::Space;
use super::cute::compact;
use super::tiled_copy::{Side, TiledCopy};
use crate::algebra::{Tiler, composition, zipped_divide};
use crate::error::{Error, Result};
use crate::htuple::HTuple;
use crate::layout::Layout;

/// A tiled copy's shared-memory accesses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmemAccess {
    /// The shared-memory side.
    pub side: Side,
    /// `(thread, (value, tile)) -> ` the column-major index in the shared-memory tile.
    pub tv: Layout,
    /// Bytes per element.
    pub elem_bytes: i64,
    /// Bytes one thread moves per instruction.
    pub access_bytes: i64,
}

/// The shared-memory accesses of `tc` over a shared-memory tile of shape `smem_shape`.
///
/// # Pre-conditions
/// The atom names its shared-memory side (`ldmatrix`, `stmatrix`, `cp.async`; a universal
/// copy does not: ask with `tv_layout_S`/`D` and `elem=`, `access=`); whole-byte elements;
/// the tile divides by the copy's tiler.
/// # Post-conditions
/// Restricted to one tile, `tv` is `get_layoutS_TV()` (or `D`) read in the tile's indices.
///
/// ```
/// use tessera_ir::{atom::{copy_op, mma_atom, smem_access, CopyAtom, Operand, TiledCopy, TiledMma}, parse_int_tuple};
/// let mma = TiledMma::new(mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(), &[2, 2, 1]).unwrap();
/// let lds = TiledCopy::for_mma(CopyAtom::new(copy_op("SM75_U32x4_LDSM_N").unwrap(), 16).unwrap(), &mma, Operand::A).unwrap();
/// let a = smem_access(&lds, &parse_int_tuple("(128,64)").unwrap()).unwrap();
/// assert_eq!((a.elem_bytes, a.access_bytes), (2, 16));
/// assert_eq!(a.tv.to_string(), "((16,2,2,2),((8,1),(4,4))):((1,1024,16,0),((128,0),(32,2048)))");
/// ```
pub fn smem_access(tc: &TiledCopy, smem_shape: &HTuple<i64>) -> Result<SmemAccess> {
    let op = &tc.atom.op;
    let side = match op.spaces() {
        (Space::Smem, _) => Side::Src,
        (_, Space::Smem) => Side::Dst,
        _ => {
            return Err(Error::invalid(format!(
                "{}: {} does not say which side is shared memory; ask the bank question of \
                 tv_layout_S(...) or tv_layout_D(...) with elem= and access=",
                tc, op.name
            )));
        }
    };
    let bits = tc.atom.elem_bits;
    if bits % 8 != 0 {
        return Err(Error::invalid(format!(
            "{tc}: the bank model counts whole bytes; {bits}-bit elements are not supported"
        )));
    }
    let per_thread = match side {
        Side::Src => &op.src,
        Side::Dst => &op.dst,
    };
    let access_bits = per_thread.mode(1).map(|m| m.size()).transpose()?.unwrap_or(1);
    let tv = tc.tv_layout(side)?;
    let z = zipped_divide(&compact(smem_shape)?, &Tiler::from_shape(&tc.tiler))?;
    let (z0, zr) = (z.mode(0), z.mode(1));
    let (Some(z0), Some(zr)) = (z0, zr) else {
        return Err(Error::internal("zipped_divide without two modes"));
    };
    let (Some(t0), Some(t1)) = (tv.mode(0), tv.mode(1)) else {
        return Err(Error::internal("a thread-value layout without two modes"));
    };
    let full = Layout::concat([
        composition(&z0, &t0)?,
        Layout::concat([composition(&z0, &t1)?, zr]),
    ]);
    Ok(SmemAccess {
        side,
        tv: full,
        elem_bytes: bits / 8,
        access_bytes: access_bits / 8,
    })
}
