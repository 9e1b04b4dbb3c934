//! `coalesce`, `coalesce_z`, their by-mode forms and `filter`: the simplest equivalent layout.
//!
//! Adjacent modes `(s_a, s_b):(d_a, d_b)` merge into `s_a*s_b:d_a` exactly when
//! `s_a*d_a == d_b` (and, for `F2` strides, when the XOR of the two stays a sum); size-1 modes
//! vanish. Each function states its contract on itself.

use crate::error::{Error, Result};
use crate::htuple::{HTuple, mode_spans_iter};
use crate::int::Int;
use crate::layout::{Layout, LayoutBuilder, Parts};
use crate::stride::Stride;
use smallvec::SmallVec;

/// Flat leaves, inline for the common small layouts.
pub(crate) type Flat<T> = SmallVec<[T; 8]>;

/// Two adjacent modes `(s_a, s_b):(d_a, d_b)` act as the single mode `s_a*s_b:d_a` exactly
/// when the map stays additive across them: `s_a*d_a == d_b` (a product that overflows is
/// not `d_b`), and for `F2` strides the condition of [`f2_merge_holds`]. `last` says that
/// `(s_b, d_b)` ends the layout, so its coordinate is unbounded (the last mode absorbs the
/// indices past the size). Undecidable symbolic equalities count as "not mergeable", which
/// keeps the result correct.
#[inline]
fn mergeable<I: Int>(sa: &I, da: &Stride<I>, sb: &I, db: &Stride<I>, last: bool) -> Result<bool> {
    // Two known integer strides (the common case): `s_a*d_a == d_b`, an overflow is not `d_b`;
    // what the general comparison below decides for them, without building the product.
    if let (Stride::Int(x), Stride::Int(y)) = (da, db)
        && let (Some(s), Some(x), Some(y)) = (sa.as_const(), x.as_const(), y.as_const())
    {
        return Ok(s.checked_mul(x) == Some(y));
    }
    let Ok(first) = da.scale(sa) else {
        return Ok(false);
    };
    if !stride_eq(&first, db) {
        return Ok(false);
    }
    if let Stride::F2(u) = da {
        let Some(sa) = sa.as_const() else {
            return Ok(false);
        };
        let sb = if last { None } else { sb.as_const() };
        if !last && sb.is_none() {
            return Ok(false);
        }
        return Ok(f2_merge_holds(*u, sa, sb));
    }
    Ok(true)
}

/// Whether `(sa, sb):(F2(u), F2(sa*u))` equals `sa*sb:F2(u)` at every index; `sb` is `None`
/// when the second coordinate is unbounded.
///
/// At `i = c0 + sa*c1` the pair gives `(c0*u) XOR (c1*sa*u)` and the merged mode `i*u` (an
/// `F2` stride scales by integer multiplication), which is the sum `c0*u + c1*sa*u`. A XOR
/// equals the sum exactly when the operands share no bit, so the merge holds iff no `c0*u`
/// (`c0 < sa`) shares a bit with any `c1*sa*u` (`c1 < sb`): iff the OR of the first set and
/// the OR of the second are disjoint. When `v = sa*u` is a power of two this always holds
/// (`c0*u < v` has only bits below `v`'s, multiples of `v` only bits at or above it). When
/// `c1` is unbounded it holds only then: for `v = 2^k*m` with `m` odd and above 1,
/// `(sa-1)*u >= 2^k` has a bit `p >= k`, and some multiple `c1*m` has bit `p-k` set. The ORs
/// are computed by enumeration up to 2^16 multiples; past that only the power-of-two rule
/// merges (never a wrong merge, at worst a mode left unmerged).
fn f2_merge_holds(u: u64, sa: i64, sb: Option<i64>) -> bool {
    if u == 0 || sa == 1 {
        return true;
    }
    let Some(v) = u64::try_from(sa).ok().and_then(|s| u.checked_mul(s)) else {
        return false;
    };
    if v.is_power_of_two() {
        return true;
    }
    let Some(sb) = sb else { return false };
    match (or_of_multiples(u, sa), or_of_multiples(v, sb)) {
        (Some(x), Some(y)) => x & y == 0,
        _ => false,
    }
}

