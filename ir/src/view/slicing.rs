//! Python-like slicing `t[2:4, ::-1]` and Warp's `tile_view` (seed `000_*`).
//!
//! A [`SliceArg`] is an integer, which selects one index and removes the dimension (a negative
//! integer counts from the end), or a range `start:stop:step` with Python's rules: missing
//! bounds default to the whole dimension in the direction of the step, negative bounds count
//! from the end, bounds are clipped to the dimension, the step may be negative but not zero.
//! Dimensions past the last entry are kept whole.
//!
//! `tile_view` has the two forms of seed `000_*`: without a shape it is slicing; with a shape,
//! the offset entries are integers, one per dimension, and `offset[d] + shape[d]` must not
//! exceed `dims[d]`.
//!
//! ```
//! use tessera_ir::{parse_layout, view::{self, SliceArg}};
//! let v = view::unswizzled(0, parse_layout("(4,4):(4,1)").unwrap());
//! let s = view::slice(&v, &[SliceArg::from(2..4), SliceArg::range(None, None, Some(-1))]).unwrap();
//! assert_eq!(s.to_string(), "11 o (2,4):(4,-1)");
//! let rows = view::tile_view(&v, &[2.into(), 0.into()], Some(&[2, 4])).unwrap();
//! assert_eq!(rows.to_string(), "8 o (2,4):(4,1)");
//! ```

use super::error::{ViewError, ViewResult, to_i64, to_usize};
use super::leaves::{eval_int, int_leaves, modes_of, rebuild, shifted};
use super::range::range_mode;
use crate::layout::Layout;
use crate::swizzle::ComposedLayout;
use std::fmt;
use std::ops::{Range, RangeFrom, RangeFull, RangeTo};

/// One entry of a slice or of a `tile_view` offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SliceArg {
    /// Selects one index and removes the dimension; negative counts from the end.
    Index(i64),
    /// `start:stop:step`, each part optional as in Python.
    Range {
        /// First index; defaults to the start in the direction of the step.
        start: Option<i64>,
        /// One past the last index; defaults to past the end in the direction of the step.
        stop: Option<i64>,
        /// Step; defaults to 1, must not be 0.
        step: Option<i64>,
    },
}

impl SliceArg {
    /// `:` (the whole dimension).
    pub fn full() -> Self {
        SliceArg::Range {
            start: None,
            stop: None,
            step: None,
        }
    }

    /// `start:stop:step`.
    pub fn range(start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> Self {
        SliceArg::Range { start, stop, step }
    }

    /// `true` for a range entry.
    pub fn is_range(&self) -> bool {
        matches!(self, SliceArg::Range { .. })
    }
}

impl From<i64> for SliceArg {
    fn from(i: i64) -> Self {
        SliceArg::Index(i)
    }
}

impl From<Range<i64>> for SliceArg {
    fn from(r: Range<i64>) -> Self {
        SliceArg::range(Some(r.start), Some(r.end), None)
    }
}

impl From<RangeFrom<i64>> for SliceArg {
    fn from(r: RangeFrom<i64>) -> Self {
        SliceArg::range(Some(r.start), None, None)
    }
}

impl From<RangeTo<i64>> for SliceArg {
    fn from(r: RangeTo<i64>) -> Self {
        SliceArg::range(None, Some(r.end), None)
    }
}

impl From<RangeFull> for SliceArg {
    fn from(_: RangeFull) -> Self {
        SliceArg::full()
    }
}

impl fmt::Display for SliceArg {
    /// Python's form: `2`, `2:4`, `::-1`, `:`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let opt = |v: &Option<i64>| v.map(|x| x.to_string()).unwrap_or_default();
        match self {
            SliceArg::Index(i) => write!(f, "{i}"),
            SliceArg::Range { start, stop, step } => {
                write!(f, "{}:{}", opt(start), opt(stop))?;
                if step.is_some() {
                    write!(f, ":{}", opt(step))?;
                }
                Ok(())
            }
        }
    }
}

/// What one entry does to a dimension of size `size`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Resolved {
    /// Select this index and remove the dimension.
    Select(i64),
    /// Keep `len >= 1` indices `start, start+step, ...`.
    Range { start: i64, len: i64, step: i64 },
}

