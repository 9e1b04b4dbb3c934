//! Composition `R = A ∘ B`: `R(i) == A(B(i))` for every `i` in `[0, size(B))`, and
//! `compatible(B, R)`. The contracts are on [`composition`] and [`composition_tiler`].
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

use super::coalesce::{Flat, coalesce, coalesce_into, coalesce_z_by, coalesce_z_onto};
use super::layout_add::layout_add;
use super::tiler::{Tiler, TilerView};
use crate::error::{Error, Result};
use crate::htuple::HTuple;
use crate::int::Int;
use crate::layout::{Layout, LayoutBuilder, Parts, codomain_of};
use crate::stride::{Codomain, Path, Stride};
use smallvec::SmallVec;

/// `A ∘ B` for a layout `B`: the layout of shape `B` (refined) whose `i`-th offset is
/// `A(B(i))`.
///
/// # Pre-conditions
///
/// Checked, each failure an [`Error::Condition`] of `composition` naming the condition and the
/// mode of `B` (an [`Error::Undecided`] where a symbolic fact cannot be decided):
///
/// * the strides of `B` are integers or coordinates (`v@k`, reaching modes of `A`); `F2`
///   strides are refused, and strides of mixed kinds are an [`Error::MixedCodomains`];
/// * *stride divisibility*: for each leaf `n:d` of `B`, once the whole digits (extents of the
///   coalesced `A`) that divide `d` are divided out, the rest of `d` and the next extent divide
///   one another, unless all `n` values stay inside that digit;
/// * *shape divisibility*: `n` is a multiple of what each digit it crosses has room for;
/// * the leaves of `B` together use no digit of the coalesced `A` past its extent (otherwise
///   `A(B(i))` carries from one leaf into another, and "modes `j` and `k` of B overlap"; CuTe
///   and PyCuTe answer a wrong layout there); for `F2` strides in `A`, no two leaves of `B`
///   share a digit at all;
/// * a negative stride of `B` needs `A` to coalesce to a single mode.
///
/// # Post-conditions
///
/// * `compatible(B, R)`: `B`'s structure is kept and each leaf of `B` becomes a coalesced
///   layout of the same size, so `size(R) == size(B)`;
/// * `R(i) == A(B(i))` for every `i` in `[0, size(B))`.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::composition, parse_layout};
/// let a = parse_layout("(6,2):(8,2)").unwrap();
/// let b = parse_layout("(4,3):(3,1)").unwrap();
/// let r = composition(&a, &b).unwrap();
/// assert_eq!(r.to_string(), "((2,2),3):((24,2),8)");
/// for i in 0..12 {
///     let bi = *b.eval_index(&i).unwrap().as_int().unwrap();
///     assert_eq!(r.eval_index(&i).unwrap(), a.eval_index(&bi).unwrap());
/// }
/// let c = |x: &str, y: &str| {
///     composition(&parse_layout(x).unwrap(), &parse_layout(y).unwrap()).map(|r| r.to_string())
/// };
/// assert_eq!(c("20:2", "(5,4):(4,1)").unwrap(), "(5,4):(8,2)");
/// // A(B(5)) == A(4) == 1: the modes of B carry into each other inside A's extent-4 mode.
/// let e = c("(4,3):(0,1)", "(2,3):(2,1)").unwrap_err();
/// assert!(e.to_string().starts_with("composition: modes 0 and 1 of B overlap"));
/// assert!(c("(4,2):(12,12)", "2:5").unwrap_err().to_string().contains("stride divisibility"));
/// assert!(c("(5,2):(3,0)", "8:1").unwrap_err().to_string().contains("shape divisibility"));
/// ```
pub fn composition<I: Int>(a: &Layout<I>, b: &Layout<I>) -> Result<Layout<I>> {
    Error::within(compose(a, b), "composition")
}

