//! Property tests of the layout algebra: every operation's post-condition (seed `004_*`, and
//! CuTe's unit tests where the seed defers to them), checked pointwise on random concrete
//! layouts whenever the operation answers `Ok`, and "must succeed" where the pre-condition
//! holds by construction.

mod common;

use common::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use std::collections::HashSet;
use tessera_ir::algebra::*;
use tessera_ir::shape::{compatible, crd2idx, idx2crd};
use tessera_ir::{HTuple, Layout};

type L = Layout<i64>;

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
