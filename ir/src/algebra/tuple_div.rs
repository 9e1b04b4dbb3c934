//! Division and scaling of int tuples: CuTe's `ceil_div`, `shape_div` and `elem_scale`
//! (`int_tuple.hpp`), which the divides and `tile_to_shape` use on shapes.
//!
//! The three share CuTe's recursion: tuple by tuple is mode by mode; a tuple by an integer
//! divides the modes in turn, each by what the modes before it left of the divisor
//! (`ceil_div((4,6), 8)` is `(1,3)`: 4 takes a factor 4 of the 8, 6 the remaining 2); an
//! integer by a tuple is by the tuple's product.

use crate::error::{Error, Result};
use crate::htuple::HTuple;
use crate::int::Int;
use crate::shape::size;

/// The integer case of a division.
type Leaf<I> = fn(&I, &I) -> Result<I>;

/// `ceil(a / b)` for `a >= 0`, `b > 0` (CuTe's `(a + b - 1) / b` on its domain).
fn ceil_leaf<I: Int>(op: &'static str, a: &I, b: &I) -> Result<I> {
    if !I::zero().less(b)? {
        return Err(Error::cond(op, format!("divisor {b} is not positive")));
    }
    if a.less(&I::zero())? {
        return Err(Error::cond(op, format!("dividend {a} is negative")));
    }
    a.div_up(b)
}

fn ceil_div_leaf<I: Int>(a: &I, b: &I) -> Result<I> {
    ceil_leaf("ceil_div", a, b)
}

/// `shape_div`'s integer case: the weak divisibility condition, then `ceil(a / b)`.
fn shape_div_leaf<I: Int>(a: &I, b: &I) -> Result<I> {
    let q = ceil_leaf("shape_div", a, b)?;
    if !(b.divides(a)? || a.divides(b)?) {
        return Err(Error::cond(
            "shape_div",
            format!("divisibility condition: neither of {a} and {b} divides the other"),
        ));
    }
    Ok(q)
}

/// The recursion shared by `ceil_div` and `shape_div`; `pad` lets `b` have fewer modes than
/// `a` (missing modes are 1), as CuTe's `ceil_div` allows.
fn divide<I: Int>(
    op: &'static str,
    a: &HTuple<I>,
    b: &HTuple<I>,
    leaf: Leaf<I>,
    pad: bool,
) -> Result<HTuple<I>> {
    match (a.as_leaf(), b.as_leaf()) {
        (Some(x), Some(y)) => Ok(HTuple::leaf(leaf(x, y)?)),
        (Some(_), None) => divide(op, a, &HTuple::leaf(size(b)?), leaf, pad),
        (None, Some(y)) => {
            let mut rest = y.clone();
            let mut out = Vec::with_capacity(a.rank());
            for m in a.modes() {
                let p = size(&m)?;
                out.push(divide(op, &m, &HTuple::leaf(rest.clone()), leaf, pad)?);
                rest = leaf(&rest, &p)?;
            }
            Ok(HTuple::from_modes(out))
        }
        (None, None) => {
            let (am, bm) = (a.modes(), b.modes());
            if bm.len() > am.len() || (!pad && bm.len() != am.len()) {
                return Err(Error::cond(
                    op,
                    format!("{a} has rank {} but {b} has rank {}", am.len(), bm.len()),
                ));
            }
            let one = HTuple::leaf(I::one());
            let out = am
                .iter()
                .enumerate()
                .map(|(k, m)| divide(op, m, bm.get(k).unwrap_or(&one), leaf, pad))
                .collect::<Result<Vec<_>>>()?;
            Ok(HTuple::from_modes(out))
        }
    }
}

