//! `recast(L, scale)`: the same memory seen with elements `scale` times as large.
//!
//! `scale > 1` packs (shrinks extents); a fraction `1/k` unpacks (grows them). The contract is
//! on [`recast`].

use crate::error::{Error, Result};
use crate::htuple::HTuple;
use crate::int::Int;
use crate::layout::Layout;
use crate::stride::Stride;

/// Recasts by the rational scale `num/den` (both positive): `L` for elements `num/den` times
/// as large.
///
/// One unit-stride leaf per codomain axis, the *carrier* (the first one whose extent is not
/// 1, else the first one), holds the sub-element index. PyCuTe and CuTe's downcast scale
/// every unit-stride leaf and so count the sub-elements several times.
///
/// # Pre-conditions
///
/// * `num > 0` and `den > 0`; otherwise an [`Error::Condition`] of `recast` naming the scale.
///   The scale is used reduced, `num/den` in lowest terms.
/// * Every stride is a single basis vector (an integer or `v@k`); otherwise an
///   [`Error::Condition`] naming it (`F2` strides, sums such as `2@0+1@1`).
/// * At every leaf other than the carriers with a nonzero stride `v`, `v` and the scale
///   divide one another: `num` divides `v*den`, or `den*v` divides `num`. Otherwise an
///   [`Error::Condition`] naming the stride, the scale and the extent.
///
/// # Post-conditions
///
/// * `shape(R)` is congruent with `shape(L)`; stride-0 leaves are kept;
/// * a carrier's extent `x` becomes `ceil(x*den/num)`, its stride stays;
/// * any other leaf `x:v` becomes `x:(v*den/num)` where that is an integer, else
///   `ceil(x / (num/(den*v))):1` (in `v`'s codomain axis);
/// * unpacking by `1/k`: where `L` has a carrier, `size(R) == k * size(L)` and
///   `R(.., k*c + t, ..) == k*L(.., c, ..) + t` along it for every `t < k`; without one,
///   `R(i) == k*L(i)`;
/// * for a compact `L` (column- or row-major), `recast(recast(L, 1, k), k, 1) == L`.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::recast, parse_layout};
/// let r = |s: &str, n, d| recast(&parse_layout(s).unwrap(), n, d).map(|r| r.to_string());
/// assert_eq!(r("24:1", 8, 1).unwrap(), "3:1");
/// assert_eq!(r("24:1", 1, 2).unwrap(), "48:1");
/// assert_eq!(r("(4,4):(4,1)", 4, 1).unwrap(), "(4,1):(1,1)");
/// assert_eq!(r("(4,4):(4,1)", 1, 2).unwrap(), "(4,8):(8,1)");
/// assert_eq!(r("(4,8):(8,1)", 2, 1).unwrap(), "(4,4):(4,1)");
/// // One carrier: 8 elements for 4 (PyCuTe answers (2,8):(1,1), 16 elements).
/// assert_eq!(r("(1,4):(1,1)", 1, 2).unwrap(), "(1,8):(2,1)");
/// let e = r("(4,4):(6,1)", 4, 1).unwrap_err().to_string();
/// assert_eq!(e, "recast: stride 6 and scale 4/1 do not divide each other (extent 4)");
/// assert!(r("24:1", 0, 1).unwrap_err().to_string().contains("is not positive"));
/// ```
pub fn recast<I: Int>(l: &Layout<I>, num: i64, den: i64) -> Result<Layout<I>> {
    if num <= 0 || den <= 0 {
        return Err(Error::cond(
            "recast",
            format!("scale {num}/{den} is not positive"),
        ));
    }
    let g = num.gcd(&den)?;
    let (num, den) = (I::lit(num / g), I::lit(den / g));
    // One unit-stride leaf per codomain axis carries the sub-element index: the first one
    // whose extent is not 1, else the first one. Scaling every unit-stride leaf (as PyCuTe
    // and CuTe's downcast do) counts the sub-elements several times: `recast((1,4):(1,1), 1/2)`
    // was `(2,8):(1,1)`, 16 elements for 8. The other unit-stride leaves scale like any stride.
    let mut carrier: Vec<(crate::stride::Path, usize, bool)> = Vec::new();
    for (k, (x, y)) in l.flat_shape().iter().zip(l.flat_stride()).enumerate() {
        if let Some((path, v)) = y.axis_value()
            && v.is(1)
        {
            let wide = !x.is(1);
            match carrier.iter_mut().find(|(p, _, _)| *p == path) {
                None => carrier.push((path, k, wide)),
                Some(c) if !c.2 && wide => *c = (path, k, wide),
                Some(_) => {}
            }
        }
    }
    let mut s = Vec::with_capacity(l.flat_shape().len());
    let mut d = Vec::with_capacity(s.capacity());
    for (k, (x, y)) in l.flat_shape().iter().zip(l.flat_stride()).enumerate() {
        let (path, v) = y
            .axis_value()
            .ok_or_else(|| Error::cond("recast", format!("stride {y} is not a single basis vector")))?;
        let v = v.clone();
        let unit = |k: I| Stride::basis(k, &path);
        if v.is_zero()? {
            s.push(x.clone());
            d.push(y.clone());
            continue;
        }
        if v.is(1) && carrier.iter().any(|c| c.1 == k) {
            // ceil(x / (num/den)) = ceil(x*den / num)
            s.push(x.mul(&den)?.div_up(&num)?);
            d.push(y.clone());
            continue;
        }
        // v / scale = v*den/num ; scale / v = num/(den*v)
        let vd = v.mul(&den)?;
        let dv = den.mul(&v)?;
        let stride_q = if num.divides(&vd)? {
            Some(vd.div_exact(&num)?)
        } else {
            None
        };
        let shape_q = if dv.divides(&num)? {
            Some(num.div_exact(&dv)?)
        } else {
            None
        };
        if stride_q.is_none() && shape_q.is_none() {
            return Err(Error::cond(
                "recast",
                format!("stride {v} and scale {num}/{den} do not divide each other (extent {x})"),
            ));
        }
        s.push(x.div_up(&shape_q.unwrap_or_else(I::one))?);
        d.push(unit(stride_q.unwrap_or_else(I::one)));
    }
    Layout::new(
        HTuple::unflatten(s, l.shape().profile())?,
        HTuple::unflatten(d, l.shape().profile())?,
    )
}
