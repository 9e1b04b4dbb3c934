//! `recast(L, scale)`: the same memory seen with elements `scale` times as large.
//!
//! `scale > 1` packs (shrinks extents); a fraction `1/k` unpacks (grows them). The contract is
//! on [`recast`].

use crate::error::{Error, Result};
use crate::htuple::HTuple;
use crate::int::Int;
use crate::layout::Layout;
use crate::stride::Stride;
use crate::swizzle::ComposedLayout;

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
/// * Unpacking (`den > 1` once reduced) needs a carrier in every codomain axis a nonzero
///   stride reaches, and at least one carrier: the sub-elements of an element are adjacent
///   offsets, which only a unit stride numbers. Otherwise an [`Error::Condition`] as CuTe's
///   `downcast` ("Downcast requires adjacent elements"): `recast(8:4, 1/2)` would keep 8 of
///   the 16 sub-elements.
///
/// # Post-conditions
///
/// * `shape(R)` is congruent with `shape(L)`; stride-0 leaves are kept;
/// * a carrier's extent `x` becomes `ceil(x*den/num)`, its stride stays;
/// * any other leaf `x:v` becomes `x:(v*den/num)` where that is an integer, else
///   `ceil(x / (num/(den*|v|))):signum(v)` (in `v`'s codomain axis);
/// * unpacking by `1/k`: `size(R) == k * size(L)` and `R(.., k*c + t, ..) == k*L(.., c, ..) + t`
///   along the carrier for every `t < k` (every sub-element of every element, once);
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
/// // A negative stride keeps its sign (CuTe's upcast).
/// assert_eq!(r("(4,8):(-1,4)", 4, 1).unwrap(), "(1,8):(-1,1)");
/// // No unit stride: no place for the sub-elements (CuTe's downcast refuses it too).
/// let e = r("8:4", 1, 2).unwrap_err().to_string();
/// assert!(e.contains("requires adjacent elements"), "{e}");
/// assert_eq!(r("(1,8):(1,4)", 1, 2).unwrap(), "(2,8):(1,8)");
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
    if !den.is(1) {
        unpackable(l, &carrier, num.as_const(), den.as_const())?;
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
        // |v| / scale = |v|*den/num ; scale / |v| = num/(den*|v|); the sign stays on the
        // stride (CuTe's upcast: signum(d) * ceil_div(|d|, n)).
        let neg = v.less(&I::zero())?;
        let av = v.abs()?;
        let vd = av.mul(&den)?;
        let dv = den.mul(&av)?;
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
        let q = stride_q.unwrap_or_else(I::one);
        s.push(x.div_up(&shape_q.unwrap_or_else(I::one))?);
        d.push(unit(if neg { q.neg()? } else { q }));
    }
    Layout::new(
        HTuple::unflatten(s, l.shape().profile())?,
        HTuple::unflatten(d, l.shape().profile())?,
    )
}

/// The pre-condition of unpacking: a carrier at all, and one in every codomain axis that a
/// nonzero stride of `l` reaches.
fn unpackable<I: Int>(
    l: &Layout<I>,
    carrier: &[(crate::stride::Path, usize, bool)],
    num: Option<i64>,
    den: Option<i64>,
) -> Result<()> {
    let scale = match (num, den) {
        (Some(n), Some(d)) => format!("{n}/{d}"),
        _ => "the scale".to_string(),
    };
    let refuse = |why: String| {
        Err(Error::cond(
            "recast",
            format!(
                "unpacking {l} by {scale} requires adjacent elements (a unit stride to number the \
                 sub-elements{why}); CuTe's downcast refuses it too"
            ),
        ))
    };
    if carrier.is_empty() {
        return refuse(String::new());
    }
    for y in l.flat_stride() {
        if let Some((path, v)) = y.axis_value()
            && !v.is_zero()?
            && !carrier.iter().any(|c| c.0 == path)
        {
            return refuse(format!(", none along the axis of stride {y}"));
        }
    }
    Ok(())
}

/// CuTe's `upcast<n>(L)`: [`recast`] by `n` (elements `n` times as large).
///
/// # Pre-conditions
///
/// Those of [`recast`] with the scale `n/1`.
///
/// # Post-conditions
///
/// `R == recast(L, n, 1)`; on a compact `L` whose unit-stride extent `n` divides, CuTe's
/// `upcast<n>` gives the same layout.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::upcast, parse_layout};
/// assert_eq!(upcast(&parse_layout("(4,8):(8,1)").unwrap(), 4).unwrap().to_string(), "(4,2):(2,1)");
/// ```
pub fn upcast<I: Int>(l: &Layout<I>, n: i64) -> Result<Layout<I>> {
    recast(l, n, 1)
}