/// `OR{c*u : 0 <= c < n}`, or `None` past 2^16 terms or on overflow.
fn or_of_multiples(u: u64, n: i64) -> Option<u64> {
    if !(0..=1 << 16).contains(&n) {
        return None;
    }
    let (mut acc, mut x) = (0u64, 0u64);
    for _ in 1..n {
        x = x.checked_add(u)?;
        acc |= x;
    }
    Some(acc)
}

/// Provable equality of two strides (structural, or decided for integers).
pub(crate) fn stride_eq<I: Int>(a: &Stride<I>, b: &Stride<I>) -> bool {
    match (a, b) {
        (Stride::Int(x), Stride::Int(y)) => x.eq_val(y).unwrap_or(false),
        _ => a == b,
    }
}

/// The size-1-preserving fold over flat leaves. Size-1 modes vanish unless they end the list.
pub(crate) fn coalesce_z_flat<I: Int>(s: &[I], d: &[Stride<I>]) -> Result<(Flat<I>, Flat<Stride<I>>)> {
    let (mut rs, mut rd) = (Flat::new(), Flat::new());
    coalesce_z_onto(&mut rs, &mut rd, s, d)?;
    Ok((rs, rd))
}

/// The fold of [`coalesce_z_slices`] read from `s:d` and appended to `os:od` after what they
/// hold: a leaf that merges into the last one written is never copied. Returns the number of
/// leaves appended. Inlined: a call of its own cost `coalesce` 65 instructions of its 2,400.
#[inline(always)]
pub(crate) fn coalesce_z_onto<I: Int>(
    os: &mut Flat<I>,
    od: &mut Flat<Stride<I>>,
    s: &[I],
    d: &[Stride<I>],
) -> Result<usize> {
    let base = os.len();
    let len = s.len().min(d.len());
    for (j, (sj, dj)) in s.iter().zip(d).enumerate() {
        while os.len() > base && os.last().is_some_and(|x| x.is(1)) {
            os.pop();
            od.pop();
        }
        let w = os.len();
        if w > base && mergeable(&os[w - 1], &od[w - 1], sj, dj, j + 1 == len)? {
            os[w - 1] = os[w - 1].mul(sj)?;
            continue;
        }
        os.push(sj.clone());
        od.push(dj.clone());
    }
    Ok(os.len() - base)
}

/// [`coalesce_z_flat`] in place: the leaves that remain are written over the leaves already
/// read, so nothing is copied out and back.
pub(crate) fn coalesce_z_in_place<I: Int>(s: &mut Flat<I>, d: &mut Flat<Stride<I>>) -> Result<()> {
    let w = coalesce_z_slices(s, d)?;
    s.truncate(w);
    d.truncate(w);
    Ok(())
}

/// The fold of [`coalesce_z_in_place`] on slices: the leaves that remain are moved to the
/// front and their number is returned (the rest of the slices is left in any order).
fn coalesce_z_slices<I: Int>(s: &mut [I], d: &mut [Stride<I>]) -> Result<usize> {
    let n = s.len().min(d.len());
    let mut w = 0usize;
    for j in 0..n {
        while w > 0 && s[w - 1].is(1) {
            w -= 1;
        }
        if w > 0 && mergeable(&s[w - 1], &d[w - 1], &s[j], &d[j], j + 1 == n)? {
            s[w - 1] = s[w - 1].mul(&s[j])?;
            continue;
        }
        if w != j {
            s.swap(w, j);
            d.swap(w, j);
        }
        w += 1;
    }
    Ok(w)
}

/// Appends the coalesced flat leaves `s:d` to `out` as its next mode, written in place into
/// the builder's leaves (no intermediate layout): a leaf when one pair remains, a flat tuple
/// otherwise, `1:0` when none does; `drop_trailing_one` drops a trailing size-1 mode of
/// several (`coalesce`).
pub(crate) fn coalesce_into<I: Int>(
    out: &mut LayoutBuilder<'_, I>,
    s: &[I],
    d: &[Stride<I>],
    drop_trailing_one: bool,
) -> Result<()> {
    let base = out.s.len();
    // Folded straight into the builder's leaves.
    let mut n = coalesce_z_onto(out.s, out.d, s, d)?;
    if n == 0 {
        out.s.push(I::one());
        out.d.push(Stride::zero());
        n = 1;
    } else if drop_trailing_one && n > 1 && out.s[base + n - 1].is(1) {
        n -= 1;
        out.s.truncate(base + n);
        out.d.truncate(base + n);
    }
    if n == 1 {
        out.toks.push(0);
    } else {
        out.toks.push(n as u32 + 1);
        out.toks.extend(std::iter::repeat_n(0, n));
    }
    Ok(())
}

