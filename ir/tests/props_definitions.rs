//! The divides and products against their definitions (seed `004_*`, CuTe's `layout.hpp`),
//! pointwise, on random layouts:
//!
//! * `logical_divide(A, B) = A ∘ (B, complement(B, size(A)))`: the size is exactly
//!   `size(B) * size(complement(B, size(A)))` (never larger: PyCuTe's leaf-by-leaf extension
//!   made `logical_divide((8,3):(1,8),3:1)` 27 elements of a 24-element `A`) and every index
//!   agrees with `A` evaluated at the concatenation `(B, C)`; by mode for tuple tilers;
//! * `zipped`/`tiled`/`flat_divide` are regroupings of it, with the same size;
//! * `logical_product(A, B) = (A, complement(A) ∘ B)`, the minimal complement with its last
//!   mode absorbing (CuTe's `complement(A, size(A) * cosize(B))` gives the same values wherever
//!   it exists, and is an error where `A` has a hole it cannot cover);
//! * `blocked_product`/`raked_product`: both layouts padded with `1:0` modes to the larger
//!   rank, mode `k` pairing `A_k` with the grid's mode `k`;
//! * `local_tile` and `local_partition` are `zipped_divide` sliced.
//!
//! The expected values are computed by evaluating `A`, `B` and the complement directly
//! (`common::ev`), never through `composition`.

mod common;

use common::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use tessera_ir::algebra::*;
use tessera_ir::shape::compatible;
use tessera_ir::view::unswizzled;
use tessera_ir::view::{Threads, local_partition, local_tile};
use tessera_ir::{HTuple, Layout};

type L = Layout<i64>;

fn cfg(cases: u32) -> ProptestConfig {
    ProptestConfig {
        max_global_rejects: u32::MAX,
        ..scaled(cases)
    }
}

/// The top-level modes, a leaf-shaped layout being its own single mode.
fn top_modes(l: &L) -> Vec<L> {
    if l.shape().is_leaf() {
        vec![l.clone()]
    } else {
        l.modes().into_vec()
    }
}

/// `complement(b, n)`, the complement the divide's definition uses.
fn divide_complement(b: &L, n: i64) -> tessera_ir::Result<L> {
    complement(b, Some(&HTuple::leaf(n)))
}

/// `logical_divide(a, b)` for a layout `b` against the definition.
fn check_divide_leaf(a: &L, b: &L, r: &tessera_ir::Result<L>) -> Result<(), TestCaseError> {
    let c = divide_complement(b, size(a));
    let what = format!("logical_divide({a}, {b}) = {r:?}, complement = {c:?}");
    let (r, c) = match (r, c) {
        (Ok(r), Ok(c)) => (r, c),
        // The definition needs the complement: no complement, no divide.
        (Ok(_), Err(_)) => {
            return Err(TestCaseError::fail(format!(
                "{what}: answered without a complement"
            )));
        }
        (Err(e), _) => {
            prop_assert!(!e.to_string().is_empty());
            return Ok(());
        }
    };
    prop_assert!(r.shape().is_tuple() && r.rank() == 2, "{}: rank", what);
    let (sb, sc) = (size(b), size(&c));
    prop_assert_eq!(
        size(r),
        sb * sc,
        "{}: size is not size(B) * size(complement(B, size(A)))",
        what
    );
    prop_assert!(
        compatible(b.shape(), r.mode(0).unwrap().shape()).unwrap(),
        "{}: compatible(B, R[0])",
        what
    );
    prop_assert!(
        compatible(c.shape(), r.mode(1).unwrap().shape()).unwrap(),
        "{}: compatible(C, R[1])",
        what
    );
    for i in 0..size(r) {
        let want = ev(a, ev(b, i % sb) + ev(&c, i / sb));
        prop_assert_eq!(ev(r, i), want, "{}: at {}", what, i);
    }
    // The definition keeps every element of A: (B, C) reaches every index below size(A).
    let img = image(r);
    for x in values(a) {
        prop_assert!(img.contains(&x), "{}: offset {} of A is lost", what, x);
    }
    Ok(())
}

