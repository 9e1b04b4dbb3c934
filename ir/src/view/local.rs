//! CuTe's `local_tile` and `local_partition` (MoYe.jl's `@tile` and `@parallelize`, seed
//! `001_*`).
//!
//! * `local_tile(v, tiler, coord)` is CuTe's `inner_partition`: `zipped_divide(v, tiler)` gives
//!   `((tile), (rest))` (each mode's complement taken against the mode's size, see
//!   [`local_tile`]); the rest mode is sliced at `coord` and the tile modes are kept. An
//!   integer `coord` is a linear index into the whole rest mode; a tuple gives one
//!   coordinate per rest mode, and rest modes past it are kept after the tile modes.
//! * `local_partition(v, threads, thread)` is CuTe's `outer_partition` by
//!   `product_each(shape(threads))` at the thread's coordinate: the tile mode is sliced at
//!   the thread's coordinate and the rest modes are kept, so a thread gets every
//!   `shape(threads)[k]`-th element of dimension `k`. An integer `thread` is a thread index
//!   mapped to its coordinate as CuTe's `get_flat_coord` does (for each leaf `s:d` of the
//!   thread layout, `(idx / d) % s`), and must be reached by the thread layout; a tuple is the
//!   thread's coordinate itself. A bare shape is the compact (column-major) thread layout.
//!
//! The examples of seed `001_*`, with 0-based indices (MoYe's are 1-based):
//!
//! ```
//! use tessera_ir::{parse_layout, parse_int_tuple, HTuple, algebra::Tiler};
//! use tessera_ir::view::{self, local_tile, local_partition, Threads};
//! let a = view::unswizzled(0, parse_layout("(6,8):(1,6)").unwrap());
//! let tiler = Tiler::from_shape(&parse_int_tuple("(2,2)").unwrap());
//! let t = local_tile(&a, &tiler, &parse_int_tuple("(0,0)").unwrap()).unwrap();
//! assert_eq!(t.to_string(), "0 o (2,2):(1,6)");
//! let p = local_partition(&a, &Threads::Shape(parse_int_tuple("(2,2)").unwrap()),
//!     &parse_int_tuple("(0,0)").unwrap()).unwrap();
//! assert_eq!(p.to_string(), "0 o (3,4):(2,12)");
//! let p = local_partition(&a, &Threads::Layout(parse_layout("(2,2):(2,1)").unwrap()),
//!     &HTuple::leaf(1)).unwrap();
//! assert_eq!(p.to_string(), "6 o (3,4):(2,12)"); // elements 7 19 31 43 / 9 21 ... (1-based values)
//! ```

use super::error::{ViewError, ViewResult};
use super::leaves::{eval_int, int_leaves, shifted};
use crate::algebra::{Tiler, zipped_divide};
use crate::error::Error;
use crate::htuple::HTuple;
use crate::layout::Layout;
use crate::shape;
use crate::swizzle::ComposedLayout;

/// The threads of `local_partition`: a thread layout, or a shape (its compact column-major
/// layout). The layout is kept inline, as in [`Tiler`].
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Threads {
    /// A thread layout: thread coordinates to thread indices.
    Layout(Layout<i64>),
    /// A thread shape, laid out column-major.
    Shape(HTuple<i64>),
}

impl From<Layout<i64>> for Threads {
    fn from(l: Layout<i64>) -> Self {
        Threads::Layout(l)
    }
}

impl From<HTuple<i64>> for Threads {
    fn from(s: HTuple<i64>) -> Self {
        Threads::Shape(s)
    }
}

impl Threads {
    /// The thread layout.
    pub fn layout(&self) -> ViewResult<Layout<i64>> {
        match self {
            Threads::Layout(l) => Ok(l.clone()),
            Threads::Shape(s) => Ok(Layout::compact(s)?),
        }
    }
}