/// [`coalesce_into`] as a layout of its own.
fn coalesced<I: Int>(s: &[I], d: &[Stride<I>], drop_trailing_one: bool) -> Result<Layout<I>> {
    Layout::build(|out| coalesce_into(out, s, d, drop_trailing_one))
}

/// Coalesces the whole layout to depth ≤ 1, dropping a trailing size-1 mode (C++ `coalesce`).
///
/// # Pre-conditions
///
/// None: every layout coalesces. The only error is an [`Error::Overflow`] when the product
/// of two merged extents leaves `i64`; a symbolic equality that cannot be decided leaves the
/// two modes unmerged (still exact).
///
/// # Post-conditions
///
/// * `size(R) == size(A)` and `depth(R) <= 1`;
/// * `R(i) == A(i)` for every `i` in `[0, size(A))` (past the size they may differ: see
///   [`coalesce_z`]);
/// * nothing is left to merge: `coalesce(R) == R`.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::coalesce, parse_layout};
/// let c = |s: &str| coalesce(&parse_layout(s).unwrap()).unwrap().to_string();
/// assert_eq!(c("(2,(1,6)):(1,(6,2))"), "12:1");
/// assert_eq!(c("(2,1,6,1):(1,7,8,0)"), "(2,6):(1,8)");
/// assert_eq!(c("(2,4,6):(24,6,1)"), "(2,4,6):(24,6,1)");
/// // F2 strides merge only where XOR and sum agree: 5 XOR 20 is 17, not 25.
/// assert_eq!(c("(2,4):(F2(5),F2(10))"), "(2,4):(F2(5),F2(10))");
/// assert_eq!(c("(4,8):(F2(2),F2(8))"), "32:F2(2)");
/// // Merging 2^32 by 2^32 leaves i64: an error, not a wrapped extent.
/// let big = parse_layout("(4294967296,4294967296):(1,4294967296)").unwrap();
/// assert!(coalesce(&big).unwrap_err().to_string().starts_with("integer overflow"));
/// ```
pub fn coalesce<I: Int>(a: &Layout<I>) -> Result<Layout<I>> {
    coalesced(a.flat_shape(), a.flat_stride(), true)
}

/// [`coalesce`] of the flat leaves `s:d`, appended to `out` as its next mode.
fn coalesce_leaves<I: Int>(out: &mut LayoutBuilder<'_, I>, s: &[I], d: &[Stride<I>]) -> Result<()> {
    coalesce_into(out, s, d, true)
}

/// [`coalesce`] of `a`, or with a profile [`coalesce_by`], written into `out`, whose storage
/// is reused: a caller that keeps the result in a place of its own (a Python object) moves no
/// layout.
///
/// # Pre-conditions
///
/// As [`coalesce`] and [`coalesce_by`].
///
/// # Post-conditions
///
/// * `Ok(())`: `*out == coalesce(a)?` (`coalesce_by(a, p)?` with a profile `p`);
/// * an error: the error `coalesce` (`coalesce_by`) gives, and `out` is `1:0`.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::coalesce_to, parse_layout, HTuple, Layout};
/// let mut out = Layout::leaf(1, 0);
/// coalesce_to(&parse_layout("(2,(1,6)):(1,(6,2))").unwrap(), None, &mut out).unwrap();
/// assert_eq!(out.to_string(), "12:1");
/// let by = HTuple::from_modes([HTuple::leaf(true), HTuple::leaf(true)]);
/// let a = parse_layout("(2,(2,3)):(1,(2,4))").unwrap();
/// coalesce_to(&a, Some(&by), &mut out).unwrap();
/// assert_eq!(out.to_string(), "(2,6):(1,2)");
/// ```
pub fn coalesce_to<I: Int>(a: &Layout<I>, profile: Option<&HTuple<bool>>, out: &mut Layout<I>) -> Result<()> {
    let r = match profile {
        None => out.rebuild(|b| coalesce_leaves(b, a.flat_shape(), a.flat_stride())),
        Some(p) => by_profile_to(a, p, "coalesce", coalesce_leaves, out),
    };
    if r.is_err() {
        *out = Layout::leaf(I::one(), Stride::zero());
    }
    r
}