/// `A ∘ T` for a tiler: a tuple composes mode by mode, `_` keeps a mode, and modes of `A` past
/// the tiler's rank are kept.
///
/// Keeping the untiled modes follows PyCuTe (seed `004_*`); CuTe's by-mode composition drops
/// them.
///
/// # Pre-conditions
///
/// * Wherever `T` is a tuple, the matching (sub-)mode of `A` has at least its rank; otherwise
///   an [`Error::Condition`] of `composition` ("tiler has 2 modes but 12:1 has rank 1").
/// * Each layout in `T` meets the pre-conditions of [`composition`] against its mode of `A`.
///
/// # Post-conditions
///
/// * `T == _`: `R == A`; `T` a layout `B`: `R == composition(A, B)`;
/// * `T` a tuple: `rank(R) == rank(A)`, mode `k` of `R` is mode `k` of `A` composed with
///   `T_k`, and the modes of `A` past the tiler are kept unchanged;
/// * for a tuple of layouts covering every mode of `A`, `R` is the same function as
///   `composition(A, tiler_to_layout(T))`.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::{composition_tiler, Tiler}, parse_int_tuple, parse_layout};
/// let a = parse_layout("(4,6,8):(1,4,24)").unwrap();
/// let t = Tiler::from_shape(&parse_int_tuple("(2,3)").unwrap());
/// assert_eq!(composition_tiler(&a, &t).unwrap().to_string(), "(2,3,8):(1,4,24)");
/// let b = parse_layout("(4,6):(1,4)").unwrap();
/// let t = Tiler::Tuple(vec![Tiler::Keep, Tiler::Layout(parse_layout("3:2").unwrap())]);
/// assert_eq!(composition_tiler(&b, &t).unwrap().to_string(), "(4,3):(1,8)");
/// // A tiler of rank 2 for a layout of rank 1.
/// let t = Tiler::from_shape(&parse_int_tuple("(2,3)").unwrap());
/// let e = composition_tiler(&parse_layout("12:1").unwrap(), &t).unwrap_err();
/// assert_eq!(e.to_string(), "composition: tiler has 2 modes but 12:1 has rank 1");
/// ```
pub fn composition_tiler<I: Int>(a: &Layout<I>, t: &Tiler<I>) -> Result<Layout<I>> {
    match t {
        Tiler::Keep => Ok(a.clone()),
        Tiler::Layout(b) => composition(a, b),
        Tiler::Tuple(ts) => super::by_mode::by_mode("composition", a, ts, compose_mode),
    }
}

/// [`composition_tiler`] for a tiler read in place ([`TilerView`]): the same result and
/// errors as for the [`Tiler`] it stands for (`Unit(n)` is the layout `n:1`).
///
/// # Pre-conditions
///
/// Those of [`composition_tiler`].
///
/// # Post-conditions
///
/// `R == composition_tiler(A, T)` for the owned tiler `T` the view stands for, errors included.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::{composition_view, TilerView}, parse_layout};
/// let a = parse_layout("(4,6,8):(1,4,24)").unwrap();
/// let t = TilerView::Tuple(vec![TilerView::Unit(2), TilerView::Unit(3)]);
/// assert_eq!(composition_view(&a, &t).unwrap().to_string(), "(2,3,8):(1,4,24)");
/// let e = composition_view(&parse_layout("12:1").unwrap(), &t).unwrap_err();
/// assert_eq!(e.to_string(), "composition: tiler has 2 modes but 12:1 has rank 1");
/// ```
pub fn composition_view<I: Int>(a: &Layout<I>, t: &TilerView<'_, I>) -> Result<Layout<I>> {
    match t {
        TilerView::Keep => Ok(a.clone()),
        TilerView::Layout(b) => composition(a, b),
        TilerView::Unit(n) => composition(a, &Layout::leaf(n.clone(), I::one())),
        TilerView::Tuple(ts) => super::by_mode::by_mode("composition", a, ts, compose_mode),
    }
}

/// Mode `m` of `A` composed with the layout `b` of a tuple tiler, appended to `out` (the
/// mode is read in place, never built as a layout of its own).
fn compose_mode<I: Int>(out: &mut LayoutBuilder<'_, I>, m: Parts<'_, I>, b: &Layout<I>) -> Result<()> {
    compose_into(out, m, Parts::of(b)).map_err(|e| e.in_op("composition"))
}

fn compose<I: Int>(a: &Layout<I>, b: &Layout<I>) -> Result<Layout<I>> {
    compose_parts(a, Parts::of(b))
}

/// `A ∘ B` for `B` given as flat parts (without the operation's name on errors).
pub(crate) fn compose_parts<I: Int>(a: &Layout<I>, b: Parts<'_, I>) -> Result<Layout<I>> {
    Layout::build(|out| compose_into(out, Parts::of(a), b))
}

