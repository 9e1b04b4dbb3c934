//! `right_inverse` / `left_inverse` of swizzled layouts `Sw o L`: CuTe C++'s answer
//! `make_swizzle<R(yyy),R(zzz)>() o inverse(L)`, kept only where it meets the definition.
//!
//! Every answer is re-checked here by brute force with an evaluator of our own (the swizzle's
//! bit formula and the layout's leaves), independent of `ComposedLayout::eval_index`; layouts
//! that permute bits (where CuTe's answer is right whenever `make_swizzle` can build it) never
//! get the "breaks the definition" error.

mod common;

use common::*;
use proptest::prelude::*;
use std::sync::Arc;
use tessera_ir::algebra::{
    SWIZZLED_INVERSE_CHECK_LIMIT, left_inverse, left_inverse_swizzled, right_inverse, right_inverse_swizzled,
};
use tessera_ir::sym::{Facts, SymInt};
use tessera_ir::{ComposedLayout, Error, HTuple, Int, Layout, Stride, Swizzle};

/// `x ^ ((x & yyy) >> s)`, written out from the masks.
fn sw_apply(b: u32, m: u32, s: i32, x: i64) -> i64 {
    if b == 0 {
        return x;
    }
    let run = (1i64 << b) - 1;
    let yyy = run << (m as i32 + s.max(0));
    let moved = if s >= 0 { (x & yyy) >> s } else { (x & yyy) << -s };
    x ^ moved
}

/// `G(k)` by our own evaluator: the layout by its leaves, then the swizzle.
fn eval(c: &ComposedLayout<i64>, k: i64) -> i64 {
    let v = ev(&c.inner, k) + c.offset;
    match c.swizzle {
        Some(sw) => sw_apply(sw.bits, sw.base, sw.shift, v),
        None => v,
    }
}

fn composed(sw: Swizzle, l: Layout<i64>) -> ComposedLayout<i64> {
    ComposedLayout::new(sw, 0, l)
}

/// The definition of a right inverse, pointwise.
fn is_right_inverse(f: &ComposedLayout<i64>, g: &ComposedLayout<i64>) -> Result<(), String> {
    let (nf, ng) = (size(&f.inner), size(&g.inner));
    for k in 0..ng {
        let x = eval(g, k);
        if !(0..nf).contains(&x) || eval(f, x) != k {
            return Err(format!("G = {g}, F = {f}: G({k}) = {x}"));
        }
    }
    Ok(())
}

/// The definition of a left inverse, pointwise.
fn is_left_inverse(f: &ComposedLayout<i64>, g: &ComposedLayout<i64>) -> Result<(), String> {
    let (nf, ng) = (size(&f.inner), size(&g.inner));
    for i in 0..nf {
        let x = eval(f, i);
        if !(0..ng).contains(&x) || eval(g, x) != i {
            return Err(format!("G = {g}, F = {f}: F({i}) = {x}"));
        }
    }
    Ok(())
}

fn swizzle() -> impl Strategy<Value = Swizzle> {
    (0i64..4, 0i64..5, 0i64..4, any::<bool>()).prop_map(|(b, m, extra, neg)| {
        let s = (b + extra).max(1);
        Swizzle::new(b, m, if neg { -s } else { s }).unwrap()
    })
}

/// A layout that permutes the bits of `[0, 2^k)`: power-of-two modes with the strides of a
/// permuted compact layout.
fn bit_permutation() -> impl Strategy<Value = Layout<i64>> {
    prop::collection::vec(1u32..4, 1..5)
        .prop_flat_map(|logs| {
            let n = logs.len();
            (Just(logs), Just((0..n).collect::<Vec<_>>()).prop_shuffle())
        })
        .prop_map(|(logs, order)| {
            let mut stride = vec![0i64; logs.len()];
            let mut acc = 1i64;
            for &j in &order {
                stride[j] = acc;
                acc <<= logs[j];
            }
            let shape: Vec<i64> = logs.iter().map(|l| 1i64 << l).collect();
            Layout::new(
                HTuple::from_modes(shape.into_iter().map(HTuple::leaf)),
                HTuple::from_modes(stride.into_iter().map(|d| HTuple::leaf(Stride::Int(d)))),
            )
            .unwrap()
        })
}

