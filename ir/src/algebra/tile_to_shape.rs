//! CuTe's `tile_to_shape(block, shape, order)`: copies of a block layout repeated until they
//! cover a target shape, the copies ordered by `order` (column-major by default).

use super::construct::make_ordered_layout;
use super::modes::{End, extend};
use super::product::blocked_product;
use super::tuple_div::ceil_div;
use crate::error::{Error, Result};
use crate::htuple::HTuple;
use crate::int::Int;
use crate::layout::Layout;
use crate::shape::product_each;
use crate::stride::Stride;

/// `blocked_product(block', grid)`: `block'` is `block` padded with `1:0` modes to the rank of
/// `shape`, `grid` the layout of `ceil_div(product_each(shape), product_each(shape(block')))`
/// copies, compact in `order` (column-major without one).
///
/// # Pre-conditions
///
/// * `rank(block) <= rank(shape)`;
/// * each mode of `block'` divides the matching mode of `shape` (product by product);
/// * `order`, when given, is congruent with the grid's shape (one entry per mode of `shape`).
///
/// Otherwise an [`Error::Condition`] of `tile_to_shape` naming the ranks or the mode.
///
/// # Post-conditions
///
/// * `rank(R) == rank(shape)` and `product_each(shape(R)) == product_each(shape)`, so
///   `compatible(shape, shape(R))` holds and `size(R) == size(shape)`;
/// * mode `k` of `R` is `(block'_k, grid_k)`: `R` restricted to the first copy is `block'`,
///   and copy `g` of the grid is `block'` shifted by `cosize(block') * grid(g)`.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::tile_to_shape, parse_layout as l, parse_int_tuple as t};
/// let r = tile_to_shape(&l("(2,2):(1,2)").unwrap(), &t("(4,6)").unwrap(), None).unwrap();
/// assert_eq!(r.to_string(), "((2,2),(2,3)):((1,4),(2,8))");
/// let r = tile_to_shape(&l("(2,2):(1,2)").unwrap(), &t("(4,6)").unwrap(), Some(&t("(1,0)").unwrap()));
/// assert_eq!(r.unwrap().to_string(), "((2,2),(2,3)):((1,12),(2,4))");
/// let e = tile_to_shape(&l("(2,4):(1,2)").unwrap(), &t("(4,6)").unwrap(), None).unwrap_err();
/// assert!(e.to_string().contains("does not divide"), "{e}");
/// ```
pub fn tile_to_shape<I: Int>(
    block: &Layout<I>,
    shape: &HTuple<I>,
    order: Option<&HTuple<I>>,
) -> Result<Layout<I>> {
    let r = if shape.is_leaf() { 1 } else { shape.rank() };
    if block.rank() > r {
        return Err(Error::cond(
            "tile_to_shape",
            format!(
                "block {block} has rank {} above the rank {r} of the shape {shape}",
                block.rank()
            ),
        ));
    }
    let padded = Layout::new(
        extend(block.shape(), &HTuple::leaf(I::one()), Some(r), End::Back)?,
        extend(block.stride(), &HTuple::leaf(Stride::zero()), Some(r), End::Back)?,
    )?;
    let bs = product_each(padded.shape())?;
    let ts = product_each(shape)?;
    for (k, (b, t)) in bs.leaves().iter().zip(ts.leaves()).enumerate() {
        if !b.divides(t)? {
            return Err(Error::cond(
                "tile_to_shape",
                format!(
                    "block {block}: its mode {k} of size {b} does not divide mode {k} of the shape {shape} (size {t})"
                ),
            ));
        }
    }
    let grid_shape = ceil_div(&ts, &bs)?;
    let grid = match order {
        Some(o) => make_ordered_layout(&grid_shape, o)
            .map_err(|e| Error::cond("tile_to_shape", format!("order {o}: {e}")))?,
        None => Layout::compact(&grid_shape)?,
    };
    blocked_product(&padded, &grid)
}
