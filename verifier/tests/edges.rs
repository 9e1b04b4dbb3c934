//! The edges of issue 26, each as a regression test: swizzled layouts with `F2` strides are
//! evaluated and decided; a bounded symbolic bank question is enumerated (also after z3 gives
//! up); offsets are `i64` on every engine (a layout whose offsets leave `i64` is bad input,
//! named); an `F2`-strided shared layout read at a negative index is bad input naming the
//! index.

mod common;

use common::Text;
use std::collections::HashMap;
use std::sync::Arc;
use tessera_ir::Int;
use tessera_verifier::{Bank, Cmp, Engine, Func, Options, Property, Verdict, prove_by};

const ENGINES: [Engine; 5] = [
    Engine::Auto,
    Engine::Enumeration,
    Engine::F2,
    Engine::Structural,
    Engine::Z3,
];

fn func(src: &str) -> Func {
    Func::parse(src, &Arc::new(tessera_ir::sym::Facts::default())).unwrap()
}

fn opts() -> Options {
    Options {
        timeout_ms: Some(20_000),
    }
}

fn bank(smem: &str, tv: &str, elem: i64, access: i64) -> Bank {
    Bank {
        smem: func(smem),
        tv: func(tv),
        elem,
        access,
    }
}

/// Each engine's verdict word; the engines that decide must say `want`, and those named in
/// `deciders` must decide.
fn agree(p: &Property, want: &str, deciders: &[Engine]) {
    for e in ENGINES {
        let (v, by) = prove_by(p, &opts(), e);
        match v.word() {
            "unknown" => assert!(!deciders.contains(&e), "{e:?} ({by:?}) left {p:?} unknown: {v}"),
            w => assert_eq!(w, want, "{e:?} ({by:?}) on {p:?}: {v}"),
        }
    }
}

#[test]
fn swizzled_f2_layouts_are_evaluated() {
    let l = func("Sw<3,3,3> o (4,4):(F2(1),F2(4))");
    let c = l.at(&HashMap::new()).unwrap();
    assert_eq!(c.offset(5).unwrap(), 5);
    // Past the swizzle's source bits: (8,64):(F2(64),F2(1)) is (8,64):(64,1).
    let l = func("Sw<3,3,3> o (8,64):(F2(64),F2(1))");
    let r = func("Sw<3,3,3> o (8,64):(64,1)");
    let (cl, cr) = (l.at(&HashMap::new()).unwrap(), r.at(&HashMap::new()).unwrap());
    for i in 0..512 {
        assert_eq!(cl.offset(i).unwrap(), cr.offset(i).unwrap(), "{i}");
    }
}

#[test]
fn swizzled_f2_layouts_are_decided() {
    let every = [Engine::Auto, Engine::Enumeration, Engine::F2, Engine::Z3];
    // Indices 1 and 4 both reach 1.
    let p = Property::Injective(func("Sw<3,3,3> o (4,4):(F2(1),F2(1))"));
    agree(&p, "refuted", &every);
    let p = Property::BankConflictFree(bank(
        "Sw<3,3,3> o (8,64):(F2(64),F2(1))",
        "((8,4),8):((1,64),8)",
        2,
        16,
    ));
    agree(&p, "proved", &every);
    let p = Property::Equal(
        func("Sw<3,3,3> o (8,64):(F2(64),F2(1))"),
        func("Sw<3,3,3> o (8,64):(64,1)"),
    );
    agree(&p, "proved", &every);
}

/// 20 admitted values of `N`, 618,880 accesses in all: z3 ran out its 60 s; now it gets a
/// share counted from the enumeration's size (about 0.7 s), then enumeration decides.
#[test]
fn a_bounded_symbolic_bank_question_is_enumerated() {
    let s = Text::new(&["N where 2 <= N <= 2000, N % 100 == 7"]);
    let b = Bank {
        smem: s.func("(32,N):(N,1)").unwrap(),
        tv: s.func("(32,N):(N,1)").unwrap(),
        elem: 4,
        access: 4,
    };
    let p = Property::ConflictDegree(b.clone(), Cmp::Le, 11);
    let t0 = std::time::Instant::now();
    let (v, e) = prove_by(&p, &opts(), Engine::Auto);
    assert_eq!(v, Verdict::Proved, "{e:?}");
    assert!(t0.elapsed().as_secs() < 15, "{:?}", t0.elapsed());
    assert_eq!(prove_by(&p, &opts(), Engine::Enumeration).0, Verdict::Proved);
    let p = Property::ConflictDegree(b, Cmp::Le, 10);
    let v = prove_by(&p, &opts(), Engine::Auto).0;
    assert!(matches!(&v, Verdict::Refuted(c) if !c.params.is_empty()), "{v}");
}

