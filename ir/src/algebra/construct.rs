//! Layout constructors: `make_layout_like`, `make_ordered_layout`, `max_common_vector`.
//!
//! ```
//! use tessera_ir::{algebra::{make_layout_like, make_ordered_layout, max_common_vector}, parse_layout, parse_int_tuple};
//! assert_eq!(make_layout_like(&parse_layout("(4,8):(100,1)").unwrap()).unwrap().to_string(), "(4,8):(8,1)");
//! let o = make_ordered_layout(&parse_int_tuple("(2,3,4,2)").unwrap(), &parse_int_tuple("(0,2,3,0)").unwrap());
//! assert_eq!(o.unwrap().to_string(), "(2,3,4,2):(1,4,12,2)");
//! let a = parse_layout("(4,8):(1,4)").unwrap();
//! assert_eq!(max_common_vector(&a, &parse_layout("32:1").unwrap()).unwrap(), 32);
//! ```

use super::coalesce::coalesce;
use super::composition::composition;
use super::inverse::right_inverse;
use crate::error::{Error, Result};
use crate::htuple::HTuple;
use crate::int::Int;
use crate::layout::Layout;
use crate::stride::Stride;

/// Assigns compact strides in the stable order given by `key`, skipping `skip` positions.
fn ordered<I: Int>(shape: &HTuple<I>, keys: &[I], skip: &[bool]) -> Result<Layout<I>> {
    let n = shape.leaves().len();
    let mut order: Vec<usize> = (0..n).collect();
    // Stable insertion sort with fallible comparisons.
    for i in 1..n {
        let mut j = i;
        while j > 0 && keys[order[j]].less(&keys[order[j - 1]])? {
            order.swap(j, j - 1);
            j -= 1;
        }
    }
    let mut d = vec![Stride::zero(); n];
    let mut acc = I::one();
    for &i in &order {
        if skip[i] {
            continue;
        }
        d[i] = Stride::Int(acc.clone());
        acc = acc.mul(&shape.leaves()[i])?;
    }
    Layout::new(shape.clone(), HTuple::unflatten(d, shape.profile())?)
}

/// The compact layout of `l`'s shape whose strides follow the order of `l`'s strides;
/// stride-0 and size-1 modes get stride 0.
pub fn make_layout_like<I: Int>(l: &Layout<I>) -> Result<Layout<I>> {
    let mut keys = Vec::new();
    let mut skip = Vec::new();
    for (s, d) in l.flat_shape().iter().zip(l.flat_stride()) {
        let v = d
            .as_int()
            .ok_or_else(|| Error::cond("make_layout_like", format!("stride {d} is not an integer")))?;
        keys.push(v.abs()?);
        skip.push(v.is_zero()? || s.is(1));
    }
    ordered(l.shape(), &keys, &skip)
}

/// The compact layout of `shape` whose mode with the smallest `order` gets stride 1.
pub fn make_ordered_layout<I: Int>(shape: &HTuple<I>, order: &HTuple<I>) -> Result<Layout<I>> {
    if !shape.congruent(order) {
        return Err(Error::cond(
            "make_ordered_layout",
            format!("shape {shape} and order {order} are not congruent"),
        ));
    }
    let skip = vec![false; shape.leaves().len()];
    ordered(shape, order.leaves(), &skip)
}

/// The number of leading elements that `a` and `b` map to the same contiguous offsets:
/// `coalesce(a ∘ right_inverse(b))` when its first mode has stride 1, else 1.
pub fn max_common_vector<I: Int>(a: &Layout<I>, b: &Layout<I>) -> Result<I> {
    let common = coalesce(&composition(a, &right_inverse(b)?)?)?;
    let (s, d) = (&common.flat_shape()[0], &common.flat_stride()[0]);
    if d.as_int().is_some_and(|v| v.is(1)) {
        Ok(s.clone())
    } else {
        Ok(I::one())
    }
}
