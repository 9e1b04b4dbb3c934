//! Property tests of the CuTe functions added for PyCuTe and CuTe DSL parity: mode edits
//! (`append`, `prepend`, `replace`, `group_modes`), int tuple division (`shape_div`,
//! `ceil_div`, `elem_scale`), `filter` by mode, `filter_zeros`, `max_common_layout`,
//! `tile_to_shape`, `make_fragment_like`, `upcast`/`downcast`; each on its post-condition,
//! pointwise where it has one.

mod common;

use common::*;
use proptest::prelude::*;
use std::collections::BTreeSet;
use tessera_ir::algebra::*;
use tessera_ir::shape::product_each;
use tessera_ir::{HTuple, Layout, Stride};

/// The column-major compact layout of a shape.
fn compact(s: &HTuple<i64>) -> Layout<i64> {
    Layout::compact(s).unwrap()
}

proptest! {
    #![proptest_config(cfg(1500))]

    #[test]
    fn mode_edits_post(l in layout(Gen::ANY), x in layout(Gen::ANY), k in 0usize..4) {
        let r = l.rank();
        let ap = must(on_layouts(&l, &x, |a, b| extend(a, b, None, End::Back), |a, b| extend(a, b, None, End::Back)), || format!("append({l}, {x})"))?;
        prop_assert_eq!(ap.rank(), r + 1);
        prop_assert_eq!(ap.mode(r).unwrap(), x.clone());
        let pre = must(on_layouts(&l, &x, |a, b| extend(a, b, Some(r + k), End::Front), |a, b| extend(a, b, Some(r + k), End::Front)), || format!("prepend({l}, {x}, {})", r + k))?;
        prop_assert_eq!(if k == 0 { r } else { pre.rank() }, r + k);
        // The original modes keep their values: index i of mode j is the same offset.
        for j in 0..r {
            let (m, n) = (l.modes()[j].clone(), pre.modes()[j + k].clone());
            if k > 0 || !l.shape().is_leaf() {
                prop_assert_eq!(values(&m), values(&n));
            }
        }
        let g = must(group_modes(l.shape(), k.min(r), None), || format!("group_modes({l})"))?;
        prop_assert_eq!(g.leaves(), l.shape().leaves());
        if k < r {
            let rep = must(on_layouts(&l, &x, |a, b| replace(a, k, b), |a, b| replace(a, k, b)), || format!("replace({l}, {k}, {x})"))?;
            if l.shape().is_leaf() {
                // CuTe's replace<0> of a non-tuple is the element itself.
                prop_assert_eq!(&rep, &x);
            } else {
                prop_assert_eq!(rep.mode(k).unwrap(), x.clone());
                prop_assert_eq!(rep.rank(), r);
            }
        } else {
            prop_assert!(replace(l.shape(), r.max(1) + k, x.shape()).is_err());
        }
    }

    #[test]
    fn tuple_division_post(a in shape(4, 4096), b in 1i64..=64) {
        let bt = HTuple::leaf(b);
        let c = must(ceil_div(&a, &bt), || format!("ceil_div({a}, {b})"))?;
        prop_assert!(c.congruent(&a));
        // What is left of b after each mode, and each mode's quotient, by the definition.
        let mut rest = b;
        for (m, q) in a.modes().iter().zip(c.modes().iter()) {
            let p = tsize(m);
            if m.leaves().len() == 1 {
                prop_assert_eq!(q.leaves()[0], (p + rest - 1) / rest, "ceil_div({}, {}) = {}", a, b, c);
            }
            rest = (rest + p - 1) / p;
        }
        match shape_div(&a, &bt) {
            Ok(s) => {
                prop_assert_eq!(&s, &c);
                // Exact steps: the product is divided exactly, or saturates at 1.
                if tsize(&a) % b == 0 {
                    prop_assert_eq!(tsize(&s), tsize(&a) / b, "shape_div({}, {}) = {}", a, b, s);
                }
            }
            Err(e) => prop_assert!(e.to_string().contains("divisibility condition"), "{}", e),
        }
        let e = must(elem_scale(&a, &a), || format!("elem_scale({a}, {a})"))?;
        prop_assert!(e.congruent(&a));
    }

    #[test]
    fn filter_by_mode_keeps_each_image(l in layout(Gen::ANY)) {
        let p = HTuple::from_modes((0..l.rank()).map(|k| HTuple::leaf(k % 2 == 0)));
        let r = must(filter_by(&l, &p), || format!("filter({l}, profile)"))?;
        prop_assert_eq!(r.rank(), l.rank());
        for (m, n) in l.modes().iter().zip(r.modes().iter()) {
            prop_assert_eq!(image(m), image(n), "filter_by({}) = {}", l, r);
        }
        let z = must(filter_zeros(&l), || format!("filter_zeros({l})"))?;
        prop_assert_eq!(image(&z), image(&l));
        prop_assert_eq!(z.stride(), l.stride());
        for (s, d) in z.flat_shape().iter().zip(z.flat_stride()) {
            if int_stride(d) == 0 {
                prop_assert_eq!(*s, 1);
            }
        }
    }

    #[test]
    fn max_common_layout_post(a in layout(Gen::ANY.max_size(512)), b in layout(Gen::ANY.max_size(512))) {
        let (Ok(r), Ok(v)) = (max_common_layout(&a, &b), max_common_vector(&a, &b)) else {
            return Ok(());
        };
        for i in 0..size(&r) {
            if r.to_string() == "1:0" {
                break;
            }
            let j = ev(&r, i);
            prop_assert_eq!(ev(&a, j), i, "max_common_layout({}, {}) = {}", a, b, r);
            prop_assert_eq!(ev(&b, j), i, "max_common_layout({}, {}) = {}", a, b, r);
        }
        prop_assert!(size(&r) == v || (size(&r) == 1 && v == 1), "max_common_layout({}, {}) = {}, vector {}", a, b, r, v);
    }

    #[test]
    fn tile_to_shape_post(block in shape(2, 16), mult in prop::collection::vec(1i64..=4, 1..=3)) {
        let bl = compact(&block);
        let r = block.rank().max(mult.len());
        let padded = extend(&block, &HTuple::leaf(1), Some(r), End::Back).unwrap();
        let bs = product_each(&padded).unwrap();
        let target = HTuple::flat(bs.leaves().iter().zip(mult.iter().chain(std::iter::repeat(&1))).map(|(x, m)| x * m));
        let t = must(tile_to_shape(&bl, &target, None), || format!("tile_to_shape({bl}, {target})"))?;
        prop_assert_eq!(product_each(t.shape()).unwrap(), target.clone());
        // A compact block tiled by a compact grid: a bijection onto [0, size).
        let n = tsize(&target);
        prop_assert_eq!(sorted_values(&t), (0..n).collect::<Vec<_>>(), "tile_to_shape({}, {}) = {}", bl, target, t);
        // A block that does not divide: an error naming the condition.
        let bad = HTuple::flat(bs.leaves().iter().map(|x| x + 1));
        if bs.leaves().iter().any(|&x| x > 1) {
            prop_assert!(tile_to_shape(&bl, &bad, None).is_err() || bs.leaves().iter().zip(bad.leaves()).all(|(x, y)| y % x == 0));
        }
    }

    #[test]
    fn make_fragment_like_post(l in layout(Gen::ANY)) {
        let r = must(make_fragment_like(&l), || format!("make_fragment_like({l})"))?;
        prop_assert_eq!(product_each(r.shape()).unwrap(), product_each(l.shape()).unwrap());
        // Distinct offsets 0..n, each reached equally often (stride-0 leaves of mode 0 repeat).
        let vals = values(&r);
        let set: BTreeSet<i64> = vals.iter().copied().collect();
        let n = set.len() as i64;
        prop_assert_eq!(set, (0..n).collect::<BTreeSet<_>>(), "make_fragment_like({}) = {}", l, r);
    }

    #[test]
    fn upcast_downcast_are_recast(l in layout(Gen::ANY), n in 1i64..=8) {
        let same = |x: tessera_ir::Result<Layout<i64>>, y: tessera_ir::Result<Layout<i64>>| match (x, y) {
            (Ok(a), Ok(b)) => a == b,
            (Err(a), Err(b)) => a.to_string() == b.to_string(),
            _ => false,
        };
        prop_assert!(same(upcast(&l, n), recast(&l, n, 1)));
        prop_assert!(same(downcast(&l, n), recast(&l, 1, n)));
        // No unit stride: downcast refuses, as CuTe's "Downcast requires adjacent elements".
        if n > 1 && !l.flat_stride().iter().any(|d| *d == Stride::Int(1)) {
            prop_assert!(downcast(&l, n).is_err(), "downcast({}, {})", l, n);
        }
    }
}