/// Coalesces the whole layout, keeping a trailing size-1 mode (`coalesce_z`).
///
/// The kept mode makes the result the same function as `A` on *every* integer, not only on
/// `[0, size(A))`: the last mode of a layout absorbs the indices past its size.
///
/// # Pre-conditions
///
/// None, as for [`coalesce`]: the only error is an [`Error::Overflow`] of a merged extent.
///
/// # Post-conditions
///
/// * `size(R) == size(A)` and `depth(R) <= 1`;
/// * `R(i) == A(i)` for every integer `i`, negative or past `size(A)` included;
/// * [`coalesce`]`(A)` is `R` without its trailing size-1 mode, where `R` has one and more
///   than one mode.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::{coalesce, coalesce_z}, parse_layout};
/// let a = parse_layout("(2,1,6,1):(1,7,8,0)").unwrap();
/// let z = coalesce_z(&a).unwrap();
/// assert_eq!(z.to_string(), "(2,6,1):(1,8,0)");
/// assert_eq!(coalesce(&a).unwrap().to_string(), "(2,6):(1,8)");
/// // Past the size, A's last mode (1:0) absorbs the index; so does R's, not coalesce's.
/// assert_eq!(a.eval_index(&15).unwrap().to_string(), "9");
/// assert_eq!(z.eval_index(&15).unwrap().to_string(), "9");
/// assert_eq!(coalesce(&a).unwrap().eval_index(&15).unwrap().to_string(), "57");
/// let big = parse_layout("(4294967296,4294967296):(1,4294967296)").unwrap();
/// assert!(coalesce_z(&big).is_err());
/// ```
pub fn coalesce_z<I: Int>(a: &Layout<I>) -> Result<Layout<I>> {
    coalesced(a.flat_shape(), a.flat_stride(), false)
}

/// [`coalesce_z`] of the flat leaves `s:d`, appended to `out` as its next mode.
fn coalesce_z_leaves<I: Int>(out: &mut LayoutBuilder<'_, I>, s: &[I], d: &[Stride<I>]) -> Result<()> {
    coalesce_into(out, s, d, false)
}

/// By-mode coalescing: a leaf of `profile` coalesces that mode of `a` whole, a `false` leaf
/// (`_`) keeps it, a tuple recurses. Modes of `a` past the profile's rank are kept.
///
/// # Pre-conditions
///
/// Wherever `profile` is a tuple, the matching (sub-)mode of `a` has at least its rank;
/// otherwise an [`Error::Condition`] of `coalesce` naming the profile and both ranks. Beyond
/// that, only the [`Error::Overflow`] of [`coalesce`].
///
/// # Post-conditions
///
/// * a `true` leaf: `R == coalesce(A)` (a profile `true` coalesces the whole layout);
/// * a `false` leaf: `R == A`;
/// * a tuple: `rank(R) == rank(A)`, mode `k` of `R` is mode `k` of `A` coalesced by mode `k`
///   of the profile, and the modes of `A` past the profile are kept unchanged;
/// * `R(i) == A(i)` for every `i` in `[0, size(A))`.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::coalesce_by, parse_layout, HTuple};
/// let a = parse_layout("(2,(1,6)):(1,(6,2))").unwrap();
/// let r = coalesce_by(&a, &HTuple::flat([true, true])).unwrap();
/// assert_eq!(r.to_string(), "(2,6):(1,2)");
/// let b = parse_layout("(3,(2,6)):(1,(3,6))").unwrap();
/// let r = coalesce_by(&b, &HTuple::flat([false, true])).unwrap();
/// assert_eq!(r.to_string(), "(3,12):(1,3)");
/// // A profile of rank 3 for a layout of rank 2.
/// let e = coalesce_by(&a, &HTuple::flat([true, true, true])).unwrap_err();
/// assert!(e.to_string().starts_with("coalesce: profile (true,true,true) has rank 3"));
/// ```
pub fn coalesce_by<I: Int>(a: &Layout<I>, profile: &HTuple<bool>) -> Result<Layout<I>> {
    by_profile(a, profile, "coalesce", coalesce_leaves)
}