/// CuTe's `downcast<n>(L)`: [`recast`] by `1/n` (elements `n` times smaller).
///
/// # Pre-conditions
///
/// Those of [`recast`] with the scale `1/n`: a unit stride numbers the sub-elements (CuTe's
/// "Downcast requires adjacent elements").
///
/// # Post-conditions
///
/// `R == recast(L, 1, n)`: every sub-element of every element once. Where `L` has several
/// unit-stride leaves CuTe's `downcast` grows each of them and so counts sub-elements several
/// times; Tessera grows one (the book lists the difference: how-it-works/semantics.md).
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::downcast, parse_layout};
/// assert_eq!(downcast(&parse_layout("(4,2):(2,1)").unwrap(), 4).unwrap().to_string(), "(4,8):(8,1)");
/// assert!(downcast(&parse_layout("8:4").unwrap(), 2).is_err());
/// ```
pub fn downcast<I: Int>(l: &Layout<I>, n: i64) -> Result<Layout<I>> {
    recast(l, 1, n)
}

/// [`recast`] of a composed layout `Sw o OFF o L`, as CuTe's `recast_layout` of a
/// `ComposedLayout`: the layout recast, the offset scaled, and the swizzle's base moved by the
/// scale's power of two (CuTe's `upcast`/`downcast` of a `Swizzle`).
///
/// # Pre-conditions
///
/// * Those of [`recast`] on `L`.
/// * `OFF * den / num` is an integer (the offset is a whole number of new elements); otherwise
///   an [`Error::Condition`] of `recast` naming it.
/// * With a swizzle: `num` and `den` (reduced) are powers of two, and the swizzle's base is at
///   least `log2(num)` (it does not permute bits inside a packed element, where CuTe's `upcast`
///   drops bits); otherwise an [`Error::Condition`] of `recast`.
///
/// # Post-conditions
///
/// * `R.inner == recast(L, num, den)`, `R.offset == OFF * den / num`;
/// * the swizzle `Sw<B,M,S>` becomes `Sw<B, M - log2(num) + log2(den), S>`: for an upcast by
///   `n = 2^k`, `Sw(n*x + t) == n*Sw'(x) + t` for every `t < n`; for a downcast by `n`,
///   `Sw'(n*y + t) == n*Sw(y) + t`. So `R` addresses the same bytes as the input.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::recast_composed, parse_layout, ComposedLayout, Swizzle};
/// let c = ComposedLayout::new(Swizzle::new(3, 3, 3).unwrap(), 0i64, parse_layout("(8,64):(64,1)").unwrap());
/// assert_eq!(recast_composed(&c, 2, 1).unwrap().to_string(), "Sw<3,2,3> o (8,32):(32,1)");
/// assert_eq!(recast_composed(&c, 1, 2).unwrap().to_string(), "Sw<3,4,3> o (8,128):(128,1)");
/// assert!(recast_composed(&c, 16, 1).is_err()); // base 3 < log2(16): bits inside an element
/// ```
pub fn recast_composed<I: Int>(c: &ComposedLayout<I>, num: i64, den: i64) -> Result<ComposedLayout<I>> {
    let inner = recast(&c.inner, num, den)?;
    let g = num.gcd(&den)?;
    let (n, d) = (num / g, den / g);
    let scaled = c.offset.mul(&I::lit(d))?;
    if !I::lit(n).divides(&scaled)? {
        return Err(Error::cond(
            "recast",
            format!(
                "offset {} of {c} is not a whole number of elements at scale {n}/{d}",
                c.offset
            ),
        ));
    }
    let offset = scaled.div_exact(&I::lit(n))?;
    let swizzle = match c.swizzle {
        None => None,
        Some(sw) => {
            let pow2 = |x: i64| x > 0 && x & (x - 1) == 0;
            if !pow2(n) || !pow2(d) {
                return Err(Error::cond(
                    "recast",
                    format!("the swizzle {sw} of {c} scales only by powers of two, not {n}/{d}"),
                ));
            }
            let (up, down) = (i64::from(n.trailing_zeros()), i64::from(d.trailing_zeros()));
            let base = i64::from(sw.base);
            if base < up {
                return Err(Error::cond(
                    "recast",
                    format!(
                        "the swizzle {sw} of {c} permutes bits inside a packed element (base {base} below log2({n}) = {up})"
                    ),
                ));
            }
            Some(crate::swizzle::Swizzle::new(
                i64::from(sw.bits),
                base - up + down,
                i64::from(sw.shift),
            )?)
        }
    };
    Ok(ComposedLayout {
        swizzle,
        offset,
        inner,
    })
}