/// `logical_divide(a, t)` for any tiler: by mode for tuples, `_` keeps the mode.
fn check_divide(a: &L, t: &Tiler<i64>, r: &tessera_ir::Result<L>) -> Result<(), TestCaseError> {
    match t {
        Tiler::Keep => prop_assert_eq!(r.as_ref().ok(), Some(a)),
        Tiler::Layout(b) => check_divide_leaf(a, b, r)?,
        Tiler::Tuple(ts) => {
            let am = top_modes(a);
            // The whole divide fails exactly when one mode's divide fails.
            let parts: Vec<_> = ts
                .iter()
                .zip(&am)
                .map(|(tk, ak)| (tk, ak, logical_divide(ak, tk)))
                .collect();
            let any_err = parts.iter().any(|(_, _, p)| p.is_err());
            let Ok(r) = r else {
                prop_assert!(
                    any_err,
                    "logical_divide({}, {}) = {:?} but every mode divides",
                    a,
                    t,
                    r
                );
                return Ok(());
            };
            prop_assert!(
                !any_err,
                "logical_divide({}, {}) = {} though a mode fails",
                a,
                t,
                r
            );
            let rm = top_modes(r);
            prop_assert_eq!(rm.len(), am.len(), "logical_divide({}, {}) = {}", a, t, r);
            for (k, (tk, ak, _)) in parts.iter().enumerate() {
                check_divide(ak, tk, &Ok(rm[k].clone()))?;
            }
            for k in ts.len()..am.len() {
                prop_assert_eq!(&rm[k], &am[k]);
            }
        }
    }
    Ok(())
}

/// The number of elements the definition gives: `size(B) * size(complement(B, size(A)))`, by
/// mode for tuples.
fn defined_size(a: &L, t: &Tiler<i64>) -> Option<i64> {
    match t {
        Tiler::Keep => Some(size(a)),
        Tiler::Layout(b) => divide_complement(b, size(a)).ok().map(|c| size(b) * size(&c)),
        Tiler::Tuple(ts) => {
            let am = top_modes(a);
            let mut n = 1i64;
            for (k, m) in am.iter().enumerate() {
                n *= match ts.get(k) {
                    Some(tk) => defined_size(m, tk)?,
                    None => size(m),
                };
            }
            Some(n)
        }
    }
}

/// A layout tile of `d` contiguous or strided indices, `d` anywhere in `1..=2n`: it straddles
/// the leaves of `A` whenever `d` does not divide the first extent, and may not divide `n`.
fn straddling_tiler(n: i64) -> BoxedStrategy<Layout<i64>> {
    (
        1..=(2 * n).clamp(1, 64),
        prop::sample::select(vec![1i64, 1, 1, 2, 3]),
    )
        .prop_map(|(d, s)| Layout::leaf(d, s))
        .boxed()
}

fn any_tiler(a: &L) -> BoxedStrategy<Tiler<i64>> {
    prop_oneof![
        3 => tiler(a),
        2 => straddling_tiler(size(a)).prop_map(Tiler::Layout),
    ]
    .boxed()
}

proptest! {
    #![proptest_config(cfg(1500))]

    #[test]
    fn logical_divide_is_its_definition(
        (a, t) in layout(Gen::ANY.max_size(1024)).prop_flat_map(|a| (Just(a.clone()), any_tiler(&a)))
    ) {
        let r = logical_divide(&a, &t);
        check_divide(&a, &t, &r)?;
    }

    #[test]
    fn gathered_divides_have_the_defined_size(
        (a, t) in layout(Gen::ANY.max_size(1024)).prop_flat_map(|a| (Just(a.clone()), any_tiler(&a)))
    ) {
        let l = logical_divide(&a, &t);
        for (name, r) in [
            ("zipped", zipped_divide(&a, &t)),
            ("tiled", tiled_divide(&a, &t)),
            ("flat", flat_divide(&a, &t)),
        ] {
            prop_assert_eq!(r.is_ok(), l.is_ok(), "{}_divide({}, {}) = {:?} vs {:?}", name, a, t, r, l);
            if let (Ok(r), Ok(l)) = (&r, &l) {
                let n = defined_size(&a, &t).expect("the divide answered, so every complement exists");
                prop_assert_eq!(size(r), n, "{}_divide({}, {}) = {}", name, a, t, r);
                prop_assert_eq!(sorted_values(r), sorted_values(l), "{}_divide({}, {}) = {} vs {}", name, a, t, r, l);
            }
        }
    }

    #[test]
    fn the_issue_examples_follow_the_definition(
        a in prop::sample::select(vec![
            "(8,3):(1,8)", "(16,6):(1,16)", "(12,(5,4)):(1,(12,60))", "((4,4),3):((1,4),16)",
            "(8,4,7):(1,8,32)", "(7,4,1):(1,7,1)", "((7,2),2):((1,7),14)",
        ]),
        d in 1i64..=30,
        s in 1i64..=4,
    ) {
        let a = lay(a);
        let t = Tiler::Layout(Layout::leaf(d, s));
        check_divide(&a, &t, &logical_divide(&a, &t))?;
    }
}

// ---------------------------------------------------------------------------------------------
// Products

