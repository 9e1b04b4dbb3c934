//! Offsets are `i64` also over parameters (issue 26): after a proof over parameters, z3 asks
//! whether an admitted valuation makes an offset, the size or an intermediate of the lowered
//! arithmetic leave `i64`. Bounded parameters that admit one: bad input on every engine,
//! naming the valuation (what enumeration finds by visiting it); an unbounded one: the proof
//! with the assumption and its witness, which enumeration at that valuation confirms. Values
//! near 2^31, 2^32, 2^62 and 2^63-1.

mod common;

use common::{ENGINES, Text, fix};
use std::collections::HashMap;
use tessera_verifier::{Engine, Int64Domain, Options, Property, Verdict, brute, prove_by, prove_in_int64};

fn opts() -> Options {
    Options {
        timeout_ms: Some(20_000),
    }
}

/// Every engine's verdict on `p`: the decided ones (unknown aside) all have the word
/// `expected`, and enumeration and z3 decide.
fn agree(p: &Property, expected: &str, what: &str) {
    for e in ENGINES {
        let (v, _, d) = prove_in_int64(p, &opts(), e);
        if matches!(v, Verdict::Unknown(_)) && !matches!(e, Engine::Enumeration | Engine::Z3 | Engine::Auto) {
            continue;
        }
        assert_eq!(v.word(), expected, "{what}, {e:?}: {v}");
        assert_eq!(d, Int64Domain::Fits, "{what}, {e:?}");
        if let Verdict::Invalid(m) = &v {
            assert!(m.contains("i64") && m.contains("N = "), "{what}, {e:?}: {m}");
        }
    }
}

/// Four admitted values just below `top`: `(2,4):(N,1)` and `(4,2):(N,1)` (offsets up to
/// `N + 3` and `3N + 1`) are proved injective where they fit and bad input where they leave.
#[test]
fn bounded_parameters_near_the_edges_agree_on_every_engine() {
    let edges: [(i64, bool, bool); 4] = [
        // top, (2,4):(N,1) fits, (4,2):(N,1) fits
        (1 << 31, true, true),
        (1 << 32, true, true),
        (1 << 62, true, false),
        (i64::MAX, false, false),
    ];
    for (top, small, large) in edges {
        let s = Text::new(&[&format!("N where {} <= N <= {top}", top - 3)]);
        for (src, fits) in [("(2,4):(N,1)", small), ("(4,2):(N,1)", large)] {
            let p = Property::Injective(s.func(src).unwrap());
            let what = format!("{src} near {top}");
            agree(&p, if fits { "proved" } else { "bad input" }, &what);
            let p = Property::InBounds(s.func(src).unwrap(), s.int("3*N+4"));
            // 3N+4 itself leaves i64 near 2^62: the bound is not a layout, only its layouts'
            // offsets are checked; in bounds wherever they fit.
            if fits && top < 1 << 61 {
                agree(&p, "proved", &what);
            }
        }
    }
}

/// A false property whose bounds admit a valuation past `i64` (`(2,2):(N,N)` collides at
/// every `N`; `2N` leaves `i64` at `N = 2^62` only): bad input on every engine that decides,
/// not a refutation at the valuations that fit.
#[test]
fn a_refutation_does_not_hide_bounds_past_i64() {
    let s = Text::new(&["N where 4611686018427387901 <= N <= 4611686018427387904"]);
    let p = Property::Injective(s.func("(2,2):(N,N)").unwrap());
    agree(&p, "bad input", "(2,2):(N,N) near 2^62");
    let s = Text::new(&["N where 4611686018427387900 <= N <= 4611686018427387903"]);
    let p = Property::Injective(s.func("(2,2):(N,N)").unwrap());
    agree(&p, "refuted", "(2,2):(N,N) below 2^62");
}

/// An unbounded parameter: the proof stands with the assumption and a witness valuation, and
/// enumeration at that valuation finds the offset past `i64` too.
#[test]
fn an_unbounded_parameter_gives_an_assumption_that_enumeration_confirms() {
    for decl in [
        "N where N >= 4",
        "N where N >= 2147483645",
        "N where N >= 4611686018427387901",
    ] {
        let s = Text::new(&[decl]);
        for src in ["(2,4):(N,1)", "(N,4):(1,N)", "(2,N):(N,1)"] {
            let p = Property::Injective(s.func(src).unwrap());
            let (v, e, d) = prove_in_int64(&p, &opts(), Engine::Auto);
            assert_eq!(v, Verdict::Proved, "{decl}: {src} ({e:?})");
            let Int64Domain::Assumed(a) = d else {
                panic!("{decl}: {src}: no assumption")
            };
            assert!(
                a.starts_with("offsets fit in int64 (") && a.contains("leaves int64 at N = "),
                "{a}"
            );
            let n: i64 = a
                .split("N = ")
                .nth(1)
                .unwrap()
                .split([',', ')'])
                .next()
                .unwrap()
                .parse()
                .unwrap();
            let at = HashMap::from([("N".to_string(), n)]);
            match brute(&fix(&p, &at), 1 << 20) {
                Verdict::Invalid(m) => assert!(m.contains("i64") || m.contains("overflow"), "{a}: {m}"),
                v => panic!("{decl}: {src} at N = {n}: enumeration says {v}"),
            }
        }
    }
}

/// Layouts that fit at every admitted value, bounded or not, need no assumption; the plain
/// `prove_by` answer is unchanged.
#[test]
fn layouts_that_always_fit_need_no_assumption() {
    let s = Text::new(&["N where N >= 1", "M where 1 <= M <= 4294967296"]);
    for (src, word) in [("(4,M):(M,1)", "proved"), ("(M,2):(2,1)", "proved")] {
        let p = Property::Injective(s.func(src).unwrap());
        let (v, _, d) = prove_in_int64(&p, &opts(), Engine::Auto);
        assert_eq!((v.word(), d), (word, Int64Domain::Fits), "{src}");
    }
    // A size-1 mode of N: the stride is never multiplied by a non-zero coordinate.
    let p = Property::Injective(s.func("(1,4):(N,1)").unwrap());
    let (v, _, d) = prove_in_int64(&p, &opts(), Engine::Auto);
    assert_eq!((v, d), (Verdict::Proved, Int64Domain::Fits));
    assert_eq!(prove_by(&p, &opts(), Engine::Z3).0, Verdict::Proved);
}