/// Applies Python's rules to one entry (`slice.indices` for ranges).
pub(crate) fn resolve(arg: &SliceArg, axis: usize, size: i64) -> ViewResult<Resolved> {
    match *arg {
        SliceArg::Index(i) => {
            let j = if i < 0 { i.checked_add(size) } else { Some(i) };
            match j {
                Some(j) if (0..size).contains(&j) => Ok(Resolved::Select(j)),
                _ => Err(ViewError::IndexOutOfRange {
                    what: format!("axis {axis}"),
                    index: i,
                    size,
                }),
            }
        }
        SliceArg::Range { start, stop, step } => {
            let step = step.unwrap_or(1);
            if step == 0 {
                return Err(ViewError::ZeroStep { axis });
            }
            // Negative bounds count from the end; then clip to the dimension.
            let norm = |v: i64, lo: i64, hi: i64| -> i64 {
                let v = if v < 0 { v.saturating_add(size) } else { v };
                v.clamp(lo, hi)
            };
            let (first, end) = if step > 0 {
                (
                    start.map_or(0, |v| norm(v, 0, size)),
                    stop.map_or(size, |v| norm(v, 0, size)),
                )
            } else {
                (
                    start.map_or(size - 1, |v| norm(v, -1, size - 1)),
                    stop.map_or(-1, |v| norm(v, -1, size - 1)),
                )
            };
            // Both bounds lie in [-1, size], so these differences cannot overflow.
            let len = if step > 0 {
                if end > first {
                    (end - first - 1) / step + 1
                } else {
                    0
                }
            } else if first > end {
                // |step| may be 2^63: divide in i128; the quotient is below `size`.
                (((first - end - 1) as i128) / -(step as i128) + 1) as i64
            } else {
                0
            };
            if len == 0 {
                return Err(ViewError::EmptyView { axis });
            }
            Ok(Resolved::Range {
                start: first,
                len,
                step,
            })
        }
    }
}

/// `v[items]`: integers select and remove dimensions, ranges keep them (zero-copy).
///
/// Errors: [`ViewError::TooManyIndices`], [`ViewError::IndexOutOfRange`],
/// [`ViewError::ZeroStep`], [`ViewError::EmptyView`] for a range that selects nothing, and
/// [`ViewError::NotALayout`] for a strided range of a hierarchical mode that is no layout.
pub fn slice(v: &ComposedLayout<i64>, items: &[SliceArg]) -> ViewResult<ComposedLayout<i64>> {
    int_leaves(&v.inner)?;
    let modes = modes_of(&v.inner);
    if items.len() > modes.len() {
        return Err(ViewError::TooManyIndices {
            given: items.len(),
            ndim: modes.len(),
        });
    }
    let mut delta = 0i64;
    let mut out: Vec<Layout<i64>> = Vec::with_capacity(modes.len());
    let mut removed = false;
    for (k, m) in modes.iter().enumerate() {
        let Some(item) = items.get(k) else {
            out.push(m.clone());
            continue;
        };
        let (d, kept) = match resolve(item, k, m.size()?)? {
            Resolved::Select(i) => (eval_int(m, i)?, None),
            Resolved::Range { start, len, step } => {
                let (d, r) = range_mode(m, start, len, step)?;
                (d, Some(r))
            }
        };
        delta = delta
            .checked_add(d)
            .ok_or_else(|| ViewError::overflow(format!("offset {delta} + {d}")))?;
        match kept {
            Some(r) => out.push(r),
            None => removed = true,
        }
    }
    let inner = if removed {
        Layout::concat(out)
    } else {
        rebuild(&v.inner, out)
    };
    shifted(v, delta, inner)
}

