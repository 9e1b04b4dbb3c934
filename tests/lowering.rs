//! Lowering: evaluating the lowered index expression equals evaluating the layout, at every
//! index of small layouts and at random indices of large ones; for plain, nested, negative and
//! zero strides, coordinate strides, swizzled and offset layouts, and symbolic extents.

use proptest::prelude::*;
use std::collections::HashMap;
use tessera::ir::index::{lower_composed, lower_coords, lower_index};
use tessera::ir::{ComposedLayout, HTuple, Layout, Stride, Swizzle};
use tessera::lang::{Session, Value};

fn leaf() -> impl Strategy<Value = (i64, i64)> {
    (1i64..=7, prop_oneof![3 => 0i64..=40, 1 => -12i64..0])
}

/// A layout nested to depth 2 with integer strides.
fn layout() -> impl Strategy<Value = Layout<i64>> {
    prop::collection::vec(prop::collection::vec(leaf(), 1..=3), 1..=3)
        .prop_map(|modes| {
            let m: Vec<Layout<i64>> = modes
                .into_iter()
                .map(|leaves| {
                    if leaves.len() == 1 {
                        Layout::leaf(leaves[0].0, leaves[0].1)
                    } else {
                        Layout::concat(leaves.into_iter().map(|(s, d)| Layout::leaf(s, d)))
                    }
                })
                .collect();
            if m.len() == 1 {
                m.into_iter().next().unwrap()
            } else {
                Layout::concat(m)
            }
        })
        .prop_filter("at most 2048 elements", |l| l.size().is_ok_and(|n| n <= 2048))
}

fn as_i64(s: Stride<i64>) -> i64 {
    *s.as_int().expect("integer codomain")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn index_lowering_matches_every_index(l in layout()) {
        let e = lower_index(&l).unwrap();
        let n = l.size().unwrap();
        // Every index, and indices past the size (the last mode absorbs them).
        for i in 0..n + 5 {
            let want = as_i64(l.eval_index(&i).unwrap());
            prop_assert_eq!(e.eval(&[("i", i)]).unwrap(), vec![want], "{} at {}", l, i);
        }
    }

    #[test]
    fn coordinate_lowering_matches(l in layout(), seed in any::<u64>()) {
        let e = lower_coords(&l).unwrap();
        let mut s = seed;
        let crd: Vec<i64> = l.flat_shape().iter().map(|x| { let c = (s % *x as u64) as i64; s /= 7; c }).collect();
        let want = as_i64(l.eval(&HTuple::unflatten(crd.clone(), l.shape().profile()).unwrap()).unwrap());
        let names: Vec<String> = (0..crd.len()).map(|k| format!("c{k}")).collect();
        let inputs: Vec<(&str, i64)> = names.iter().map(String::as_str).zip(crd.iter().copied()).collect();
        prop_assert_eq!(e.eval(&inputs).unwrap(), vec![want]);
    }

    #[test]
    fn swizzled_lowering_matches(l in layout(), b in 0i64..4, m in 0i64..4, s in 0i64..5, off in 0i64..64, neg in any::<bool>()) {
        let shift = if neg { -(s.max(b)) } else { s.max(b) };
        let sw = Swizzle::new(b, m, shift).unwrap();
        let c = ComposedLayout::new(sw, off, l.clone());
        let e = lower_composed(&c).unwrap();
        for i in 0..l.size().unwrap() {
            prop_assert_eq!(e.eval(&[("i", i)]).unwrap(), vec![c.eval_index(&i).unwrap()], "{} at {}", c, i);
        }
    }

    #[test]
    fn large_layouts_at_random_indices(shape in prop::collection::vec(2i64..=64, 3..=5), idx in prop::collection::vec(any::<u32>(), 32)) {
        // Row-major strides over big extents: sizes up to 64^5.
        let mut d = vec![1i64; shape.len()];
        for k in (0..shape.len() - 1).rev() {
            d[k] = d[k + 1] * shape[k + 1];
        }
        let l = Layout::concat(shape.iter().zip(&d).map(|(s, d)| Layout::leaf(*s, *d)));
        let e = lower_index(&l).unwrap();
        let n = l.size().unwrap();
        for r in idx {
            let i = r as i64 % n;
            prop_assert_eq!(e.eval(&[("i", i)]).unwrap(), vec![as_i64(l.eval_index(&i).unwrap())]);
        }
    }
}

#[test]
fn coordinate_strides_lower_per_axis() {
    let l = tessera::ir::parse_layout("(4,(2,3)):(1@0,(1@1,2@1))").unwrap();
    let e = lower_index(&l).unwrap();
    let names: Vec<&str> = e.outputs().iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["coord[0]", "coord[1]"]);
    for i in 0..24 {
        let v = tessera::lang::eval_str(&format!("(4,(2,3)):(1@0,(1@1,2@1))({i})")).unwrap();
        let got = e.eval(&[("i", i)]).unwrap();
        assert_eq!(v, format!("({},{})", got[0], got[1]));
    }
}

#[test]
fn symbolic_lowering_matches_instantiation() {
    let s = Session::new(&["M where M % 16 == 0, 16 <= M <= 1024", "N"], &[]).unwrap();
    for src in [
        "((16,M/16),N):((1,16),M)",
        "logical_divide((M,N):(1,M), (16:1,4:1))",
        "(M,N,4):(N*4,4,1)",
        "Sw<3,0,3> o (8,M/2):(M/2,1)",
    ] {
        let v = s.value(src).unwrap();
        for (m, n) in [(16, 1), (32, 4), (64, 3), (1024, 1)] {
            let vals: HashMap<String, i64> = [("M".into(), m), ("N".into(), n)].into_iter().collect();
            let conc = Session::new(&["M", "N"], &[&format!("M={m}"), &format!("N={n}")]).unwrap();
            let cv = conc.value(src).unwrap();
            let (e, size, eval): (_, i64, Box<dyn Fn(i64) -> i64>) = match (&v, &cv) {
                (Value::Layout(l), Value::Layout(c)) => {
                    let c = c.clone();
                    (
                        lower_index(l).unwrap(),
                        c.size().unwrap().eval(&vals).unwrap(),
                        Box::new(move |i| {
                            c.eval_index(&tessera::ir::Int::lit(i))
                                .unwrap()
                                .as_int()
                                .unwrap()
                                .eval(&HashMap::new())
                                .unwrap()
                        }),
                    )
                }
                (Value::Composed(l), Value::Composed(c)) => {
                    let c = c.clone();
                    (
                        lower_composed(l).unwrap(),
                        c.inner.size().unwrap().eval(&vals).unwrap(),
                        Box::new(move |i| {
                            c.eval_index(&tessera::ir::Int::lit(i))
                                .unwrap()
                                .eval(&HashMap::new())
                                .unwrap()
                        }),
                    )
                }
                other => panic!("{src}: {other:?}"),
            };
            for i in 0..size {
                let got = e.eval(&[("i", i), ("M", m), ("N", n)]).unwrap();
                assert_eq!(got, vec![eval(i)], "{src} at M={m}, N={n}, i={i}");
            }
        }
    }
}
