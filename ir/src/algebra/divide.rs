//! The divides: `logical_divide`, `zipped_divide`, `tiled_divide`, `flat_divide`.
//!
//! `logical_divide(A, B) = A ∘ (B, complement(B, size(A)))`: mode 0 is the tile `B` selects,
//! mode 1 the layout of the tiles. The other three regroup its modes. Each function states its
//! contract on itself.

use super::by_mode::{by_mode, unpack, unzip};
use super::coalesce::Flat;
use super::complement::{complement, complement_flat};
use super::composition::{compose_into, composition};
use super::tiler::{Tiler, TilerView};
use crate::error::{Error, Result};
use crate::htuple::{HTuple, Tokens};
use crate::int::Int;
use crate::layout::{Layout, LayoutBuilder, Parts};
use crate::shape;
use crate::stride::{Codomain, Stride};
use smallvec::SmallVec;

/// `A / B`, by mode for a tuple tiler: `A ∘ (B, complement(B, size(A)))`, whose mode 0 is the
/// tile `B` selects and mode 1 the layout of the tiles.
///
/// # Pre-conditions
///
/// * Wherever the tiler is a tuple, the matching (sub-)mode of `A` has at least its rank;
///   otherwise an [`Error::Condition`](crate::Error::Condition) of `logical_divide` ("tiler has
///   2 modes but 12:1 has rank 1").
/// * For each layout `B` in the tiler (against its mode of `A`): [`complement`]`(B, size(A))`
///   exists: the modes of `B` with a nonzero stride, sorted, each start at or past the span of
///   the one before, and `(B, complement)` reaches every index below `size(A)` (a stride of `B`
///   that skips an index no extension can fill is an error naming it, where PyCuTe returns a
///   smaller grid); and
///   [`composition`]`(A, (B, complement))` meets its pre-conditions. Each failure is the
///   [`Error::Condition`](crate::Error::Condition) of the step, relabelled `logical_divide`.
///
/// # Post-conditions
///
/// For a layout `B`:
///
/// * `R == composition(A, (B, C))` with `C = complement(B, size(A))` (for a coordinate-valued
///   `B`, `C` is taken against one size per top-level mode of `A`);
/// * `rank(R) == 2`, `compatible(B, R[0])`, and `size(R) == size(B) * size(C)`: never more
///   elements than the definition (PyCuTe's leaf-by-leaf complement can over-extend);
/// * `R(i, 0) == A(B(i))` for every `i` in `[0, size(B))`;
/// * every offset of `A` appears in `R`.
///
/// For `_`, `R == A`. For a tuple tiler, `rank(R) == rank(A)`, mode `k` of `R` is
/// `logical_divide(A_k, T_k)`, and the modes of `A` past the tiler are kept.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::{complement, composition, logical_divide, Tiler}, HTuple, Layout};
/// use tessera_ir::{parse_int_tuple, parse_layout};
/// let a = parse_layout("24:1").unwrap();
/// let b = parse_layout("4:2").unwrap();
/// let r = logical_divide(&a, &Tiler::Layout(b.clone())).unwrap();
/// assert_eq!(r.to_string(), "(4,(2,3)):(2,(1,8))");
/// let c = complement(&b, Some(&HTuple::leaf(24))).unwrap();
/// assert_eq!(r, composition(&a, &Layout::concat([b.clone(), c])).unwrap());
/// for i in 0..4 {
///     let bi = *b.eval_index(&i).unwrap().as_int().unwrap();
///     assert_eq!(r.eval(&HTuple::flat([i, 0])).unwrap(), a.eval_index(&bi).unwrap());
/// }
/// // Every element of A is kept (PyCuTe keeps 196 of these 224).
/// let a = parse_layout("(8,4,7):(1,8,32)").unwrap();
/// let r = logical_divide(&a, &Tiler::Layout(parse_layout("28:1").unwrap())).unwrap();
/// assert_eq!(r.to_string(), "(28,8):(1,28)");
/// // By mode: a (2,3) tile of an 8x6 layout.
/// let t = Tiler::from_shape(&parse_int_tuple("(2,3)").unwrap());
/// let r = logical_divide(&parse_layout("(8,6):(1,8)").unwrap(), &t).unwrap();
/// assert_eq!(r.to_string(), "((2,4),(3,2)):((1,2),(8,24))");
/// // (2,2):(1,3) never reaches 2, 5, 8, 11: no grid of it covers 12:1.
/// let t = Tiler::Layout(parse_layout("(2,2):(1,3)").unwrap());
/// let e = logical_divide(&parse_layout("12:1").unwrap(), &t).unwrap_err();
/// assert!(e.to_string().starts_with("logical_divide: (A, complement) cannot cover"));
/// ```
pub fn logical_divide<I: Int>(a: &Layout<I>, t: &Tiler<I>) -> Result<Layout<I>> {
    match t {
        Tiler::Keep => Ok(a.clone()),
        Tiler::Layout(b) => logical_divide_layout(a, b),
        Tiler::Tuple(ts) => by_mode("logical_divide", a, ts, divide_mode),
    }
}