/// By-mode [`coalesce_z`]: as [`coalesce_by`], with each selected mode coalesced by
/// [`coalesce_z`] (its trailing size-1 mode kept).
///
/// # Pre-conditions
///
/// As [`coalesce_by`]: wherever `profile` is a tuple, the matching mode of `a` has at least
/// its rank; otherwise an [`Error::Condition`] of `coalesce_z` naming the profile and both
/// ranks.
///
/// # Post-conditions
///
/// * a `true` leaf: `R == coalesce_z(A)`; a `false` leaf: `R == A`;
/// * a tuple: `rank(R) == rank(A)`, mode by mode, modes past the profile kept;
/// * `size(R) == size(A)` and `R(i) == A(i)` for every `i` in `[0, size(A))`.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::{coalesce_by, coalesce_z_by}, parse_layout, HTuple};
/// let a = parse_layout("((2,1),(6,1)):((1,0),(2,0))").unwrap();
/// let p = HTuple::flat([true, true]);
/// assert_eq!(coalesce_z_by(&a, &p).unwrap().to_string(), "((2,1),(6,1)):((1,0),(2,0))");
/// assert_eq!(coalesce_by(&a, &p).unwrap().to_string(), "(2,6):(1,2)");
/// let e = coalesce_z_by(&parse_layout("4:1").unwrap(), &p).unwrap_err();
/// assert!(e.to_string().starts_with("coalesce_z: profile (true,true) has rank 2"));
/// ```
pub fn coalesce_z_by<I: Int>(a: &Layout<I>, profile: &HTuple<bool>) -> Result<Layout<I>> {
    by_profile(a, profile, "coalesce_z", coalesce_z_leaves)
}

