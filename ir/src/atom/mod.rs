//! CuTe's atoms as data, and the constructions on them.
//!
//! The thread-value layouts of CUTLASS's MMA traits (`ThrID`, `ALayout`, `BLayout`,
//! `CLayout`, `mma.rs`) and copy traits (`SrcLayout`, `DstLayout`, `RefLayout` in bits,
//! `copy.rs`) and the GMMA shared-memory layout atoms (`smem.rs`) are transcribed once, as
//! facts from CUTLASS's headers (`include/cute/atom/*_traits_*.hpp`). On them,
//! [`TiledMma`] and [`TiledCopy`] compute what CuTe C++'s `make_tiled_mma`,
//! `get_layoutA_TV`..., `make_tiled_copy`, `get_layoutS_TV`... and the thread partitions
//! compute, with CuTe's printing (trailing size-1 modes included): the layouts are built by
//! the same algebra calls, over [`crate::algebra`], with CuTe's compact layouts
//! ([`cute::compact`]: a size-1 mode has stride 0) and `upcast`/`downcast`.
//!
//! ```
//! use tessera_ir::atom::{mma_atom, TiledMma};
//! let atom = mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap();
//! assert_eq!(atom.a.to_string(), "((4,8),(2,2,2)):((32,1),(16,8,128))");
//! let t = TiledMma::new(atom, &[2, 2, 1]).unwrap();
//! assert_eq!(t.tile_size().unwrap(), [32, 16, 16]);
//! ```

mod copy;
pub mod cute;
mod gmma;
mod mma;
mod partition;
mod smem;
mod smem_access;
mod tiled_copy;
mod tiled_mma;

pub use copy::{CopyAtom, CopyOp, Space, copy_op, copy_op_names};
pub use mma::MmaAtom;
pub use partition::{Crd, Fragment, slice_flat};
pub use smem::{smem_atom, smem_atom_names, tma_swizzle};
pub use smem_access::{SmemAccess, smem_access};
pub use tiled_copy::{Side, TiledCopy};
pub use tiled_mma::{Operand, Permutation, TiledMma};

use crate::error::{Error, Result};

/// The MMA atom of a C++ struct name (`SM80_16x8x16_F32F16F16F32_TN`, GMMA with its majors
/// suffix `SM90_64x64x16_F16F16F16_SS_TN`, `UniversalFMA_F32`).
///
/// # Pre-conditions
/// The name is one of [`mma_atom_names`] (else an error with examples, or CuTe's reason).
/// # Post-conditions
/// The layouts are CUTLASS's, as CuTe prints them.
///
/// ```
/// use tessera_ir::atom::mma_atom;
/// let a = mma_atom("SM70_8x8x4_F32F16F16F32_NT").unwrap();
/// assert_eq!(a.thr_id.to_string(), "(4,2):(1,16)");
/// assert_eq!(a.c.to_string(), "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))");
/// assert!(mma_atom("SM80_16x8x16_F32F16F16F32").is_err());
/// ```
pub fn mma_atom(name: &str) -> Result<MmaAtom> {
    if let Some(atom) = mma::table_atom(name)? {
        return Ok(atom);
    }
    if let Some(atom) = gmma::gmma_atom(name)? {
        return Ok(atom);
    }
    Err(Error::invalid(format!(
        "unknown MMA atom '{name}': expected a CuTe MMA operation such as \
         SM80_16x8x16_F32F16F16F32_TN, SM90_64x64x16_F16F16F16_SS_TN or UniversalFMA_F32"
    )))
}

/// Every MMA atom name [`mma_atom`] knows, in table order (GMMA last).
///
/// # Post-conditions
/// Each name is accepted by [`mma_atom`].
///
/// ```
/// use tessera_ir::atom::mma_atom_names;
/// let names = mma_atom_names();
/// assert!(names.iter().any(|n| n == "SM75_16x8x8_F32F16F16F32_TN"));
/// assert!(names.iter().any(|n| n == "SM90_64x256x16_F32BF16BF16_RS_TT"));
/// ```
pub fn mma_atom_names() -> Vec<String> {
    let mut out: Vec<String> = mma::table_names().map(str::to_string).collect();
    out.extend(gmma::gmma_names());
    out
}