/// [`logical_divide`] for a tiler read in place ([`TilerView`]): the same result and errors
/// as for the [`Tiler`] it stands for (`Unit(n)` is the layout `n:1`).
///
/// # Pre-conditions
///
/// Those of [`logical_divide`].
///
/// # Post-conditions
///
/// `R == logical_divide(A, T)` for the owned tiler `T` the view stands for, errors included.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::{logical_divide_view, TilerView}, parse_layout};
/// let a = parse_layout("(8,6):(1,8)").unwrap();
/// let t = TilerView::Tuple(vec![TilerView::Unit(2), TilerView::Unit(3)]);
/// assert_eq!(logical_divide_view(&a, &t).unwrap().to_string(), "((2,4),(3,2)):((1,2),(8,24))");
/// ```
pub fn logical_divide_view<I: Int>(a: &Layout<I>, t: &TilerView<'_, I>) -> Result<Layout<I>> {
    match t {
        TilerView::Keep => Ok(a.clone()),
        TilerView::Layout(b) => logical_divide_layout(a, b),
        TilerView::Unit(n) => logical_divide_layout(a, &Layout::leaf(n.clone(), I::one())),
        TilerView::Tuple(ts) => by_mode("logical_divide", a, ts, divide_mode),
    }
}

/// [`logical_divide`] by a layout `B`, borrowed: the same result and errors as
/// `logical_divide(A, &Tiler::Layout(B))`, without building the tiler (a copy of `B`).
///
/// # Pre-conditions
///
/// Those of [`logical_divide`] for a layout tiler.
///
/// # Post-conditions
///
/// `R == logical_divide(A, &Tiler::Layout(B.clone()))`, errors included.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::{logical_divide, logical_divide_layout, Tiler}, parse_layout};
/// let (a, b) = (parse_layout("24:1").unwrap(), parse_layout("4:2").unwrap());
/// let r = logical_divide_layout(&a, &b).unwrap();
/// assert_eq!(r.to_string(), "(4,(2,3)):(2,(1,8))");
/// assert_eq!(r, logical_divide(&a, &Tiler::Layout(b)).unwrap());
/// let e = logical_divide_layout(&parse_layout("12:1").unwrap(), &parse_layout("(2,2):(1,3)").unwrap());
/// assert!(e.unwrap_err().to_string().starts_with("logical_divide: (A, complement) cannot cover"));
/// ```
pub fn logical_divide_layout<I: Int>(a: &Layout<I>, b: &Layout<I>) -> Result<Layout<I>> {
    Error::within(divide_by_layout(a, b), "logical_divide")
}

/// Mode `m` of `A` (read in place) divided by the layout `b` of a tuple tiler, appended to
/// `out`.
fn divide_mode<I: Int>(out: &mut LayoutBuilder<'_, I>, m: Parts<'_, I>, b: &Layout<I>) -> Result<()> {
    divide_into(out, m, b).map_err(|e| e.in_op("logical_divide"))
}

/// `A ∘ (B, complement(B, size(A)))`, composed without building `(B, complement)`.
fn divide_by_layout<I: Int>(a: &Layout<I>, b: &Layout<I>) -> Result<Layout<I>> {
    Layout::build(|out| divide_into(out, Parts::of(a), b))
}

