//! Composition `R = A ∘ B`: `R(i) == A(B(i))` for every `i` in `[0, size(B))`, and
//! `compatible(B, R)`.
//!
//! `A` is first coalesced, giving a mixed-radix number system: digit `j` has extent `s_j` and
//! weight `a_j`, and the last digit absorbs everything past the others. Each leaf `n:d` of `B`
//! walks `d*i` through those digits: it divides out whole digits from `d` (the stride
//! divisibility condition), then keeps `n` values across what remains (the shape divisibility
//! condition). The result of each leaf is exact by construction.
//!
//! CuTe and PyCuTe then put the leaf results side by side and stop. That is only right when
//! the leaves of `B` never carry into each other inside `A`: `composition((4,3):(0,1),
//! (2,3):(2,1))` reaches `A(4) == 1` at `B(5)`, which no layout of shape `(2,3)` can produce.
//! Tessera records how much of each digit every leaf uses and rejects the composition when
//! the leaves together overflow a digit, naming both.
//!
//! ```
//! use tessera_ir::{algebra::composition, parse_layout};
//! let a = parse_layout("(6,2):(8,2)").unwrap();
//! let b = parse_layout("(4,3):(3,1)").unwrap();
//! assert_eq!(composition(&a, &b).unwrap().to_string(), "((2,2),3):((24,2),8)");
//! let bad = composition(&parse_layout("(4,3):(0,1)").unwrap(), &parse_layout("(2,3):(2,1)").unwrap());
//! assert!(bad.is_err());
//! ```

use super::coalesce::{coalesce, coalesce_z, coalesce_z_by};
use super::layout_add::layout_add;
use super::tiler::Tiler;
use crate::error::{Error, Result};
use crate::htuple::HTuple;
use crate::int::Int;
use crate::layout::Layout;
use crate::stride::{Codomain, Stride};
use std::collections::HashMap;

/// `A ∘ B` for a layout `B`.
pub fn composition<I: Int>(a: &Layout<I>, b: &Layout<I>) -> Result<Layout<I>> {
    compose(a, b).map_err(|e| e.in_op("composition"))
}

/// `A ∘ T` for a tiler: a tuple composes mode by mode, `_` keeps a mode, and modes of `A` past
/// the tiler's rank are kept.
pub fn composition_tiler<I: Int>(a: &Layout<I>, t: &Tiler<I>) -> Result<Layout<I>> {
    match t {
        Tiler::Keep => Ok(a.clone()),
        Tiler::Layout(b) => composition(a, b),
        Tiler::Tuple(ts) => {
            if a.rank() < ts.len() {
                return Err(Error::cond(
                    "composition",
                    format!("tiler has {} modes but {a} has rank {}", ts.len(), a.rank()),
                ));
            }
            let mut out = Vec::with_capacity(a.rank());
            for (k, m) in a.modes().into_iter().enumerate() {
                match ts.get(k) {
                    Some(t) => out.push(composition_tiler(&m, t)?),
                    None => out.push(m),
                }
            }
            Ok(Layout::concat(out))
        }
    }
}

fn compose<I: Int>(a: &Layout<I>, b: &Layout<I>) -> Result<Layout<I>> {
    let a = match b.codomain()? {
        Codomain::Int => coalesce_z(a)?,
        Codomain::Coord => coalesce_z_by(a, &coord_profile(b))?,
        Codomain::F2 => return Err(Error::cond("composition", format!("B = {b} has F2 strides"))),
    };
    let mut budget = Budget { used: HashMap::new() };
    let mut leaf = 0usize;
    compose_tree(&a, b, &mut budget, &mut leaf)
}

/// The by-mode profile that coalesces each mode of `A` that a coordinate stride of `B` reaches.
fn coord_profile<I: Int>(b: &Layout<I>) -> HTuple<bool> {
    let width = b
        .flat_stride()
        .iter()
        .flat_map(|d| d.terms().into_iter().filter_map(|(p, _)| p.first().copied()))
        .max()
        .map_or(0, |m| m as usize + 1);
    HTuple::flat(std::iter::repeat_n(true, width))
}

/// How much of each digit of the coalesced `A` the leaves of `B` use: `(used, first user)`.
struct Budget<I> {
    used: HashMap<usize, (I, usize)>,
}

