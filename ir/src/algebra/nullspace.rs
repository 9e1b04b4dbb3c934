//! `nullspace(A)`: the coordinates that `A` maps to 0.
//!
//! Post-condition: `A(R(i)) == 0` for every `i < size(R)`.
//!
//! ```
//! use tessera_ir::{algebra::nullspace, parse_layout};
//! assert_eq!(nullspace(&parse_layout("(2,4,6):(1,2,0)").unwrap()).unwrap().to_string(), "6:8");
//! assert_eq!(nullspace(&parse_layout("(2,4):(1,2)").unwrap()).unwrap().to_string(), "1:0");
//! ```

use crate::error::Result;
use crate::int::Int;
use crate::layout::Layout;
use crate::stride::Stride;

/// The stride-0 leaves of `a`, each strided by its position in `a`'s domain.
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