/// The complement of the products' definition, `complement(a, size(a) * cosize(b))`, as a
/// function on `[0, size(a) * cosize(b))`: the minimal complement with its last mode absorbing
/// (CuTe extends exactly that last mode to the cotarget, and checks no coverage).
fn product_complement(a: &L, _b: &L) -> tessera_ir::Result<L> {
    complement(a, None)
}

fn check_product_leaf(a: &L, b: &L, r: &tessera_ir::Result<L>) -> Result<(), TestCaseError> {
    let c = product_complement(a, b);
    let what = format!("logical_product({a}, {b}) = {r:?}, complement = {c:?}");
    let (r, c) = match (r, c) {
        (Ok(r), Ok(c)) => (r, c),
        (Ok(_), Err(_)) => {
            return Err(TestCaseError::fail(format!(
                "{what}: answered without a complement"
            )));
        }
        (Err(e), _) => {
            prop_assert!(!e.to_string().is_empty());
            return Ok(());
        }
    };
    let sa = size(a);
    prop_assert_eq!(size(r), sa * size(b), "{}: size", what);
    prop_assert_eq!(&r.mode(0).unwrap(), a, "{}: R[0] != A", what);
    for i in 0..size(r) {
        let want = ev(a, i % sa) + ev(&c, ev(b, i / sa));
        prop_assert_eq!(ev(r, i), want, "{}: at {}", what, i);
    }
    Ok(())
}

fn check_product(a: &L, t: &Tiler<i64>, r: &tessera_ir::Result<L>) -> Result<(), TestCaseError> {
    match t {
        Tiler::Keep => prop_assert_eq!(r.as_ref().ok(), Some(a)),
        Tiler::Layout(b) => check_product_leaf(a, b, r)?,
        Tiler::Tuple(ts) => {
            let Ok(r) = r else { return Ok(()) };
            let (am, rm) = (top_modes(a), top_modes(r));
            prop_assert_eq!(rm.len(), am.len(), "logical_product({}, {}) = {}", a, t, r);
            for k in 0..am.len() {
                match ts.get(k) {
                    Some(tk) => check_product(&am[k], tk, &Ok(rm[k].clone()))?,
                    None => prop_assert_eq!(&rm[k], &am[k]),
                }
            }
        }
    }
    Ok(())
}

/// The indices of each top-level mode of a layout of mode sizes `sizes` at linear index `i`.
fn mode_indices(mut i: i64, sizes: &[i64]) -> Vec<i64> {
    sizes
        .iter()
        .map(|s| {
            let c = i % s;
            i /= s;
            c
        })
        .collect()
}

/// `blocked_product` (`tile_first`) or `raked_product` against the definition: pad to the
/// larger rank with `1:0`, and `R(((a_k, g_k))_k) == A(a) + C(B(g))`.
fn check_rank_sensitive(a: &L, b: &L, r: &L, tile_first: bool) -> Result<(), TestCaseError> {
    let what = format!(
        "{}_product({a}, {b}) = {r}",
        if tile_first { "blocked" } else { "raked" }
    );
    let rank = a.rank().max(b.rank());
    prop_assert_eq!(r.rank(), rank, "{}: rank", what);
    prop_assert_eq!(size(r), size(a) * size(b), "{}: size", what);
    let c = product_complement(a, b).map_err(|e| TestCaseError::fail(format!("{what}: {e}")))?;
    let pad = |l: &L| {
        let mut s: Vec<i64> = top_modes(l).iter().map(size).collect();
        s.resize(rank, 1);
        s
    };
    let (sa, sb) = (pad(a), pad(b));
    for x in 0..size(a) {
        for y in 0..size(b) {
            let (ai, bi) = (mode_indices(x, &sa), mode_indices(y, &sb));
            let crd = HTuple::from_modes((0..rank).map(|k| {
                let (p, q) = if tile_first {
                    (ai[k], bi[k])
                } else {
                    (bi[k], ai[k])
                };
                HTuple::from_modes([HTuple::leaf(p), HTuple::leaf(q)])
            }));
            let got = r
                .eval(&crd)
                .map_err(|e| TestCaseError::fail(format!("{what}: {crd}: {e}")))?;
            let want = ev(a, x) + ev(&c, ev(b, y));
            prop_assert_eq!(got.as_int().copied(), Some(want), "{}: at {}", what, crd);
        }
    }
    Ok(())
}