fn compose_tree<I: Int>(
    a: &Layout<I>,
    b: &Layout<I>,
    budget: &mut Budget<I>,
    leaf: &mut usize,
) -> Result<Layout<I>> {
    if b.shape().is_tuple() {
        let mut modes = Vec::with_capacity(b.rank());
        for m in b.modes() {
            modes.push(compose_tree(a, &m, budget, leaf)?);
        }
        return Ok(Layout::concat(modes));
    }
    let n = &b.flat_shape()[0];
    let d = &b.flat_stride()[0];
    let k = *leaf;
    *leaf += 1;
    if d.is_zero()? {
        return Ok(Layout::leaf(n.clone(), Stride::zero()));
    }
    if n.is(1) {
        return Ok(Layout::leaf(n.clone(), eval_at_stride(a, d)?));
    }
    let mut acc: Option<Layout<I>> = None;
    for (path, v) in d.terms() {
        let path: Vec<usize> = path.iter().map(|&x| x as usize).collect();
        let (_, range) = a.shape().profile().path_range(&path).ok_or_else(|| {
            Error::cond(
                "composition",
                format!("stride {d} of B reaches no mode of A = {a}"),
            )
        })?;
        let digits = &a.flat_shape()[range.clone()];
        let weights = &a.flat_stride()[range.clone()];
        let subs = split(digits, n, &v).map_err(|e| match e {
            Error::Undecided { cond, .. } => Error::Undecided {
                op: "composition",
                cond: format!("{cond} (mode {k} of B)"),
            },
            Error::Condition { msg, .. } => {
                Error::cond("composition", format!("{msg} (mode {k} of B, A = {a})"))
            }
            e => e,
        })?;
        let f2 = weights.iter().any(|w| matches!(w, Stride::F2(_)));
        let mut s = Vec::with_capacity(subs.len());
        let mut st = Vec::with_capacity(subs.len());
        for sub in &subs {
            if sub.j + 1 < digits.len() {
                budget.spend(range.start + sub.j, &digits[sub.j], &sub.m, &sub.t, k, f2)?;
            }
            s.push(sub.m.clone());
            st.push(weights[sub.j].scale(&sub.t)?);
        }
        let part = Layout::flat_or_leaf(s, st);
        acc = Some(match acc {
            None => part,
            Some(prev) => layout_add(&prev, &part)?,
        });
    }
    match acc {
        Some(r) => coalesce(&r),
        None => Ok(Layout::leaf(n.clone(), Stride::zero())),
    }
}

impl<I: Int> Budget<I> {
    /// Charges `t*(m-1)` of digit `j` (extent `s`) to leaf `k` of `B`.
    fn spend(&mut self, j: usize, s: &I, m: &I, t: &I, k: usize, f2: bool) -> Result<()> {
        let need = t.mul(&m.sub(&I::one())?)?;
        let cap = s.sub(&I::one())?;
        let entry = self.used.entry(j).or_insert_with(|| (I::zero(), k));
        let first = entry.1;
        if f2 && first != k && !entry.0.is(0) {
            return Err(Error::cond(
                "composition",
                format!("modes {first} and {k} of B both reach mode {j} of the coalesced F2 layout A"),
            ));
        }
        let total = entry.0.add(&need)?;
        if !total.less_eq(&cap).map_err(|e| e.in_op("composition"))? {
            return Err(Error::cond(
                "composition",
                format!(
                    "modes {first} and {k} of B overlap in mode {j} of the coalesced A (extent {s}): \
                     A(B(i)) carries between them and is not a layout of B's shape"
                ),
            ));
        }
        entry.0 = total;
        Ok(())
    }
}

/// `A` evaluated at a stride value of `B`: an integer index, or a coordinate.
fn eval_at_stride<I: Int>(a: &Layout<I>, d: &Stride<I>) -> Result<Stride<I>> {
    match d {
        Stride::Int(v) => a.eval_index(v),
        Stride::Basis(_) => {
            let mut acc = Stride::zero();
            for (path, v) in d.terms() {
                let path: Vec<usize> = path.iter().map(|&x| x as usize).collect();
                let m = a.get(&path).ok_or_else(|| {
                    Error::cond(
                        "composition",
                        format!("stride {d} of B reaches no mode of A = {a}"),
                    )
                })?;
                acc = acc.add(&m.eval_index(&v)?)?;
            }
            Ok(acc)
        }
        Stride::F2(_) => Err(Error::cond("composition", "B has F2 strides")),
    }
}