proptest! {
    #![proptest_config(cfg(500))]

    #[test]
    fn recast_composed_addresses_the_same_bytes(
        ext in prop::collection::vec(1i64..=4, 1..=3),
        k in 0u32..=2,
        bits in 1i64..=3, extra in 0i64..=2, more in 0i64..=2, neg in any::<bool>(), off in 0i64..=3,
    ) {
        let n = 1i64 << k;
        // A column-major compact layout whose first extent n divides, a swizzle of base >= k.
        let mut sh = ext.clone();
        sh[0] *= n;
        let st: Vec<i64> = sh.iter().scan(1, |acc, &x| { let d = *acc; *acc *= x; Some(d) }).collect();
        let l = Layout::new(HTuple::flat(sh.clone()), HTuple::flat(st.into_iter().map(Stride::Int))).unwrap();
        let shift = if neg { -(bits + more) } else { bits + more };
        let sw = tessera_ir::Swizzle::new(bits, i64::from(k) + extra, shift).unwrap();
        let c = tessera_ir::ComposedLayout::new(sw, off * n, l.clone());
        let total: i64 = sh.iter().product();
        let ev_c = |c: &tessera_ir::ComposedLayout<i64>, i: i64| c.eval_index(&i).unwrap();
        // Upcast by n: element j of R covers old elements n*j .. n*j + n - 1.
        let up = recast_composed(&c, n, 1).unwrap();
        for j in 0..total / n {
            for t in 0..n {
                prop_assert_eq!(n * ev_c(&up, j) + t, ev_c(&c, n * j + t), "{} up {} = {}", c, n, up);
            }
        }
        // Downcast by n: old element i is new elements n*i .. n*i + n - 1.
        let down = recast_composed(&c, 1, n).unwrap();
        for i in 0..total {
            for t in 0..n {
                prop_assert_eq!(ev_c(&down, n * i + t), n * ev_c(&c, i) + t, "{} down {} = {}", c, n, down);
            }
        }
    }
}

#[test]
fn seed_values() {
    let t = |s: &str| tessera_ir::parse_int_tuple(s).unwrap();
    // PyCuTe's shape_div examples, and CuTe's.
    assert_eq!(shape_div(&t("(3,4)"), &t("6")).unwrap(), t("(1,2)"));
    assert_eq!(shape_div(&t("(3,4)"), &t("12")).unwrap(), t("(1,1)"));
    assert_eq!(shape_div(&t("(3,4)"), &t("36")).unwrap(), t("(1,1)"));
    assert_eq!(shape_div(&t("((3,4),6)"), &t("36")).unwrap(), t("((1,1),2)"));
    assert_eq!(shape_div(&t("(6,(3,4))"), &t("36")).unwrap(), t("(1,(1,2))"));
    // The downcast: 8:4 has no unit stride; with one the element count doubles.
    assert!(recast(&lay("8:4"), 1, 2).is_err());
    assert_eq!(
        recast(&lay("(8,2):(4,1)"), 1, 2).unwrap().to_string(),
        "(8,4):(8,1)"
    );
}