/// [`divide_by_layout`] of `A` given as parts, appended to `out` as its next mode.
fn divide_into<I: Int>(out: &mut LayoutBuilder<'_, I>, a: Parts<'_, I>, b: &Layout<I>) -> Result<()> {
    let target = match b.codomain()? {
        Codomain::Int | Codomain::F2 => HTuple::leaf(I::product(a.s)?),
        Codomain::Coord => cotarget(&a.to_layout(), b)?,
    };
    let (mut cs, mut cd) = (Flat::new(), Flat::new());
    if !complement_flat(b, Some(&target), (&mut cs, &mut cd))? {
        let c = complement(b, Some(&target))?;
        out.push_layout(composition(&a.to_layout(), &Layout::concat([b.clone(), c]))?);
        return Ok(());
    }
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
    compose_into(
        out,
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
///
/// # Pre-conditions
///
/// Those of [`logical_divide`], with the same errors: relabelled `zipped_divide` for a layout
/// tiler, and named `logical_divide` (the by-mode step that failed) for a tuple tiler.
///
/// # Post-conditions
///
/// * For a layout tiler or `_`: `R == logical_divide(A, T)`.
/// * For a tuple tiler: `rank(R) == 2`; `R[0]` gathers the tiles of the tiled modes (as a
///   function, `(A_0 ∘ T_0, A_1 ∘ T_1, ...)`) and `R[1]` their rests, then the modes of `A`
///   past the tiler. A `_` entry puts the whole mode in the tile and `1:0` in the rest; a
///   nested tuple entry is gathered the same way, recursively (CuTe's `zip2_by`), so that its
///   tile and its rest stay grouped.
/// * `R` has the offsets of `logical_divide(A, T)`, each as often, so
///   `size(R) == size(logical_divide(A, T))`.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::{zipped_divide, Tiler}, parse_int_tuple as t, parse_layout as l};
/// let z = |a: &str, tl: &Tiler<i64>| zipped_divide(&l(a).unwrap(), tl);
/// let tl = Tiler::from_shape(&t("(2,3)").unwrap());
/// assert_eq!(z("(8,6):(1,8)", &tl).unwrap().to_string(), "((2,3),(4,2)):((1,8),(2,24))");
/// let tl = Tiler::from_shape(&t("(2,7)").unwrap());
/// assert_eq!(z("(4,7):(1,16)", &tl).unwrap().to_string(), "((2,7),(2,1)):((1,16),(2,112))");
/// let nested = Tiler::from_shape(&t("((2,3),4)").unwrap());
/// assert_eq!(
///     z("((4,6),8):((1,4),24)", &nested).unwrap().to_string(),
///     "(((2,3),4),((2,2),2)):(((1,4),24),((2,12),96))"
/// );
/// let keep = Tiler::Tuple(vec![Tiler::Keep, Tiler::Layout(l("2:1").unwrap())]);
/// let r = z("(2,6,4):(1,2,12)", &keep).unwrap();
/// assert_eq!(r.to_string(), "((2,2),(1,3,4)):((1,2),(0,4,12))");
/// let e = z("12:1", &Tiler::Layout(l("(2,2):(1,3)").unwrap())).unwrap_err();
/// assert!(e.to_string().starts_with("zipped_divide: (A, complement) cannot cover"));
/// ```
pub fn zipped_divide<I: Int>(a: &Layout<I>, t: &Tiler<I>) -> Result<Layout<I>> {
    match t {
        Tiler::Tuple(ts) => unzip(
            "zipped_divide",
            &logical_divide(a, t).map_err(|e| e.in_op("zipped_divide"))?,
            ts,
        ),
        _ => logical_divide(a, t).map_err(|e| e.in_op("zipped_divide")),
    }
}

/// `((tile), rest0, rest1, ...)`: [`zipped_divide`] with the modes of its rest spliced into
/// the top level.
///
/// # Pre-conditions
///
/// Those of [`logical_divide`]; a failed condition is an
/// [`Error::Condition`](crate::Error::Condition) relabelled `tiled_divide`.
///
/// # Post-conditions
///
/// With `Z = zipped_divide(A, T)`, for a layout or tuple tiler `T` (a bare `_` gives
/// `Z == A`, not a pair):
///
/// * `R[0] == Z[0]`, and the other modes of `R` are the top-level modes of `Z[1]` (or `Z[1]`
///   itself when it is a single leaf), so `rank(R) == 1 + rank(Z[1])`;
/// * `R(i) == Z(i)` for every `i` in `[0, size(Z))`: regrouping keeps the function.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::{tiled_divide, Tiler}, parse_int_tuple as t, parse_layout as l};
/// let tl = Tiler::from_shape(&t("(2,3)").unwrap());
/// let r = tiled_divide(&l("(8,6):(1,8)").unwrap(), &tl).unwrap();
/// assert_eq!(r.to_string(), "((2,3),4,2):((1,8),2,24)");
/// let e = tiled_divide(&l("12:1").unwrap(), &tl).unwrap_err();
/// assert_eq!(e.to_string(), "tiled_divide: tiler has 2 modes but 12:1 has rank 1");
/// ```
pub fn tiled_divide<I: Int>(a: &Layout<I>, t: &Tiler<I>) -> Result<Layout<I>> {
    let z = zipped_divide(a, t).map_err(|e| e.in_op("tiled_divide"))?;
    Ok(unpack(&z, false))
}

/// `(tile0, tile1, ..., rest0, rest1, ...)`: [`zipped_divide`] with the modes of both its tile
/// and its rest spliced into the top level.
///
/// # Pre-conditions
///
/// Those of [`logical_divide`]; a failed condition is an
/// [`Error::Condition`](crate::Error::Condition) relabelled `flat_divide`.
///
/// # Post-conditions
///
/// With `Z = zipped_divide(A, T)`, for a layout or tuple tiler `T` (a bare `_` gives
/// `Z == A`, not a pair):
///
/// * the modes of `R` are the top-level modes of `Z[0]`, then those of `Z[1]` (a single leaf
///   counting as one mode), so `rank(R) == rank(Z[0]) + rank(Z[1])`;
/// * `R(i) == Z(i)` for every `i` in `[0, size(Z))`.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::{flat_divide, Tiler}, parse_int_tuple as t, parse_layout as l};
/// let tl = Tiler::from_shape(&t("(2,3)").unwrap());
/// let r = flat_divide(&l("(8,6):(1,8)").unwrap(), &tl).unwrap();
/// assert_eq!(r.to_string(), "(2,3,4,2):(1,8,2,24)");
/// let e = flat_divide(&l("12:1").unwrap(), &Tiler::Layout(l("(2,2):(1,3)").unwrap()));
/// assert!(e.unwrap_err().to_string().ends_with("so index 2 is unreachable"));
/// ```
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
