//! Layout constructors: `make_layout_like`, `make_ordered_layout`, `max_common_vector`.

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
///
/// # Pre-conditions
///
/// The strides of `l` are integers; otherwise an [`Error::Condition`] of `make_layout_like`
/// naming the stride (an [`Error::Undecided`] where symbolic strides cannot be ordered).
///
/// # Post-conditions
///
/// * `shape(R) == shape(L)`;
/// * a leaf of `L` with stride 0 or extent 1 has stride 0 in `R`;
/// * the other leaves, the moving ones, get compact strides in the order of `|stride|` in `L`
///   (ties by position): the image of `R` is exactly `[0, n)`, `n` the product of their
///   extents, and `|d_x| < |d_y|` in `L` gives `R`'s stride of `x` below that of `y`.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::make_layout_like, parse_layout};
/// let m = |s: &str| make_layout_like(&parse_layout(s).unwrap()).map(|r| r.to_string());
/// assert_eq!(m("(4,8):(100,1)").unwrap(), "(4,8):(8,1)");
/// assert_eq!(m("(4,1,8):(0,5,-2)").unwrap(), "(4,1,8):(0,0,1)");
/// let e = m("(4,8):(1@0,1@1)").unwrap_err();
/// assert_eq!(e.to_string(), "make_layout_like: stride 1@0 is not an integer");
/// ```
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
///
/// # Pre-conditions
///
/// `shape` and `order` are congruent; otherwise an [`Error::Condition`] of
/// `make_ordered_layout` naming both. Every extent is at least 1, otherwise an
/// [`Error::Invalid`]; symbolic orders that cannot be compared are an [`Error::Undecided`].
///
/// # Post-conditions
///
/// * `shape(R) == shape` and `R` is a bijection onto `[0, size(shape))`;
/// * leaves are taken in increasing `order`, ties by position, and each gets as stride the
///   product of the extents taken before it: a leaf earlier in that order never has a larger
///   stride.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::make_ordered_layout, parse_int_tuple as t};
/// let o = make_ordered_layout(&t("(2,3,4,2)").unwrap(), &t("(0,2,3,0)").unwrap());
/// assert_eq!(o.unwrap().to_string(), "(2,3,4,2):(1,4,12,2)");
/// let o = make_ordered_layout(&t("(4,(2,3))").unwrap(), &t("(2,(0,1))").unwrap());
/// assert_eq!(o.unwrap().to_string(), "(4,(2,3)):(6,(1,2))");
/// let e = make_ordered_layout(&t("(2,3)").unwrap(), &t("(0,1,2)").unwrap()).unwrap_err();
/// assert!(e.to_string().ends_with("shape (2,3) and order (0,1,2) are not congruent"));
/// ```
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
///
/// # Pre-conditions
///
/// `right_inverse(b)` and `composition(a, right_inverse(b))` exist; otherwise their error (an
/// [`Error::Condition`] of `composition` or `right_inverse`).
///
/// # Post-conditions
///
/// * `V >= 1`, and `V` is at most `size(right_inverse(b))`;
/// * for every `n` in `[0, V)`, the index `i = right_inverse(b)(n)` has `b(i) == n` and
///   `a(i) == n`: the elements at `b`'s first `V` offsets sit at the same offsets in `a`.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::max_common_vector, parse_layout as l};
/// let v = |a: &str, b: &str| max_common_vector(&l(a).unwrap(), &l(b).unwrap());
/// assert_eq!(v("(4,8):(1,4)", "32:1").unwrap(), 32);
/// assert_eq!(v("(4,8):(1,4)", "(4,8):(1,5)").unwrap(), 4);
/// assert_eq!(v("(4,8):(8,1)", "32:1").unwrap(), 1);
/// let e = v("(4,3):(0,1)", "(2,3):(2,1)").unwrap_err();
/// assert!(e.to_string().starts_with("composition: shape divisibility condition"));
/// ```
pub fn max_common_vector<I: Int>(a: &Layout<I>, b: &Layout<I>) -> Result<I> {
    let common = coalesce(&composition(a, &right_inverse(b)?)?)?;
    let (s, d) = (&common.flat_shape()[0], &common.flat_stride()[0]);
    if d.as_int().is_some_and(|v| v.is(1)) {
        Ok(s.clone())
    } else {
        Ok(I::one())
    }
}

