//! The products: `logical_product`, `zipped_product`, `tiled_product`, `flat_product`,
//! `blocked_product`, `raked_product`.
//!
//! `logical_product(A, B) = (A, complement(A) ∘ B)`: a copy of `A` at every position of `B`.
//! The gathered forms regroup its modes; `blocked_product` and `raked_product` pair mode `k`
//! of `A` with mode `k` of the grid, padding unequal ranks with `1:0` as CuTe does (PyCuTe
//! raises there, and loses modes for rank-1 inputs). Each function states its contract on
//! itself.

use super::by_mode::{by_mode, unpack, unzip};
use super::complement::complement;
use super::composition::composition;
use super::tiler::Tiler;
use crate::error::{Error, Result};
use crate::int::Int;
use crate::layout::{Layout, LayoutBuilder, Parts};
use crate::stride::Stride;
use smallvec::SmallVec;

/// `(A, complement(A) ∘ B)`, by mode for a tuple tiler: a copy of `A` at every position of
/// `B`.
///
/// # Pre-conditions
///
/// * Wherever the tiler is a tuple, the matching (sub-)mode of `A` has at least its rank;
///   otherwise an [`Error::Condition`](crate::Error::Condition) of `logical_product`.
/// * For each layout `B` in the tiler (against its mode of `A`): [`complement`]`(A)` exists
///   (the modes of `A` with a nonzero stride, sorted, each start at or past the span of the
///   one before), and [`composition`]`(complement(A), B)` meets its pre-conditions. Each
///   failure is the step's [`Error::Condition`](crate::Error::Condition), relabelled
///   `logical_product`.
///
/// # Post-conditions
///
/// For a layout `B`, with `C = complement(A)` (no cotarget):
///
/// * `rank(R) == 2`, `R[0] == A`, `R[1] == composition(C, B)`, so `compatible(B, R[1])`;
/// * `size(R) == size(A) * size(B)`;
/// * `R(i, j) == A(i) + C(B(j))` for every `i` in `[0, size(A))` and `j` in `[0, size(B))`;
/// * `C`'s last mode absorbs every index, so wherever `E = complement(A, size(A) * cosize(B))`
///   (CuTe's definition) exists, `R[1](j) == E(B(j))` for every `j` in `[0, size(B))`. Where
///   `E` is an error (`A` with a hole it cannot cover, `(2,2):(1,3)`), `R` is still defined;
/// * when `A` and `B` are injective with non-negative strides, so is `R`.
///
/// For `_`, `R == A`. For a tuple tiler, `rank(R) == rank(A)`, mode `k` of `R` is
/// `logical_product(A_k, T_k)`, and the modes of `A` past the tiler are kept.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::{complement, logical_product, Tiler}, parse_layout as l, HTuple};
/// let a = l("(2,2):(4,1)").unwrap();
/// let b = l("6:1").unwrap();
/// let r = logical_product(&a, &Tiler::Layout(b.clone())).unwrap();
/// assert_eq!(r.to_string(), "((2,2),(2,3)):((4,1),(2,8))");
/// let c = complement(&a, None).unwrap();
/// let v = |x: &tessera_ir::Layout<i64>, i: i64| *x.eval_index(&i).unwrap().as_int().unwrap();
/// for (i, j) in (0..4).flat_map(|i| (0..6).map(move |j| (i, j))) {
///     let got = v(&r, i + 4 * j);
///     assert_eq!(got, v(&a, i) + v(&c, v(&b, j)));
///     assert_eq!(r.eval(&HTuple::flat([i, j])).unwrap().as_int(), Some(&got));
/// }
/// let p = |x: &str, y: &str| logical_product(&l(x).unwrap(), &Tiler::Layout(l(y).unwrap()));
/// assert_eq!(p("3:1", "4:1").unwrap().to_string(), "(3,4):(1,3)");
/// let e = p("(4,2):(1,1)", "6:1").unwrap_err().to_string();
/// assert!(e.starts_with("logical_product: (4,2):(1,1) has modes that overlap or interleave"));
/// // complement(4:2) = (2,1):(1,8): a grid of 3 does not split over its extent-2 mode.
/// let e = p("4:2", "3:1").unwrap_err().to_string();
/// assert!(e.starts_with("logical_product: A = 4:2, B = 3:1: the grid complement(A) o B"), "{e}");
/// assert!(e.contains("shape divisibility condition") && !e.contains("; A = "), "{e}");
/// ```
pub fn logical_product<I: Int>(a: &Layout<I>, t: &Tiler<I>) -> Result<Layout<I>> {
    match t {
        Tiler::Keep => Ok(a.clone()),
        Tiler::Layout(b) => {
            let r1 = grid(a, b).map_err(|e| e.in_op("logical_product"))?;
            Ok(Layout::concat([a.clone(), r1]))
        }
        Tiler::Tuple(ts) => by_mode("logical_product", a, ts, product_mode),
    }
}