/// A product tiler: a small layout, or by mode small layouts and `_`.
fn product_tiler(a: &L) -> BoxedStrategy<Tiler<i64>> {
    let small = || layout(Gen::ANY.max_size(6).max_leaves(2)).prop_map(Tiler::Layout);
    let rank = top_modes(a).len();
    prop_oneof![
        2 => layout(Gen::ANY.max_size(16).max_leaves(3)).prop_map(Tiler::Layout),
        1 => prop::collection::vec(prop_oneof![1 => Just(Tiler::Keep), 3 => small()], 1..=rank.min(2))
            .prop_map(Tiler::Tuple),
    ]
    .boxed()
}

proptest! {
    #![proptest_config(cfg(800))]

    #[test]
    fn logical_product_is_its_definition(
        (a, t) in layout(Gen::ANY.max_size(128)).prop_flat_map(|a| (Just(a.clone()), product_tiler(&a)))
    ) {
        check_product(&a, &t, &logical_product(&a, &t))?;
    }

    #[test]
    fn blocked_and_raked_pad_unequal_ranks(
        a in layout(Gen::ANY.max_size(64).max_leaves(4)),
        b in layout(Gen::ANY.max_size(8).max_leaves(3)),
    ) {
        for tile_first in [true, false] {
            let r = if tile_first { blocked_product(&a, &b) } else { raked_product(&a, &b) };
            match (r, product_complement(&a, &b)) {
                (Ok(r), _) => check_rank_sensitive(&a, &b, &r, tile_first)?,
                // The definition fails where its complement, or the complement composed with
                // the padded B, is not a layout.
                (Err(e), c) => {
                    let mut bm = top_modes(&b);
                    bm.resize(a.rank().max(b.rank()), Layout::leaf(1, 0));
                    let padded = Layout::concat(bm);
                    let grid = c.and_then(|c| composition(&c, &padded));
                    prop_assert!(grid.is_err(), "product({}, {}) failed: {} but the grid is {:?}", a, b, e, grid);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// local_tile and local_partition are zipped_divide, sliced

proptest! {
    #![proptest_config(cfg(600))]

    #[test]
    fn local_tile_is_zipped_divide_sliced(
        (a, t) in layout(Gen::NONNEG.max_size(512)).prop_flat_map(|a| (Just(a.clone()), any_tiler(&a))),
        pick in any::<u64>(),
    ) {
        prop_assume!(t != Tiler::Keep);
        let z = zipped_divide(&a, &t);
        let Ok(z) = z else {
            prop_assert!(local_tile(&unswizzled(0, a.clone()), &t, &HTuple::leaf(0)).is_err());
            return Ok(());
        };
        let (tile, rest) = (z.mode(0).unwrap(), z.mode(1).unwrap());
        let (st, sr) = (size(&tile), size(&rest));
        let c = (pick % sr as u64) as i64;
        let v = local_tile(&unswizzled(0, a.clone()), &t, &HTuple::leaf(c))
            .map_err(|e| TestCaseError::fail(format!("local_tile({a}, {t}, {c}): {e}")))?;
        prop_assert_eq!(size(&v.inner), st, "local_tile({}, {}, {}) = {}", a, t, c, v);
        for i in 0..st {
            let got = v.eval_index(&i).unwrap();
            prop_assert_eq!(got, ev(&z, i + st * c), "local_tile({}, {}, {}) = {} at {}", a, t, c, v, i);
        }
    }

    #[test]
    fn local_partition_is_zipped_divide_sliced(
        (a, s) in layout(Gen::NONNEG.max_size(512)).prop_flat_map(|a| {
            let rank = top_modes(&a).len();
            (Just(a), prop::collection::vec(1i64..=4, 1..=rank))
        }),
        pick in any::<u64>(),
    ) {
        let threads = HTuple::flat(s.iter().copied());
        let tiler = Tiler::from_shape(&threads);
        let z = zipped_divide(&a, &tiler);
        let n: i64 = s.iter().product();
        let t = (pick % n as u64) as i64;
        let p = local_partition(&unswizzled(0, a.clone()), &Threads::Shape(threads.clone()), &HTuple::leaf(t));
        let Ok(z) = z else {
            prop_assert!(p.is_err(), "local_partition({}, {}, {}) = {:?}", a, threads, t, p);
            return Ok(());
        };
        let p = p.map_err(|e| TestCaseError::fail(format!("local_partition({a}, {threads}, {t}): {e}")))?;
        let st = size(&z.mode(0).unwrap());
        prop_assert_eq!(st, n);
        prop_assert_eq!(size(&p.inner), size(&z.mode(1).unwrap()));
        for j in 0..size(&p.inner) {
            let got = p.eval_index(&j).unwrap();
            prop_assert_eq!(got, ev(&z, t + st * j), "local_partition({}, {}, {}) = {} at {}", a, threads, t, p, j);
        }
    }
}