/// CuTe's `ceil_div(a, b)`: `a` divided by `b`, rounding up, with the profile of `a`.
///
/// # Pre-conditions
///
/// Every integer divided is at least 0 and every divisor above 0; tuple by tuple, `b` has at
/// most `a`'s rank (missing modes are 1). Otherwise an [`Error::Condition`] of `ceil_div`.
///
/// # Post-conditions
///
/// * `R` is congruent with `a`;
/// * integers: `R == ceil(a / b)`; an integer by a tuple: `ceil(a / product(b))`;
/// * a tuple by an integer `b`: mode `k` is `ceil_div(a_k, b_k)` with `b_0 = b` and
///   `b_{k+1} = ceil_div(b_k, product(a_k))` (each rounding is local: `ceil_div((4,3,2), 5)`
///   is `(1,2,2)`, not a tuple of product `ceil(24/5)`).
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::ceil_div, parse_int_tuple as t};
/// let c = |a: &str, b: &str| ceil_div(&t(a).unwrap(), &t(b).unwrap()).map(|r| r.to_string());
/// assert_eq!(c("7", "2").unwrap(), "4");
/// assert_eq!(c("(4,6)", "8").unwrap(), "(1,3)");
/// assert_eq!(c("(12,7,5)", "(4,2)").unwrap(), "(3,4,5)");
/// assert!(c("4", "0").unwrap_err().to_string().contains("not positive"));
/// ```
pub fn ceil_div<I: Int>(a: &HTuple<I>, b: &HTuple<I>) -> Result<HTuple<I>> {
    divide("ceil_div", a, b, ceil_div_leaf, true)
}

/// CuTe's `shape_div(a, b)`: `ceil_div` under the divisibility condition, with equal ranks
/// tuple by tuple.
///
/// # Pre-conditions
///
/// As [`ceil_div`], and at every integer step one of the dividend and the divisor divides the
/// other (CuTe's weak divisibility condition); tuple by tuple the ranks are equal. Otherwise
/// an [`Error::Condition`] of `shape_div` naming the integers.
///
/// # Post-conditions
///
/// As [`ceil_div`]: `R` congruent with `a`; where every step divides exactly,
/// `product(R) == product(a) / b` or 1 where `b` exceeds it.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::shape_div, parse_int_tuple as t};
/// let s = |a: &str, b: &str| shape_div(&t(a).unwrap(), &t(b).unwrap()).map(|r| r.to_string());
/// assert_eq!(s("(3,4)", "6").unwrap(), "(1,2)");
/// assert_eq!(s("((3,4),6)", "36").unwrap(), "((1,1),2)");
/// assert_eq!(s("(6,(3,4))", "36").unwrap(), "(1,(1,2))");
/// assert!(s("6", "4").unwrap_err().to_string().contains("divisibility condition"));
/// ```
pub fn shape_div<I: Int>(a: &HTuple<I>, b: &HTuple<I>) -> Result<HTuple<I>> {
    divide("shape_div", a, b, shape_div_leaf, false)
}

/// CuTe's `elem_scale(a, b)`: `a` scaled mode by mode by `b`.
///
/// # Pre-conditions
///
/// Where `a` is a tuple, `b` is a tuple of the same rank; otherwise an [`Error::Condition`]
/// of `elem_scale` (PyCuTe refuses a tuple by an integer too). Products are checked.
///
/// # Post-conditions
///
/// `R` is congruent with `a`; an integer `a` becomes `a * product(b)`.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::elem_scale, parse_int_tuple as t};
/// let e = |a: &str, b: &str| elem_scale(&t(a).unwrap(), &t(b).unwrap()).map(|r| r.to_string());
/// assert_eq!(e("(2,3)", "(4,(1,5))").unwrap(), "(8,15)");
/// assert_eq!(e("3", "(2,2)").unwrap(), "12");
/// assert!(e("(2,3)", "4").is_err());
/// ```
pub fn elem_scale<I: Int>(a: &HTuple<I>, b: &HTuple<I>) -> Result<HTuple<I>> {
    if let Some(x) = a.as_leaf() {
        return Ok(HTuple::leaf(x.mul(&size(b)?)?));
    }
    let (am, bm) = (a.modes(), b.modes());
    if b.is_leaf() || am.len() != bm.len() {
        return Err(Error::cond(
            "elem_scale",
            format!(
                "{a} has rank {} but {b} has rank {}",
                am.len(),
                if b.is_leaf() { 0 } else { bm.len() }
            ),
        ));
    }
    let out = am
        .iter()
        .zip(bm.iter())
        .map(|(x, y)| elem_scale(x, y))
        .collect::<Result<Vec<_>>>()?;
    Ok(HTuple::from_modes(out))
}
