//! Property tests of the layout algebra: every operation's post-condition (seed `004_*`, and
//! CuTe's unit tests where the seed defers to them), checked pointwise on random concrete
//! layouts whenever the operation answers `Ok`, and "must succeed" where the pre-condition
//! holds by construction.

mod common;

use common::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use std::collections::{BTreeSet, HashSet};
use tessera_ir::algebra::*;
use tessera_ir::shape::{compatible, crd2idx, idx2crd};
use tessera_ir::{Error, HTuple, Layout, Stride};

type L = Layout<i64>;

/// `cases` cases (scaled by `$TESSERA_PROPTEST_SCALE`); some properties only apply to part of
/// what the strategies draw (`prop_assume!`), so rejections are not limited.
fn cfg(cases: u32) -> ProptestConfig {
    ProptestConfig {
        max_global_rejects: u32::MAX,
        ..common::scaled(cases)
    }
}

/// The result of an operation that must succeed.
fn must<T>(r: tessera_ir::Result<T>, what: impl FnOnce() -> String) -> Result<T, TestCaseError> {
    r.map_err(|e| TestCaseError::fail(format!("{} failed: {e}", what())))
}

/// An error must be a proper, printable error.
fn proper(e: &Error) -> Result<(), TestCaseError> {
    prop_assert!(!e.to_string().is_empty(), "empty error message: {:?}", e);
    Ok(())
}

/// The top-level modes, a leaf-shaped layout being its own single mode.
fn top_modes(l: &L) -> Vec<L> {
    if l.shape().is_leaf() {
        vec![l.clone()]
    } else {
        l.modes().into_vec()
    }
}

/// `r(i) == f(i)` for every `i < n`.
fn agree(r: &L, n: i64, f: impl Fn(i64) -> i64, what: &str) -> Result<(), TestCaseError> {
    for i in 0..n {
        let (x, y) = (ev(r, i), f(i));
        prop_assert_eq!(x, y, "{}: R = {}, at i = {}", what, r, i);
    }
    Ok(())
}

/// Same function on `[0, size)` (and the same size).
fn same_fn(x: &L, y: &L, what: &str) -> Result<(), TestCaseError> {
    prop_assert_eq!(size(x), size(y), "{}: sizes of {} and {}", what, x, y);
    for i in 0..size(x) {
        prop_assert_eq!(ev(x, i), ev(y, i), "{}: {} vs {} at i = {}", what, x, y, i);
    }
    Ok(())
}

fn injective_nonneg(l: &L) -> bool {
    l.flat_stride().iter().all(|d| int_stride(d) >= 0) && is_injective(l)
}

// ---------------------------------------------------------------------------------------------
// Evaluation itself, against the independent evaluator.

proptest! {
    #![proptest_config(cfg(400))]

    #[test]
    fn eval_matches_reference(a in layout(Gen::ANY.max_size(512))) {
        let n = size(&a);
        prop_assert_eq!(a.size().unwrap(), n);
        for i in 0..2 * n {
            let v = a.eval_index(&i).unwrap();
            prop_assert_eq!(v.as_int().copied(), Some(ev(&a, i)), "{} at {}", a, i);
        }
        for i in 0..n {
            let c = idx2crd(&HTuple::leaf(i), a.shape()).unwrap();
            prop_assert!(c.congruent(a.shape()));
            prop_assert_eq!(crd2idx(&c, a.shape()).unwrap(), i);
            let v = a.eval(&c).unwrap();
            prop_assert_eq!(v.as_int().copied(), Some(ev(&a, i)), "{} at {}", a, c);
        }
        // The text format round-trips.
        let back = lay(&a.to_string());
        prop_assert_eq!(back, a);
    }
}

// ---------------------------------------------------------------------------------------------
// coalesce, coalesce_z, coalesce_by, filter

/// A coalesce profile for `a`: per top-level mode `true`, `false` (`_`), or per sub-mode.
fn profile_for(a: &L) -> BoxedStrategy<HTuple<bool>> {
    let ms = top_modes(a);
    let per: Vec<BoxedStrategy<HTuple<bool>>> = ms
        .iter()
        .map(|m| {
            let n = top_modes(m).len();
            let sub = prop::collection::vec(any::<bool>(), n).prop_map(HTuple::flat);
            if m.shape().is_tuple() {
                prop_oneof![any::<bool>().prop_map(HTuple::leaf), sub].boxed()
            } else {
                any::<bool>().prop_map(HTuple::leaf).boxed()
            }
        })
        .collect();
    prop_oneof![
        1 => any::<bool>().prop_map(HTuple::leaf),
        4 => per.prop_map(HTuple::from_modes),
    ]
    .boxed()
}

