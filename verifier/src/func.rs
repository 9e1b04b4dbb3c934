//! The functions the properties talk about: layouts and composed (swizzled) layouts over
//! symbolic integers, with their lowering and their direct evaluation at concrete values.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use tessera_ir::algebra::coalesce_z;
use tessera_ir::index::{IndexExpr, lower_composed, lower_index};
use tessera_ir::sym::{Atom, Facts, Poly, SymInt};
use tessera_ir::text::{Read, read};
use tessera_ir::{Codomain, ComposedLayout, Error, HTuple, Layout, Result, Stride};

/// A layout-like function of a linear index.
#[derive(Clone, Debug, PartialEq)]
pub enum Func {
    /// A layout.
    Layout(Layout<SymInt>),
    /// `swizzle(offset + layout(i))`.
    Composed(ComposedLayout<SymInt>),
}

/// A value of a function: named outputs (`offset`, or `coord[k]` per axis); a missing output
/// is zero.
pub type Point = BTreeMap<String, i64>;

impl std::fmt::Display for Func {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Func::Layout(l) => write!(f, "{l}"),
            Func::Composed(c) => write!(f, "{c}"),
        }
    }
}

impl Func {
    /// Reads a layout, a bare shape (its compact layout) or a swizzled layout in the text
    /// format; a name is the parameter of that name in `facts`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use tessera_ir::sym::Facts;
    /// use tessera_verifier::Func;
    /// let mut facts = Facts::default();
    /// facts.declare("M where M % 8 == 0").unwrap();
    /// let f = Func::parse("(M,8):(8,1)", &Arc::new(facts)).unwrap();
    /// assert_eq!(f.to_string(), "(M,8):(8,1)");
    /// ```
    pub fn parse(src: &str, facts: &Arc<Facts>) -> Result<Func> {
        let param = |n: &str| facts.get(n).map(|_| SymInt::param(n, facts));
        match read(src, &param)? {
            Read::Composed(c) => Ok(Func::Composed(c)),
            r => Ok(Func::Layout(r.into_layout()?)),
        }
    }

    /// The number of indices of the domain.
    pub fn size(&self) -> Result<SymInt> {
        match self {
            Func::Layout(l) => l.size(),
            Func::Composed(c) => c.inner.size(),
        }
    }

    /// The shape of the domain.
    pub fn shape(&self) -> &HTuple<SymInt> {
        match self {
            Func::Layout(l) => l.shape(),
            Func::Composed(c) => c.inner.shape(),
        }
    }

    /// Every symbolic integer the function is made of: extents, strides, the offset.
    pub fn syms(&self) -> Vec<SymInt> {
        let (l, off) = match self {
            Func::Layout(l) => (l, None),
            Func::Composed(c) => (&c.inner, Some(c.offset.clone())),
        };
        let mut out: Vec<SymInt> = l.flat_shape().to_vec();
        for d in l.flat_stride() {
            out.extend(d.terms().into_iter().map(|(_, v)| v));
        }
        out.extend(off);
        out
    }

    /// Whether some indices have no value: `F2` strides scale by non-negative integers only,
    /// so an `F2` layout has no value at a negative index (see [`Concrete::has_index`]).
    pub fn partial(&self) -> bool {
        match self {
            Func::Layout(l) => has_f2(l),
            Func::Composed(c) => has_f2(&c.inner),
        }
    }

    /// What the function's values are: integers (also `F2`, whose values are integers), or
    /// coordinates. Bad input when it mixes kinds of strides.
    pub fn codomain(&self) -> Result<Codomain> {
        match self {
            Func::Layout(l) => l.codomain(),
            Func::Composed(c) => match c.inner.codomain()? {
                Codomain::Coord => Err(Error::invalid(format!(
                    "{c}: a composed layout needs an integer-valued inner layout"
                ))),
                k => Ok(k),
            },
        }
    }

    /// The index expression of the function of the linear index `i`.
    ///
    /// The layout is coalesced first (`coalesce_z`, which keeps the function on every integer,
    /// past the size included): `(M,N):(1,M)` lowers to `i`, not to `i%M + M*(i/M)`, which
    /// spares z3 the nonlinear division. Counterexamples are still reported and re-checked
    /// on the layout as written.
    pub fn lower(&self) -> Result<IndexExpr> {
        match self {
            Func::Layout(l) => lower_index(&coalesce_z(l)?),
            Func::Composed(c) => lower_composed(&c.with_inner(coalesce_z(&c.inner)?)),
        }
    }

    /// The function at concrete parameter values.
    pub fn at(&self, vals: &HashMap<String, i64>) -> Result<Concrete> {
        let inst = |l: &Layout<SymInt>| l.instantiate(vals);
        Ok(match self {
            Func::Layout(l) => Concrete::Layout(inst(l)?),
            Func::Composed(c) => Concrete::Composed(ComposedLayout {
                swizzle: c.swizzle,
                offset: c.offset.eval(vals)?,
                inner: inst(&c.inner)?,
            }),
        })
    }
}

/// A function at concrete parameter values, evaluated directly (not through the IR), so that
/// counterexamples are re-checked independently of the encoding.
#[derive(Clone, Debug)]
pub enum Concrete {
    /// A layout.
    Layout(Layout<i64>),
    /// A composed layout.
    Composed(ComposedLayout<i64>),
}

impl Concrete {
    /// The number of indices.
    pub fn size(&self) -> Result<i64> {
        match self {
            Concrete::Layout(l) => l.size(),
            Concrete::Composed(c) => c.inner.size(),
        }
    }