/// CuTe's `max_common_layout(a, b)`: the layout `R` of `b`'s leading contiguous offsets that
/// `a` maps alike: `right_inverse(b) o common_0`, where `common_0` is the first mode of
/// `coalesce(a o right_inverse(b))` when its stride is 1; else `1:0`.
///
/// # Pre-conditions
///
/// `right_inverse(b)` and `composition(a, right_inverse(b))` exist; otherwise their error.
///
/// # Post-conditions
///
/// * `size(R) == max_common_vector(a, b)`, or `R == 1:0` when that is 1 without a stride-1
///   common mode;
/// * for every `i` in `[0, size(R))`: `a(R(i)) == i` and `b(R(i)) == i`.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::max_common_layout, parse_layout as l};
/// let m = |a: &str, b: &str| max_common_layout(&l(a).unwrap(), &l(b).unwrap()).map(|r| r.to_string());
/// assert_eq!(m("(4,8):(1,4)", "(4,8):(1,5)").unwrap(), "4:1");
/// assert_eq!(m("(4,8):(8,1)", "(4,8):(8,1)").unwrap(), "(8,4):(4,1)");
/// assert_eq!(m("(4,8):(8,1)", "32:1").unwrap(), "1:0");
/// ```
pub fn max_common_layout<I: Int>(a: &Layout<I>, b: &Layout<I>) -> Result<Layout<I>> {
    let inv_b = right_inverse(b)?;
    let common = coalesce(&composition(a, &inv_b)?)?;
    let (s, d) = (&common.flat_shape()[0], &common.flat_stride()[0]);
    if d.as_int().is_some_and(|v| v.is(1)) {
        composition(&inv_b, &Layout::leaf(s.clone(), I::one()))
    } else {
        Ok(Layout::leaf(I::one(), I::zero()))
    }
}

/// CuTe's `make_fragment_like(L)`: a compact layout of `L`'s shape for a register fragment.
/// Mode 0 is column-major (stride-0 and size-1 leaves keep stride 0); the other modes are
/// ordered like `L`'s strides, after mode 0: `tiled_product(mode0, make_ordered_layout(rest
/// shape, rest stride))`. A rank-1 layout, or one with a symbolic extent (CuTe's dynamic
/// shapes), is the column-major compact layout of its shape.
///
/// # Pre-conditions
///
/// The strides of the modes after mode 0 are integers (they order the modes); otherwise an
/// [`Error::Condition`] of `make_fragment_like`.
///
/// # Post-conditions
///
/// * `shape(R)` has `L`'s leaves, with mode 0 first: `product_each(shape(R)) ==
///   product_each(shape(L))`;
/// * the image of `R` is `[0, n)`, `n` the product of the extents of the leaves that are
///   neither stride 0 in mode 0 nor size 1 there (each offset once).
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::make_fragment_like, parse_layout as l};
/// let f = |s: &str| make_fragment_like(&l(s).unwrap()).unwrap().to_string();
/// assert_eq!(f("(4,8):(8,1)"), "(4,8):(1,4)");
/// assert_eq!(f("((2,4),3,2):((0,1),16,4)"), "((2,4),3,2):((0,1),8,4)");
/// assert_eq!(f("8:3"), "8:1");
/// ```
pub fn make_fragment_like<I: Int>(l: &Layout<I>) -> Result<Layout<I>> {
    let concrete = l.flat_shape().iter().all(|s| s.as_const().is_some());
    if l.rank() <= 1 || l.shape().is_leaf() || !concrete {
        return Layout::compact(l.shape());
    }
    let m0 = l
        .mode(0)
        .ok_or_else(|| Error::internal("make_fragment_like: mode 0"))?;
    let mut d0 = Vec::with_capacity(m0.flat_shape().len());
    let mut acc = I::one();
    for (s, d) in m0.flat_shape().iter().zip(m0.flat_stride()) {
        if d.is_zero()? || s.is(1) {
            d0.push(Stride::zero());
        } else {
            d0.push(Stride::Int(acc.clone()));
            acc = acc.mul(s)?;
        }
    }
    let a0 = Layout::new(m0.shape().clone(), HTuple::unflatten(d0, m0.shape().profile())?)?;
    let rest = l.shape().take(1, l.rank())?;
    let order = l.stride().take(1, l.rank())?.try_map(|d| {
        d.as_int()
            .cloned()
            .ok_or_else(|| Error::cond("make_fragment_like", format!("stride {d} is not an integer")))
    })?;
    let grid = make_ordered_layout(&rest, &order)?;
    super::product::tiled_product(&a0, &super::tiler::Tiler::Layout(grid))
}