/// `A ∘ B` for `A` and `B` given as flat parts, appended to `out` as its next mode (with
/// `B`'s structure), without the operation's name on errors. On an error `out` is left
/// partly written: the caller drops it.
pub(crate) fn compose_into<I: Int>(
    out: &mut LayoutBuilder<'_, I>,
    a: Parts<'_, I>,
    b: Parts<'_, I>,
) -> Result<()> {
    let cod = codomain_of(b.d).map_err(|(x, c)| Error::MixedCodomains {
        layout: b.to_layout().to_string(),
        first: format!("{x:?}"),
        second: format!("{c:?}"),
    })?;
    // A as digits: its coalesced leaves (whole, or mode by mode for coordinate strides).
    let coord;
    // Folded into where the digits stay (built aside and moved here, they were copied: two
    // `memcpy`s per composition).
    let (mut flat_s, mut flat_d) = (Flat::new(), Flat::new());
    let digits: Digits<'_, I> = match cod {
        Codomain::Int => {
            coalesce_z_onto(&mut flat_s, &mut flat_d, a.s, a.d)?;
            if flat_s.is_empty() {
                // A without leaves (`():()`) is the constant 0: the single digit 1:0, as
                // `coalesce_z` gives. No digit at all made `split` index out of bounds
                // (`() o 4` panicked).
                flat_s.push(I::one());
                flat_d.push(Stride::zero());
            }
            Digits {
                s: &flat_s,
                d: &flat_d,
                layout: None,
                shown: a,
            }
        }
        Codomain::Coord => {
            coord = coalesce_z_by(&a.to_layout(), &coord_profile(b.d))?;
            Digits {
                s: coord.flat_shape(),
                d: coord.flat_stride(),
                layout: Some(&coord),
                shown: a,
            }
        }
        Codomain::F2 => {
            return Err(Error::cond(
                "composition",
                format!("B = {} has F2 strides", b.to_layout()),
            ));
        }
    };
    let mut budget = Budget {
        used: SmallVec::new(),
    };
    // Each leaf of B becomes its result; B's structure above the leaves stays.
    let mut k = 0usize;
    for &t in b.toks {
        if t != 0 {
            out.toks.push(t);
            continue;
        }
        compose_leaf(&digits, &b.s[k], &b.d[k], k, &mut budget, out)?;
        k += 1;
    }
    Ok(())
}

/// The coalesced `A` that the leaves of `B` walk through.
struct Digits<'a, I> {
    s: &'a [I],
    d: &'a [Stride<I>],
    /// The by-mode coalesced layout, for coordinate strides of `B`.
    layout: Option<&'a Layout<I>>,
    /// `A` as given, for messages.
    shown: Parts<'a, I>,
}

impl<I: Int> Digits<'_, I> {
    /// `A` at the integer `x` (the last digit absorbs the excess).
    fn eval(&self, x: &I) -> Result<Stride<I>> {
        crate::layout::eval_flat(self.s, self.d, x)
    }
}

/// The by-mode profile that coalesces each mode of `A` that a coordinate stride of `B` reaches.
fn coord_profile<I: Int>(d: &[Stride<I>]) -> HTuple<bool> {
    let width = d
        .iter()
        .flat_map(|d| d.terms().into_iter().filter_map(|(p, _)| p.first().copied()))
        .max()
        .map_or(0, |m| m as usize + 1);
    HTuple::flat(std::iter::repeat_n(true, width))
}

/// How much of each digit of the coalesced `A` the leaves of `B` use:
/// `(digit, used, first user)`.
struct Budget<I> {
    used: SmallVec<[(usize, I, usize); 8]>,
}

