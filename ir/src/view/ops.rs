//! The view operations on layouts: `select`, `narrow`, `permute`, `broadcast`, `diagonal`.
//!
//! A view of a buffer is an offset and a layout, possibly under a swizzle: exactly a
//! [`ComposedLayout`] `Sw o off o L`, whose element at coordinate `c` is at buffer position
//! `Sw(off + L(c))`. Every operation here maps such a composed layout to another one that
//! selects a subset (or a re-arrangement, or a repetition) of the same elements: it moves the
//! offset and changes `L`, and keeps the swizzle. [`TensorView`](super::TensorView) calls
//! these functions, and so does the expression language (`select(L, 1, 2)`), so both share
//! one implementation.
//!
//! The *dimensions* of a view are its top-level modes: `dims` are their sizes, a hierarchical
//! mode counts as one dimension of the mode's size, indexed by its colexicographic index.
//!
//! Shape of the results: an operation that keeps every mode keeps the form of the layout (a
//! leaf layout `8:1` stays a leaf); one that removes or reorders modes builds the tuple of the
//! resulting modes, as CuTe's slicing does (`select` of `(4,8):(1,4)` along axis 1 is
//! `(4):(1)`, a rank-0 result is `():()`).
//!
//! ```
//! use tessera_ir::view;
//! use tessera_ir::parse_layout;
//! let v = view::unswizzled(0, parse_layout("(3,4,10):(1,3,12)").unwrap());
//! let mat = view::select(&v, 2, 5).unwrap();
//! assert_eq!(mat.to_string(), "60 o (3,4):(1,3)");
//! let sub = view::narrow(&view::unswizzled(0, parse_layout("(3,10):(1,3)").unwrap()), 1, 2, 3).unwrap();
//! assert_eq!(sub.to_string(), "6 o (3,3):(1,3)");
//! assert_eq!(view::permute(&sub, &[1, 0]).unwrap().to_string(), "6 o (3,3):(3,1)");
//! ```

use super::error::{ViewError, ViewResult, to_i64, to_usize};
use super::leaves::{dims, eval_int, int_leaves, modes_of, rebuild, shifted};
use super::range::range_mode;
use crate::algebra::layout_add;
use crate::layout::Layout;
use crate::swizzle::ComposedLayout;
use smallvec::SmallVec;

/// The stride of each dimension, when every top-level mode coalesces to a single leaf
/// (a size-1 mode has stride 0); `None` otherwise, and for non-integer strides.
///
/// ```
/// use tessera_ir::{parse_layout, view::strides};
/// assert_eq!(strides(&parse_layout("(4,(2,3)):(3,(1,2))").unwrap()), Some(vec![3, 1]));
/// assert_eq!(strides(&parse_layout("(4,(2,3)):(3,(1,8))").unwrap()), None);
/// ```
pub fn strides(l: &Layout<i64>) -> Option<Vec<i64>> {
    modes_of(l)
        .iter()
        .map(|m| {
            let leaves = int_leaves(m).ok()?;
            match super::range::coalesce_flat(&leaves).as_slice() {
                [] => Some(0),
                [(_, d)] => Some(*d),
                _ => None,
            }
        })
        .collect()
}

/// The modes of an integer-strided view layout, checked.
fn checked_modes(v: &ComposedLayout<i64>) -> ViewResult<SmallVec<[Layout<i64>; 4]>> {
    int_leaves(&v.inner)?;
    Ok(modes_of(&v.inner))
}

fn axis_check(axis: usize, ndim: usize) -> ViewResult<()> {
    if axis >= ndim {
        return Err(ViewError::AxisOutOfRange { axis, ndim });
    }
    Ok(())
}