/// `m` at the coordinate `c` (an index, or a coordinate weakly congruent with `m`'s shape),
/// with every coordinate checked against its extent.
fn eval_checked(m: &Layout<i64>, c: &HTuple<i64>, what: &str) -> ViewResult<i64> {
    let size = m.size()?;
    if let Some(&i) = c.as_leaf() {
        if !(0..size).contains(&i) {
            return Err(ViewError::IndexOutOfRange {
                what: what.to_string(),
                index: i,
                size,
            });
        }
        return eval_int(m, i);
    }
    let nat = shape::idx2crd(c, m.shape())?;
    for (x, s) in nat.leaves().iter().zip(m.flat_shape()) {
        if !(0..*s).contains(x) {
            return Err(ViewError::IndexOutOfRange {
                what: format!("{what} (coordinate {c} of shape {})", m.shape()),
                index: *x,
                size: *s,
            });
        }
    }
    match m.eval(c)? {
        crate::stride::Stride::Int(v) => Ok(v),
        _ => Err(ViewError::NonIntegerStride(m.to_string())),
    }
}

/// `(tile, rest)`: modes 0 and 1 of `zipped_divide(inner, tiler)` (`_` keeps `inner` whole,
/// with the rest `1:0`).
fn tile_and_rest(inner: &Layout<i64>, tiler: &Tiler<i64>) -> ViewResult<(Layout<i64>, Layout<i64>)> {
    if *tiler == Tiler::Keep {
        return Ok((inner.clone(), Layout::leaf(1, 0)));
    }
    let z = zipped_divide(inner, tiler)?;
    match (z.rank(), z.mode(0), z.mode(1)) {
        (2, Some(t), Some(r)) => Ok((t, r)),
        _ => Err(ViewError::Algebra(Error::invalid(format!(
            "zipped_divide({inner}, {tiler}) = {z} is not a (tile, rest) pair"
        )))),
    }
}

/// CuTe's `local_tile(v, tiler, coord)` (`@tile`): the tile of `v` at `coord` in the grid of
/// tiles that `zipped_divide(v, tiler)` makes.
///
/// The divide is the definition, `zipped_divide`, whose complement is taken against the
/// size of each divided mode: dividing a mode `(4,3):(1,4)` by 3 makes 4 tiles of 3. As in
/// CuTe, a tile that does not divide its
/// dimension runs past it at the border; predicate with
/// [`identity_tensor`](super::identity_tensor).
///
/// Errors: the divide's own errors ([`ViewError::Algebra`]), [`ViewError::TooManyIndices`]
/// when `coord` has more modes than the grid, [`ViewError::IndexOutOfRange`] for a coordinate
/// outside the grid.
pub fn local_tile(
    v: &ComposedLayout<i64>,
    tiler: &Tiler<i64>,
    coord: &HTuple<i64>,
) -> ViewResult<ComposedLayout<i64>> {
    if coord.is_leaf() {
        int_leaves(&v.inner)?;
        let (tile, rest) = tile_and_rest(&v.inner, tiler)?;
        let delta = eval_checked(&rest, coord, "the tile index")?;
        return shifted(v, delta, Layout::concat(tile.modes()));
    }
    let c: Vec<Option<HTuple<i64>>> = coord.modes().into_iter().map(Some).collect();
    local_tile_keep(v, tiler, &c)
}

