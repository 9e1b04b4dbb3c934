//! Property tests of the layout algebra, part two: the inverses, the null space, `layout_add`,
//! `recast` and the constructors, each on its seed post-condition (see `props_algebra.rs` for
//! coalesce, composition, complement, the divides and the products).

mod common;

use common::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use std::collections::BTreeSet;
use tessera_ir::algebra::*;
use tessera_ir::shape::idx2crd;
use tessera_ir::{HTuple, Layout, Stride};

type L = Layout<i64>;

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
        // R(.., k*c + t, ..) == k*L(.., c, ..) + t. Without a unit stride there is no place
        // for them: an error (CuTe's downcast: "requires adjacent elements").
        let (ls, unit): (&[i64], Vec<usize>) = {
            let ls = l.flat_shape();
            (ls, (0..ls.len()).filter(|&q| int_stride(&l.flat_stride()[q]) == 1).collect())
        };
        let p = unit.iter().copied().find(|&q| ls[q] != 1).or(unit.first().copied());
        let Some(p) = p else {
            let e = recast(&l, 1, k).expect_err("no unit stride: an error");
            prop_assert!(e.to_string().contains("requires adjacent elements"), "{}", e);
            return Ok(());
        };
        let r = must(recast(&l, 1, k), || format!("recast({l}, 1/{k})"))?;
        let rs = r.flat_shape();
        let what = format!("recast({l}, 1/{k}) = {r}");
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
