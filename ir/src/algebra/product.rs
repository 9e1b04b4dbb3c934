//! The products: `logical_product`, `zipped_product`, `tiled_product`, `flat_product`,
//! `blocked_product`, `raked_product`.
//!
//! `logical_product(A, B) = (A, complement(A) ∘ B)`: a copy of `A` at every position of `B`.
//! Post-conditions: `rank(R) == 2`, `R[0] == A`, `compatible(B, R[1])`, and
//! `size(R) == size(A) * size(B)`.
//!
//! `blocked_product` and `raked_product` pair mode `k` of `A` with mode `k` of `B` (tile first,
//! or grid first); layouts of unequal rank are first padded with `1:0` modes to the larger rank,
//! as CuTe does (`blocked_product((8,8):(8,1),2:1)` is `((8,2),(8,1)):((8,64),(1,0))`). PyCuTe
//! loses modes for rank-1 inputs (`blocked_product(16:2,16:1)` has
//! size 16 there); Tessera pairs the whole layouts, so the size is always `size(A)*size(B)`.
//!
//! ```
//! use tessera_ir::{algebra::{logical_product, blocked_product, Tiler}, parse_layout};
//! let a = parse_layout("(2,2):(4,1)").unwrap();
//! let r = logical_product(&a, &Tiler::Layout(parse_layout("6:1").unwrap())).unwrap();
//! assert_eq!(r.to_string(), "((2,2),(2,3)):((4,1),(2,8))");
//! let b = blocked_product(&parse_layout("(2,5):(5,1)").unwrap(), &parse_layout("(3,4):(1,3)").unwrap()).unwrap();
//! assert_eq!(b.to_string(), "((2,3),(5,4)):((5,10),(1,30))");
//! ```

use super::by_mode::{by_mode, unpack, unzip};
use super::complement::complement;
use super::composition::composition;
use super::tiler::Tiler;
use crate::error::Result;
use crate::int::Int;
use crate::layout::Layout;
use crate::stride::Stride;
use smallvec::SmallVec;

/// `(A, complement(A) ∘ B)`, by mode for a tuple tiler.
pub fn logical_product<I: Int>(a: &Layout<I>, t: &Tiler<I>) -> Result<Layout<I>> {
    match t {
        Tiler::Keep => Ok(a.clone()),
        Tiler::Layout(b) => {
            let r1 = grid(a, b).map_err(|e| e.in_op("logical_product"))?;
            Ok(Layout::concat([a.clone(), r1]))
        }
        Tiler::Tuple(ts) => by_mode("logical_product", a, ts, logical_product),
    }
}

/// `complement(A) ∘ B`, the layout of the copies of `A`.
fn grid<I: Int>(a: &Layout<I>, b: &Layout<I>) -> Result<Layout<I>> {
    composition(&complement(a, None)?, b)
}

/// `((A modes...), (grid modes...))` for a tuple tiler; the logical product otherwise.
pub fn zipped_product<I: Int>(a: &Layout<I>, t: &Tiler<I>) -> Result<Layout<I>> {
    match t {
        Tiler::Tuple(ts) => unzip("zipped_product", &logical_product(a, t)?, ts),
        _ => logical_product(a, t).map_err(|e| e.in_op("zipped_product")),
    }
}

/// `((A), grid0, grid1, ...)`.
pub fn tiled_product<I: Int>(a: &Layout<I>, t: &Tiler<I>) -> Result<Layout<I>> {
    Ok(unpack(
        &zipped_product(a, t).map_err(|e| e.in_op("tiled_product"))?,
        false,
    ))
}

/// `(A0, A1, ..., grid0, grid1, ...)`.
pub fn flat_product<I: Int>(a: &Layout<I>, t: &Tiler<I>) -> Result<Layout<I>> {
    Ok(unpack(
        &zipped_product(a, t).map_err(|e| e.in_op("flat_product"))?,
        true,
    ))
}

/// The top-level modes, treating a leaf-shaped layout as its own single mode.
fn top_modes<I: Int>(l: &Layout<I>) -> SmallVec<[Layout<I>; 4]> {
    if l.shape().is_leaf() {
        let mut v = SmallVec::new();
        v.push(l.clone());
        v
    } else {
        l.modes()
    }
}

/// `l` with `1:0` modes appended up to rank `r` (CuTe's `append<R>`); a leaf layout is its own
/// single mode.
fn pad_to_rank<I: Int>(l: &Layout<I>, r: usize) -> Layout<I> {
    if l.rank() >= r {
        return l.clone();
    }
    let mut modes = top_modes(l);
    modes.resize(r, Layout::leaf(I::one(), Stride::zero()));
    Layout::concat(modes)
}

fn rank_sensitive<I: Int>(
    op: &'static str,
    a: &Layout<I>,
    b: &Layout<I>,
    tile_first: bool,
) -> Result<Layout<I>> {
    // Layouts of unequal rank are padded with `1:0` modes to the larger rank, as CuTe does.
    let r = a.rank().max(b.rank());
    let (a, b) = (&pad_to_rank(a, r), &pad_to_rank(b, r));
    let g = grid(a, b).map_err(|e| e.in_op(op))?;
    // The grid has B's top-level structure: split it the way B splits.
    let gm = if b.shape().is_leaf() {
        let mut v: SmallVec<[Layout<I>; 4]> = SmallVec::new();
        v.push(g);
        v
    } else {
        g.modes()
    };
    let am = top_modes(a);
    let modes = am.into_iter().zip(gm).map(|(x, y)| {
        if tile_first {
            Layout::concat([x, y])
        } else {
            Layout::concat([y, x])
        }
    });
    Ok(Layout::concat(modes))
}

/// Mode `k` of the result is `(A_k, grid_k)`: tiles stay contiguous.
pub fn blocked_product<I: Int>(a: &Layout<I>, b: &Layout<I>) -> Result<Layout<I>> {
    rank_sensitive("blocked_product", a, b, true)
}

/// Mode `k` of the result is `(grid_k, A_k)`: tiles are interleaved.
pub fn raked_product<I: Int>(a: &Layout<I>, b: &Layout<I>) -> Result<Layout<I>> {
    rank_sensitive("raked_product", a, b, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_layout as l;

    #[test]
    fn rank_one_products_keep_every_mode() {
        let r = blocked_product(&l("16:2").unwrap(), &l("16:1").unwrap()).unwrap();
        assert_eq!(r.size().unwrap(), 256);
        let r = blocked_product(&l("8:4").unwrap(), &l("12:1").unwrap()).unwrap();
        assert_eq!(r.to_string(), "((8,(4,3))):((4,(1,32)))");
        let r = raked_product(&l("2:2").unwrap(), &l("4:1").unwrap()).unwrap();
        assert_eq!(r.to_string(), "(((2,2),2)):(((1,4),2))");
    }

    #[test]
    fn seed_examples() {
        let r = raked_product(&l("(2,5):(5,1)").unwrap(), &l("(3,4):(1,3)").unwrap()).unwrap();
        assert_eq!(r.to_string(), "((3,2),(4,5)):((10,5),(30,1))");
        let r = logical_product(&l("3:1").unwrap(), &Tiler::Layout(l("4:1").unwrap())).unwrap();
        assert_eq!(r.to_string(), "(3,4):(1,3)");
    }
}
