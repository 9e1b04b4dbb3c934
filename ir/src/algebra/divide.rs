//! The divides: `logical_divide`, `zipped_divide`, `tiled_divide`, `flat_divide`.
//!
//! `logical_divide(A, B) = A ∘ (B, complement(B, shape(A)))`: mode 0 is the tile `B` selects,
//! mode 1 the layout of the tiles. Post-conditions: `rank(R) == 2`, `compatible(B, R[0])`,
//! `R(i, 0) == A(B(i))`, and every offset of `A` appears in `R`.
//!
//! ```
//! use tessera_ir::{algebra::{logical_divide, zipped_divide, Tiler}, parse_layout, parse_int_tuple};
//! let a = parse_layout("24:1").unwrap();
//! let r = logical_divide(&a, &Tiler::Layout(parse_layout("4:2").unwrap())).unwrap();
//! assert_eq!(r.to_string(), "(4,(2,3)):(2,(1,8))");
//! let t = Tiler::from_shape(&parse_int_tuple("(2,7)").unwrap());
//! let z = zipped_divide(&parse_layout("(4,7):(1,16)").unwrap(), &t).unwrap();
//! assert_eq!(z.to_string(), "((2,7),(2,1)):((1,16),(2,112))");
//! ```

use super::by_mode::{by_mode, unpack, unzip};
use super::coalesce::Flat;
use super::complement::{complement, complement_flat};
use super::composition::{compose_parts, composition};
use super::tiler::Tiler;
use crate::error::Result;
use crate::htuple::{HTuple, Tokens};
use crate::int::Int;
use crate::layout::{Layout, Parts};
use crate::shape;
use crate::stride::{Codomain, Stride};
use smallvec::SmallVec;

/// `A / B`, by mode for a tuple tiler.
pub fn logical_divide<I: Int>(a: &Layout<I>, t: &Tiler<I>) -> Result<Layout<I>> {
    match t {
        Tiler::Keep => Ok(a.clone()),
        Tiler::Layout(b) => divide_by_layout(a, b).map_err(|e| e.in_op("logical_divide")),
        Tiler::Tuple(ts) => by_mode("logical_divide", a, ts, logical_divide),
    }
}

/// `A ∘ (B, complement(B, size(A)))`, composed without building `(B, complement)`.
fn divide_by_layout<I: Int>(a: &Layout<I>, b: &Layout<I>) -> Result<Layout<I>> {
    let target = cotarget(a, b)?;
    let Some((cs, cd)) = complement_flat(b, Some(&target))? else {
        let c = complement(b, Some(&target))?;
        return composition(a, &Layout::concat([b.clone(), c]));
    };
    // The tokens of `(B, C)`: a pair, then B's tree, then C (a leaf, or a flat tuple).
    let bt = b.shape().profile().tokens();
    let mut toks: Tokens = SmallVec::with_capacity(bt.len() + cs.len() + 2);
    toks.push(3);
    toks.extend_from_slice(bt);
    if cs.len() > 1 {
        toks.push(cs.len() as u32 + 1);
    }
    toks.extend(std::iter::repeat_n(0, cs.len()));
    let mut s: Flat<I> = b.flat_shape().iter().cloned().collect();
    s.extend(cs);
    let mut d: Flat<Stride<I>> = b.flat_stride().iter().cloned().collect();
    d.extend(cd);
    compose_parts(
        a,
        Parts {
            toks: &toks,
            s: &s,
            d: &d,
        },
    )
}

/// The cotarget the divide complements `B` against: `size(A)` for an integer-valued `B`
/// (the definition), and one size per top-level mode of `A` for a coordinate-valued `B`,
/// whose complement is taken axis by axis.
///
/// Against `shape(A)` the complement would round leaf by leaf (PyCuTe), which over-extends
/// the rest when the tile straddles `A`'s leaves (`logical_divide((8,3):(1,8),3:1)` became
/// `(3,9):(1,3)`, 27 elements of a 24-element `A`) or stops short of them.
pub(crate) fn cotarget<I: Int>(a: &Layout<I>, b: &Layout<I>) -> Result<HTuple<I>> {
    match b.codomain()? {
        Codomain::Coord => shape::product_each(a.shape()),
        Codomain::Int | Codomain::F2 => Ok(HTuple::leaf(a.size()?)),
    }
}

/// `((tile), (rest))`: the tiles of all modes gathered in mode 0.
pub fn zipped_divide<I: Int>(a: &Layout<I>, t: &Tiler<I>) -> Result<Layout<I>> {
    match t {
        Tiler::Tuple(ts) => unzip("zipped_divide", &logical_divide(a, t)?, ts),
        _ => logical_divide(a, t).map_err(|e| e.in_op("zipped_divide")),
    }
}

/// `((tile), rest0, rest1, ...)`.
pub fn tiled_divide<I: Int>(a: &Layout<I>, t: &Tiler<I>) -> Result<Layout<I>> {
    let z = zipped_divide(a, t).map_err(|e| e.in_op("tiled_divide"))?;
    Ok(unpack(&z, false))
}

/// `(tile0, tile1, ..., rest0, rest1, ...)`.
pub fn flat_divide<I: Int>(a: &Layout<I>, t: &Tiler<I>) -> Result<Layout<I>> {
    let z = zipped_divide(a, t).map_err(|e| e.in_op("flat_divide"))?;
    Ok(unpack(&z, true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse_int_tuple as t, parse_layout as l};

    #[test]
    fn keeps_every_element_where_pycute_drops_some() {
        let a = l("(8,4,7):(1,8,32)").unwrap();
        let r = logical_divide(&a, &Tiler::Layout(l("28:1").unwrap())).unwrap();
        assert_eq!(r.to_string(), "(28,8):(1,28)");
        assert_eq!(r.size().unwrap(), 224);
    }

    #[test]
    fn tiled_and_flat() {
        let a = l("(8,6):(1,8)").unwrap();
        let tl = Tiler::from_shape(&t("(2,3)").unwrap());
        assert_eq!(
            zipped_divide(&a, &tl).unwrap().to_string(),
            "((2,3),(4,2)):((1,8),(2,24))"
        );
        assert_eq!(
            tiled_divide(&a, &tl).unwrap().to_string(),
            "((2,3),4,2):((1,8),2,24)"
        );
        assert_eq!(flat_divide(&a, &tl).unwrap().to_string(), "(2,3,4,2):(1,8,2,24)");
    }

    #[test]
    fn nested_tilers_keep_tile_and_rest_grouped() {
        let a = l("((4,6),8):((1,4),24)").unwrap();
        let tl = Tiler::from_shape(&t("((2,3),4)").unwrap());
        assert_eq!(
            zipped_divide(&a, &tl).unwrap().to_string(),
            "(((2,3),4),((2,2),2)):(((1,4),24),((2,12),96))"
        );
    }
}
