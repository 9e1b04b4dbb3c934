//! The atom values of the expression language: a tiled MMA, a copy atom, a tiled copy.
//!
//! Each prints as the expression that makes it (`make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN,
//! (2,2,1):(1,2,0))`), so a printed atom reads back to itself.

use std::fmt;
use tessera_ir::atom::{CopyAtom, TiledCopy, TiledMma};

/// An atom value (held behind an `Arc` in [`super::Value::Atom`], so its size is paid once).
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum AtomValue {
    /// `make_tiled_mma(...)`.
    Mma(TiledMma),
    /// `copy_atom(OP, BITS)`.
    CopyAtom(CopyAtom),
    /// `make_tiled_copy(...)`, `make_tiled_copy_A/B/C(...)`.
    Copy(TiledCopy),
}

impl fmt::Display for AtomValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AtomValue::Mma(t) => write!(f, "{t}"),
            AtomValue::CopyAtom(a) => write!(f, "{a}"),
            AtomValue::Copy(t) => write!(f, "{t}"),
        }
    }
}

impl AtomValue {
    /// A short name of the kind, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            AtomValue::Mma(_) => "a tiled MMA",
            AtomValue::CopyAtom(_) => "a copy atom",
            AtomValue::Copy(_) => "a tiled copy",
        }
    }
}
