//! The integer leaves and top-level modes of a view's layout, and the small constructions
//! every view operation shares (an offset moved, modes rebuilt into a layout).

use super::error::{ViewError, ViewResult, to_usize};
use crate::htuple::HTuple;
use crate::layout::Layout;
use crate::stride::Stride;
use crate::swizzle::ComposedLayout;
use smallvec::SmallVec;

/// The view of `layout` at `offset`, with no swizzle: `offset o layout`.
pub fn unswizzled(offset: i64, layout: Layout<i64>) -> ComposedLayout<i64> {
    ComposedLayout {
        swizzle: None,
        offset,
        inner: layout,
    }
}

/// The flat `(extent, stride)` pairs of a layout; an error for coordinate or `F2` strides.
pub(crate) fn int_leaves(l: &Layout<i64>) -> ViewResult<Vec<(i64, i64)>> {
    l.flat_shape()
        .iter()
        .zip(l.flat_stride())
        .map(|(s, d)| match d {
            Stride::Int(v) => Ok((*s, *v)),
            _ => Err(ViewError::NonIntegerStride(l.to_string())),
        })
        .collect()
}

/// The top-level modes (dimensions) of a layout; none for the empty tuple `():()`.
pub(crate) fn modes_of(l: &Layout<i64>) -> SmallVec<[Layout<i64>; 4]> {
    l.modes()
}

/// The size of each top-level mode: the dimensions of a view of `l`.
pub fn dims(l: &Layout<i64>) -> ViewResult<Vec<usize>> {
    modes_of(l).iter().map(|m| to_usize(m.size()?)).collect()
}

/// Rebuilds a layout from its top-level modes: a leaf layout whose single mode stays a leaf
/// keeps its leaf form, everything else is the tuple of the modes.
pub(crate) fn rebuild(orig: &Layout<i64>, mut modes: Vec<Layout<i64>>) -> Layout<i64> {
    if orig.shape().is_leaf()
        && modes.len() == 1
        && modes[0].shape().is_leaf()
        && let Some(m) = modes.pop()
    {
        return m;
    }
    Layout::concat(modes)
}

/// `v` with its offset moved by `delta` and its layout replaced; the swizzle is kept.
pub(crate) fn shifted(
    v: &ComposedLayout<i64>,
    delta: i64,
    inner: Layout<i64>,
) -> ViewResult<ComposedLayout<i64>> {
    let offset = v
        .offset
        .checked_add(delta)
        .ok_or_else(|| ViewError::overflow(format!("offset {} + {delta}", v.offset)))?;
    Ok(ComposedLayout {
        swizzle: v.swizzle,
        offset,
        inner,
    })
}

/// The value of an integer-strided layout at an index.
pub(crate) fn eval_int(m: &Layout<i64>, idx: i64) -> ViewResult<i64> {
    match m.eval_index(&idx)? {
        Stride::Int(v) => Ok(v),
        _ => Err(ViewError::NonIntegerStride(m.to_string())),
    }
}

/// The shape of a layout as an int tuple whose leaf is replaced by `len` (for single-leaf
/// modes, possibly wrapped in tuples), with the stride leaf replaced by `d`.
pub(crate) fn with_single_leaf(m: &Layout<i64>, len: i64, d: i64) -> ViewResult<Layout<i64>> {
    let prof = m.shape().profile();
    Ok(Layout::new(
        HTuple::unflatten([len], prof)?,
        HTuple::unflatten([Stride::Int(d)], prof)?,
    )?)
}