/// [`local_tile`] with `_` entries (`None`) in the coordinate, CuTe's way to keep a mode of
/// the grid: `local_tile((6,16):(1,6), (2,2), (1,_))` is `2 o (2,2,8):(1,6,12)`, the tile
/// modes followed by the kept grid modes (and the grid modes past the coordinate).
///
/// Errors: those of [`local_tile`].
///
/// ```
/// use tessera_ir::{parse_layout, parse_int_tuple, HTuple, algebra::Tiler};
/// use tessera_ir::view::{self, local_tile_keep};
/// let a = view::unswizzled(0, parse_layout("(6,16):(1,6)").unwrap());
/// let tiler = Tiler::from_shape(&parse_int_tuple("(2,2)").unwrap());
/// let t = local_tile_keep(&a, &tiler, &[Some(HTuple::leaf(1)), None]).unwrap();
/// assert_eq!(t.to_string(), "2 o (2,2,8):(1,6,12)");
/// ```
pub fn local_tile_keep(
    v: &ComposedLayout<i64>,
    tiler: &Tiler<i64>,
    coord: &[Option<HTuple<i64>>],
) -> ViewResult<ComposedLayout<i64>> {
    int_leaves(&v.inner)?;
    let (tile, rest) = tile_and_rest(&v.inner, tiler)?;
    let mut modes: Vec<Layout<i64>> = tile.modes().into_vec();
    let rm = rest.modes();
    if coord.len() > rm.len() {
        return Err(ViewError::TooManyIndices {
            given: coord.len(),
            ndim: rm.len(),
        });
    }
    let mut delta = 0i64;
    for (k, m) in rm.into_iter().enumerate() {
        match coord.get(k) {
            Some(Some(c)) => {
                let d = eval_checked(&m, c, &format!("tile grid axis {k}"))?;
                delta = delta
                    .checked_add(d)
                    .ok_or_else(|| ViewError::overflow(format!("offset {delta} + {d}")))?;
            }
            _ => modes.push(m),
        }
    }
    shifted(v, delta, Layout::concat(modes))
}

/// The thread's coordinate in the thread layout, one index per top-level mode (CuTe's
/// `get_flat_coord` for an index, the coordinate itself for a tuple).
pub fn thread_coord(threads: &Layout<i64>, thread: &HTuple<i64>) -> ViewResult<Vec<i64>> {
    let leaves = int_leaves(threads)?;
    let modes = threads.modes();
    if let Some(&idx) = thread.as_leaf() {
        let mut flat = Vec::with_capacity(modes.len());
        let mut reached = 0i64;
        let mut leaf = leaves.iter();
        for m in &modes {
            let mut c = 0i64;
            let mut scale = 1i64;
            for _ in m.flat_shape() {
                let Some(&(s, d)) = leaf.next() else {
                    return Err(ViewError::Algebra(Error::internal("thread layout leaves")));
                };
                if d == 0 && s > 1 {
                    return Err(ViewError::BadThread(format!(
                        "thread layout {threads} has a stride-0 mode, so thread index {idx} has no unique coordinate"
                    )));
                }
                let x = if d == 0 {
                    0
                } else {
                    idx.div_euclid(d).rem_euclid(s)
                };
                let step = x
                    .checked_mul(d)
                    .ok_or_else(|| ViewError::overflow(format!("{x} * {d}")))?;
                reached = reached
                    .checked_add(step)
                    .ok_or_else(|| ViewError::overflow(format!("{reached} + {step}")))?;
                c = x
                    .checked_mul(scale)
                    .and_then(|v| v.checked_add(c))
                    .ok_or_else(|| ViewError::overflow(format!("thread coordinate of {threads}")))?;
                scale = scale
                    .checked_mul(s)
                    .ok_or_else(|| ViewError::overflow(format!("size of {threads}")))?;
            }
            flat.push(c);
        }
        if reached != idx {
            return Err(ViewError::BadThread(format!(
                "thread index {idx} is not reached by thread layout {threads}"
            )));
        }
        return Ok(flat);
    }
    if thread.rank() != modes.len() {
        return Err(ViewError::BadThread(format!(
            "thread coordinate {thread} has rank {} but thread layout {threads} has rank {}",
            thread.rank(),
            modes.len()
        )));
    }
    let mut flat = Vec::with_capacity(modes.len());
    for (k, (m, c)) in modes.iter().zip(thread.modes().iter()).enumerate() {
        let s = m.shape();
        let size = m.size()?;
        let nat = shape::idx2crd(c, s)?;
        let inside = if let Some(&i) = c.as_leaf() {
            (0..size).contains(&i)
        } else {
            nat.leaves()
                .iter()
                .zip(s.leaves())
                .all(|(x, e)| (0..*e).contains(x))
        };
        if !inside {
            return Err(ViewError::IndexOutOfRange {
                what: format!("thread axis {k} (coordinate {c} of shape {s})"),
                index: c.as_leaf().copied().unwrap_or(-1),
                size,
            });
        }
        flat.push(shape::crd2idx(c, s)?);
    }
    Ok(flat)
}

