//! Shared-memory layout atoms: GMMA's `Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T>` and
//! TMA's swizzle modes.
//!
//! CUTLASS keeps the atoms in bits (`Layout_K_SW128_Atom_Bits = Sw<3,4,3> o smem_ptr_flag o
//! (8,1024):(1024,1)`) and `upcast`s them to the element type; its swizzle acts on byte
//! addresses (16-byte units, 8 of them, rows of 128 bytes). Tessera swizzles element
//! offsets, so for `T` of `b` bits the same function is `Sw<B, 7 - log2(b), 3>` over the
//! upcast layout: `Layout_K_SW128_Atom<half_t>` is `Sw<3,3,3> o (8,64):(64,1)` (CuTe prints
//! `Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)`, the same map of offsets).

use super::cute::upcast;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::swizzle::{ComposedLayout, Swizzle};
use crate::text::parse_layout;

/// The swizzle of a mode: `INTER` (none), `SW32`, `SW64`, `SW128`, as `B` of `Sw<B,4,3>` on bytes.
fn swizzle_bits(mode: &str) -> Option<i64> {
    match mode {
        "INTER" => Some(0),
        "SW32" => Some(1),
        "SW64" => Some(2),
        "SW128" => Some(3),
        _ => None,
    }
}

fn log2_width(bits: i64) -> Result<i64> {
    if !(1..=128).contains(&bits) || bits.count_ones() != 1 {
        return Err(Error::invalid(format!(
            "element width {bits} bits: expected a power of two from 1 to 128"
        )));
    }
    Ok(bits.trailing_zeros() as i64)
}

/// The swizzle of TMA's (and GMMA's) mode `mode` (`INTER`/`NONE`, `SW32`, `SW64`, `SW128`)
/// on element offsets of `elem_bits` bits: `Sw<B, 7 - log2(bits), 3>`.
///
/// # Pre-conditions
/// A known mode; `elem_bits` a power of two from 1 to 128.
/// # Post-conditions
/// On byte addresses it is CUTLASS's `Swizzle<B,4,3>`.
///
/// ```
/// use tessera_ir::atom::tma_swizzle;
/// assert_eq!(tma_swizzle("SW128", 16).unwrap().to_string(), "Sw<3,3,3>");
/// assert_eq!(tma_swizzle("SW64", 8).unwrap().to_string(), "Sw<2,4,3>");
/// ```
pub fn tma_swizzle(mode: &str, elem_bits: i64) -> Result<Swizzle> {
    let m = if mode == "NONE" { "INTER" } else { mode };
    let b = swizzle_bits(m).ok_or_else(|| {
        Error::invalid(format!(
            "unknown swizzle mode '{mode}': expected INTER, SW32, SW64 or SW128"
        ))
    })?;
    Swizzle::new(b, 7 - log2_width(elem_bits)?, 3)
}

/// The GMMA shared-memory atom `Layout_{K|MN}_{INTER|SW32|SW64|SW128}_Atom` for elements of
/// `elem_bits` bits.
///
/// # Pre-conditions
/// `name` is `Layout_K_SW128_Atom` or a sibling ([`smem_atom_names`]); `elem_bits` a power
/// of two from 1 to 128.
/// # Post-conditions
/// A K atom is `8` rows of `W*8/b` elements (`W` the swizzle width in bytes, 16 for INTER),
/// row-major; an MN atom its transpose.
///
/// ```
/// use tessera_ir::atom::smem_atom;
/// assert_eq!(smem_atom("Layout_K_SW128_Atom", 16).unwrap().to_string(), "Sw<3,3,3> o (8,64):(64,1)");
/// assert_eq!(smem_atom("Layout_MN_SW32_Atom", 32).unwrap().to_string(), "Sw<1,2,3> o (8,8):(1,8)");
/// ```
pub fn smem_atom(name: &str, elem_bits: i64) -> Result<ComposedLayout> {
    let bad = || {
        Error::invalid(format!(
            "unknown shared-memory atom '{name}': expected Layout_K_SW128_Atom or a sibling \
             (Layout_{{K,MN}}_{{INTER,SW32,SW64,SW128}}_Atom)"
        ))
    };
    let rest = name.strip_prefix("Layout_").ok_or_else(bad)?;
    let rest = rest.strip_suffix("_Atom").ok_or_else(bad)?;
    let (major, mode) = rest.split_once('_').ok_or_else(bad)?;
    let b = swizzle_bits(mode).ok_or_else(bad)?;
    // Row width in bits: 128 bits per 16-byte unit, 2^B units (INTER: one unit).
    let width = 128 << b;
    let bits_layout = match major {
        "K" => format!("(8,{width}):({width},1)"),
        "MN" => format!("({width},8):(1,{width})"),
        _ => return Err(bad()),
    };
    let inner: Layout = parse_layout(&bits_layout)?;
    log2_width(elem_bits)?;
    let inner = upcast(&inner, elem_bits)?;
    Ok(ComposedLayout::new(tma_swizzle(mode, elem_bits)?, 0, inner))
}

/// Every shared-memory atom name of [`smem_atom`].
///
/// # Post-conditions
/// Eight names, K then MN.
///
/// ```
/// assert_eq!(tessera_ir::atom::smem_atom_names().len(), 8);
/// ```
pub fn smem_atom_names() -> Vec<String> {
    let mut out = Vec::new();
    for major in ["K", "MN"] {
        for mode in ["INTER", "SW32", "SW64", "SW128"] {
            out.push(format!("Layout_{major}_{mode}_Atom"));
        }
    }
    out
}
