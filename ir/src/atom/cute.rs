//! The few CuTe C++ conventions the atom constructions need beyond the algebra.
//!
//! * [`compact`]: `make_layout(shape)`, whose size-1 modes have stride 0 (CuTe C++'s
//!   `compact_col_major`; PyCuTe and [`Layout::compact`] give them the prefix product).
//! * [`upcast`], [`downcast`], [`recast_bits`]: `upcast<N>`, `downcast<N>` and
//!   `recast_layout<uint1_t, T>` of a layout in bits.
//! * [`zip2`]: `zip` of a rank-2 layout of rank-2 modes, `((a,b),(c,d)) -> ((a,c),(b,d))`.

use crate::algebra::composition;
use crate::error::{Error, Result};
use crate::htuple::HTuple;
use crate::int::Int;
use crate::layout::Layout;
use crate::stride::Stride;

/// CuTe C++'s `make_layout(shape)`: column-major, a size-1 mode with stride 0.
///
/// # Pre-conditions
/// Extents are positive.
/// # Post-conditions
/// Each stride is the product of the extents before it, or 0 where the extent is 1; an
/// overflow is an error only where a stride needs the product (the size itself may overflow).
///
/// ```
/// use tessera_ir::{atom::cute::compact, parse_int_tuple};
/// let l = compact(&parse_int_tuple("(2,1,(4,1))").unwrap()).unwrap();
/// assert_eq!(l.to_string(), "(2,1,(4,1)):(1,0,(2,0))");
/// let big = compact(&parse_int_tuple("(4294967296,4294967296)").unwrap()).unwrap();
/// assert_eq!(big.to_string(), "(4294967296,4294967296):(1,4294967296)");
/// assert!(compact(&parse_int_tuple("(4294967296,4294967296,2)").unwrap()).is_err());
/// ```
pub fn compact<I: Int>(shape: &HTuple<I>) -> Result<Layout<I>> {
    let mut acc: Result<I> = Ok(I::one());
    let mut d = Vec::with_capacity(shape.leaves().len());
    for s in shape.leaves() {
        if s.is(1) {
            d.push(Stride::Int(I::zero()));
        } else {
            let a = acc?;
            acc = a.mul(s);
            d.push(Stride::Int(a));
        }
    }
    Layout::new(shape.clone(), HTuple::unflatten(d, shape.profile())?)
}

/// `layout.with_shape(shape)`: `composition(layout, make_layout(shape))`.
///
/// # Pre-conditions
/// `size(shape)` at most the layout's domain (else the composition's own error).
/// # Post-conditions
/// The result has the shape `shape` and computes the layout at each index.
///
/// ```
/// use tessera_ir::{atom::cute::with_shape, parse_layout, parse_int_tuple};
/// let l = with_shape(&parse_layout("32:2").unwrap(), &parse_int_tuple("(8,4)").unwrap()).unwrap();
/// assert_eq!(l.to_string(), "(8,4):(2,16)");
/// ```
pub fn with_shape<I: Int>(l: &Layout<I>, shape: &HTuple<I>) -> Result<Layout<I>> {
    composition(l, &compact(shape)?)
}

fn int_stride(d: &Stride<i64>, op: &str) -> Result<i64> {
    d.as_int()
        .copied()
        .ok_or_else(|| Error::invalid(format!("{op}: expected integer strides, found {d}")))
}

fn ceil_div(a: i64, b: i64) -> Result<i64> {
    a.div_up(&b)
}

/// CuTe's `upcast<N>(layout)`: the layout in units `n` times larger (a stride-0 mode kept,
/// else `ceil_div(shape, ceil_div(N, |d|)) : sign(d) * ceil_div(|d|, N)`).
///
/// # Pre-conditions
/// `n > 0`; every non-zero stride divides `n` or is divided by it (CuTe's "Divisibility
/// condition", an error here).
/// # Post-conditions
/// Each leaf is transformed alone; the profile is kept.
///
/// ```
/// use tessera_ir::{atom::cute::upcast, parse_layout};
/// let l = parse_layout("((8,4),128):((128,0),1)").unwrap();
/// assert_eq!(upcast(&l, 16).unwrap().to_string(), "((8,4),8):((8,0),1)");
/// assert!(upcast(&parse_layout("4:3").unwrap(), 2).is_err());
/// ```
pub fn upcast(l: &Layout<i64>, n: i64) -> Result<Layout<i64>> {
    if n <= 0 {
        return Err(Error::invalid(format!(
            "upcast by {n}: expected a positive factor"
        )));
    }
    let mut s = Vec::new();
    let mut d = Vec::new();
    for (x, y) in l.flat_shape().iter().zip(l.flat_stride()) {
        let y = int_stride(y, "upcast")?;
        if y == 0 {
            s.push(*x);
            d.push(Stride::Int(0));
            continue;
        }
        let a = i64::abs(y);
        if a % n != 0 && n % a != 0 {
            return Err(Error::invalid(format!(
                "upcast<{n}> of {l}: Divisibility condition (stride {y} and {n})"
            )));
        }
        s.push(ceil_div(*x, ceil_div(n, a)?)?);
        d.push(Stride::Int(y.signum() * ceil_div(a, n)?));
    }
    Layout::new(
        HTuple::unflatten(s, l.shape().profile())?,
        HTuple::unflatten(d, l.shape().profile())?,
    )
}