/// Selects index `index` of dimension `dim`, removing that dimension (zero-copy: the offset
/// moves by the mode's value at `index`).
///
/// Errors: [`ViewError::AxisOutOfRange`] when `dim >= ndim`, [`ViewError::IndexOutOfRange`]
/// when `index >= dims[dim]`.
///
/// ```
/// use tessera_ir::{parse_layout, view};
/// let v = view::unswizzled(0, parse_layout("(4,4):(4,1)").unwrap());
/// assert_eq!(view::select(&v, 0, 2).unwrap().to_string(), "8 o (4):(1)");
/// ```
pub fn select(v: &ComposedLayout<i64>, dim: usize, index: usize) -> ViewResult<ComposedLayout<i64>> {
    let mut modes = checked_modes(v)?;
    axis_check(dim, modes.len())?;
    let m = modes.remove(dim);
    let size = m.size()?;
    let idx = to_i64(index)?;
    if idx >= size {
        return Err(ViewError::IndexOutOfRange {
            what: format!("axis {dim}"),
            index: idx,
            size,
        });
    }
    let delta = eval_int(&m, idx)?;
    shifted(v, delta, Layout::concat(modes))
}

/// Keeps indices `start..start + len` of dimension `dim` (zero-copy).
///
/// For a leaf mode `s:d` the result is `len:d` at offset `start*d`. A hierarchical mode is
/// restricted exactly: the result mode `M'` satisfies `off' + M'(i) == off + M(start + i)`
/// for every `i < len`, or the call fails with [`ViewError::NotALayout`] when no layout
/// does that (it never returns an approximation).
///
/// Errors: [`ViewError::AxisOutOfRange`], [`ViewError::NarrowOutOfRange`] when
/// `start + len > dims[dim]`, [`ViewError::EmptyView`] when `len == 0`.
///
/// ```
/// use tessera_ir::{parse_layout, view};
/// let v = view::unswizzled(0, parse_layout("(3,(2,5)):(1,(3,6))").unwrap());
/// // Columns 2..8 of the hierarchical mode (2,5):(3,6), which is 10:3 coalesced.
/// assert_eq!(view::narrow(&v, 1, 2, 6).unwrap().to_string(), "6 o (3,6):(1,3)");
/// ```
pub fn narrow(
    v: &ComposedLayout<i64>,
    dim: usize,
    start: usize,
    len: usize,
) -> ViewResult<ComposedLayout<i64>> {
    let mut modes = checked_modes(v)?;
    axis_check(dim, modes.len())?;
    let size = to_usize(modes[dim].size()?)?;
    let end = start.checked_add(len);
    if end.is_none_or(|e| e > size) {
        return Err(ViewError::NarrowOutOfRange {
            axis: dim,
            start,
            len,
            size,
        });
    }
    if len == 0 {
        return Err(ViewError::EmptyView { axis: dim });
    }
    let (delta, m) = range_mode(&modes[dim], to_i64(start)?, to_i64(len)?, 1)?;
    modes[dim] = m;
    shifted(v, delta, rebuild(&v.inner, modes.into_vec()))
}

/// Reorders the dimensions: dimension `k` of the result is dimension `perm[k]` of `v`.
///
/// Errors: [`ViewError::InvalidPermutation`] unless `perm` is a permutation of `0..ndim`.
pub fn permute(v: &ComposedLayout<i64>, perm: &[usize]) -> ViewResult<ComposedLayout<i64>> {
    let modes = checked_modes(v)?;
    let n = modes.len();
    let mut seen = vec![false; n];
    let valid = perm.len() == n
        && perm
            .iter()
            .all(|&p| p < n && !std::mem::replace(&mut seen[p], true));
    if !valid {
        return Err(ViewError::InvalidPermutation {
            perm: perm.to_vec(),
            ndim: n,
        });
    }
    let out: Vec<Layout<i64>> = perm.iter().map(|&p| modes[p].clone()).collect();
    shifted(v, 0, rebuild(&v.inner, out))
}

