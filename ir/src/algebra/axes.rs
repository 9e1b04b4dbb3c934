//! Splitting a layout's leaves by codomain axis, for the operations that follow stride
//! chains one axis at a time (complement, the inverses).

use crate::error::{Error, Result};
use crate::int::Int;
use crate::stride::{Codomain, Stride};
use smallvec::SmallVec;

/// One leaf on an axis: its index among the leaves, its extent, its scalar stride.
#[derive(Clone, Debug)]
pub(crate) struct AxisLeaf<I> {
    pub idx: usize,
    pub s: I,
    pub d: I,
}

/// The leaves of one axis.
pub(crate) type Group<I> = SmallVec<[AxisLeaf<I>; 8]>;

/// The leaves grouped by axis. `coord` is `false` for an integer codomain (one axis).
pub(crate) struct Axes<I> {
    pub coord: bool,
    pub groups: SmallVec<[Group<I>; 1]>,
}

/// Groups flat leaves by axis. Coordinate strides must be single basis vectors `v@k` at depth
/// one; zero strides belong to every axis and are kept on the integer axis only.
pub(crate) fn axes<I: Int>(op: &'static str, shape: &[I], stride: &[Stride<I>]) -> Result<Axes<I>> {
    let mut cod = Codomain::Int;
    for d in stride {
        if !d.is_const_zero() {
            cod = d.codomain();
            break;
        }
    }
    match cod {
        Codomain::F2 => Err(Error::cond(op, "F2 strides are not supported here")),
        Codomain::Int => {
            let mut g: Group<I> = SmallVec::new();
            for (idx, (s, d)) in shape.iter().zip(stride).enumerate() {
                let d = d
                    .as_int()
                    .ok_or_else(|| Error::cond(op, format!("stride {d} mixes codomains")))?;
                g.push(AxisLeaf {
                    idx,
                    s: s.clone(),
                    d: d.clone(),
                });
            }
            Ok(Axes {
                coord: false,
                groups: smallvec::smallvec![g],
            })
        }
        Codomain::Coord => {
            let mut groups: SmallVec<[Group<I>; 1]> = SmallVec::new();
            for (idx, (s, d)) in shape.iter().zip(stride).enumerate() {
                if d.is_const_zero() {
                    continue;
                }
                let (path, v) = d
                    .axis_value()
                    .ok_or_else(|| Error::cond(op, format!("stride {d} is not a single basis vector")))?;
                if path.len() != 1 {
                    return Err(Error::cond(
                        op,
                        format!("stride {d}: only flat coordinate codomains are supported"),
                    ));
                }
                let k = path[0] as usize;
                if groups.len() <= k {
                    groups.resize_with(k + 1, SmallVec::new);
                }
                groups[k].push(AxisLeaf {
                    idx,
                    s: s.clone(),
                    d: v.clone(),
                });
            }
            Ok(Axes { coord: true, groups })
        }
    }
}

/// Stable sort of leaves by stride; an error when symbolic strides cannot be ordered.
pub(crate) fn sort_by_stride<I: Int>(op: &'static str, v: &mut [AxisLeaf<I>]) -> Result<()> {
    // Insertion sort: stable, and every comparison can fail.
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && v[j].d.less(&v[j - 1].d).map_err(|e| e.in_op(op))? {
            v.swap(j, j - 1);
            j -= 1;
        }
    }
    Ok(())
}