fn check_coalesce_by(a: &L, p: &HTuple<bool>, r: &L) -> Result<(), TestCaseError> {
    if let Some(&go) = p.as_leaf() {
        if go {
            prop_assert!(r.depth() <= 1, "coalesce_by: depth of {}", r);
        } else {
            prop_assert_eq!(r, a);
        }
        return same_fn(r, a, "coalesce_by mode");
    }
    let (am, rm, pm) = (top_modes(a), top_modes(r), p.modes());
    prop_assert_eq!(rm.len(), am.len(), "coalesce_by keeps the rank: {} -> {}", a, r);
    for k in 0..am.len() {
        match pm.get(k) {
            Some(q) => check_coalesce_by(&am[k], q, &rm[k])?,
            None => prop_assert_eq!(&rm[k], &am[k]),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(cfg(1500))]

    #[test]
    fn coalesce_post(a in layout(Gen::ANY)) {
        let r = must(coalesce(&a), || format!("coalesce({a})"))?;
        prop_assert_eq!(size(&r), size(&a));
        prop_assert!(r.depth() <= 1, "depth of {}", r);
        agree(&r, size(&a), |i| ev(&a, i), &format!("coalesce({a})"))?;
        // Nothing left to merge: coalescing again is the identity.
        prop_assert_eq!(must(coalesce(&r), || format!("coalesce({r})"))?, r);
    }

    #[test]
    fn coalesce_z_post(a in layout(Gen::ANY)) {
        let r = must(coalesce_z(&a), || format!("coalesce_z({a})"))?;
        let n = size(&a);
        prop_assert_eq!(size(&r), n);
        prop_assert!(r.depth() <= 1, "depth of {}", r);
        // The extended domain: the last mode absorbs indices past the size, both ways.
        for i in -n..2 * n {
            prop_assert_eq!(ev(&r, i), ev(&a, i), "coalesce_z({}) = {} at i = {}", a, r, i);
        }
    }

    #[test]
    fn coalesce_by_post((a, p) in layout(Gen::ANY).prop_flat_map(|a| (Just(a.clone()), profile_for(&a)))) {
        match coalesce_by(&a, &p) {
            Ok(r) => check_coalesce_by(&a, &p, &r)?,
            Err(e) => {
                proper(&e)?;
                prop_assert!(false, "coalesce_by({}, {:?}) failed: {}", a, p, e);
            }
        }
        if let Ok(r) = coalesce_z_by(&a, &p) {
            same_fn(&r, &a, "coalesce_z_by")?;
        }
    }

    #[test]
    fn filter_post(a in layout(Gen::ANY)) {
        let r = must(filter(&a), || format!("filter({a})"))?;
        prop_assert!(r.depth() <= 1);
        // The same offsets, each mode with a nonzero stride kept once.
        prop_assert_eq!(image(&r), image(&a), "filter({}) = {}", a, r);
        let kept: i64 = a
            .flat_shape()
            .iter()
            .zip(a.flat_stride())
            .filter(|(_, d)| int_stride(d) != 0)
            .map(|(s, _)| *s)
            .product();
        prop_assert_eq!(size(&r), kept, "filter({}) = {}", a, r);
        if size(&r) > 1 {
            prop_assert!(r.flat_stride().iter().all(|d| int_stride(d) != 0));
            prop_assert!(r.flat_shape().iter().all(|s| *s > 1));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// composition

fn check_composition(a: &L, b: &L, r: &L) -> Result<(), TestCaseError> {
    prop_assert!(
        compatible(b.shape(), r.shape()).unwrap(),
        "composition({}, {}) = {}: shapes not compatible",
        a,
        b,
        r
    );
    agree(r, size(b), |i| ev(a, ev(b, i)), &format!("composition({a}, {b})"))
}

fn check_composition_tiler(a: &L, t: &Tiler<i64>, r: &L) -> Result<(), TestCaseError> {
    match t {
        Tiler::Keep => prop_assert_eq!(r, a),
        Tiler::Layout(b) => check_composition(a, b, r)?,
        Tiler::Tuple(ts) => {
            let (am, rm) = (top_modes(a), top_modes(r));
            prop_assert_eq!(rm.len(), am.len(), "composition({}, {}) = {}", a, t, r);
            for k in 0..am.len() {
                match ts.get(k) {
                    Some(tk) => check_composition_tiler(&am[k], tk, &rm[k])?,
                    None => prop_assert_eq!(&rm[k], &am[k]),
                }
            }
        }
    }
    Ok(())
}

fn with_tiler(g: Gen) -> impl Strategy<Value = (L, Tiler<i64>)> {
    layout(g).prop_flat_map(|a| (Just(a.clone()), tiler(&a)))
}

proptest! {
    #![proptest_config(cfg(1000))]

    #[test]
    fn composition_post(
        (a, b) in layout(Gen::ANY).prop_flat_map(|a| {
            let n = size(&a);
            (Just(a), prop_oneof![3 => layout_tiler(n), 1 => layout(Gen::ANY.max_size(256))])
        })
    ) {
        match composition(&a, &b) {
            Ok(r) => check_composition(&a, &b, &r)?,
            Err(e) => proper(&e)?,
        }
    }

    #[test]
    fn composition_must_succeed(a in layout(Gen::ANY)) {
        // A composed with its own (compact) domain, or with the identity n:1, is A.
        let n = size(&a);
        let id = Layout::leaf(n, 1i64);
        let r = must(composition(&a, &id), || format!("composition({a}, {id})"))?;
        check_composition(&a, &id, &r)?;
        let c = Layout::compact(a.shape()).unwrap();
        let r = must(composition(&a, &c), || format!("composition({a}, {c})"))?;
        check_composition(&a, &c, &r)?;
        prop_assert_eq!(r.shape(), a.shape());
    }

    #[test]
    fn composition_tiler_post((a, t) in with_tiler(Gen::ANY)) {
        match composition_tiler(&a, &t) {
            Ok(r) => check_composition_tiler(&a, &t, &r)?,
            Err(e) => proper(&e)?,
        }
    }

    #[test]
    fn composition_is_associative(
        (a, b, c) in layout(Gen::ANY.max_size(512))
            .prop_flat_map(|a| { let n = size(&a); (Just(a), layout_tiler(n)) })
            .prop_flat_map(|(a, b)| {
                // The composition is only specified on its domain: (A o B) o C agrees with
                // A o (B o C) where C maps into the domain of B.
                let n = size(&b);
                let in_domain = move |c: &L| values(c).iter().all(|&x| (0..n).contains(&x));
                (Just(a), Just(b), layout_tiler(n).prop_filter("C maps into the domain of B", in_domain))
            })
    ) {
        let bc = composition(&b, &c);
        let ab = composition(&a, &b);
        if let (Ok(bc), Ok(ab)) = (bc, ab) {
            let left = composition(&a, &bc);
            let right = composition(&ab, &c);
            if let (Ok(l), Ok(r)) = (&left, &right) {
                prop_assert_eq!(size(l), size(&c));
                prop_assert_eq!(size(r), size(&c));
                agree(l, size(&c), |i| ev(r, i),
                    &format!("A o (B o C) vs (A o B) o C for A = {a}, B = {b}, C = {c}"))?;
            }
        }
    }

    #[test]
    fn composition_with_tiler_to_layout((a, t) in with_tiler(Gen::ANY)) {
        // composition(A, T) == composition(A, tiler_to_layout(T)) for a full by-mode tiler.
        let Tiler::Tuple(ts) = &t else { return Ok(()) };
        let full = ts.len() == top_modes(&a).len()
            && ts.iter().all(|x| matches!(x, Tiler::Layout(_)));
        if !full {
            return Ok(());
        }
        let tl = must(tiler_to_layout(&t), || format!("tiler_to_layout({t})"))?;
        let by_mode = composition_tiler(&a, &t);
        let whole = composition(&a, &tl);
        if let (Ok(x), Ok(y)) = (&by_mode, &whole) {
            same_fn(x, y, &format!("composition(A, T) vs composition(A, tiler_to_layout(T)), A = {a}, T = {t}"))?;
        }
        prop_assert_eq!(by_mode.is_ok(), whole.is_ok(),
            "A = {}, T = {}: {:?} vs {:?}", a, t, by_mode, whole);
    }
}

// ---------------------------------------------------------------------------------------------
// complement

fn check_complement(a: &L, r: &L, what: &str) -> Result<(), TestCaseError> {
    let img: HashSet<i64> = values(a).into_iter().collect();
    let n = size(r);
    for i in 1..n {
        let (p, q) = (ev(r, i - 1), ev(r, i));
        prop_assert!(p < q, "{} = {}: not ordered at {} ({} >= {})", what, r, i, p, q);
        prop_assert!(
            !img.contains(&q),
            "{} = {}: R({}) = {} is in the image of A",
            what,
            r,
            i,
            q
        );
    }
    if is_injective(a) {
        let both = Layout::concat([a.clone(), r.clone()]);
        prop_assert!(
            is_injective(&both),
            "{} = {}: (A, R) = {} is not injective",
            what,
            r,
            both
        );
    }
    Ok(())
}

fn cosize(l: &L) -> i64 {
    values(l).into_iter().max().unwrap_or(0) + 1
}

proptest! {
    #![proptest_config(cfg(1000))]

    #[test]
    fn complement_post(a in layout(Gen::ANY)) {
        match complement(&a, None) {
            Ok(r) => check_complement(&a, &r, &format!("complement({a})"))?,
            Err(e) => {
                proper(&e)?;
                // Ordered, disjoint complements exist for every injective A with
                // non-negative strides.
                prop_assert!(!injective_nonneg(&a) || !divisible_chain(&a),
                    "complement({}) failed: {}", a, e);
            }
        }
    }

    #[test]
    fn complement_of_injective_must_succeed(a in layout(Gen::INJECTIVE)) {
        let r = must(complement(&a, None), || format!("complement({a})"))?;
        check_complement(&a, &r, &format!("complement({a})"))?;
        // Nothing left over: (A, R) fills its span, so its own complement is trivial.
        let both = Layout::concat([a.clone(), r.clone()]);
        let again = must(complement(&both, None), || format!("complement({both})"))?;
        prop_assert_eq!(size(&again), 1, "complement({}) = {}", both, again);
    }

    #[test]
    fn complement_cotarget_post(
        a in layout(Gen::ANY.max_size(512)),
        t in prop_oneof![shape(3, 4096), (1i64..=600).prop_map(HTuple::leaf)],
    ) {
        match complement(&a, Some(&t)) {
            Ok(r) => {
                let what = format!("complement({a}, {t})");
                check_complement(&a, &r, &what)?;
                // (A, R) reaches every index below the cotarget's size (and so, CuTe's (1),
                // its cosize reaches the cotarget): the divides rely on it.
                let both = Layout::concat([a.clone(), r.clone()]);
                let img = image(&both);
                for x in 0..tsize(&t) {
                    prop_assert!(img.contains(&x), "{} = {}: (A, R) = {} misses {}", what, r, both, x);
                }
            }
            Err(e) => proper(&e)?,
        }
    }

    #[test]
    fn complement_cotarget_of_injective(
        a in layout(Gen::INJECTIVE.max_size(512)),
        t in prop_oneof![shape(3, 4096), (1i64..=600).prop_map(HTuple::leaf)],
    ) {
        let what = format!("complement({a}, {t})");
        let r = must(complement(&a, Some(&t)), || what.clone())?;
        check_complement(&a, &r, &what)?;
        let n = tsize(&t);
        let both = Layout::concat([a.clone(), r.clone()]);
        // CuTe's post-conditions (test/unit/cute/core/complement.cpp), except its upper bound
        // (2) `cosize(R) <= round_up(size(cotarget), cosize(A))`: for a cotarget shape Tessera
        // keeps PyCuTe's leaf-by-leaf extension, e.g. complement((2,2):(1,2), (5,2)) = 4:4.
        prop_assert!(cosize(&both) >= n, "{} = {}: (1) cosize(A, R) = {} < {}", what, r, cosize(&both), n);
        let filt = size(&filter(&a).unwrap());
        prop_assert!(size(&r) >= n / filt, "{} = {}: size(R) < {} / {}", what, r, n, filt);
        prop_assert!(size(&r) <= cosize(&r));
        prop_assert!(cosize(&r) >= n / filt, "{} = {}: cosize(R) < {} / {}", what, r, n, filt);
        prop_assert!(cosize(&both) <= cosize(&r) + cosize(&a), "{} = {}", what, r);
        // (A, R) is a bijection onto [0, cosize): nothing is left for another complement.
        prop_assert_eq!(sorted_values(&both), (0..size(&both)).collect::<Vec<_>>(), "{} = {}", what, r);
        let again = must(complement(&both, None), || format!("complement({both})"))?;
        prop_assert_eq!(size(&again), 1, "complement({}) = {}", both, again);
    }
}

/// The nonzero strides, sorted, form a chain where each divides the next and clears the span
/// of the ones before (the pre-condition of `left_inverse`, and what makes a complement
/// fill every hole).
fn divisible_chain(a: &L) -> bool {
    let mut v: Vec<(i64, i64)> = a
        .flat_shape()
        .iter()
        .zip(a.flat_stride())
        .map(|(s, d)| (int_stride(d), *s))
        .filter(|(d, s)| *d != 0 && *s != 1)
        .collect();
    v.sort();
    let mut span = 1;
    for (d, s) in v {
        if d < 0 || d % span != 0 || d < span {
            return false;
        }
        span = d * s;
    }
    true
}

// ---------------------------------------------------------------------------------------------
// The divides

/// `logical_divide(A, B)` for a layout `B`: rank 2, `compatible(B, R[0])`, `R(i, 0) == A(B(i))`,
/// and every offset of `A` appears in `R`.
fn check_divide_leaf(a: &L, b: &L, r: &L) -> Result<(), TestCaseError> {
    let what = format!("logical_divide({a}, {b}) = {r}");
    prop_assert!(r.shape().is_tuple() && r.rank() == 2, "{}: rank", what);
    let r0 = r.mode(0).unwrap();
    prop_assert!(
        compatible(b.shape(), r0.shape()).unwrap(),
        "{}: compatible(B, R[0])",
        what
    );
    for i in 0..size(b) {
        let want = ev(a, ev(b, i));
        prop_assert_eq!(ev(&r0, i), want, "{}: R({}, 0)", what, i);
        let v = r.eval(&HTuple::flat([i, 0])).unwrap();
        prop_assert_eq!(v.as_int().copied(), Some(want), "{}: R(({}, 0))", what, i);
    }
    prop_assert!(size(r) >= size(a), "{}: size", what);
    let ri = image(r);
    for x in values(a) {
        prop_assert!(ri.contains(&x), "{}: offset {} of A is not in R", what, x);
    }
    Ok(())
}

fn check_divide(a: &L, t: &Tiler<i64>, r: &L) -> Result<(), TestCaseError> {
    match t {
        Tiler::Keep => prop_assert_eq!(r, a),
        Tiler::Layout(b) => check_divide_leaf(a, b, r)?,
        Tiler::Tuple(ts) => {
            let (am, rm) = (top_modes(a), top_modes(r));
            prop_assert_eq!(rm.len(), am.len(), "logical_divide({}, {}) = {}", a, t, r);
            for k in 0..am.len() {
                match ts.get(k) {
                    Some(tk) => check_divide(&am[k], tk, &rm[k])?,
                    None => prop_assert_eq!(&rm[k], &am[k]),
                }
            }
        }
    }
    Ok(())
}

/// What the tile part of a zipped divide is: `A ∘ T` restricted to the tiled modes.
fn expected_tile(a: &L, t: &Tiler<i64>) -> Result<L, TestCaseError> {
    Ok(match t {
        Tiler::Keep => a.clone(),
        Tiler::Layout(b) => must(composition(a, b), || format!("composition({a}, {b})"))?,
        Tiler::Tuple(ts) => {
            let am = top_modes(a);
            let mut out = Vec::new();
            for (k, tk) in ts.iter().enumerate() {
                out.push(expected_tile(&am[k], tk)?);
            }
            Layout::concat(out)
        }
    })
}

/// What the block part of a zipped product is: `A` restricted to the tiled modes.
fn expected_block(a: &L, t: &Tiler<i64>) -> L {
    match t {
        Tiler::Keep | Tiler::Layout(_) => a.clone(),
        Tiler::Tuple(ts) => {
            let am = top_modes(a);
            Layout::concat(ts.iter().enumerate().map(|(k, tk)| expected_block(&am[k], tk)))
        }
    }
}

/// The gathered variants: the same offsets as the logical form, the tiles (or blocks) in
/// mode 0, and `tiled` / `flat` the same function as `zipped` (they only regroup modes).
fn check_gathered(
    name: &str,
    logical: &L,
    zipped: &L,
    tiled: &L,
    flat: &L,
    t: &Tiler<i64>,
    tile: &L,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(
        sorted_values(zipped),
        sorted_values(logical),
        "zipped_{} = {} vs logical = {}: offsets differ",
        name,
        zipped,
        logical
    );
    if let Tiler::Tuple(_) = t {
        prop_assert!(
            zipped.shape().is_tuple() && zipped.rank() == 2,
            "zipped_{} = {}",
            name,
            zipped
        );
        same_fn(
            &zipped.mode(0).unwrap(),
            tile,
            &format!("zipped_{name} = {zipped}: tile part vs {tile}"),
        )?;
    } else {
        prop_assert_eq!(zipped, logical);
    }
    same_fn(tiled, zipped, &format!("tiled_{name} vs zipped_{name}"))?;
    same_fn(flat, zipped, &format!("flat_{name} vs zipped_{name}"))?;
    let z0 = zipped.mode(0).unwrap();
    let z1 = zipped.mode(1).unwrap();
    prop_assert_eq!(
        tiled.rank(),
        1 + top_modes(&z1).len(),
        "tiled_{} = {}",
        name,
        tiled
    );
    prop_assert_eq!(
        flat.rank(),
        top_modes(&z0).len() + top_modes(&z1).len(),
        "flat_{} = {}",
        name,
        flat
    );
    prop_assert_eq!(&tiled.mode(0).unwrap(), &z0);
    Ok(())
}

proptest! {
    #![proptest_config(cfg(1000))]

    #[test]
    fn logical_divide_post((a, t) in with_tiler(Gen::ANY)) {
        match logical_divide(&a, &t) {
            Ok(r) => check_divide(&a, &t, &r)?,
            Err(e) => proper(&e)?,
        }
    }

    #[test]
    fn logical_divide_must_succeed(
        (a, d) in layout(Gen::ANY).prop_flat_map(|a| {
            let first = a.flat_shape()[0];
            (Just(a), prop::sample::select(divisors(first)))
        })
    ) {
        // A tile of d contiguous indices, d dividing the first extent, always divides A.
        let b = Layout::leaf(d, 1i64);
        let r = must(logical_divide(&a, &Tiler::Layout(b.clone())), || format!("logical_divide({a}, {b})"))?;
        check_divide_leaf(&a, &b, &r)?;
        prop_assert_eq!(size(&r), size(&a));
    }

    #[test]
    fn gathered_divides_post((a, t) in with_tiler(Gen::ANY)) {
        let l = logical_divide(&a, &t);
        let z = zipped_divide(&a, &t);
        let ti = tiled_divide(&a, &t);
        let f = flat_divide(&a, &t);
        prop_assert_eq!(l.is_ok(), z.is_ok(), "logical_divide({}, {}) = {:?} but zipped {:?}", a, t, l, z);
        prop_assert_eq!(z.is_ok(), ti.is_ok());
        prop_assert_eq!(z.is_ok(), f.is_ok());
        if let (Ok(l), Ok(z), Ok(ti), Ok(f)) = (l, z, ti, f) {
            let tile = expected_tile(&a, &t)?;
            check_gathered("divide", &l, &z, &ti, &f, &t, &tile)?;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The products

fn check_product_leaf(a: &L, b: &L, r: &L) -> Result<(), TestCaseError> {
    let what = format!("logical_product({a}, {b}) = {r}");
    prop_assert!(r.shape().is_tuple() && r.rank() == 2, "{}: rank", what);
    prop_assert_eq!(&r.mode(0).unwrap(), a, "{}: R[0] != A", what);
    prop_assert!(
        compatible(b.shape(), r.mode(1).unwrap().shape()).unwrap(),
        "{}: compatible(B, R[1])",
        what
    );
    prop_assert_eq!(size(r), size(a) * size(b), "{}: size", what);
    if injective_nonneg(a) && injective_nonneg(b) {
        prop_assert!(is_injective(r), "{}: not injective", what);
    }
    Ok(())
}

fn check_product(a: &L, t: &Tiler<i64>, r: &L) -> Result<(), TestCaseError> {
    match t {
        Tiler::Keep => prop_assert_eq!(r, a),
        Tiler::Layout(b) => check_product_leaf(a, b, r)?,
        Tiler::Tuple(ts) => {
            let (am, rm) = (top_modes(a), top_modes(r));
            prop_assert_eq!(rm.len(), am.len(), "logical_product({}, {}) = {}", a, t, r);
            for k in 0..am.len() {
                match ts.get(k) {
                    Some(tk) => check_product(&am[k], tk, &rm[k])?,
                    None => prop_assert_eq!(&rm[k], &am[k]),
                }
            }
        }
    }
    Ok(())
}

/// How many copies a product tiler makes.
fn tiler_size(t: &Tiler<i64>) -> i64 {
    match t {
        Tiler::Keep => 1,
        Tiler::Layout(b) => size(b),
        Tiler::Tuple(ts) => ts.iter().map(tiler_size).product(),
    }
}

/// A product tiler for `a`: a small layout, or by mode `_`, small layouts, or (for a mode that
/// is a tuple) a nested tuple of small layouts; at most 32 copies in all.
fn product_tiler(a: &L) -> BoxedStrategy<Tiler<i64>> {
    let small = |n: i64| {
        layout(Gen::ANY.max_size(n).max_leaves(2))
            .prop_map(Tiler::Layout)
            .boxed()
    };
    let per_mode: Vec<BoxedStrategy<Tiler<i64>>> = top_modes(a)
        .iter()
        .enumerate()
        .map(|(k, m)| {
            let n = if k < 2 { 4 } else { 2 };
            let nested = if m.shape().is_tuple() {
                prop::collection::vec(small(n), 1..=top_modes(m).len())
                    .prop_map(Tiler::Tuple)
                    .boxed()
            } else {
                small(n)
            };
            prop_oneof![1 => Just(Tiler::Keep), 4 => small(n), 2 => nested].boxed()
        })
        .collect();
    let rank = per_mode.len();
    prop_oneof![
        2 => layout(Gen::ANY.max_size(16).max_leaves(3)).prop_map(Tiler::Layout),
        1 => layout(Gen::INJECTIVE.max_size(16).max_leaves(3)).prop_map(Tiler::Layout),
        2 => (per_mode, 1..=rank)
            .prop_map(|(ts, k)| Tiler::Tuple(ts.into_iter().take(k).collect()))
            .prop_filter("at most 32 copies", |t| tiler_size(t) <= 32),
    ]
    .boxed()
}

/// `B` of the same rank as `A`, for the rank-sensitive products.
fn same_rank(a: &L) -> BoxedStrategy<L> {
    let g = Gen::ANY.max_size(8).max_leaves(2);
    if a.shape().is_leaf() {
        return prop_oneof![
            (1i64..=6, prop_oneof![Just(0i64), 1i64..=8]).prop_map(|(s, d)| Layout::leaf(s, d)),
            layout(g).prop_map(|l| Layout::concat([l])),
        ]
        .boxed();
    }
    prop::collection::vec(layout(g), a.rank())
        .prop_map(Layout::concat)
        .boxed()
}

proptest! {
    #![proptest_config(cfg(800))]

    #[test]
    fn logical_product_post(
        (a, t) in layout(Gen::ANY.max_size(256)).prop_flat_map(|a| (Just(a.clone()), product_tiler(&a)))
    ) {
        match logical_product(&a, &t) {
            Ok(r) => check_product(&a, &t, &r)?,
            Err(e) => proper(&e)?,
        }
    }

    #[test]
    fn logical_product_of_bijection_must_succeed(
        a in layout(Gen::INJECTIVE.max_size(256)),
        b in layout(Gen::ANY.max_size(16).max_leaves(3)),
    ) {
        // The complement of a bijection onto [0, n) is the single mode 1:n, whose last mode
        // absorbs any B.
        prop_assume!(sorted_values(&a) == (0..size(&a)).collect::<Vec<_>>());
        let r = must(logical_product(&a, &Tiler::Layout(b.clone())), || format!("logical_product({a}, {b})"))?;
        check_product_leaf(&a, &b, &r)?;
        let grid = r.mode(1).unwrap();
        agree(&grid, size(&b), |i| size(&a) * ev(&b, i), &format!("logical_product({a}, {b}) grid"))?;
    }

    #[test]
    fn gathered_products_post(
        (a, t) in layout(Gen::ANY.max_size(256)).prop_flat_map(|a| (Just(a.clone()), product_tiler(&a)))
    ) {
        let l = logical_product(&a, &t);
        let z = zipped_product(&a, &t);
        let ti = tiled_product(&a, &t);
        let f = flat_product(&a, &t);
        prop_assert_eq!(l.is_ok(), z.is_ok(), "logical_product({}, {}) = {:?} but zipped {:?}", a, t, l, z);
        prop_assert_eq!(z.is_ok(), ti.is_ok());
        prop_assert_eq!(z.is_ok(), f.is_ok());
        if let (Ok(l), Ok(z), Ok(ti), Ok(f)) = (l, z, ti, f) {
            let block = expected_block(&a, &t);
            check_gathered("product", &l, &z, &ti, &f, &t, &block)?;
        }
    }

}

proptest! {
    #![proptest_config(cfg(1500))]

    #[test]
    fn blocked_raked_post(
        (a, b) in layout(Gen::ANY.max_size(128).max_leaves(4)).prop_flat_map(|a| (Just(a.clone()), same_rank(&a)))
    ) {
        let bl = blocked_product(&a, &b);
        let rk = raked_product(&a, &b);
        prop_assert_eq!(bl.is_ok(), rk.is_ok(), "blocked {:?} vs raked {:?}", bl, rk);
        if let Err(e) = &bl {
            proper(e)?;
        }
        if let (Ok(bl), Ok(rk)) = (&bl, &rk) {
            let what = format!("blocked/raked_product({a}, {b}) = {bl} / {rk}");
            prop_assert_eq!(bl.rank(), a.rank(), "{}: rank", what);
            prop_assert_eq!(rk.rank(), a.rank(), "{}: rank", what);
            prop_assert_eq!(size(bl), size(&a) * size(&b), "{}: size", what);
            prop_assert_eq!(size(rk), size(&a) * size(&b), "{}: size", what);
            let (am, bm) = (top_modes(&a), top_modes(bl));
            let rm = top_modes(rk);
            for k in 0..am.len() {
                prop_assert_eq!(&bm[k].mode(0).unwrap(), &am[k], "{}: blocked mode {} tile", what, k);
                prop_assert_eq!(&rm[k].mode(1).unwrap(), &am[k], "{}: raked mode {} tile", what, k);
            }
            // The same offsets: blocked and raked only order the copies differently.
            prop_assert_eq!(sorted_values(bl), sorted_values(rk), "{}: images differ", what);
            if let Ok(lp) = logical_product(&a, &Tiler::Layout(b.clone())) {
                prop_assert_eq!(sorted_values(bl), sorted_values(&lp), "{}: vs logical_product {}", what, lp);
            }
            if injective_nonneg(&a) && injective_nonneg(&b) {
                prop_assert!(is_injective(bl), "{}: not injective", what);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Inverses and the null space

proptest! {
    #![proptest_config(cfg(2000))]

    #[test]
    fn right_inverse_post(a in layout(Gen::ANY)) {
        let r = must(right_inverse(&a), || format!("right_inverse({a})"))?;
        let n = size(&a);
        for k in 0..size(&r) {
            let i = ev(&r, k);
            prop_assert!((0..n).contains(&i), "right_inverse({}) = {}: R({}) = {} out of the domain", a, r, k, i);
            prop_assert_eq!(ev(&a, i), k, "right_inverse({}) = {}: A(R({}))", a, r, k);
        }
        // The inverse of a bijection onto [0, size) is a full inverse.
        if sorted_values(&a) == (0..n).collect::<Vec<_>>() {
            prop_assert_eq!(size(&r), n, "right_inverse({}) = {} of a bijection", a, r);
            for i in 0..n {
                prop_assert_eq!(ev(&r, ev(&a, i)), i);
            }
        }
    }

    #[test]
    fn left_inverse_post(a in layout(Gen::ANY)) {
        match left_inverse(&a) {
            Ok(r) => {
                let inj = is_injective(&a);
                for k in 0..size(&a) {
                    let x = ev(&a, k);
                    // The seed's post-condition, for every A ...
                    prop_assert_eq!(ev(&a, ev(&r, x)), x, "left_inverse({}) = {}: A(R(A({})))", a, r, k);
                    // ... and R(A(k)) == k for an injective A.
                    if inj {
                        prop_assert_eq!(ev(&r, x), k, "left_inverse({}) = {}: R(A({}))", a, r, k);
                    }
                }
                // The pre-condition: the nonzero modes form an injective divisible chain.
                let f = filter(&a).unwrap();
                prop_assert!(is_injective(&f), "left_inverse({}) = {} but {} is not injective", a, r, f);
            }
            Err(e) => {
                proper(&e)?;
                prop_assert!(!divisible_chain(&a), "left_inverse({}) failed: {}", a, e);
            }
        }
    }

    #[test]
    fn left_inverse_of_injective_must_succeed(a in layout(Gen::INJECTIVE)) {
        let r = must(left_inverse(&a), || format!("left_inverse({a})"))?;
        for k in 0..size(&a) {
            prop_assert_eq!(ev(&r, ev(&a, k)), k, "left_inverse({}) = {}", a, r);
        }
    }

    #[test]
    fn nullspace_post(a in layout(Gen::ANY)) {
        let r = must(nullspace(&a), || format!("nullspace({a})"))?;
        let n = size(&a);
        for i in 0..size(&r) {
            let c = ev(&r, i);
            prop_assert!((0..n).contains(&c), "nullspace({}) = {}: R({}) = {}", a, r, i, c);
            prop_assert_eq!(ev(&a, c), 0, "nullspace({}) = {}: A(R({}))", a, r, i);
        }
        prop_assert!(is_injective(&r), "nullspace({}) = {} repeats a coordinate", a, r);
        let zeros: i64 = a
            .flat_shape()
            .iter()
            .zip(a.flat_stride())
            .filter(|(_, d)| int_stride(d) == 0)
            .map(|(s, _)| *s)
            .product();
        prop_assert_eq!(size(&r), zeros, "nullspace({}) = {}", a, r);
    }
}

// ---------------------------------------------------------------------------------------------
// layout_add, greatest_common_domain

/// `B` with the same size as `A`: the same extents regrouped, or another factorization.
fn same_size(a: &L) -> BoxedStrategy<L> {
    let ext = a.flat_shape().to_vec();
    let n = size(a);
    let ext2 = ext.clone();
    prop_oneof![
        // The same flat extents, other strides and nesting.
        (
            prop::collection::vec(any::<u8>(), 3 * ext.len()),
            prop::collection::vec(-2i64..=9, ext.len())
        )
            .prop_map(move |(bytes, st)| build(&tree(ext.len(), &bytes), &ext, &st)),
        // The same extents, another layout's strides (permuted compact with gaps).
        layout(Gen::ANY).prop_map(move |l| {
            let st: Vec<i64> = (0..ext2.len())
                .map(|k| l.flat_stride().get(k).map_or(1, int_stride))
                .collect();
            build(&tree(ext2.len(), &[]), &ext2, &st)
        }),
        // Another factorization of the size.
        (
            prop::sample::select(divisors(n)),
            prop_oneof![Just(0i64), 1i64..=5],
            prop_oneof![Just(0i64), 1i64..=40]
        )
            .prop_map(move |(d, s0, s1)| lay(&format!("({d},{}):({s0},{s1})", n / d))),
    ]
    .boxed()
}

proptest! {
    #![proptest_config(cfg(2000))]

    #[test]
    fn layout_add_post((a, b) in layout(Gen::ANY).prop_flat_map(|a| (Just(a.clone()), same_size(&a)))) {
        match layout_add(&a, &b) {
            Ok(r) => {
                prop_assert_eq!(size(&r), size(&a));
                agree(&r, size(&a), |i| ev(&a, i) + ev(&b, i), &format!("layout_add({a}, {b})"))?;
            }
            Err(e) => {
                proper(&e)?;
                // The same flat shape is a common factorization.
                prop_assert!(a.flat_shape() != b.flat_shape(), "layout_add({}, {}) failed: {}", a, b, e);
            }
        }
    }

    #[test]
    fn greatest_common_domain_post(sa in shape(5, 4096), sb in shape(5, 4096), strides in prop::collection::vec(-3i64..=20, 10)) {
        let g = must(greatest_common_domain(&sa, &sb), || format!("greatest_common_domain({sa}, {sb})"))?;
        let (na, nb) = (tsize(&sa), tsize(&sb));
        let gcd = { let (mut x, mut y) = (na, nb); while y != 0 { (x, y) = (y, x % y); } x };
        prop_assert_eq!(gcd % size(&g), 0, "gcd({}, {}) = {}: size of {}", na, nb, gcd, g);
        prop_assert!(is_injective(&g), "{} is not injective", g);
        for i in 0..size(&g) {
            let x = ev(&g, i);
            prop_assert!(x >= 0 && x < na.min(nb), "{}({}) = {}", g, i, x);
        }
        // Each common mode lies inside one mode of each shape: composing succeeds, for the
        // compact layouts and for any strides.
        for s in [&sa, &sb] {
            let c = Layout::compact(s).unwrap();
            let r = must(composition(&c, &g), || format!("composition({c}, {g})"))?;
            check_composition(&c, &g, &r)?;
            let st: Vec<i64> = (0..s.leaves().len()).map(|k| strides[k]).collect();
            let d = HTuple::unflatten(st.iter().map(|&x| Stride::Int(x)), s.profile()).unwrap();
            let any = Layout::new(s.clone(), d).unwrap();
            let r = must(composition(&any, &g), || format!("composition({any}, {g})"))?;
            check_composition(&any, &g, &r)?;
        }
        if sa.flatten() == sb.flatten() {
            prop_assert_eq!(size(&g), na, "greatest_common_domain({}, {}) = {}", sa, sb, g);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// recast

/// Compact layouts, column- or row-major, with their stride-1 leaf.
fn compact_layout() -> impl Strategy<Value = (L, usize)> {
    (shape(4, 1024), any::<bool>()).prop_map(|(s, row)| {
        let n = s.leaves().len();
        let order: Vec<usize> = if row {
            (0..n).rev().collect()
        } else {
            (0..n).collect()
        };
        let mut st = vec![0i64; n];
        let mut acc = 1;
        for &k in &order {
            st[k] = acc;
            acc *= s.leaves()[k];
        }
        let d = HTuple::unflatten(st.into_iter().map(Stride::Int), s.profile()).unwrap();
        (Layout::new(s, d).unwrap(), order[0])
    })
}

proptest! {
    #![proptest_config(cfg(2000))]

    #[test]
    fn recast_round_trips((l, p) in compact_layout(), k in prop::sample::select(vec![2i64, 3, 4, 8])) {
        // Unpack by 1/k, then pack by k: the same layout.
        let up = must(recast(&l, 1, k), || format!("recast({l}, 1/{k})"))?;
        prop_assert_eq!(size(&up), size(&l) * k, "recast({}, 1/{}) = {}", l, k, up);
        let back = must(recast(&up, k, 1), || format!("recast({up}, {k})"))?;
        prop_assert_eq!(&back, &l, "recast(recast({}, 1/{}), {}) = {}", l, k, k, back);
        // Pack by k where k divides the contiguous extent, then unpack: the same sizes.
        if l.flat_shape()[p] % k == 0 {
            let down = must(recast(&l, k, 1), || format!("recast({l}, {k})"))?;
            prop_assert_eq!(size(&down) * k, size(&l), "recast({}, {}) = {}", l, k, down);
            let back = must(recast(&down, 1, k), || format!("recast({down}, 1/{k})"))?;
            prop_assert_eq!(size(&back), size(&l), "recast(recast({}, {}), 1/{}) = {}", l, k, k, back);
            prop_assert_eq!(back.shape().profile(), l.shape().profile());
            // Vector j of the packed layout starts at element k*R(j) of L.
            let ds = down.flat_shape();
            for j in 0..size(&down) {
                let mut c = flat_crd(j, ds);
                c[p] *= k;
                prop_assert_eq!(k * ev(&down, j), ev(&l, flat_idx(&c, l.flat_shape())), "recast({}, {}) = {}", l, k, down);
            }
        }
    }

    #[test]
    fn recast_unpack_post(l in layout(Gen::ANY.max_size(1024)), k in prop::sample::select(vec![2i64, 3, 4])) {
        // Each element splits into k sub-elements, numbered along one unit-stride leaf p:
        // R(.., k*c + t, ..) == k*L(.., c, ..) + t. Without a unit stride, R == k*L.
        let r = must(recast(&l, 1, k), || format!("recast({l}, 1/{k})"))?;
        let (ls, rs) = (l.flat_shape(), r.flat_shape());
        let unit: Vec<usize> = (0..ls.len()).filter(|&q| int_stride(&l.flat_stride()[q]) == 1).collect();
        let p = unit.iter().copied().find(|&q| ls[q] != 1).or(unit.first().copied());
        let what = format!("recast({l}, 1/{k}) = {r}");
        match p {
            None => {
                prop_assert_eq!(size(&r), size(&l), "{}", what);
                agree(&r, size(&l), |i| k * ev(&l, i), &what)?;
            }
            Some(p) => {
                prop_assert_eq!(size(&r), size(&l) * k, "{}", what);
                for i in 0..size(&l) {
                    for t in 0..k {
                        let mut c = flat_crd(i, ls);
                        c[p] = k * c[p] + t;
                        let j = flat_idx(&c, rs);
                        prop_assert_eq!(ev(&r, j), k * ev(&l, i) + t, "{} at {:?}", what, c);
                    }
                }
            }
        }
    }

    #[test]
    fn recast_any_does_not_panic(l in layout(Gen::ANY), num in 1i64..=8, den in 1i64..=8) {
        match recast(&l, num, den) {
            Ok(r) => prop_assert!(r.shape().congruent(l.shape())),
            Err(e) => proper(&e)?,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Constructors

proptest! {
    #![proptest_config(cfg(1500))]

    #[test]
    fn make_layout_like_post(l in layout(Gen::ANY)) {
        let r = must(make_layout_like(&l), || format!("make_layout_like({l})"))?;
        prop_assert_eq!(r.shape(), l.shape());
        // Compact on the modes that move: a bijection onto [0, n) on those.
        let moving: Vec<usize> = (0..l.flat_shape().len())
            .filter(|&k| int_stride(&l.flat_stride()[k]) != 0 && l.flat_shape()[k] > 1)
            .collect();
        let n: i64 = moving.iter().map(|&k| l.flat_shape()[k]).product();
        prop_assert_eq!(image(&r), (0..n).collect::<BTreeSet<_>>(), "make_layout_like({}) = {}", l, r);
        if moving.len() == l.flat_shape().iter().filter(|&&s| s > 1).count() {
            prop_assert!(is_injective(&r), "make_layout_like({}) = {}", l, r);
        }
        // Strides follow the order of |strides| of L.
        for &x in &moving {
            for &y in &moving {
                let (dx, dy) = (int_stride(&l.flat_stride()[x]).abs(), int_stride(&l.flat_stride()[y]).abs());
                if dx < dy {
                    prop_assert!(int_stride(&r.flat_stride()[x]) < int_stride(&r.flat_stride()[y]),
                        "make_layout_like({}) = {}: order of modes {} and {}", l, r, x, y);
                }
            }
        }
    }

    #[test]
    fn make_ordered_layout_post(s in shape(6, 4096), order in prop::collection::vec(0i64..6, 6)) {
        let o = HTuple::unflatten(order[..s.leaves().len()].to_vec(), s.profile()).unwrap();
        let r = must(make_ordered_layout(&s, &o), || format!("make_ordered_layout({s}, {o})"))?;
        prop_assert_eq!(r.shape(), &s);
        let n = tsize(&s);
        prop_assert_eq!(sorted_values(&r), (0..n).collect::<Vec<_>>(), "make_ordered_layout({}, {}) = {}", s, o, r);
        let ol = o.leaves();
        for x in 0..ol.len() {
            for y in 0..ol.len() {
                if ol[x] < ol[y] || (ol[x] == ol[y] && x < y) {
                    prop_assert!(int_stride(&r.flat_stride()[x]) <= int_stride(&r.flat_stride()[y]),
                        "make_ordered_layout({}, {}) = {}: modes {} and {}", s, o, r, x, y);
                }
            }
        }
    }

    #[test]
    fn max_common_vector_post(
        (a, b) in (
            prop::collection::vec(1i64..=6, 1..=4),
            Just((0..4).collect::<Vec<usize>>()).prop_shuffle(),
            Just((0..4).collect::<Vec<usize>>()).prop_shuffle(),
            prop::collection::vec(prop_oneof![3 => Just(1i64), 1 => Just(2i64)], 4),
            prop::collection::vec(any::<u8>(), 12),
        ).prop_map(|(ext, pa, pb, gaps, bytes)| {
            let n = ext.len();
            let strides = |perm: &[usize], gaps: &[i64]| {
                let mut st = vec![0; n];
                let mut acc = 1;
                for (k, &p) in perm.iter().filter(|&&p| p < n).enumerate() {
                    acc *= gaps[k];
                    st[p] = acc;
                    acc *= ext[p];
                }
                st
            };
            let a = build(&tree(n, &bytes), &ext, &strides(&pa, &gaps));
            let b = build(&tree(n, &bytes[6..]), &ext, &strides(&pb, &[1, 1, 1, 1]));
            (a, b)
        })
    ) {
        match max_common_vector(&a, &b) {
            Ok(v) => {
                prop_assert!(v >= 1);
                prop_assert!(is_injective(&b));
                // For every n < V, the coordinate B maps to n is mapped to n by A too
                // (CuTe: a(b^-1(n)) == n).
                let bv = values(&b);
                for n in 0..v {
                    let at: Vec<i64> = (0..size(&b)).filter(|&i| bv[i as usize] == n).collect();
                    prop_assert_eq!(at.len(), 1, "max_common_vector({}, {}) = {}: B^-1({})", a, b, v, n);
                    prop_assert_eq!(ev(&a, at[0]), n, "max_common_vector({}, {}) = {}: A(B^-1({}))", a, b, v, n);
                }
            }
            Err(e) => proper(&e)?,
        }
    }

}

proptest! {
    #![proptest_config(cfg(400))]

    #[test]
    fn identity_layout_post(s in shape(5, 256)) {
        let id = must(identity_layout(&s), || format!("identity_layout({s})"))?;
        let basis = make_basis_like(&s);
        for i in 0..tsize(&s) {
            let c = idx2crd(&HTuple::leaf(i), &s).unwrap();
            // The coordinate itself, as the sum of c_k times the k-th unit basis vector.
            let mut want = Stride::zero();
            for (x, e) in c.leaves().iter().zip(basis.leaves()) {
                want = want.add(&e.scale(x).unwrap()).unwrap();
            }
            let v = id.eval_index(&i).unwrap();
            prop_assert_eq!(&v, &want, "identity_layout({}) at {}", s, i);
            prop_assert_eq!(id.eval(&c).unwrap(), want);
        }
    }

    #[test]
    fn tiler_to_layout_post(ts in prop::collection::vec(layout(Gen::ANY.max_size(16).max_leaves(2)), 1..=3)) {
        let t = Tiler::Tuple(ts.iter().cloned().map(Tiler::Layout).collect());
        let r = must(tiler_to_layout(&t), || format!("tiler_to_layout({t})"))?;
        // Mode k of the result maps into axis k of the codomain, as T_k does.
        let shape = HTuple::flat(ts.iter().map(size));
        prop_assert_eq!(size(&r), tsize(&shape));
        for i in 0..size(&r) {
            let c = idx2crd(&HTuple::leaf(i), &shape).unwrap();
            let v = r.eval(&c).unwrap();
            for (k, tk) in ts.iter().enumerate() {
                let want = ev(tk, c.leaves()[k]);
                let got = match &v {
                    Stride::Int(x) if *x == 0 => 0,
                    Stride::Basis(b) => b
                        .terms()
                        .iter()
                        .find(|(p, _)| p.as_slice() == [k as u32])
                        .map_or(0, |(_, x)| *x),
                    other => return Err(TestCaseError::fail(format!("unexpected value {other}"))),
                };
                prop_assert_eq!(got, want, "tiler_to_layout({}) = {} at {}", t, r, c);
            }
        }
    }
}