/// Offsets leave `i64`: bad input on every engine, naming the index; the largest layouts
/// that stay inside are decided.
#[test]
fn offsets_past_i64_are_bad_input_on_every_engine() {
    for (src, index) in [
        ("9223372036854775793 o 16:1", "index 15"),
        ("(2,3):(4611686018427387904,3074457345618258602)", "index 5"),
        ("(2,3):(-4611686018427387904,-3074457345618258602)", "index 5"),
        ("(2,2):(4611686018427387904,4611686018427387904)", "index 3"),
        ("Sw<1,0,1> o 9223372036854775807 o 2:1", "index 1"),
        ("(4,2):(F2(4611686018427387904),F2(1))", "index 3"),
        // Each leaf fits with the offset, their XOR (index 3: 3 * 2^61) does not.
        (
            "Sw<1,0,1> o 2305843009213693952 o (2,2):(F2(4611686018427387904),F2(2305843009213693952))",
            "index 3",
        ),
    ] {
        let l = func(src);
        for p in [
            Property::Injective(l.clone()),
            Property::Contiguous(l.clone()),
            Property::InBounds(l.clone(), tessera_ir::sym::SymInt::lit(i64::MAX)),
        ] {
            for e in ENGINES {
                match prove_by(&p, &opts(), e).0 {
                    Verdict::Invalid(m) => assert!(m.contains(index) && m.contains("i64"), "{src}: {m}"),
                    v => panic!("{e:?} on {p:?}: {v}"),
                }
            }
        }
    }
    for (src, injective) in [
        ("9223372036854775792 o 16:1", "proved"),
        ("(2,2):(4611686018427387904,4611686018427387903)", "proved"),
        ("(2,2):(-4611686018427387904,-4611686018427387904)", "refuted"),
        ("(2,3):(3074457345618258602,0)", "refuted"),
    ] {
        let p = Property::Injective(func(src));
        agree(&p, injective, &[Engine::Auto, Engine::Z3]);
    }
}

/// A failed re-check names the engine that found the counterexample (a structural or F2
/// refutation is not z3's).
#[test]
fn a_forced_refutation_is_not_called_z3s() {
    let p = Property::InBounds(
        func("9223372036854775793 o 16:1"),
        tessera_ir::sym::SymInt::lit(i64::MAX),
    );
    for e in ENGINES {
        let v = prove_by(&p, &opts(), e).0;
        assert!(!v.to_string().contains("z3's"), "{e:?}: {v}");
    }
}

#[test]
fn a_negative_index_of_an_f2_shared_layout_is_bad_input() {
    let b = bank("(8,8):(F2(8),F2(1))", "(8,8):(-1,8)", 4, 4);
    for p in [
        Property::BankConflictFree(b.clone()),
        Property::ConflictDegree(b.clone(), Cmp::Le, 2),
        Property::Wavefronts(b.clone(), Cmp::Le, 2),
    ] {
        for e in ENGINES {
            match prove_by(&p, &opts(), e).0 {
                Verdict::Invalid(m) => assert!(m.contains("at index -1"), "{e:?}: {m}"),
                // F2 and the structural engine do not decide a layout with negative strides.
                Verdict::Unknown(_) if matches!(e, Engine::F2 | Engine::Structural) => {}
                v => panic!("{e:?} on {p:?}: {v}"),
            }
        }
    }
}

/// With parameters, enumeration checks the offsets at each valuation it visits: bad input
/// naming the valuation and the index. (z3 reasons over unbounded integers and does not check
/// them: the book lists the difference (reference/check.md).)
#[test]
fn enumeration_names_a_valuation_whose_offsets_leave_i64() {
    let s = Text::new(&["N where 1 <= N <= 4611686018427387904, N % 4611686018427387903 == 1"]);
    let p = Property::Injective(s.func("(2,2):(N,N+1)").unwrap());
    match prove_by(&p, &opts(), Engine::Enumeration).0 {
        Verdict::Invalid(m) => assert!(
            m.contains("at N = 4611686018427387904") && m.contains("index 3"),
            "{m}"
        ),
        v => panic!("{v}"),
    }
}