/// An error that is input's, never Tessera's, and says something.
fn proper_error(e: &Error) -> Result<(), TestCaseError> {
    prop_assert!(!e.is_internal(), "internal error: {e}");
    prop_assert!(!e.to_string().is_empty());
    Ok(())
}

proptest! {
    #![proptest_config(cfg(600))]

    /// Any layout, any swizzle: an answer meets the definition at every point.
    #[test]
    fn every_answer_meets_the_definition(l in layout(Gen::NONNEG.max_size(512).max_leaves(4)), sw in swizzle()) {
        let f = composed(sw, l);
        match right_inverse_swizzled(&f) {
            Ok(g) => {
                prop_assert_eq!(g.offset, 0);
                if let Err(m) = is_right_inverse(&f, &g) { prop_assert!(false, "right_inverse: {}", m); }
            }
            Err(e) => proper_error(&e)?,
        }
        match left_inverse_swizzled(&f) {
            Ok(g) => { if let Err(m) = is_left_inverse(&f, &g) { prop_assert!(false, "left_inverse: {}", m); } }
            Err(e) => proper_error(&e)?,
        }
    }

    /// A layout that permutes bits is linear over GF(2): CuTe's answer is then right wherever
    /// `make_swizzle` can build it, and it has the full size.
    #[test]
    fn bit_permutations_are_inverted(l in bit_permutation(), sw in swizzle()) {
        let f = composed(sw, l.clone());
        let n = size(&l);
        let top = sw.base + sw.bits + sw.shift.unsigned_abs();
        for (name, got) in [("right_inverse", right_inverse_swizzled(&f)), ("left_inverse", left_inverse_swizzled(&f))] {
            match got {
                Ok(g) => {
                    prop_assert_eq!(size(&g.inner), n);
                    let check = if name == "right_inverse" { is_right_inverse(&f, &g) } else { is_left_inverse(&f, &g) };
                    if let Err(m) = check { prop_assert!(false, "{}: {}", name, m); }
                }
                Err(e) => {
                    let m = e.to_string();
                    // Within the domain's bits only make_swizzle can fail; past them CuTe's
                    // masks are read outside the layout and the check may refuse the answer.
                    if (1i64 << top) <= n || sw.bits == 0 {
                        prop_assert!(m.contains("make_swizzle"), "{}({}): {}", name, f, m);
                    }
                }
            }
        }
    }
}

#[test]
fn cute_examples() {
    let f = composed(Swizzle::new(3, 0, 3).unwrap(), lay("(8,8):(8,1)"));
    let r = right_inverse_swizzled(&f).unwrap();
    // R = (8,8):(8,1) swaps the two 3-bit groups, so the swizzle's source and target swap.
    assert_eq!(r.to_string(), "Sw<3,0,-3> o (8,8):(8,1)");
    is_right_inverse(&f, &r).unwrap();
    let l = left_inverse_swizzled(&f).unwrap();
    assert_eq!(l.to_string(), "Sw<3,0,-3> o (8,8):(8,1)");
    is_left_inverse(&f, &l).unwrap();

    // A column-major layout: R is the identity on the bits, the swizzle stays.
    let f = composed(Swizzle::new(2, 0, 2).unwrap(), lay("(4,4):(1,4)"));
    assert_eq!(
        right_inverse_swizzled(&f).unwrap().to_string(),
        "Sw<2,0,2> o 16:1"
    );

    // The SM80 128-byte f16 atom: Sw<3,3,3> o (8,64):(64,1).
    let f = composed(Swizzle::new(3, 3, 3).unwrap(), lay("(8,64):(64,1)"));
    let r = right_inverse_swizzled(&f).unwrap();
    assert_eq!(r.inner, right_inverse(&f.inner).unwrap());
    is_right_inverse(&f, &r).unwrap();
    let l = left_inverse_swizzled(&f).unwrap();
    assert_eq!(l.inner, left_inverse(&f.inner).unwrap());
    is_left_inverse(&f, &l).unwrap();
}