/// CuTe's `local_partition(v, threads, thread)` (`@parallelize`): the elements of `v` that
/// thread `thread` works on when `threads` tile `v` cyclically.
///
/// Errors: the divide's own errors ([`ViewError::Algebra`]), [`ViewError::BadThread`] for an
/// index that the thread layout does not reach or a coordinate of the wrong rank,
/// [`ViewError::IndexOutOfRange`] for a coordinate outside the thread shape.
pub fn local_partition(
    v: &ComposedLayout<i64>,
    threads: &Threads,
    thread: &HTuple<i64>,
) -> ViewResult<ComposedLayout<i64>> {
    let keep = if thread.is_leaf() {
        Vec::new()
    } else {
        vec![false; thread.rank()]
    };
    partition(v, threads, thread, &keep)
}

/// [`local_partition`] with `_` entries (`None`) in a thread coordinate: that thread mode is
/// kept whole (CuTe's `outer_partition` at a coordinate with `_`), its tile mode placed
/// before the rest modes: `local_partition((6,8):(1,6), (2,2), (1,_))` is
/// `1 o (2,3,4):(6,2,12)`.
///
/// Errors: those of [`local_partition`].
///
/// ```
/// use tessera_ir::{parse_layout, parse_int_tuple, HTuple};
/// use tessera_ir::view::{self, local_partition_keep, Threads};
/// let a = view::unswizzled(0, parse_layout("(6,8):(1,6)").unwrap());
/// let t = Threads::Shape(parse_int_tuple("(2,2)").unwrap());
/// let p = local_partition_keep(&a, &t, &[Some(HTuple::leaf(1)), None]).unwrap();
/// assert_eq!(p.to_string(), "1 o (2,3,4):(6,2,12)");
/// ```
pub fn local_partition_keep(
    v: &ComposedLayout<i64>,
    threads: &Threads,
    thread: &[Option<HTuple<i64>>],
) -> ViewResult<ComposedLayout<i64>> {
    let keep: Vec<bool> = thread.iter().map(Option::is_none).collect();
    let c = HTuple::from_modes(
        thread
            .iter()
            .map(|c| c.clone().unwrap_or_else(|| HTuple::leaf(0))),
    );
    partition(v, threads, &c, &keep)
}

/// The partition of `v` at the thread's coordinate, keeping the thread modes marked in `keep`.
fn partition(
    v: &ComposedLayout<i64>,
    threads: &Threads,
    thread: &HTuple<i64>,
    keep: &[bool],
) -> ViewResult<ComposedLayout<i64>> {
    int_leaves(&v.inner)?;
    let tl = threads.layout()?;
    let flat = thread_coord(&tl, thread)?;
    let tiler = Tiler::from_shape(&shape::product_each(tl.shape())?);
    let (tile, rest) = tile_and_rest(&v.inner, &tiler)?;
    let tile_modes = if tl.shape().is_leaf() {
        vec![tile]
    } else {
        tile.modes().into_vec()
    };
    if tile_modes.len() != flat.len() {
        return Err(ViewError::Algebra(Error::invalid(format!(
            "local_partition: tile {} does not match the thread layout {tl}",
            Layout::concat(tile_modes)
        ))));
    }
    let mut delta = 0i64;
    let mut modes = Vec::new();
    for (k, (m, &c)) in tile_modes.iter().zip(&flat).enumerate() {
        if keep.get(k).copied().unwrap_or(false) {
            modes.push(m.clone());
            continue;
        }
        let d = eval_checked(m, &HTuple::leaf(c), &format!("thread axis {k}"))?;
        delta = delta
            .checked_add(d)
            .ok_or_else(|| ViewError::overflow(format!("offset {delta} + {d}")))?;
    }
    modes.extend(rest.modes());
    shifted(v, delta, Layout::concat(modes))
}