/// Warp's `tile_view(t, offset, shape)`.
///
/// Without a shape, `offset` is a slice ([`slice()`]): integer entries select and remove
/// dimensions, range entries keep them, omitted trailing dimensions are kept whole. With a
/// shape, `offset` is the origin of a rectangular view of extent `shape`: both have one entry
/// per dimension, the offset entries must be non-negative integers, and
/// `offset[d] + shape[d] <= dims[d]`.
///
/// Errors (with a shape): [`ViewError::SliceWithShape`] for a range entry,
/// [`ViewError::TileRankMismatch`] when the offset or the shape has the wrong number of
/// entries, [`ViewError::IndexOutOfRange`] for a negative offset,
/// [`ViewError::EmptyView`] for a zero extent, [`ViewError::TileOutOfExtent`] when
/// `offset + shape` is past a dimension.
pub fn tile_view(
    v: &ComposedLayout<i64>,
    offset: &[SliceArg],
    shape: Option<&[usize]>,
) -> ViewResult<ComposedLayout<i64>> {
    let Some(shape) = shape else {
        return slice(v, offset);
    };
    if let Some(position) = offset.iter().position(SliceArg::is_range) {
        return Err(ViewError::SliceWithShape { position });
    }
    int_leaves(&v.inner)?;
    let modes = modes_of(&v.inner);
    let ndim = modes.len();
    for (what, given) in [("offset", offset.len()), ("shape", shape.len())] {
        if given != ndim {
            return Err(ViewError::TileRankMismatch { what, given, ndim });
        }
    }
    let mut delta = 0i64;
    let mut out: Vec<Layout<i64>> = Vec::with_capacity(ndim);
    for (k, (m, (o, &extent))) in modes.iter().zip(offset.iter().zip(shape)).enumerate() {
        let SliceArg::Index(o) = *o else {
            return Err(ViewError::SliceWithShape { position: k });
        };
        let size = m.size()?;
        if o < 0 {
            return Err(ViewError::IndexOutOfRange {
                what: format!("axis {k}"),
                index: o,
                size,
            });
        }
        if extent == 0 {
            return Err(ViewError::EmptyView { axis: k });
        }
        let len = to_i64(extent)?;
        if o.checked_add(len).is_none_or(|end| end > size) {
            return Err(ViewError::TileOutOfExtent {
                axis: k,
                offset: o,
                extent,
                size: to_usize(size)?,
            });
        }
        let (d, r) = range_mode(m, o, len, 1)?;
        delta = delta
            .checked_add(d)
            .ok_or_else(|| ViewError::overflow(format!("offset {delta} + {d}")))?;
        out.push(r);
    }
    shifted(v, delta, rebuild(&v.inner, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(start: Option<i64>, stop: Option<i64>, step: Option<i64>, size: i64) -> ViewResult<Resolved> {
        resolve(&SliceArg::range(start, stop, step), 0, size)
    }

    #[test]
    fn python_slice_indices() {
        // Python: range(10)[slice(...)]
        let rng = |s: Resolved| match s {
            Resolved::Range { start, len, step } => (0..len).map(|i| start + i * step).collect::<Vec<_>>(),
            Resolved::Select(i) => vec![i],
        };
        assert_eq!(rng(r(None, None, Some(-1), 4).unwrap()), vec![3, 2, 1, 0]);
        assert_eq!(rng(r(Some(2), Some(4), None, 4).unwrap()), vec![2, 3]);
        assert_eq!(rng(r(Some(-3), None, Some(2), 10).unwrap()), vec![7, 9]);
        assert_eq!(rng(r(Some(8), Some(1), Some(-3), 10).unwrap()), vec![8, 5, 2]);
        assert_eq!(
            rng(r(Some(100), Some(-100), Some(-4), 10).unwrap()),
            vec![9, 5, 1]
        );
        assert_eq!(rng(r(Some(-100), Some(100), None, 3).unwrap()), vec![0, 1, 2]);
        assert_eq!(rng(r(None, None, Some(i64::MIN), 3).unwrap()), vec![2]);
        assert_eq!(rng(r(None, None, Some(i64::MAX), 3).unwrap()), vec![0]);
        assert!(matches!(
            r(Some(3), Some(3), None, 4),
            Err(ViewError::EmptyView { .. })
        ));
        assert!(matches!(
            r(None, None, Some(0), 4),
            Err(ViewError::ZeroStep { .. })
        ));
        assert_eq!(resolve(&SliceArg::Index(-1), 0, 4).unwrap(), Resolved::Select(3));
        assert!(resolve(&SliceArg::Index(i64::MIN), 0, 4).is_err());
        assert!(resolve(&SliceArg::Index(4), 0, 4).is_err());
    }

    #[test]
    fn display_is_python() {
        assert_eq!(SliceArg::range(None, None, Some(-1)).to_string(), "::-1");
        assert_eq!(SliceArg::from(2..4).to_string(), "2:4");
        assert_eq!(SliceArg::full().to_string(), ":");
    }
}