/// The logical product of mode `m` of `A` (read in place) with the layout `b` of a tuple
/// tiler, appended to `out` as the pair `(m, grid)`.
fn product_mode<I: Int>(out: &mut LayoutBuilder<'_, I>, m: Parts<'_, I>, b: &Layout<I>) -> Result<()> {
    let r1 = grid(&m.to_layout(), b).map_err(|e| e.in_op("logical_product"))?;
    out.toks.push(3);
    out.push_parts(m);
    out.push_layout(r1);
    Ok(())
}

/// `complement(A) ∘ B`, the layout of the copies of `A`. A failed composition is reported with
/// the user's operands and the step: its `A` is the complement, named so.
fn grid<I: Int>(a: &Layout<I>, b: &Layout<I>) -> Result<Layout<I>> {
    let c = complement(a, None)?;
    composition(&c, b).map_err(|e| match e {
        Error::Condition { op, msg } => {
            let msg = msg
                .replace("of A)", "of complement(A))")
                .replace("; A = ", "; complement(A) = ");
            Error::Condition {
                op,
                msg: format!("A = {a}, B = {b}: the grid complement(A) o B = {c} o {b} fails: {msg}"),
            }
        }
        e => e,
    })
}

/// `((A modes...), (grid modes...))` for a tuple tiler; the logical product otherwise.
///
/// # Pre-conditions
///
/// Those of [`logical_product`], with the same errors: relabelled `zipped_product` for a
/// layout tiler, and named `logical_product` (the by-mode step that failed) for a tuple tiler.
///
/// # Post-conditions
///
/// * For a layout tiler or `_`: `R == logical_product(A, T)`.
/// * For a tuple tiler: `rank(R) == 2`; `R[0]` gathers the tiled modes of `A` and `R[1]` the
///   grid of each, then the modes of `A` past the tiler. A `_` entry puts the whole mode in
///   `R[0]` and `1:0` in `R[1]`; a nested tuple entry is gathered the same way, recursively.
/// * `R` has the offsets of `logical_product(A, T)`, each as often.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::{zipped_product, Tiler}, parse_int_tuple as t, parse_layout as l};
/// // A 2x5 tile of coordinates, repeated 3x4 times.
/// let a = l("(2,5):(1@0,1@1)").unwrap();
/// let tl = Tiler::from_shape(&t("(3,4)").unwrap());
/// let r = zipped_product(&a, &tl).unwrap();
/// assert_eq!(r.to_string(), "((2,5),(3,4)):((1@0,1@1),(2@0,5@1))");
/// // The untiled mode 4:4 goes with the grids.
/// let tl = Tiler::from_shape(&t("(3,2)").unwrap());
/// let r = zipped_product(&l("(2,2,4):(1,2,4)").unwrap(), &tl).unwrap();
/// assert_eq!(r.to_string(), "((2,2),(3,2,4)):((1,2),(2,1,4))");
/// let e = zipped_product(&l("(4,2):(1,1)").unwrap(), &Tiler::Layout(l("2:1").unwrap()));
/// let e = e.unwrap_err().to_string();
/// assert!(e.starts_with("zipped_product: (4,2):(1,1) has modes that overlap or interleave"));
/// ```
pub fn zipped_product<I: Int>(a: &Layout<I>, t: &Tiler<I>) -> Result<Layout<I>> {
    match t {
        Tiler::Tuple(ts) => unzip(
            "zipped_product",
            &logical_product(a, t).map_err(|e| e.in_op("zipped_product"))?,
            ts,
        ),
        _ => logical_product(a, t).map_err(|e| e.in_op("zipped_product")),
    }
}

