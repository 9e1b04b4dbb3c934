//! Tilers: the by-mode right-hand side of composition, the divides and the products.
//!
//! A tiler is a layout, `_` (keep the whole mode), or a tuple of tilers. An integer `n` in a
//! tiler position is the layout `n:1`, so the int tuple `(2,7)` is the by-mode tiler
//! `(2:1,7:1)`, CuTe's shape tiler ([`Tiler::from_shape`]).

use crate::error::{Error, Result};
use crate::htuple::HTuple;
use crate::int::Int;
use crate::layout::Layout;
use crate::stride::Stride;
use std::fmt;

/// A by-mode tiler.
///
/// Most tilers are a layout, kept inline (boxing it would allocate for every tiler).
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tiler<I> {
    /// `_`: leave the mode whole.
    Keep,
    /// A layout applied to the whole (sub-)mode.
    Layout(Layout<I>),
    /// One tiler per mode.
    Tuple(Vec<Tiler<I>>),
}

impl<I: Int> fmt::Display for Tiler<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tiler::Keep => f.write_str("_"),
            Tiler::Layout(l) => write!(f, "{l}"),
            Tiler::Tuple(ts) => {
                f.write_str("(")?;
                for (k, t) in ts.iter().enumerate() {
                    if k > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// A by-mode tiler read in place: its layouts borrowed from whatever holds them, an integer
/// `n` kept as the extent of `n:1`. [`composition_view`](crate::algebra::composition_view) and
/// [`logical_divide_view`](crate::algebra::logical_divide_view) take it, so that a caller
/// holding its layouts elsewhere (the Python binding's `Layout` objects) builds no [`Tiler`]
/// (a copy of every layout) for a call.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::{composition_tiler, composition_view, Tiler, TilerView}, parse_layout};
/// let a = parse_layout("(4,6):(1,4)").unwrap();
/// let b = parse_layout("3:2").unwrap();
/// let view = TilerView::Tuple(vec![TilerView::Unit(2), TilerView::Layout(&b)]);
/// let owned = Tiler::Tuple(vec![Tiler::Layout(parse_layout("2:1").unwrap()), Tiler::Layout(b.clone())]);
/// assert_eq!(composition_view(&a, &view).unwrap(), composition_tiler(&a, &owned).unwrap());
/// assert_eq!(composition_view(&a, &view).unwrap().to_string(), "(2,3):(1,8)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TilerView<'a, I> {
    /// `_`: leave the mode whole.
    Keep,
    /// A layout applied to the whole (sub-)mode.
    Layout(&'a Layout<I>),
    /// The layout `n:1` (an integer `n` in a tiler position).
    Unit(I),
    /// One tiler per mode.
    Tuple(Vec<TilerView<'a, I>>),
}

impl<I: Int> TilerView<'_, I> {
    /// The owned [`Tiler`] this view stands for: `Unit(n)` is the layout `n:1`, a borrowed
    /// layout is cloned.
    ///
    /// @pre none. @post every tiler function gives the same result and error on `R` as its
    /// view form on `self` (where it has one).
    ///
    /// ```
    /// use tessera_ir::{algebra::{Tiler, TilerView}, parse_layout};
    /// let b = parse_layout("3:2").unwrap();
    /// let view = TilerView::Tuple(vec![TilerView::Unit(2), TilerView::Layout(&b), TilerView::Keep]);
    /// let owned = Tiler::Tuple(vec![Tiler::Layout(parse_layout("2:1").unwrap()), Tiler::Layout(b.clone()), Tiler::Keep]);
    /// assert_eq!(view.to_tiler(), owned);
    /// ```
    pub fn to_tiler(&self) -> Tiler<I> {
        match self {
            TilerView::Keep => Tiler::Keep,
            TilerView::Layout(l) => Tiler::Layout((*l).clone()),
            TilerView::Unit(n) => Tiler::Layout(Layout::leaf(n.clone(), I::one())),
            TilerView::Tuple(ts) => Tiler::Tuple(ts.iter().map(TilerView::to_tiler).collect()),
        }
    }
}

impl<I: Int> Tiler<I> {
    /// The shape tiler of an int tuple: `(2,7)` is `(2:1,7:1)`, `12` is `12:1`.
    pub fn from_shape(s: &HTuple<I>) -> Tiler<I> {
        if let Some(n) = s.as_leaf() {
            return Tiler::Layout(Layout::leaf(n.clone(), I::one()));
        }
        Tiler::Tuple(s.modes().iter().map(Tiler::from_shape).collect())
    }
}

/// The unit basis tuple congruent with `shape`: `make_basis_like((10,(20,30)))` is
/// `(1@0,(1@0@1,1@1@1))`.
///
/// # Pre-conditions
///
/// None; only the tree of `shape` is read, never its extents, and nothing can fail.
///
/// # Post-conditions
///
/// * `R` is congruent with `shape`;
/// * the leaf of `R` at path `(p_0, ..., p_m)` is the unit basis vector at that path, printed
///   innermost mode first, `1@p_m@...@p_0`; a leaf shape gives the integer `1`;
/// * summing each coordinate times its basis vector gives back the coordinate:
///   `Layout(shape, R)` is [`identity_layout`]`(shape)`.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::make_basis_like, parse_int_tuple};
/// let b = |s: &str| make_basis_like(&parse_int_tuple(s).unwrap()).to_string();
/// assert_eq!(b("(10,(20,30))"), "(1@0,(1@0@1,1@1@1))");
/// assert_eq!(b("(4,8)"), "(1@0,1@1)");
/// assert_eq!(b("12"), "1");
/// ```
pub fn make_basis_like<I: Int>(shape: &HTuple<I>) -> HTuple<Stride<I>> {
    fn go<I: Int>(s: &HTuple<I>, path: &mut Vec<u32>) -> HTuple<Stride<I>> {
        if s.is_leaf() {
            return HTuple::leaf(Stride::basis(I::one(), path));
        }
        let modes = s.modes();
        HTuple::from_modes(modes.iter().enumerate().map(|(k, m)| {
            path.push(k as u32);
            let r = go(m, path);
            path.pop();
            r
        }))
    }
    go(shape, &mut Vec::new())
}

/// The identity layout of a shape: every coordinate maps to itself (`shape:(1@0,1@1,...)`).
///
/// # Pre-conditions
///
/// Every extent of `shape` is at least 1; otherwise an
/// [`Error::Invalid`] naming the extent.
///
/// # Post-conditions
///
/// * `R == Layout(shape, make_basis_like(shape))`;
/// * `R(c) == c` for every coordinate `c` of `shape`: at index `i`, `R(i)` is the natural
///   coordinate `idx2crd(i, shape)` as a sum of basis vectors.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::identity_layout, parse_int_tuple};
/// let id = identity_layout(&parse_int_tuple("(3,4)").unwrap()).unwrap();
/// assert_eq!(id.to_string(), "(3,4):(1@0,1@1)");
/// // Index 7 is the coordinate (1,2).
/// assert_eq!(id.eval_index(&7).unwrap().to_string(), "1@0+2@1");
/// let id = identity_layout(&parse_int_tuple("(3,(4,5))").unwrap()).unwrap();
/// assert_eq!(id.eval_index(&31).unwrap().to_string(), "1@0+2@0@1+2@1@1");
/// let e = identity_layout(&parse_int_tuple("(3,0)").unwrap()).unwrap_err();
/// assert_eq!(e.to_string(), "extent 0 in shape (3,0) is not positive");
/// ```
pub fn identity_layout<I: Int>(shape: &HTuple<I>) -> Result<Layout<I>> {
    Layout::new(shape.clone(), make_basis_like(shape))
}

/// One layout that acts like the tiler under composition (`tiler_to_layout`): mode `k` of a
/// tuple tiler gets its strides scaled by the basis `1@k`.
///
/// # Pre-conditions
///
/// * The tiler contains no `_`, which has no layout form; otherwise an [`Error::Invalid`].
/// * Coordinate strides appear only in a tiler that is a single layout, not inside a tuple;
///   otherwise an [`Error::Invalid`] naming the stride.
///
/// # Post-conditions
///
/// * a layout tiler: `R` is that layout;
/// * a tuple tiler `(T_0, T_1, ...)`: `rank(R)` is the number of entries, mode `k` of `R` is
///   `T_k` with every stride `d` replaced by `d@k` (nested tuples nest the basis,
///   `d@j@k`), so that `R(c) == (T_0(c_0), T_1(c_1), ...)` as a coordinate;
/// * for a tuple of layouts covering every mode of `A`, `composition(A, R)` and
///   [`composition_tiler`](crate::algebra::composition_tiler)`(A, T)` both succeed or both
///   fail, and agree where they succeed.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::{tiler_to_layout, Tiler}, parse_int_tuple, parse_layout as l};
/// let t2l = |t: &Tiler<i64>| tiler_to_layout(t).map(|r| r.to_string());
/// let shape = Tiler::from_shape(&parse_int_tuple("(4,5)").unwrap());
/// assert_eq!(t2l(&shape).unwrap(), "(4,5):(1@0,1@1)");
/// let t = Tiler::Tuple(vec![Tiler::Layout(l("4:2").unwrap()), Tiler::Layout(l("5:3").unwrap())]);
/// assert_eq!(t2l(&t).unwrap(), "(4,5):(2@0,3@1)");
/// let nested = Tiler::from_shape(&parse_int_tuple("((2,3),4)").unwrap());
/// assert_eq!(t2l(&nested).unwrap(), "((2,3),4):((1@0@0,1@1@0),1@1)");
/// let keep = Tiler::Tuple(vec![Tiler::Keep, Tiler::Layout(l("5:3").unwrap())]);
/// assert_eq!(t2l(&keep).unwrap_err().to_string(), "tiler_to_layout: '_' has no layout form");
/// ```
pub fn tiler_to_layout<I: Int>(t: &Tiler<I>) -> Result<Layout<I>> {
    fn go<I: Int>(t: &Tiler<I>, e: &Stride<I>) -> Result<Layout<I>> {
        match t {
            Tiler::Keep => Err(Error::invalid("tiler_to_layout: '_' has no layout form")),
            Tiler::Layout(l) => {
                let stride = l.stride().try_map(|d| match d.as_int() {
                    Some(v) => e.scale(v),
                    None if e == &Stride::Int(I::one()) => Ok(d.clone()),
                    None => Err(Error::invalid(format!(
                        "tiler_to_layout: coordinate stride {d} inside a tuple tiler"
                    ))),
                })?;
                Layout::new(l.shape().clone(), stride)
            }
            Tiler::Tuple(ts) => {
                let mut modes = Vec::with_capacity(ts.len());
                for (k, sub) in ts.iter().enumerate() {
                    let ek = match e {
                        Stride::Int(v) if v.is(1) => Stride::basis(I::one(), &[k as u32]),
                        Stride::Basis(b) if b.terms().len() == 1 => {
                            let (p, v) = &b.terms()[0];
                            let mut q: Vec<u32> = p.to_vec();
                            q.push(k as u32);
                            Stride::basis(v.clone(), &q)
                        }
                        _ => return Err(Error::internal("tiler_to_layout: unsupported base")),
                    };
                    modes.push(go(sub, &ek)?);
                }
                Ok(Layout::concat(modes))
            }
        }
    }
    go(t, &Stride::Int(I::one()))
}