/// Broadcasts to `target` dimensions with stride 0, NumPy's rule: the dimensions are aligned
/// at the end, a dimension of size 1 expands to any size, and the target may have extra
/// leading dimensions (new stride-0 modes).
///
/// Errors: [`ViewError::IncompatibleBroadcast`] when the target has fewer dimensions, when a
/// dimension is neither equal to its target nor 1, or when a target size is 0.
///
/// ```
/// use tessera_ir::{parse_layout, view};
/// let v = view::unswizzled(0, parse_layout("(1,4):(0,1)").unwrap());
/// assert_eq!(view::broadcast(&v, &[2, 3, 4]).unwrap().to_string(), "0 o (2,3,4):(0,0,1)");
/// ```
pub fn broadcast(v: &ComposedLayout<i64>, target: &[usize]) -> ViewResult<ComposedLayout<i64>> {
    let modes = checked_modes(v)?;
    let dims = dims(&v.inner)?;
    let fail = |reason: String| ViewError::IncompatibleBroadcast {
        dims: dims.clone(),
        target: target.to_vec(),
        reason,
    };
    if target.len() < modes.len() {
        return Err(fail(format!(
            "the target has {} dimensions, fewer than {}",
            target.len(),
            modes.len()
        )));
    }
    let lead = target.len() - modes.len();
    let mut out = Vec::with_capacity(target.len());
    for (k, &t) in target.iter().enumerate() {
        if t == 0 {
            return Err(fail(format!("target dimension {k} is 0")));
        }
        let tt = to_i64(t)?;
        if k < lead {
            out.push(Layout::leaf(tt, 0));
            continue;
        }
        let j = k - lead;
        if dims[j] == t {
            out.push(modes[j].clone());
        } else if dims[j] == 1 {
            out.push(Layout::leaf(tt, 0));
        } else {
            return Err(fail(format!("dimension {j} has size {} and is not 1", dims[j])));
        }
    }
    let inner = if lead == 0 {
        rebuild(&v.inner, out)
    } else {
        Layout::concat(out)
    };
    shifted(v, 0, inner)
}

/// Merges pairs of dimensions into their diagonals: for a pair `(a, b)`, the result has one
/// dimension in place of the smaller of `a` and `b` whose index `i` is the element at index
/// `i` in both; the larger of the two is removed. Leaf modes `n:da`, `n:db` merge into
/// `n:(da+db)`; hierarchical modes merge through [`layout_add()`].
///
/// Errors: [`ViewError::AxisOutOfRange`], [`ViewError::DuplicateAxis`] when an axis appears
/// twice, [`ViewError::DiagonalSizeMismatch`] when the paired sizes differ.
///
/// ```
/// use tessera_ir::{parse_layout, view};
/// let v = view::unswizzled(0, parse_layout("(4,3,4):(1,4,12)").unwrap());
/// assert_eq!(view::diagonal(&v, &[(0, 2)]).unwrap().to_string(), "0 o (4,3):(13,4)");
/// ```
pub fn diagonal(v: &ComposedLayout<i64>, axes: &[(usize, usize)]) -> ViewResult<ComposedLayout<i64>> {
    let modes = checked_modes(v)?;
    let n = modes.len();
    let mut role: Vec<Option<Layout<i64>>> = modes.iter().cloned().map(Some).collect();
    let mut seen = vec![false; n];
    let mut merged: Vec<(usize, Layout<i64>)> = Vec::new();
    for &(a, b) in axes {
        axis_check(a, n)?;
        axis_check(b, n)?;
        for x in [a, b] {
            if std::mem::replace(&mut seen[x], true) {
                return Err(ViewError::DuplicateAxis { axis: x });
            }
        }
        let (ma, mb) = (&modes[a], &modes[b]);
        let (sa, sb) = (ma.size()?, mb.size()?);
        if sa != sb {
            return Err(ViewError::DiagonalSizeMismatch {
                a,
                b,
                size_a: to_usize(sa)?,
                size_b: to_usize(sb)?,
            });
        }
        let m = diag_mode(ma, mb)?;
        merged.push((a.min(b), m));
        role[a.max(b)] = None;
    }
    for (k, m) in merged {
        role[k] = Some(m);
    }
    let out: Vec<Layout<i64>> = role.into_iter().flatten().collect();
    let inner = if axes.is_empty() {
        v.inner.clone()
    } else {
        Layout::concat(out)
    };
    shifted(v, 0, inner)
}

/// The diagonal of two modes of equal size: `R(i) == A(i) + B(i)`.
fn diag_mode(a: &Layout<i64>, b: &Layout<i64>) -> ViewResult<Layout<i64>> {
    let (la, lb) = (int_leaves(a)?, int_leaves(b)?);
    if let ([(n, da)], [(_, db)]) = (la.as_slice(), lb.as_slice()) {
        let d = da
            .checked_add(*db)
            .ok_or_else(|| ViewError::overflow(format!("stride {da} + {db}")))?;
        return Ok(Layout::leaf(*n, d));
    }
    Ok(layout_add(a, b)?)
}