/// What a `true` leaf of a profile makes of a mode, from the mode's flat leaves, appended to
/// the builder as its next mode.
type Whole<I> = fn(&mut LayoutBuilder<'_, I>, &[I], &[Stride<I>]) -> Result<()>;

/// By-profile application of `whole`, written mode by mode into one builder: the modes of `a`
/// are read as borrowed parts, never built as layouts of their own.
fn by_profile<I: Int>(
    a: &Layout<I>,
    profile: &HTuple<bool>,
    op: &'static str,
    whole: Whole<I>,
) -> Result<Layout<I>> {
    let mut r = Layout::unfilled();
    by_profile_to(a, profile, op, whole, &mut r)?;
    Ok(r)
}

/// [`by_profile`] written into `r`.
fn by_profile_to<I: Int>(
    a: &Layout<I>,
    profile: &HTuple<bool>,
    op: &'static str,
    whole: Whole<I>,
    r: &mut Layout<I>,
) -> Result<()> {
    if let Some(&keep_or_go) = profile.as_leaf() {
        if !keep_or_go {
            r.clone_from(a);
            return Ok(());
        }
        return r.rebuild(|out| whole(out, a.flat_shape(), a.flat_stride()));
    }
    let p = (profile.profile().tokens(), profile.leaves());
    r.rebuild(|out| profile_into(out, Parts::of(a), p, op, whole))
}

/// Appends mode `a` taken by the (sub-)profile `p` (its prefix tokens and leaves) to `out`.
fn profile_into<I: Int>(
    out: &mut LayoutBuilder<'_, I>,
    a: Parts<'_, I>,
    (ptoks, pleaves): (&[u32], &[bool]),
    op: &'static str,
    whole: Whole<I>,
) -> Result<()> {
    if ptoks.first() == Some(&0) {
        match pleaves.first() {
            Some(true) => whole(out, a.s, a.d)?,
            _ => out.push_parts(a),
        }
        return Ok(());
    }
    // The spans one at a time: collecting them moved two arrays of spans per mode.
    let modes = mode_spans_iter(a.toks);
    let mut pmodes = mode_spans_iter(ptoks);
    // A flat tuple of leaves (`(1,1)`, the common profile): one token more than leaves. Its
    // modes are its leaves, read in order without walking its tokens.
    let flat = ptoks.len() == pleaves.len() + 1;
    if modes.len() < pmodes.len() {
        let profile = HTuple::from_raw(ptoks.into(), pleaves.into());
        return Err(Error::cond(
            op,
            format!(
                "profile {profile:?} has rank {} but {} has rank {}",
                pmodes.len(),
                a.to_layout(),
                modes.len()
            ),
        ));
    }
    out.toks.push(modes.len() as u32 + 1);
    for (k, (toks, leaves)) in modes.enumerate() {
        let m = Parts {
            toks: &a.toks[toks],
            s: &a.s[leaves.clone()],
            d: &a.d[leaves],
        };
        if flat {
            match pleaves.get(k) {
                Some(true) => whole(out, m.s, m.d)?,
                _ => out.push_parts(m),
            }
            continue;
        }
        match pmodes.next() {
            Some((pt, pl)) => profile_into(out, m, (&ptoks[pt.clone()], &pleaves[pl.clone()]), op, whole)?,
            None => out.push_parts(m),
        }
    }
    Ok(())
}

/// Removes stride-0 and size-1 modes, then coalesces (`filter`). `filter(A)` enumerates the
/// distinct offsets of a layout whose nonzero modes do not overlap.
///
/// # Pre-conditions
///
/// None: the errors are an [`Error::Overflow`] of a merged extent, as for [`coalesce`], and
/// an [`Error::Undecided`] for a symbolic stride that cannot be decided zero or nonzero.
///
/// # Post-conditions
///
/// * `depth(R) <= 1`, and the image of `R` is the image of `A` (as sets);
/// * `size(R)` is the product of the extents of `A`'s modes with a nonzero stride;
/// * unless `R` is `1:0` (when `A` has no such mode), every mode of `R` has an extent above 1
///   and a nonzero stride.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::filter, parse_layout};
/// let f = |s: &str| filter(&parse_layout(s).unwrap()).unwrap().to_string();
/// assert_eq!(f("(2,4,3):(0,1,4)"), "12:1");
/// assert_eq!(f("(2,1,6,1):(1,7,8,0)"), "(2,6):(1,8)");
/// assert_eq!(f("(2,4):(0,0)"), "1:0");
/// let big = parse_layout("(4294967296,2,4294967296):(1,0,4294967296)").unwrap();
/// assert!(filter(&big).unwrap_err().to_string().contains("does not fit in i64"));
/// ```
pub fn filter<I: Int>(a: &Layout<I>) -> Result<Layout<I>> {
    Layout::build(|out| filter_leaves(out, a.flat_shape(), a.flat_stride()))
}

/// [`filter`] of the flat leaves `s:d`, appended to `out` as its next mode.
fn filter_leaves<I: Int>(out: &mut LayoutBuilder<'_, I>, s: &[I], d: &[Stride<I>]) -> Result<()> {
    let (shape, stride) = (s, d);
    let mut s = Vec::new();
    let mut d = Vec::new();
    for (x, y) in shape.iter().zip(stride) {
        if y.is_zero()? || x.is(1) {
            continue;
        }
        s.push(x.clone());
        d.push(y.clone());
    }
    coalesce_into(out, &s, &d, true)
}

/// PyCuTe's and CuTe's `filter(L, profile)`: [`filter`] by mode, as [`coalesce_by`] is
/// [`coalesce`] by mode (a `true` leaf filters that mode whole, `_` keeps it, modes past the
/// profile are kept).
///
/// # Pre-conditions
///
/// As [`coalesce_by`]: wherever `profile` is a tuple, the matching mode of `a` has at least its
/// rank; otherwise an [`Error::Condition`] of `filter`.
///
/// # Post-conditions
///
/// * a `true` leaf: `R == filter(A)`; a `false` leaf: `R == A`;
/// * a tuple: `rank(R) == rank(A)`, mode `k` of `R` is mode `k` of `A` filtered by mode `k` of
///   the profile; each mode's image is kept (as a set).
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::filter_by, parse_layout, HTuple};
/// let a = parse_layout("((2,2),(3,1)):((0,1),(2,5))").unwrap();
/// assert_eq!(filter_by(&a, &HTuple::flat([true, true])).unwrap().to_string(), "(2,3):(1,2)");
/// assert_eq!(filter_by(&a, &HTuple::flat([false, true])).unwrap().to_string(), "((2,2),3):((0,1),2)");
/// ```
pub fn filter_by<I: Int>(a: &Layout<I>, profile: &HTuple<bool>) -> Result<Layout<I>> {
    by_profile(a, profile, "filter", filter_leaves)
}