#[test]
fn an_identity_swizzle_leaves_the_plain_inverse() {
    let f = composed(Swizzle::new(0, 4, 3).unwrap(), lay("(4,8):(8,1)"));
    let g = right_inverse_swizzled(&f).unwrap();
    assert_eq!(g.swizzle, None);
    assert_eq!(g.inner.to_string(), "(8,4):(4,1)");
}

/// `Sw<3,4,3>` reads bit 9, outside the 512 offsets of the layout: CuTe evaluates `R` at the
/// mask past its size and builds `Sw<3,1,3> o (8,64):(64,1)`, which is not a right inverse
/// (`G(1) = 72`, `F(72) = 65`).
#[test]
fn cutes_answer_that_breaks_the_definition_is_an_error() {
    let f = composed(Swizzle::new(3, 4, 3).unwrap(), lay("(64,8):(8,1)"));
    let e = right_inverse_swizzled(&f).unwrap_err().to_string();
    assert!(
        e.contains("Sw<3,1,3> o (8,64):(64,1)") && e.contains("breaks the definition"),
        "{e}"
    );
    assert!(e.contains("G(1) = 72") && e.contains("F(72) = 65"), "{e}");
}

#[test]
fn bits_that_make_swizzle_cannot_join_are_an_error() {
    let f = composed(Swizzle::new(3, 0, 3).unwrap(), lay("(8,4):(4,1)"));
    let e = right_inverse_swizzled(&f).unwrap_err().to_string();
    assert!(e.contains("make_swizzle"), "{e}");
}

#[test]
fn an_offset_is_an_error_naming_cutes_form() {
    let f = ComposedLayout::new(Swizzle::new(3, 0, 3).unwrap(), 4, lay("(8,8):(8,1)"));
    let e = right_inverse_swizzled(&f).unwrap_err().to_string();
    assert!(e.contains("o -4 o the swizzle"), "{e}");
    let e = left_inverse_swizzled(&f).unwrap_err().to_string();
    assert!(e.contains("left_inverse"), "{e}");
}

#[test]
fn the_check_has_a_limit() {
    let n = SWIZZLED_INVERSE_CHECK_LIMIT * 2;
    let f = composed(Swizzle::new(3, 0, 3).unwrap(), Layout::leaf(n, 1));
    let e = right_inverse_swizzled(&f).unwrap_err().to_string();
    assert!(e.contains("past the limit"), "{e}");
    // At the limit it is checked and answered.
    let f = composed(
        Swizzle::new(3, 0, 3).unwrap(),
        Layout::leaf(SWIZZLED_INVERSE_CHECK_LIMIT, 1),
    );
    assert!(right_inverse_swizzled(&f).is_ok());
}

/// Symbolic extents: an error (the check needs every point), never a panic or a guess.
#[test]
fn symbolic_extents_are_an_error() {
    let mut facts = Facts::default();
    facts.declare("N where N % 8 == 0").unwrap();
    let facts = Arc::new(facts);
    let n = SymInt::param("N", &facts);
    let l = Layout::new(
        HTuple::from_modes(vec![HTuple::leaf(SymInt::lit(8)), HTuple::leaf(n)]),
        HTuple::from_modes(vec![
            HTuple::leaf(Stride::Int(SymInt::lit(1))),
            HTuple::leaf(Stride::Int(SymInt::lit(8))),
        ]),
    )
    .unwrap();
    let f = ComposedLayout::new(Swizzle::new(3, 0, 3).unwrap(), SymInt::lit(0), l);
    for e in [
        right_inverse_swizzled(&f).unwrap_err(),
        left_inverse_swizzled(&f).unwrap_err(),
    ] {
        assert!(
            matches!(e, Error::NotConstant(_) | Error::Undecided { .. }),
            "{e:?}"
        );
    }
}