/// One sub-mode of a leaf of `B` inside `A`: `m` values of step `t` in digit `j`.
struct Sub<I> {
    j: usize,
    m: I,
    t: I,
}

/// Splits `d*i` for `i < n` over the digits `s` (the last digit unbounded).
fn split<I: Int>(s: &[I], n: &I, d: &I) -> Result<Vec<Sub<I>>> {
    let fail = |msg: String| Error::cond("composition", msg);
    let r = s.len();
    if d.less(&I::zero())? {
        if r == 1 {
            return Ok(vec![Sub {
                j: 0,
                m: n.clone(),
                t: d.clone(),
            }]);
        }
        return Err(fail(format!(
            "negative stride {d} of B needs A to be a single mode"
        )));
    }
    // Divide out whole digits: the stride divisibility condition.
    let mut j = 0usize;
    let mut rest = d.clone();
    while j + 1 < r && s[j].divides(&rest)? {
        rest = rest.div_exact(&s[j])?;
        j += 1;
    }
    if j + 1 == r {
        return Ok(vec![Sub {
            j,
            m: n.clone(),
            t: rest,
        }]);
    }
    if !rest.divides(&s[j])? {
        // Neither divides the other: all n values must stay inside digit j.
        let last = n.sub(&I::one())?.mul(&rest)?;
        if last.less(&s[j])? {
            return Ok(vec![Sub {
                j,
                m: n.clone(),
                t: rest,
            }]);
        }
        return Err(fail(format!(
            "stride divisibility condition: {rest} and shape {} of A (mode {j}) do not divide each other",
            s[j]
        )));
    }
    // Keep n values across digit j (step rest) and the following digits (step 1).
    let mut out = Vec::new();
    let mut remaining = n.clone();
    let mut step = rest;
    while j + 1 < r {
        let avail = s[j].div_exact(&step)?;
        // When `remaining == avail` both branches give the same layout (the split ends in a
        // size-1 sub-mode), so either decision suffices for symbolic extents.
        let fits = match remaining.less_eq(&avail) {
            Ok(v) => v,
            Err(e) => remaining.less(&avail).map_err(|_| e)?,
        };
        if fits {
            out.push(Sub {
                j,
                m: remaining,
                t: step,
            });
            return Ok(out);
        }
        if !avail.divides(&remaining)? {
            return Err(fail(format!(
                "shape divisibility condition: {remaining} is not a multiple of {avail} (mode {j} of A)",
            )));
        }
        remaining = remaining.div_exact(&avail)?;
        out.push(Sub { j, m: avail, t: step });
        step = I::one();
        j += 1;
    }
    out.push(Sub {
        j,
        m: remaining,
        t: step,
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_layout as l;

    fn c(a: &str, b: &str) -> String {
        match composition(&l(a).unwrap(), &l(b).unwrap()) {
            Ok(r) => r.to_string(),
            Err(e) => format!("error: {e}"),
        }
    }

    #[test]
    fn seed_examples() {
        assert_eq!(c("(6,2):(8,2)", "(4,3):(3,1)"), "((2,2),3):((24,2),8)");
        assert_eq!(c("20:2", "(5,4):(4,1)"), "(5,4):(8,2)");
        assert_eq!(c("12:1", "(4,3):(1,4)"), "(4,3):(1,4)");
    }

    #[test]
    fn pycute_suspect_is_an_error() {
        let e = c("(4,3):(0,1)", "(2,3):(2,1)");
        assert!(
            e.starts_with("error: composition: modes 0 and 1 of B overlap"),
            "{e}"
        );
    }

    #[test]
    fn divisibility_errors_name_the_condition() {
        assert!(c("(4,2):(12,12)", "2:5").contains("stride divisibility"));
        assert!(c("(5,2):(3,0)", "8:1").contains("shape divisibility"));
    }
}
