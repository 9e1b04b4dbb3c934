//! Values of the expression language and their conversions.

use std::fmt;
use tessera_ir::HTuple;
use tessera_ir::Int;
use tessera_ir::Layout;
use tessera_ir::Stride;
use tessera_ir::algebra::Tiler;
use tessera_ir::{ComposedLayout, Swizzle};
use tessera_ir::{Error, Result};

/// A value of the expression language.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<I = i64> {
    /// An integer.
    Int(I),
    /// A non-integer stride literal: a coordinate stride (`1@0`) or an `F2` stride.
    Stride(Stride<I>),
    /// A tuple of values: an int tuple, a tiler, a coordinate.
    Tuple(Vec<Value<I>>),
    /// `_`.
    Keep,
    /// A layout.
    Layout(Layout<I>),
    /// A swizzled or offset layout.
    Composed(ComposedLayout<I>),
    /// A swizzle function.
    Swizzle(Swizzle),
    /// A truth value.
    Bool(bool),
    /// A tiled MMA, a copy atom or a tiled copy (`make_tiled_mma(...)`).
    Atom(std::sync::Arc<super::atom_value::AtomValue>),
}

impl<I: Int> fmt::Display for Value<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(v) => fmt::Display::fmt(v, f),
            Value::Stride(s) => fmt::Display::fmt(s, f),
            Value::Tuple(vs) => {
                f.write_str("(")?;
                for (k, v) in vs.iter().enumerate() {
                    if k > 0 {
                        f.write_str(",")?;
                    }
                    fmt::Display::fmt(v, f)?;
                }
                f.write_str(")")
            }
            Value::Keep => f.write_str("_"),
            Value::Layout(l) => fmt::Display::fmt(l, f),
            Value::Composed(c) => fmt::Display::fmt(c, f),
            Value::Swizzle(s) => write!(f, "{s}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Atom(a) => write!(f, "{a}"),
        }
    }
}

impl Value<tessera_ir::sym::SymInt> {
    /// The function a property talks about: a layout, a composed layout, or a bare shape (its
    /// compact layout).
    pub fn to_func(&self) -> Result<tessera_verifier::Func> {
        match self {
            Value::Composed(c) => Ok(tessera_verifier::Func::Composed(c.clone())),
            v => Ok(tessera_verifier::Func::Layout(v.to_layout()?)),
        }
    }
}

/// The nesting of a stride's printed form: an `@` index per level, one for `F2(...)`.
fn stride_depth<I: Int>(d: &Stride<I>) -> usize {
    match d {
        Stride::Int(_) => 0,
        Stride::F2(_) => 1,
        Stride::Basis(b) => b.terms().iter().map(|(p, _)| p.len()).max().unwrap_or(0),
    }
}