/// `A ∘ (n:d)` for leaf `k` of `B`, as a coalesced layout.
fn compose_leaf<I: Int>(
    a: &Digits<'_, I>,
    n: &I,
    d: &Stride<I>,
    k: usize,
    budget: &mut Budget<I>,
    out: &mut LayoutBuilder<'_, I>,
) -> Result<()> {
    if d.is_zero()? {
        out.push_flat([n.clone()], [Stride::zero()]);
        return Ok(());
    }
    if n.is(1) {
        out.push_flat(
            [n.clone()],
            [match (d, a.layout) {
                (Stride::Int(x), _) => a.eval(x)?,
                (_, Some(l)) => eval_at_stride(l, d)?,
                _ => {
                    return Err(Error::cond(
                        "composition",
                        format!("stride {d} of B reaches no mode of A = {}", a.shown.to_layout()),
                    ));
                }
            }],
        );
        return Ok(());
    }
    let mut acc: Option<Layout<I>> = None;
    let whole = 0..a.s.len();
    // The terms borrowed: an integer's one term is made here, not collected into a vector of
    // terms (whose building and dropping cost 40 instructions a leaf).
    let int_term;
    let terms: &[(Path, I)] = match d {
        Stride::Int(v) => {
            int_term = [(Path::new(), v.clone())];
            &int_term
        }
        Stride::Basis(b) => b.terms(),
        Stride::F2(_) => &[],
    };
    for (path, v) in terms {
        let range = if path.is_empty() {
            whole.clone()
        } else {
            let path: SmallVec<[usize; 4]> = path.iter().map(|&x| x as usize).collect();
            a.layout
                .and_then(|l| l.shape().profile().path_range(&path))
                .ok_or_else(|| {
                    Error::cond(
                        "composition",
                        format!("stride {d} of B reaches no mode of A = {}", a.shown.to_layout()),
                    )
                })?
                .1
        };
        let digits = &a.s[range.clone()];
        let weights = &a.d[range.clone()];
        let subs = split(digits, n, v).map_err(|e| match e {
            Error::Undecided { cond, .. } => Error::Undecided {
                op: "composition",
                cond: format!("{cond} (mode {k} of B)"),
            },
            Error::Condition { mut msg, .. } => {
                // `{msg} (mode {k} of B; A = {A})`, and `, coalesced {coalesce(A)}` where that
                // differs, written into the message itself (13% of a corpus's lines fail here).
                let shown = a.shown.to_layout();
                msg.push_str(" (mode ");
                msg.push_str(crate::int::decimal(k as i64, &mut [0; 20]));
                msg.push_str(" of B; A = ");
                let at = msg.len();
                let _ = shown.write_plain(&mut msg);
                let co = coalesce(&shown).map(|c| c.to_string()).unwrap_or_default();
                if co != msg[at..] {
                    msg.push_str(", coalesced ");
                    msg.push_str(&co);
                }
                msg.push(')');
                Error::cond("composition", msg)
            }
            e => e,
        })?;
        let f2 = weights.iter().any(|w| matches!(w, Stride::F2(_)));
        let mut s: Flat<I> = SmallVec::new();
        let mut st: Flat<Stride<I>> = SmallVec::new();
        for sub in &subs {
            if sub.j + 1 < digits.len() {
                budget.spend(range.start + sub.j, &digits[sub.j], &sub.m, &sub.t, k, f2)?;
            }
            s.push(sub.m.clone());
            st.push(weights[sub.j].scale(&sub.t)?);
        }
        if acc.is_none() && d.as_int().is_some() {
            // The common case: one integer stride. The sub-modes coalesced (`1:0` when none
            // remains, a trailing size-1 mode of several dropped) straight into the result.
            return coalesce_into(out, &s, &st, true);
        }
        let part = Layout::flat_or_leaf(s, st);
        acc = Some(match acc {
            None => part,
            Some(prev) => layout_add(&prev, &part)?,
        });
    }
    let r = match acc {
        Some(r) => coalesce(&r)?,
        None => Layout::leaf(n.clone(), Stride::zero()),
    };
    let (s, st) = r.into_parts();
    out.toks.extend_from_slice(s.profile().tokens());
    out.s.extend(s.into_leaves());
    out.d.extend(st.into_leaves());
    Ok(())
}

impl<I: Int> Budget<I> {
    /// Charges `t*(m-1)` of digit `j` (extent `s`) to leaf `k` of `B`.
    fn spend(&mut self, j: usize, s: &I, m: &I, t: &I, k: usize, f2: bool) -> Result<()> {
        let need = t.mul(&m.sub(&I::one())?)?;
        let cap = s.sub(&I::one())?;
        let pos = match self.used.iter().position(|e| e.0 == j) {
            Some(p) => p,
            None => {
                self.used.push((j, I::zero(), k));
                self.used.len() - 1
            }
        };
        let entry = &mut self.used[pos];
        let first = entry.2;
        if f2 && first != k && !entry.1.is(0) {
            return Err(Error::cond(
                "composition",
                format!("modes {first} and {k} of B both reach mode {j} of the coalesced F2 layout A"),
            ));
        }
        let total = entry.1.add(&need)?;
        if !total.less_eq(&cap).map_err(|e| e.in_op("composition"))? {
            return Err(Error::cond(
                "composition",
                format!(
                    "modes {first} and {k} of B overlap in mode {j} of the coalesced A (extent {s}): \
                     A(B(i)) carries between them and is not a layout of B's shape"
                ),
            ));
        }
        entry.1 = total;
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
fn split<I: Int>(s: &[I], n: &I, d: &I) -> Result<SmallVec<[Sub<I>; 4]>> {
    let fail = |msg: String| Error::cond("composition", msg);
    let r = s.len();
    if d.less(&I::zero())? {
        if r == 1 {
            return Ok(smallvec::smallvec![Sub {
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
        return Ok(smallvec::smallvec![Sub {
            j,
            m: n.clone(),
            t: rest,
        }]);
    }
    if !rest.divides(&s[j])? {
        // Neither divides the other: all n values must stay inside digit j.
        let last = n.sub(&I::one())?.mul(&rest)?;
        if last.less(&s[j])? {
            return Ok(smallvec::smallvec![Sub {
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
    let mut out = SmallVec::new();
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