/// CuTe's `filter_zeros(L)`: every leaf with stride 0 gets extent 1 (the stride is kept), so
/// that the layout visits each offset of a broadcast once.
///
/// # Pre-conditions
///
/// None beyond deciding a symbolic stride zero or not (an [`Error::Undecided`] otherwise).
///
/// # Post-conditions
///
/// * `stride(R) == stride(L)` and `shape(R)` is congruent with `shape(L)`;
/// * a leaf with stride 0 has extent 1 in `R`, every other leaf keeps its extent; the image of
///   `R` is the image of `L`.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::filter_zeros, parse_layout};
/// let f = |s: &str| filter_zeros(&parse_layout(s).unwrap()).unwrap().to_string();
/// assert_eq!(f("(4,(2,3)):(0,(1,0))"), "(1,(2,1)):(0,(1,0))");
/// ```
pub fn filter_zeros<I: Int>(a: &Layout<I>) -> Result<Layout<I>> {
    let mut s = Vec::with_capacity(a.flat_shape().len());
    for (x, y) in a.flat_shape().iter().zip(a.flat_stride()) {
        s.push(if y.is_zero()? { I::one() } else { x.clone() });
    }
    Layout::new(HTuple::unflatten(s, a.shape().profile())?, a.stride().clone())
}

/// CuTe's `filter_zeros(L, profile)`: the parts of `L`'s shape under a `0` leaf of `profile`
/// become extent 1 (the strides are kept).
///
/// # Pre-conditions
///
/// `profile` is weakly congruent with `shape(L)` (each leaf of the profile covers a
/// sub-shape); otherwise an [`Error::Condition`] of `filter_zeros`.
///
/// # Post-conditions
///
/// `stride(R) == stride(L)`; under a `0` leaf every extent is 1; elsewhere `shape(R)` is
/// `shape(L)`.
///
/// # Example
///
/// ```
/// use tessera_ir::{algebra::filter_zeros_by, parse_layout, parse_int_tuple};
/// let a = parse_layout("((4,2),3):((1,4),8)").unwrap();
/// let r = filter_zeros_by(&a, &parse_int_tuple("(0,1)").unwrap()).unwrap();
/// assert_eq!(r.to_string(), "((1,1),3):((1,4),8)");
/// ```
pub fn filter_zeros_by<I: Int>(a: &Layout<I>, profile: &HTuple<I>) -> Result<Layout<I>> {
    if !profile.weakly_congruent(a.shape()) {
        return Err(Error::cond(
            "filter_zeros",
            format!("profile {profile} is not weakly congruent with the shape of {a}"),
        ));
    }
    let shape = zero_out(a.shape(), profile)?;
    Layout::new(shape, a.stride().clone())
}