impl<I: Int> Value<I> {
    /// A short name of the value's kind, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Int(_) => "an integer",
            Value::Stride(_) => "a stride",
            Value::Tuple(_) => "a tuple",
            Value::Keep => "'_'",
            Value::Layout(_) => "a layout",
            Value::Composed(_) => "a composed layout",
            Value::Swizzle(_) => "a swizzle",
            Value::Bool(_) => "a boolean",
            Value::Atom(a) => a.kind(),
        }
    }

    /// The nesting its printed form needs, as the parser counts it ([`tessera_ir::text::MAX_DEPTH`]):
    /// one level per tuple bracket, per `@` index of a coordinate stride, and per `F2(...)`.
    /// The recursion follows the value's tuples, which are never deeper than the parser, a
    /// check file's bindings and [`Value::check_depth`] let them be.
    pub fn depth(&self) -> usize {
        let layout_depth = Value::layout_depth;
        match self {
            Value::Int(_) | Value::Keep | Value::Swizzle(_) | Value::Bool(_) | Value::Atom(_) => 0,
            Value::Stride(d) => stride_depth(d),
            Value::Tuple(vs) => 1 + vs.iter().map(Value::depth).max().unwrap_or(0),
            Value::Layout(l) => layout_depth(l),
            Value::Composed(c) => layout_depth(&c.inner),
        }
    }

    /// [`Value::depth`] of `Value::Layout(l)`, without building the value (the Python module's
    /// fast paths check their results with it).
    ///
    /// # Post-conditions
    ///
    /// * equals `Value::Layout(l.clone()).depth()`.
    ///
    /// # Example
    ///
    /// ```
    /// use tessera::lang::Value;
    /// let l = tessera::ir::parse_layout("(2,(3,4)):(1,(2,6))").unwrap();
    /// assert_eq!(Value::<i64>::layout_depth(&l), 2);
    /// ```
    pub fn layout_depth(l: &Layout<I>) -> usize {
        let d = l.stride().leaves().iter().map(stride_depth).max().unwrap_or(0);
        // Shape and stride are congruent: one depth for both.
        l.shape().depth() + d
    }

    /// This value, or an error when its printed form would be nested deeper than the parser
    /// accepts (so that every printed value parses back).
    pub fn check_depth(self) -> Result<Self> {
        let max = tessera_ir::text::MAX_DEPTH;
        if self.depth() > max {
            return Err(Error::invalid(format!(
                "the result is nested deeper than {max} levels, more than an expression may be"
            )));
        }
        Ok(self)
    }

    /// The value of an int tuple as an [`HTuple`].
    pub fn from_int_tuple(t: &HTuple<I>) -> Value<I> {
        if let Some(v) = t.as_leaf() {
            return Value::Int(v.clone());
        }
        Value::Tuple(t.modes().iter().map(Value::from_int_tuple).collect())
    }

    /// The value of a codomain element: integers stay integers, coordinates become tuples.
    pub fn from_codomain(s: Stride<I>) -> Value<I> {
        match s {
            Stride::Int(v) => Value::Int(v),
            Stride::Basis(_) => Value::from_int_tuple(&s.to_coord()),
            f2 => Value::Stride(f2),
        }
    }

    /// This value as an integer.
    pub fn to_int(&self) -> Result<I> {
        match self {
            Value::Int(v) => Ok(v.clone()),
            v => Err(Error::invalid(format!(
                "expected an integer, found {} ({v})",
                v.kind()
            ))),
        }
    }

    /// This value as a non-negative `usize` (mode indices).
    pub fn to_index(&self) -> Result<usize> {
        let v = self.to_int()?;
        v.as_const()
            .and_then(|x| usize::try_from(x).ok())
            .ok_or_else(|| Error::invalid(format!("expected a non-negative index, found {v}")))
    }

    /// This value as an int tuple (an integer is a leaf).
    pub fn to_int_tuple(&self) -> Result<HTuple<I>> {
        match self {
            Value::Int(v) => Ok(HTuple::leaf(v.clone())),
            Value::Tuple(vs) => {
                let modes: Result<Vec<_>> = vs.iter().map(Value::to_int_tuple).collect();
                Ok(HTuple::from_modes(modes?))
            }
            v => Err(Error::invalid(format!(
                "expected an int tuple, found {} ({v})",
                v.kind()
            ))),
        }
    }

    /// This value as a shape: an int tuple, or the shape of a layout.
    pub fn to_shape(&self) -> Result<HTuple<I>> {
        match self {
            Value::Layout(l) => Ok(l.shape().clone()),
            Value::Composed(c) => Ok(c.inner.shape().clone()),
            v => v.to_int_tuple(),
        }
    }

    /// This value as a stride tuple.
    pub fn to_stride_tuple(&self) -> Result<HTuple<Stride<I>>> {
        match self {
            Value::Int(v) => Ok(HTuple::leaf(Stride::Int(v.clone()))),
            Value::Stride(s) => Ok(HTuple::leaf(s.clone())),
            Value::Tuple(vs) => {
                let modes: Result<Vec<_>> = vs.iter().map(Value::to_stride_tuple).collect();
                Ok(HTuple::from_modes(modes?))
            }
            v => Err(Error::invalid(format!(
                "expected a stride, found {} ({v})",
                v.kind()
            ))),
        }
    }

    /// This value as a layout; a bare shape is the compact column-major layout.
    pub fn to_layout(&self) -> Result<Layout<I>> {
        match self {
            Value::Layout(l) => Ok(l.clone()),
            Value::Int(_) | Value::Tuple(_) => Layout::compact(&self.to_int_tuple()?),
            v => Err(Error::invalid(format!(
                "expected a layout, found {} ({v})",
                v.kind()
            ))),
        }
    }

    /// [`Value::to_layout`], taking the value (a layout is moved, not copied).
    pub fn into_layout(self) -> Result<Layout<I>> {
        match self {
            Value::Layout(l) => Ok(l),
            v => v.to_layout(),
        }
    }

    /// [`Value::to_tiler`], taking the value (a layout is moved, not copied).
    pub fn into_tiler(self) -> Result<Tiler<I>> {
        match self {
            Value::Layout(l) => Ok(Tiler::Layout(l)),
            Value::Tuple(vs) => {
                let mut modes = Vec::with_capacity(vs.len());
                for v in vs {
                    modes.push(v.into_tiler()?);
                }
                Ok(Tiler::Tuple(modes))
            }
            v => v.to_tiler(),
        }
    }

    /// This value as a tiler: `_` keeps a mode, an integer `n` is `n:1`, tuples go by mode.
    pub fn to_tiler(&self) -> Result<Tiler<I>> {
        match self {
            Value::Keep => Ok(Tiler::Keep),
            Value::Int(n) => Ok(Tiler::Layout(Layout::new(
                HTuple::leaf(n.clone()),
                HTuple::leaf(Stride::Int(I::one())),
            )?)),
            Value::Layout(l) => Ok(Tiler::Layout(l.clone())),
            Value::Tuple(vs) => Ok(Tiler::Tuple(
                vs.iter().map(Value::to_tiler).collect::<Result<_>>()?,
            )),
            v => Err(Error::invalid(format!(
                "expected a tiler, found {} ({v})",
                v.kind()
            ))),
        }
    }

    /// This value as a coalesce profile: a leaf coalesces, `_` keeps, tuples go by mode.
    pub fn to_profile(&self) -> Result<HTuple<bool>> {
        match self {
            Value::Keep => Ok(HTuple::leaf(false)),
            Value::Int(_) => Ok(HTuple::leaf(true)),
            Value::Tuple(vs) => {
                let modes: Result<Vec<_>> = vs.iter().map(Value::to_profile).collect();
                Ok(HTuple::from_modes(modes?))
            }
            v => Err(Error::invalid(format!(
                "expected a profile, found {} ({v})",
                v.kind()
            ))),
        }
    }

    /// This value as a coordinate; `_` entries are not allowed.
    pub fn to_coord(&self) -> Result<HTuple<I>> {
        self.to_int_tuple()
    }
}
