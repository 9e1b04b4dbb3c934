//! Slicing a layout at a coordinate of integers and `_`, as CuTe's `tensor(coord)` does.
//!
//! CuTe's `slice(c, layout)` keeps the modes paired with `_` and flattens one level per
//! tuple of the coordinate (`((_,_),_)` on `((T,V),R)` is `(T,V,R)`); the fixed
//! coordinates become the offset of the slice (a tensor's new data pointer).

use crate::error::{Error, Result};
use crate::int::Int;
use crate::layout::Layout;
use crate::swizzle::ComposedLayout;
use std::fmt;

/// One thread's fragment: `offset + layout`, CuTe's sliced tensor (its data pointer moved by
/// `offset`), over the tensor's swizzle when it has one.
#[derive(Clone, Debug, PartialEq)]
pub struct Fragment<I> {
    /// The view: the swizzle of the partitioned layout (if any), the offset, the layout.
    pub view: ComposedLayout<I>,
}

impl<I: Int> fmt::Display for Fragment<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.view)
    }
}

/// A coordinate for [`slice_flat`]: a fixed 1-D index into a (sub-)mode, `_`, or a tuple.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Crd<I> {
    /// A fixed index into the mode (a 1-D index even where the mode is a tuple).
    At(I),
    /// `_`: keep the mode.
    Keep,
    /// One coordinate per mode.
    Tuple(Vec<Crd<I>>),
}

fn lift_slice<I: Int>(c: &Crd<I>, l: &Layout<I>, kept: &mut Vec<Layout<I>>, off: &mut I) -> Result<()> {
    match c {
        Crd::Keep => kept.push(l.clone()),
        Crd::At(i) => {
            let v = l.eval_index(i)?;
            let v = v
                .as_int()
                .ok_or_else(|| Error::invalid(format!("slice: {l} at {i} is not an integer")))?;
            *off = off.add(v)?;
        }
        Crd::Tuple(cs) => {
            let modes = l.modes();
            if modes.len() != cs.len() {
                return Err(Error::internal(format!(
                    "slice: a coordinate of rank {} for the layout {l}",
                    cs.len()
                )));
            }
            for (c, m) in cs.iter().zip(modes.iter()) {
                lift_slice(c, m, kept, off)?;
            }
        }
    }
    Ok(())
}

/// `layout(c)` for a coordinate with `_`: the offset of the fixed coordinates and the kept
/// modes, one level flattened per tuple (CuTe's `slice`: one kept mode is a rank-1 tuple);
/// `_` alone keeps the layout.
///
/// # Pre-conditions
/// `c` is congruent with the layout down to its leaves (a fixed index may stand for a whole
/// sub-mode); integer strides where a coordinate is fixed.
/// # Post-conditions
/// `layout(c with _ := x) == offset + result(x)` for every `x`.
///
/// ```
/// use tessera_ir::{atom::{slice_flat, Crd}, parse_layout};
/// let l = parse_layout("((4,8),(2,3)):((1,4),(32,64))").unwrap();
/// let (off, s) = slice_flat(&l, &Crd::Tuple(vec![Crd::At(5), Crd::Keep])).unwrap();
/// assert_eq!((off, s.to_string()), (5, "((2,3)):((32,64))".to_string()));
/// ```
pub fn slice_flat<I: Int>(l: &Layout<I>, c: &Crd<I>) -> Result<(I, Layout<I>)> {
    if let Crd::Keep = c {
        return Ok((I::zero(), l.clone()));
    }
    let mut kept = Vec::new();
    let mut off = I::zero();
    lift_slice(c, l, &mut kept, &mut off)?;
    Ok((off, Layout::concat(kept)))
}