/// `((A), grid0, grid1, ...)`: [`zipped_product`] with the modes of its grid spliced into the
/// top level.
///
/// # Pre-conditions
///
/// Those of [`logical_product`]; a failed condition is an
/// [`Error::Condition`](crate::Error::Condition) relabelled `tiled_product`.
///
/// # Post-conditions
///
/// With `Z = zipped_product(A, T)`, for a layout or tuple tiler `T` (a bare `_` gives
/// `Z == A`, not a pair):
///
/// * `R[0] == Z[0]`, and the other modes of `R` are the top-level modes of `Z[1]` (or `Z[1]`
///   itself when it is a single leaf);
/// * `R(i) == Z(i)` for every `i` in `[0, size(Z))`.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::{tiled_product, Tiler}, parse_int_tuple as t, parse_layout as l};
/// let tl = Tiler::from_shape(&t("(3,4)").unwrap());
/// let r = tiled_product(&l("(2,5):(1@0,1@1)").unwrap(), &tl).unwrap();
/// assert_eq!(r.to_string(), "((2,5),3,4):((1@0,1@1),2@0,5@1)");
/// let e = tiled_product(&l("(4,2):(1,1)").unwrap(), &Tiler::Layout(l("2:1").unwrap()));
/// assert!(e.unwrap_err().to_string().starts_with("tiled_product: (4,2):(1,1) has modes that overlap or interleave"));
/// ```
pub fn tiled_product<I: Int>(a: &Layout<I>, t: &Tiler<I>) -> Result<Layout<I>> {
    Ok(unpack(
        &zipped_product(a, t).map_err(|e| e.in_op("tiled_product"))?,
        false,
    ))
}