/// CuTe's `downcast<N>(layout)`: a stride-±1 mode gets `n` times the extent, every other
/// stride `n` times the stride.
///
/// # Pre-conditions
/// `n > 0`; some stride is ±1 ("Downcast requires adjacent elements").
/// # Post-conditions
/// Each leaf is transformed alone; the profile is kept.
///
/// ```
/// use tessera_ir::{atom::cute::downcast, parse_layout};
/// let l = parse_layout("(4,2):(1,4)").unwrap();
/// assert_eq!(downcast(&l, 2).unwrap().to_string(), "(8,2):(1,8)");
/// ```
pub fn downcast(l: &Layout<i64>, n: i64) -> Result<Layout<i64>> {
    if n <= 0 {
        return Err(Error::invalid(format!(
            "downcast by {n}: expected a positive factor"
        )));
    }
    let strides: Vec<i64> = l
        .flat_stride()
        .iter()
        .map(|d| int_stride(d, "downcast"))
        .collect::<Result<_>>()?;
    if !strides.iter().any(|d| i64::abs(*d) == 1) {
        return Err(Error::invalid(format!(
            "downcast<{n}> of {l}: Downcast requires adjacent elements"
        )));
    }
    let mut s = Vec::new();
    let mut d = Vec::new();
    for (x, y) in l.flat_shape().iter().zip(strides) {
        if i64::abs(y) == 1 {
            s.push(x.mul(&n)?);
            d.push(Stride::Int(y));
        } else {
            s.push(*x);
            d.push(Stride::Int(y.mul(&n)?));
        }
    }
    Layout::new(
        HTuple::unflatten(s, l.shape().profile())?,
        HTuple::unflatten(d, l.shape().profile())?,
    )
}

/// CuTe's `recast_layout<Old, New>` for elements of `old_bits` and `new_bits` bits: upcast by
/// the reduced numerator, then downcast by the reduced denominator.
///
/// # Pre-conditions
/// Both widths positive; [`upcast`] and [`downcast`]'s conditions.
/// # Post-conditions
/// The identity when the widths are equal.
///
/// ```
/// use tessera_ir::{atom::cute::recast_bits, parse_layout};
/// let l = parse_layout("(32,(32,4)):(32,(1,1024))").unwrap();
/// assert_eq!(recast_bits(&l, 1, 16).unwrap().to_string(), "(32,(2,4)):(2,(1,64))");
/// ```
pub fn recast_bits(l: &Layout<i64>, old_bits: i64, new_bits: i64) -> Result<Layout<i64>> {
    if old_bits <= 0 || new_bits <= 0 {
        return Err(Error::invalid("recast: element widths must be positive"));
    }
    let g = old_bits.gcd(&new_bits)?;
    let (num, den) = (new_bits / g, old_bits / g);
    let mut out = l.clone();
    if num != 1 {
        out = upcast(&out, num)?;
    }
    if den != 1 {
        out = downcast(&out, den)?;
    }
    Ok(out)
}

/// `zip` of `((a,b),(c,d))`: `((a,c),(b,d))`.
///
/// # Pre-conditions
/// Rank 2, both modes rank 2.
/// # Post-conditions
/// The same leaves, regrouped.
///
/// ```
/// use tessera_ir::{atom::cute::zip2, parse_layout};
/// let l = parse_layout("((2,3),(5,7)):((1,2),(6,30))").unwrap();
/// assert_eq!(zip2(&l).unwrap().to_string(), "((2,5),(3,7)):((1,6),(2,30))");
/// ```
pub fn zip2<I: Int>(l: &Layout<I>) -> Result<Layout<I>> {
    let bad = || Error::invalid(format!("zip: expected ((a,b),(c,d)), found {l}"));
    let m = l.modes();
    if m.len() != 2 || m[0].rank() != 2 || m[1].rank() != 2 {
        return Err(bad());
    }
    let (x, y) = (m[0].modes(), m[1].modes());
    Ok(Layout::concat([
        Layout::concat([x[0].clone(), y[0].clone()]),
        Layout::concat([x[1].clone(), y[1].clone()]),
    ]))
}

/// The same function with stride 0 on every size-1 leaf, as CuTe's static `_1` modes print
/// (`(4,1):(1,0)`; the algebra's complements give the rest mode `1:cosize`).
///
/// # Post-conditions
/// Equal to the input at every coordinate.
///
/// ```
/// use tessera_ir::{atom::cute::unit_strides_zero, parse_layout};
/// let l = parse_layout("((4,1),(1,2)):((1,32),(512,4))").unwrap();
/// assert_eq!(unit_strides_zero(&l).unwrap().to_string(), "((4,1),(1,2)):((1,0),(0,4))");
/// ```
pub fn unit_strides_zero<I: Int>(l: &Layout<I>) -> Result<Layout<I>> {
    let d: Vec<Stride<I>> = l
        .flat_shape()
        .iter()
        .zip(l.flat_stride())
        .map(|(s, d)| {
            if s.is(1) {
                Stride::Int(I::zero())
            } else {
                d.clone()
            }
        })
        .collect();
    Layout::new(l.shape().clone(), HTuple::unflatten(d, l.shape().profile())?)
}
