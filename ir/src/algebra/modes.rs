//! Editing the top-level modes of a tuple or a layout: CuTe's `append`, `prepend`, `replace`
//! and `group<B,E>` (CuTe DSL's `group_modes`).
//!
//! Each works on an [`HTuple`] of any leaf type, and on a layout by working on its shape and
//! its stride alike. A leaf (an int, or a layout of an int shape) is a rank-1 tuple of
//! itself, as in CuTe: `append(8:1, 4:8)` is `(8,4):(1,8)`.

use crate::error::{Error, Result};
use crate::htuple::HTuple;
use crate::int::Int;
use crate::layout::Layout;
use crate::stride::Stride;

/// The top-level modes of `t`, a leaf being its own single mode.
fn modes_of<T: Clone>(t: &HTuple<T>) -> Vec<HTuple<T>> {
    t.modes().into_vec()
}

/// Where a mode edit goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// After the last mode (`append`).
    Back,
    /// Before the first mode (`prepend`).
    Front,
}

/// CuTe's `append(t, x)` / `prepend(t, x)` (`end`), or with `up_to` their `<N>` forms: `x`
/// added until the rank is `up_to` (nothing added when it already is).
///
/// # Pre-conditions
///
/// `up_to`, when given, is at least the rank of `t`; otherwise an [`Error::Condition`] of
/// `append`/`prepend` naming both ranks.
///
/// # Post-conditions
///
/// * without `up_to`: `rank(R) == rank(t) + 1`, mode `rank(t)` (or 0) of `R` is `x`, the
///   other modes are `t`'s in order;
/// * with `up_to = n`: `rank(R) == n` when `n > rank(t)` (`R` is `t` itself when
///   `n == rank(t)`), the added modes are each `x`.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::{extend, End}, parse_int_tuple as t};
/// let a = t("(2,3)").unwrap();
/// assert_eq!(extend(&a, &t("4").unwrap(), None, End::Back).unwrap().to_string(), "(2,3,4)");
/// assert_eq!(extend(&a, &t("1").unwrap(), Some(4), End::Front).unwrap().to_string(), "(1,1,2,3)");
/// assert_eq!(extend(&t("5").unwrap(), &t("1").unwrap(), Some(1), End::Back).unwrap().to_string(), "5");
/// assert!(extend(&a, &a, Some(1), End::Back).unwrap_err().to_string().contains("rank 2"));
/// ```
pub fn extend<T: Clone + std::fmt::Display>(
    t: &HTuple<T>,
    x: &HTuple<T>,
    up_to: Option<usize>,
    end: End,
) -> Result<HTuple<T>> {
    let mut modes = modes_of(t);
    let n = match up_to {
        None => modes.len() + 1,
        Some(n) if n < modes.len() => {
            let op = if end == End::Back { "append" } else { "prepend" };
            return Err(Error::cond(
                op,
                format!("{t} has rank {} above the target rank {n}", modes.len()),
            ));
        }
        Some(n) if n == modes.len() => return Ok(t.clone()),
        Some(n) => n,
    };
    let add = n - modes.len();
    match end {
        End::Back => modes.extend(std::iter::repeat_n(x.clone(), add)),
        End::Front => {
            let mut front: Vec<HTuple<T>> = std::iter::repeat_n(x.clone(), add).collect();
            front.extend(modes);
            modes = front;
        }
    }
    Ok(HTuple::from_modes(modes))
}

/// CuTe's `replace<i>(t, x)`: mode `i` of `t` replaced by `x`.
///
/// # Pre-conditions
///
/// `i < rank(t)` (a leaf has rank 1); otherwise an [`Error::Condition`] of `replace`.
///
/// # Post-conditions
///
/// `rank(R) == rank(t)` (a leaf `t` with `i == 0` gives `x` itself); mode `i` is `x`, every
/// other mode is `t`'s.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::replace, parse_int_tuple as t};
/// assert_eq!(replace(&t("(2,3,4)").unwrap(), 1, &t("(5,6)").unwrap()).unwrap().to_string(), "(2,(5,6),4)");
/// assert!(replace(&t("(2,3)").unwrap(), 2, &t("1").unwrap()).is_err());
/// ```
pub fn replace<T: Clone + std::fmt::Display>(t: &HTuple<T>, i: usize, x: &HTuple<T>) -> Result<HTuple<T>> {
    t.with_mode(i, x.clone()).ok_or_else(|| {
        Error::cond(
            "replace",
            format!("mode {i} of {t}: it has rank {}", modes_of(t).len()),
        )
    })
}

/// CuTe's `group<b,e>(t)` (CuTe DSL's `group_modes`): modes `b..e` gathered into one mode;
/// `e = None` is the rank.
///
/// # Pre-conditions
///
/// `b <= e <= rank(t)` (a leaf has rank 1); otherwise an [`Error::Condition`] of
/// `group_modes` naming the range and the rank.
///
/// # Post-conditions
///
/// * `b < e`: `rank(R) == rank(t) - (e - b) + 1`, mode `b` of `R` is the tuple of modes
///   `b..e` of `t`, the modes before and after are `t`'s; `flatten(R) == flatten(t)`;
/// * `b == e`: `R == t`.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::group_modes, parse_int_tuple as t};
/// let a = t("(1,2,3,4,5,6)").unwrap();
/// assert_eq!(group_modes(&a, 2, Some(4)).unwrap().to_string(), "(1,2,(3,4),5,6)");
/// assert_eq!(group_modes(&a, 0, None).unwrap().to_string(), "((1,2,3,4,5,6))");
/// assert!(group_modes(&a, 3, Some(2)).is_err());
/// ```
pub fn group_modes<T: Clone + std::fmt::Display>(
    t: &HTuple<T>,
    b: usize,
    e: Option<usize>,
) -> Result<HTuple<T>> {
    let modes = modes_of(t);
    let e = e.unwrap_or(modes.len());
    if b > e || e > modes.len() {
        return Err(Error::cond(
            "group_modes",
            format!("modes {b}..{e} of {t}: it has rank {}", modes.len()),
        ));
    }
    if b == e {
        return Ok(t.clone());
    }
    let mut out: Vec<HTuple<T>> = modes[..b].to_vec();
    out.push(HTuple::from_modes(modes[b..e].iter().cloned()));
    out.extend(modes[e..].iter().cloned());
    Ok(HTuple::from_modes(out))
}

/// A tuple edit applied to a layout's shape and stride alike.
///
/// # Pre-conditions
///
/// `f`'s own pre-conditions on the shape (and so on the stride); the result must be a layout
/// (congruent shape and stride), which it is for the edits of this module.
///
/// # Post-conditions
///
/// `shape(R) == f(shape(L), shape(X))` and `stride(R) == f(stride(L), stride(X))`.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::{extend, on_layouts, End}, parse_layout as l};
/// let r = on_layouts(&l("(4,8):(1,4)").unwrap(), &l("2:32").unwrap(),
///     |a, b| extend(a, b, None, End::Back), |a, b| extend(a, b, None, End::Back));
/// assert_eq!(r.unwrap().to_string(), "(4,8,2):(1,4,32)");
/// ```
pub fn on_layouts<I: Int>(
    l: &Layout<I>,
    x: &Layout<I>,
    f: impl Fn(&HTuple<I>, &HTuple<I>) -> Result<HTuple<I>>,
    g: impl Fn(&HTuple<Stride<I>>, &HTuple<Stride<I>>) -> Result<HTuple<Stride<I>>>,
) -> Result<Layout<I>> {
    Layout::new(f(l.shape(), x.shape())?, g(l.stride(), x.stride())?)
}