/// `(A0, A1, ..., grid0, grid1, ...)`: [`zipped_product`] with the modes of both its parts
/// spliced into the top level.
///
/// # Pre-conditions
///
/// Those of [`logical_product`]; a failed condition is an
/// [`Error::Condition`](crate::Error::Condition) relabelled `flat_product`.
///
/// # Post-conditions
///
/// With `Z = zipped_product(A, T)`, for a layout or tuple tiler `T` (a bare `_` gives
/// `Z == A`, not a pair):
///
/// * the modes of `R` are the top-level modes of `Z[0]`, then those of `Z[1]` (a single leaf
///   counting as one mode);
/// * `R(i) == Z(i)` for every `i` in `[0, size(Z))`.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::{flat_product, Tiler}, parse_int_tuple as t, parse_layout as l};
/// let tl = Tiler::from_shape(&t("(3,4)").unwrap());
/// let r = flat_product(&l("(2,5):(1@0,1@1)").unwrap(), &tl).unwrap();
/// assert_eq!(r.to_string(), "(2,5,3,4):(1@0,1@1,2@0,5@1)");
/// let e = flat_product(&l("4:2").unwrap(), &Tiler::Layout(l("3:1").unwrap())).unwrap_err();
/// assert!(e.to_string().contains("shape divisibility condition"));
/// ```
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
///
/// # Pre-conditions
///
/// [`complement`]`(A)` exists (the modes of `A` with a nonzero stride, sorted, each start at
/// or past the span of the one before), and [`composition`]`(complement(A), B)` meets its
/// pre-conditions, `B` padded as below. Each
/// failure is the step's [`Error::Condition`](crate::Error::Condition), relabelled
/// `blocked_product`. Ranks need not match.
///
/// # Post-conditions
///
/// * `A` and `B` are first padded with `1:0` modes to the larger rank `r` (a leaf layout is
///   its own single mode), as CuTe's `append` does;
/// * with `G = composition(complement(A), B)` of the padded `B`: `rank(R) == r` and mode `k`
///   of `R` is `(A_k, G_k)`;
/// * `size(R) == size(A) * size(B)`;
/// * `R(((a_k, g_k))_k) == A(a) + complement(A)(B(g))` for every coordinate `a` of `A` and
///   `g` of `B`;
/// * `R` has the offsets of [`raked_product`]`(A, B)`, and of
///   `logical_product(A, B)` where that exists, each as often.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::blocked_product, parse_layout as l};
/// let p = |x: &str, y: &str| blocked_product(&l(x).unwrap(), &l(y).unwrap());
/// // 2x5 row-major tiles in a 3x4 column-major grid.
/// let r = p("(2,5):(5,1)", "(3,4):(1,3)").unwrap();
/// assert_eq!(r.to_string(), "((2,3),(5,4)):((5,10),(1,30))");
/// // Ranks 2 and 1: B is padded to (2,1):(1,0).
/// assert_eq!(p("(8,8):(8,1)", "2:1").unwrap().to_string(), "((8,2),(8,1)):((8,64),(1,0))");
/// // Rank 1: every element is kept (PyCuTe drops some).
/// assert_eq!(p("8:4", "12:1").unwrap().to_string(), "((8,(4,3))):((4,(1,32)))");
/// let e = p("(4,2):(1,1)", "2:1").unwrap_err().to_string();
/// assert!(e.starts_with("blocked_product: (4,2):(1,1) has modes that overlap or interleave"));
/// ```
pub fn blocked_product<I: Int>(a: &Layout<I>, b: &Layout<I>) -> Result<Layout<I>> {
    rank_sensitive("blocked_product", a, b, true)
}

/// Mode `k` of the result is `(grid_k, A_k)`: tiles are interleaved.
///
/// # Pre-conditions
///
/// Those of [`blocked_product`]; a failed condition is an
/// [`Error::Condition`](crate::Error::Condition) relabelled `raked_product`.
///
/// # Post-conditions
///
/// * `A` and `B` are padded with `1:0` modes to the larger rank `r`, as for
///   [`blocked_product`];
/// * with `G = composition(complement(A), B)` of the padded `B`: `rank(R) == r` and mode `k`
///   of `R` is `(G_k, A_k)`;
/// * `size(R) == size(A) * size(B)`;
/// * `R(((g_k, a_k))_k) == A(a) + complement(A)(B(g))` for every coordinate `a` of `A` and
///   `g` of `B`;
/// * `R` has the offsets of [`blocked_product`]`(A, B)`, each as often.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::raked_product, parse_layout as l};
/// let p = |x: &str, y: &str| raked_product(&l(x).unwrap(), &l(y).unwrap());
/// // Each tile's elements are spread over the grid.
/// let r = p("(2,5):(5,1)", "(3,4):(1,3)").unwrap();
/// assert_eq!(r.to_string(), "((3,2),(4,5)):((10,5),(30,1))");
/// assert_eq!(p("(8,8):(8,1)", "2:1").unwrap().to_string(), "((2,8),(1,8)):((64,8),(0,1))");
/// // complement(4:2) = (2,1):(1,8): a grid of 3 does not split over its extent-2 mode.
/// let e = p("4:2", "3:1").unwrap_err().to_string();
/// assert!(e.starts_with("raked_product: ") && e.contains("shape divisibility condition"));
/// ```
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