    /// The value at index `i`.
    pub fn eval(&self, i: i64) -> Result<Point> {
        let mut p = Point::new();
        match self {
            Concrete::Layout(l) => match l.eval_index(&i)? {
                Stride::Int(v) => {
                    p.insert("offset".into(), v);
                }
                Stride::F2(v) => {
                    p.insert(
                        "offset".into(),
                        i64::try_from(v).map_err(|_| Error::Overflow(format!("F2({v})")))?,
                    );
                }
                s @ Stride::Basis(_) => {
                    for (path, v) in s.terms() {
                        let name = format!(
                            "coord{}",
                            path.iter().map(|k| format!("[{k}]")).collect::<String>()
                        );
                        p.insert(name, v);
                    }
                }
            },
            Concrete::Composed(c) => {
                p.insert("offset".into(), c.eval_index(&i)?);
            }
        }
        Ok(p)
    }

    /// Every offset, in index order, for integer-valued functions (`None` otherwise): an
    /// odometer over the leaves, one addition per index instead of a division per leaf.
    pub fn offsets(&self) -> Result<Option<Vec<i64>>> {
        let (l, sw) = match self {
            Concrete::Layout(l) => (l, None),
            Concrete::Composed(c) => (&c.inner, Some(c)),
        };
        let strides: Option<Vec<i64>> = l.flat_stride().iter().map(|d| d.as_int().copied()).collect();
        let Some(strides) = strides else { return Ok(None) };
        let shape = l.flat_shape();
        let n = usize::try_from(l.size()?).map_err(|_| Error::invalid("negative size"))?;
        let mut out = Vec::with_capacity(n);
        let mut crd = vec![0i64; shape.len()];
        let mut off = 0i64;
        for _ in 0..n {
            out.push(match sw {
                None => off,
                Some(c) => {
                    let x = c
                        .offset
                        .checked_add(off)
                        .ok_or_else(|| Error::Overflow("offset".into()))?;
                    c.swizzle.map_or(x, |s| s.apply(x))
                }
            });
            // Advance the colexicographic odometer. A wrapping digit takes back its last
            // term `(s-1)*d`, a value the layout itself reaches (`s*d` may not fit).
            for k in 0..shape.len() {
                if crd[k] + 1 < shape[k] {
                    crd[k] += 1;
                    off = off
                        .checked_add(strides[k])
                        .ok_or_else(|| Error::Overflow("offset".into()))?;
                    break;
                }
                let span = strides[k]
                    .checked_mul(shape[k] - 1)
                    .ok_or_else(|| Error::Overflow("offset".into()))?;
                off = off
                    .checked_sub(span)
                    .ok_or_else(|| Error::Overflow("offset".into()))?;
                crd[k] = 0;
            }
        }
        Ok(Some(out))
    }

    /// Whether the function has a value at index `i`: every integer for integer and
    /// coordinate strides (the last mode absorbs any index), only `i >= 0` for `F2` strides,
    /// which scale by non-negative integers only.
    pub fn has_index(&self, i: i64) -> bool {
        let l = match self {
            Concrete::Layout(l) => l,
            Concrete::Composed(c) => &c.inner,
        };
        i >= 0 || !has_f2(l)
    }

    /// The integer offset at `i` (an error for coordinate-valued functions). Computed without
    /// building a [`Point`]: the bank analysis calls it once per thread and access.
    pub fn offset(&self, i: i64) -> Result<i64> {
        match self {
            Concrete::Layout(l) => match l.eval_index(&i)? {
                Stride::Int(v) => Ok(v),
                Stride::F2(v) => i64::try_from(v).map_err(|_| Error::Overflow(format!("F2({v})"))),
                // A coordinate value with no terms is the point with no outputs: offset 0.
                s @ Stride::Basis(_) => match s.terms().is_empty() {
                    true => Ok(0),
                    false => Err(Error::invalid("expected an integer-valued layout")),
                },
            },
            Concrete::Composed(c) => c.eval_index(&i),
        }
    }

    /// The natural coordinate of index `i`, for messages.
    pub fn coord(&self, i: i64) -> String {
        let shape = match self {
            Concrete::Layout(l) => l.shape(),
            Concrete::Composed(c) => c.inner.shape(),
        };
        tessera_ir::shape::idx2crd(&HTuple::leaf(i), shape)
            .map(|c| c.to_string())
            .unwrap_or_else(|_| i.to_string())
    }
}

/// Two points are equal when every output agrees (missing outputs are zero).
pub fn same_point(a: &Point, b: &Point) -> bool {
    a.keys()
        .chain(b.keys())
        .all(|k| a.get(k).copied().unwrap_or(0) == b.get(k).copied().unwrap_or(0))
}

/// Prints a point: `12`, or `(3,5)` for coordinates.
pub fn show_point(p: &Point) -> String {
    if p.len() <= 1 && p.keys().all(|k| k == "offset") {
        return p.get("offset").copied().unwrap_or(0).to_string();
    }
    let parts: Vec<String> = p
        .iter()
        .map(|(k, v)| format!("{}={v}", k.trim_start_matches("coord")))
        .collect();
    format!("({})", parts.join(","))
}

/// Whether some stride is an `F2` stride (zero ones included).
fn has_f2<I: tessera_ir::Int>(l: &Layout<I>) -> bool {
    l.flat_stride().iter().any(|d| matches!(d, Stride::F2(_)))
}

/// The parameters a symbolic integer mentions (inside floor quotients too).
pub fn params_of(s: &SymInt, out: &mut BTreeSet<String>) {
    fn walk(p: &Poly, out: &mut BTreeSet<String>) {
        for (m, _) in p.terms() {
            for (a, _) in m {
                match a {
                    Atom::Param(n) => {
                        out.insert(n.to_string());
                    }
                    Atom::FloorDiv(x, y) => {
                        walk(x, out);
                        walk(y, out);
                    }
                }
            }
        }
    }
    walk(s.poly(), out);
}