/// `shape` with every part under a `0` leaf of `profile` set to extent 1.
fn zero_out<I: Int>(shape: &HTuple<I>, profile: &HTuple<I>) -> Result<HTuple<I>> {
    if let Some(p) = profile.as_leaf() {
        return Ok(if p.is_zero()? {
            shape.map(|_| I::one())
        } else {
            shape.clone()
        });
    }
    let modes = shape
        .modes()
        .iter()
        .zip(profile.modes().iter())
        .map(|(s, p)| zero_out(s, p))
        .collect::<Result<Vec<_>>>()?;
    Ok(HTuple::from_modes(modes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_layout as l;

    #[test]
    fn seed_examples() {
        let c = |s: &str| coalesce(&l(s).unwrap()).unwrap().to_string();
        assert_eq!(c("(2,(1,6)):(1,(6,2))"), "12:1");
        assert_eq!(c("(2,4,6):(24,6,1)"), "(2,4,6):(24,6,1)");
        assert_eq!(c("(2,1,6,1):(1,7,8,0)"), "(2,6):(1,8)");
        let z = |s: &str| coalesce_z(&l(s).unwrap()).unwrap().to_string();
        assert_eq!(z("(2,1,6,1):(1,7,8,0)"), "(2,6,1):(1,8,0)");
        let p = HTuple::flat([true, true]);
        assert_eq!(
            coalesce_by(&l("(2,(1,6)):(1,(6,2))").unwrap(), &p)
                .unwrap()
                .to_string(),
            "(2,6):(1,2)"
        );
        let p1 = HTuple::flat([false, true]);
        assert_eq!(
            coalesce_by(&l("(3,(2,6)):(1,(3,6))").unwrap(), &p1)
                .unwrap()
                .to_string(),
            "(3,12):(1,3)"
        );
        assert_eq!(
            filter(&l("(2,4,3):(0,1,4)").unwrap()).unwrap().to_string(),
            "12:1"
        );
        assert_eq!(filter(&l("(2,4):(0,0)").unwrap()).unwrap().to_string(), "1:0");
    }

    /// `coalesce_z` keeps the function at every index, past the size included; `coalesce`
    /// at every index of the domain. Checked pointwise on every two-mode and a sample of
    /// three-mode F2 layouts.
    #[test]
    fn f2_coalescing_is_pointwise_exact() {
        let check = |src: &str| {
            let a = l(src).unwrap();
            let n = a.size().unwrap();
            let z = coalesce_z(&a).unwrap();
            let c = coalesce(&a).unwrap();
            for i in 0..3 * n {
                assert_eq!(
                    z.eval_index(&i).unwrap(),
                    a.eval_index(&i).unwrap(),
                    "coalesce_z({src}) = {z} at {i}"
                );
                if i < n {
                    assert_eq!(
                        c.eval_index(&i).unwrap(),
                        a.eval_index(&i).unwrap(),
                        "coalesce({src}) = {c} at {i}"
                    );
                }
            }
        };
        for (sa, sb) in [(1, 2), (2, 2), (2, 4), (3, 2), (4, 4), (4, 3)] {
            for u in 0..24 {
                for v in [0, u * sa, u * sa + 1, 2 * u * sa] {
                    check(&format!("({sa},{sb}):(F2({u}),F2({v}))"));
                    check(&format!("({sa},{sb},2):(F2({u}),F2({v}),F2(1024))"));
                }
            }
        }
        for k in 0..600u64 {
            let x = k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let u = x % 40;
            let (sa, sb) = (1 + (x >> 8) % 4, 1 + (x >> 12) % 4);
            let w = if x >> 20 & 1 == 0 { u * sa } else { (x >> 24) % 80 };
            check(&format!(
                "({sa},{sb},{}):(F2({u}),F2({w}),F2({}))",
                1 + (x >> 16) % 3,
                sa * sb * u
            ));
        }
    }

    #[test]
    fn f2_merges_follow_the_definition() {
        let c = |s: &str| coalesce(&l(s).unwrap()).unwrap().to_string();
        // (2,4):(F2(5),F2(10)) at 5 is 5^20 = 17, not 25: not one mode.
        assert_eq!(c("(2,4):(F2(5),F2(10))"), "(2,4):(F2(5),F2(10))");
        assert_eq!(
            c("(3,2,4):(F2(3),F2(10),F2(20))"),
            "(3,2,4):(F2(3),F2(10),F2(20))"
        );
        // Powers of two merge: bits below and at-or-above 2^k never meet.
        assert_eq!(c("(4,8):(F2(2),F2(8))"), "32:F2(2)");
        // 5 = 0b101 and 10 = 0b1010 share no bit: a bounded second mode merges...
        assert_eq!(c("(2,2,4):(F2(5),F2(10),F2(64))"), "(4,4):(F2(5),F2(64))");
        // ...but not as the last mode, whose coordinate grows past its extent (3*10 = 30).
        assert_eq!(c("(2,2):(F2(5),F2(10))"), "(2,2):(F2(5),F2(10))");
    }

    #[test]
    fn a_merge_product_that_overflows_is_no_merge() {
        let a = l("(4,6,3,8):(1,1729382256910270464,192,24)").unwrap();
        assert_eq!(coalesce(&a).unwrap(), a);
    }
}
