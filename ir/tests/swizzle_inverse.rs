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
        // A layout that is not injective has no left inverse: with a swizzle of no bits the
        // answer is plain left_inverse's (CuTe's weaker post-condition), else an error.
        match left_inverse_swizzled(&f) {
            Ok(g) if is_injective(&f.inner) => { if let Err(m) = is_left_inverse(&f, &g) { prop_assert!(false, "left_inverse: {}", m); } }
            Ok(g) => prop_assert!(sw.bits == 0 && g.swizzle.is_none(), "left_inverse of a non-injective {}: {}", f, g),
            Err(e) => proper_error(&e)?,
        }
    }

    /// A layout that permutes bits is linear over GF(2). When its inverse maps each of the
    /// swizzle's two runs of bits, in order, onto a run (and the swizzle's bits lie in the
    /// domain), CuTe's answer is right and must be given, with the full size. Otherwise
    /// CuTe's make_swizzle fails or its answer breaks the definition (a run permuted inside
    /// itself: the image masks look right but pair the bits wrongly), and the call is an error
    /// saying which.
    #[test]
    fn bit_permutations_are_inverted(l in bit_permutation(), sw in swizzle()) {
        let f = composed(sw, l.clone());
        let n = size(&l);
        let top = sw.base + sw.bits + sw.shift.unsigned_abs();
        let inverses = [
            ("right_inverse", right_inverse(&l).unwrap(), right_inverse_swizzled(&f)),
            ("left_inverse", left_inverse(&l).unwrap(), left_inverse_swizzled(&f)),
        ];
        for (name, plain, got) in inverses {
            // Each run's bits, in order, go to consecutive single bits.
            let in_order = |mask: i64| {
                let low = mask.trailing_zeros();
                let img: Vec<i64> = (0..sw.bits).map(|i| ev(&plain, 1i64 << (low + i))).collect();
                img.iter().all(|v| v.count_ones() == 1)
                    && img.windows(2).all(|w| w[1] == w[0] << 1)
            };
            let cute_is_right = sw.bits == 0 || ((1i64 << top) <= n && in_order(sw.src_mask()) && in_order(sw.dst_mask()));
            match got {
                Ok(g) => {
                    prop_assert_eq!(size(&g.inner), n);
                    let check = if name == "right_inverse" { is_right_inverse(&f, &g) } else { is_left_inverse(&f, &g) };
                    if let Err(m) = check { prop_assert!(false, "{}: {}", name, m); }
                }
                Err(e) => {
                    let m = e.to_string();
                    prop_assert!(!cute_is_right, "{}({}): {}", name, f, m);
                    prop_assert!(m.contains("make_swizzle") || m.contains("breaks the definition") || (1i64 << top) > n, "{}({}): {}", name, f, m);
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
    // R = (8,2,2):(1,16,8) maps the target run {3,4} onto itself but swapped: CuTe's
    // make_swizzle sees the same masks and builds Sw<2,1,-2> o R, which pairs bit 1 with the
    // wrong bit (G(2) = 10, F(10) = 26).
    let f = composed(Swizzle::new(2, 1, -2).unwrap(), lay("(2,4,2,2):(1,2,16,8)"));
    let e = right_inverse_swizzled(&f).unwrap_err().to_string();
    assert!(
        e.contains("Sw<2,1,-2> o (8,2,2):(1,16,8) breaks the definition"),
        "{e}"
    );
    assert!(
        left_inverse_swizzled(&f)
            .unwrap_err()
            .to_string()
            .contains("breaks the definition")
    );
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
    // The answer (64,2^17):(2^17,1) with Sw<3,17,3> is right, but its stride 1 past the
    // swizzle's bits is below them: no structural proof, and too many points to check.
    let f = composed(Swizzle::new(3, 0, 3).unwrap(), lay("(131072,64):(64,1)"));
    let e = right_inverse_swizzled(&f).unwrap_err().to_string();
    assert!(e.contains("past the limit"), "{e}");
    // At the limit it is checked and answered.
    let f = composed(
        Swizzle::new(3, 0, 3).unwrap(),
        Layout::leaf(SWIZZLED_INVERSE_CHECK_LIMIT, 1),
    );
    assert!(right_inverse_swizzled(&f).is_ok());
    // Past it, a layout that splits at the swizzle's top bit is proved by structure.
    let f = composed(Swizzle::new(3, 0, 3).unwrap(), lay("(8,8,1048576):(8,1,64)"));
    let g = right_inverse_swizzled(&f).unwrap();
    assert_eq!(g.to_string(), "Sw<3,0,-3> o (8,8,1048576):(8,1,64)");
    for k in (0..1i64 << 26).step_by(9973).chain([(1 << 26) - 1]) {
        assert_eq!(eval(&f, eval(&g, k)), k);
    }
}

fn sym_facts(decl: &str) -> Arc<Facts> {
    let mut facts = Facts::default();
    facts.declare(decl).unwrap();
    Arc::new(facts)
}

fn sym_layout(shape: Vec<SymInt>, stride: Vec<SymInt>) -> Layout<SymInt> {
    Layout::new(
        HTuple::from_modes(shape.into_iter().map(HTuple::leaf)),
        HTuple::from_modes(stride.into_iter().map(|d| HTuple::leaf(Stride::Int(d)))),
    )
    .unwrap()
}

/// Symbolic extents past the swizzle's bits: proved by structure for every admitted value,
/// checked here at several values against the definition.
#[test]
fn symbolic_extents_past_the_swizzle_are_proved() {
    let facts = sym_facts("N where N % 2 == 0");
    let n = SymInt::param("N", &facts);
    let k = SymInt::lit;
    let sw = Swizzle::new(3, 0, 3).unwrap();
    // (8,8,N):(8,1,64): rows of 8 transposed, N blocks of 64.
    let f = ComposedLayout::new(
        sw,
        k(0),
        sym_layout(vec![k(8), k(8), n.clone()], vec![k(8), k(1), k(64)]),
    );
    let r = right_inverse_swizzled(&f).unwrap();
    assert_eq!(r.to_string(), "Sw<3,0,-3> o (8,8,N):(8,1,64)");
    let l = left_inverse_swizzled(&f).unwrap();
    for v in [2i64, 4, 10] {
        let at = |c: &ComposedLayout<SymInt>| {
            let vals = [("N".to_string(), v)].into_iter().collect();
            ComposedLayout {
                swizzle: c.swizzle,
                offset: 0,
                inner: c.inner.instantiate(&vals).unwrap(),
            }
        };
        let (fc, rc, lc) = (at(&f), at(&r), at(&l));
        is_right_inverse(&fc, &rc).unwrap();
        is_left_inverse(&fc, &lc).unwrap();
    }
}

/// Symbolic extents the structure does not cover: an error (the check needs every point),
/// never a panic or a guess.
#[test]
fn symbolic_extents_inside_the_swizzle_are_an_error() {
    let facts = sym_facts("N where N % 8 == 0");
    let n = SymInt::param("N", &facts);
    let k = SymInt::lit;
    let f = ComposedLayout::new(
        Swizzle::new(3, 0, 3).unwrap(),
        k(0),
        sym_layout(vec![k(8), n], vec![k(1), k(8)]),
    );
    for e in [
        right_inverse_swizzled(&f).unwrap_err(),
        left_inverse_swizzled(&f).unwrap_err(),
    ] {
        assert!(!e.is_internal() && !e.to_string().is_empty(), "{e:?}");
    }
}
