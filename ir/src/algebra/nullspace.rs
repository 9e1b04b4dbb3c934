//! `nullspace(A)`: the indices of `A`'s stride-0 leaves, which `A` maps to 0.

use crate::error::Result;
use crate::int::Int;
use crate::layout::Layout;
use crate::stride::Stride;

/// The stride-0 leaves of `a`, each strided by its position in `a`'s domain.
///
/// `R` enumerates the indices of `a` whose coordinate is 0 on every leaf with a nonzero
/// stride. When those leaves are injective together ([`filter`](crate::algebra::filter)`(a)`
/// is), these are exactly the indices that `a` maps to 0; otherwise `a` may map other indices
/// to 0 too (`(2,2):(1,-1)` at 3).
///
/// # Pre-conditions
///
/// None. The only errors are an [`Error::Overflow`](crate::Error::Overflow) of an index
/// product and an [`Error::Undecided`](crate::Error::Undecided) for a symbolic stride that
/// cannot be decided zero or nonzero.
///
/// # Post-conditions
///
/// * `0 <= R(i) < size(A)` and `A(R(i)) == 0` for every `i` in `[0, size(R))`;
/// * `R` is injective, and `size(R)` is the product of the extents of `A`'s stride-0 leaves;
/// * `R` is `1:0` when `A` has no stride-0 leaf.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::nullspace, parse_layout};
/// let n = |s: &str| nullspace(&parse_layout(s).unwrap()).map(|r| r.to_string());
/// assert_eq!(n("(2,4,6):(1,2,0)").unwrap(), "6:8");
/// assert_eq!(n("(2,3,4):(0,1,0)").unwrap(), "(2,4):(1,6)");
/// assert_eq!(n("(2,4):(1,2)").unwrap(), "1:0");
/// let e = n("(4294967296,4294967296,2):(1,4294967296,0)").unwrap_err();
/// assert!(e.to_string().starts_with("integer overflow"));
/// ```
pub fn nullspace<I: Int>(a: &Layout<I>) -> Result<Layout<I>> {
    let mut s = Vec::new();
    let mut d = Vec::new();
    let mut acc = I::one();
    for (x, y) in a.flat_shape().iter().zip(a.flat_stride()) {
        if y.is_zero()? {
            s.push(x.clone());
            d.push(Stride::Int(acc.clone()));
        }
        acc = acc.mul(x)?;
    }
    if s.is_empty() {
        return Ok(Layout::leaf(I::one(), Stride::zero()));
    }
    Ok(Layout::flat_or_leaf(s, d))
}
