//! Wrong proofs, wrong refutations, misleading answers and bad input that reached the prover
//! once: each case with its right verdict, z3 compared with brute force, and every
//! refutation's parameter values checked against the facts.

mod common;

use common::Text;
use std::collections::HashMap;
use std::time::{Duration, Instant};
use tessera_ir::Int;
use tessera_ir::sym::SymInt;
use tessera_verifier::facts;
use tessera_verifier::{Bank, Cmp, analyze};
use tessera_verifier::{DEFAULT_WORK, brute};
use tessera_verifier::{Engine, Func, Options, Property, Verdict, prove, prove_by};

fn session(params: &[&str]) -> Text {
    Text::new(params)
}

fn f(s: &Text, src: &str) -> Func {
    s.func(src).unwrap()
}

fn int(s: &Text, src: &str) -> SymInt {
    s.int(src)
}

fn opts() -> Options {
    Options {
        timeout_ms: Some(60_000),
    }
}

/// z3's verdict, which must agree with brute force; a refutation's parameters must satisfy
/// every fact, and brute force must refute the property at exactly those values.
fn checked(p: &Property) -> Verdict {
    let z = prove(p, &opts());
    let b = brute(p, DEFAULT_WORK);
    assert_eq!(z.word(), b.word(), "{p:?}: z3 {z} vs brute force {b}");
    if let Verdict::Refuted(c) = &z {
        let fs = facts(p);
        for (n, v) in &c.params {
            assert!(fs.get(n).unwrap().admits(*v), "{n} = {v} breaks the facts: {c}");
        }
        let at: HashMap<String, i64> = c.params.iter().cloned().collect();
        let fixed = brute_at(p, &at);
        assert_eq!(fixed.word(), "refuted", "{p:?} at {at:?}: {fixed}");
    }
    z
}

/// Brute force with every parameter fixed at the given value.
fn brute_at(p: &Property, at: &HashMap<String, i64>) -> Verdict {
    brute(&common::fix(p, at), DEFAULT_WORK)
}

fn word(p: &Property) -> &'static str {
    checked(p).word()
}

#[test]
fn f2_layouts_are_coalesced_by_the_definition() {
    let s = session(&[]);
    let eq = |a: &str, b: &str| word(&Property::Equal(f(&s, a), f(&s, b)));
    assert_eq!(eq("(2,4):(F2(5),F2(10))", "8:F2(5)"), "refuted");
    assert_eq!(eq("(2,8):(F2(5),F2(10))", "16:F2(5)"), "refuted");
    assert_eq!(
        eq("(3,2,4):(F2(3),F2(10),F2(20))", "(3,8):(F2(3),F2(10))"),
        "refuted"
    );
    assert_eq!(eq("(4,8):(F2(2),F2(8))", "32:F2(2)"), "proved");
    let l = f(&s, "(2,4):(F2(5),F2(10))");
    assert_eq!(word(&Property::InBounds(l, SymInt::lit(31))), "proved");
    let l = f(&s, "(4,4,4):(F2(39),F2(9),F2(36))");
    assert_eq!(word(&Property::Injective(l)), "proved");
    let b = Bank {
        smem: f(&s, "(2,4,8):(F2(10),F2(20),F2(34))"),
        tv: f(&s, "(32,1):(1,0)"),
        elem: 4,
        access: 4,
    };
    assert_eq!(word(&Property::BankConflictFree(b)), "proved");
}

#[test]
fn stated_lower_bounds_below_one_are_kept() {
    let s = session(&["K where -4 <= K <= 4", "S where 0 <= S <= 4", "Z where Z == 0"]);
    let v = checked(&Property::InBounds(f(&s, "4:K"), int(&s, "13")));
    let Verdict::Refuted(c) = &v else { panic!("{v}") };
    assert!(c.params[0].1 < 0, "{c}");
    let v = checked(&Property::Injective(f(&s, "(4,2):(1,4*S)")));
    let Verdict::Refuted(c) = &v else { panic!("{v}") };
    assert_eq!(c.params, vec![("S".to_string(), 0)], "{c}");
    assert_eq!(word(&Property::Injective(f(&s, "4:Z"))), "refuted");
    assert_eq!(
        word(&Property::InBounds(f(&s, "(4,2):(1,4*S)"), int(&s, "20"))),
        "proved"
    );
}

#[test]
fn facts_of_offsets_and_inner_strides_are_kept() {
    let s = session(&["M where 8 <= M <= 64", "Q where Q == 15"]);
    assert_eq!(
        word(&Property::InBounds(f(&s, "M o 8:1"), int(&s, "72"))),
        "proved"
    );
    assert_eq!(word(&Property::Injective(f(&s, "0 o (8,8):(1,M)"))), "proved");
    assert_eq!(word(&Property::Bijective(f(&s, "Q o (4,4):(-1,-4)"))), "proved");
    // Refuted, with a value of M inside the facts.
    assert_eq!(word(&Property::Contiguous(f(&s, "1 o (4,4):(1,M)"))), "refuted");
    assert_eq!(
        word(&Property::InBounds(f(&s, "M o 8:1"), int(&s, "71"))),
        "refuted"
    );
}

#[test]
fn unrelated_and_huge_values_keep_bit_vectors() {
    // An unbounded parameter that the layout does not use changes nothing.
    let s = session(&["N", "M where M <= 64"]);
    assert_eq!(
        word(&Property::Injective(f(&s, "Sw<3,3,3> o (8,64):(64,1)"))),
        "proved"
    );
    assert_eq!(
        word(&Property::Injective(f(&s, "Sw<3,3,3> o (8,M):(M,1)"))),
        "proved"
    );
    // Concrete offsets near 2^61 and 2^62: no parameter to bound.
    let big = |src: &str| prove(&Property::Injective(f(&s, src)), &opts());
    assert_eq!(
        big("Sw<3,3,3> o 2305843009213693952 o (8,64):(64,1)"),
        Verdict::Proved
    );
    assert_eq!(big("(4,4):(F2(2305843009213693952),F2(1))"), Verdict::Proved);
    let l = f(&s, "Sw<2,0,2> o 4611686018427387904 o 16:1");
    let v = checked(&Property::InBounds(l, SymInt::lit(4611686018427387919)));
    assert!(
        matches!(&v, Verdict::Refuted(c) if c.summary.starts_with("L(12) = 4611686018427387919")),
        "{v}"
    );
    // Every offset fits in i64; 6 * 1729382256910270464 does not, and is never formed.
    let l = f(&s, "(4,6,3,8):(1,1729382256910270464,192,24)");
    assert_eq!(word(&Property::Injective(l)), "proved");
}

#[test]
fn surjective_with_unbounded_parameters() {
    let s = session(&["M", "N"]);
    let o = Options {
        timeout_ms: Some(30_000),
    };
    for l in ["(M,4):(4,1)", "(2,M):(M,1)"] {
        assert_eq!(
            prove(&Property::Surjective(f(&s, l), None), &o),
            Verdict::Proved,
            "{l}"
        );
    }
    let v = prove(&Property::Surjective(f(&s, "(2,M):(1,3)"), None), &o);
    let Verdict::Refuted(c) = &v else { panic!("{v}") };
    // Re-check independently: at the reported M, some value below the size is missed.
    let m = c.params.iter().find(|p| p.0 == "M").unwrap().1;
    let hit: Vec<i64> = (0..2 * m).map(|i| i % 2 + 3 * (i / 2)).collect();
    assert!((0..2 * m).any(|k| !hit.contains(&k)), "{c}");
}

fn bank(smem: &str, tv: &str, elem: i64, access: i64) -> Bank {
    let s = session(&[]);
    Bank {
        smem: f(&s, smem),
        tv: f(&s, tv),
        elem,
        access,
    }
}

#[test]
fn bank_refutations_name_a_byte_in_the_named_bank() {
    let b = bank("(8,64):(64,1)", "((8,4),8):((1,64),8)", 2, 16);
    let a = analyze(&b).unwrap();
    let c = a.conflict.unwrap();
    for (_, byte) in [c.a, c.b] {
        assert_eq!(byte.div_euclid(4).rem_euclid(32), c.bank, "{c:?}");
    }
    // z3's pair as well, over every bank a 16-byte access touches.
    for smem in ["(8,64):(64,1)", "(8,64):(128,1)", "8 o (8,64):(64,1)"] {
        let b = bank(smem, "((8,4),8):((1,64),8)", 2, 16);
        let v = prove(&Property::BankConflictFree(b), &opts());
        let Verdict::Refuted(c) = &v else {
            panic!("{smem}: {v}")
        };
        let bank_no: i64 = c
            .summary
            .split("bank ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        for w in &c.witnesses {
            let byte: i64 = w.value.trim_start_matches("byte ").parse().unwrap();
            assert_eq!(byte / 4 % 32, bank_no, "{smem}: {c}");
        }
    }
}

#[test]
fn malformed_questions_are_bad_input() {
    let s = session(&[]);
    let cases = [
        Property::Vectorizable(f(&s, "(4,8):(1,4)"), 0),
        Property::InBounds(f(&s, "(4,8):(1@0,1@1)"), SymInt::lit(8)),
        Property::Surjective(f(&s, "(4,8):(1@0,1@1)"), None),
        Property::Injective(f(&s, "(4,8):(F2(1),4)")),
        Property::LeftInverseValid(f(&s, "(4,8):(1,4)"), f(&s, "(4,8):(1@0,1@1)")),
        Property::BankConflictFree(bank("32:1", "(32,1,1):(1,0,0)", 4, 4)),
        Property::BankConflictFree(bank("32:1", "32:1", 4, 4)),
        Property::BankConflictFree(bank("32:1", "(32,3):(1,32)", 2, 4)),
        Property::BankConflictFree(bank("(8,64):(1,8)", "((8,4),8):((1,64),8)", 2, 16)),
        Property::BankConflictFree(bank("(32,32):(1@0,1@1)", "(32,32):(1,32)", 4, 4)),
        Property::ConflictDegree(bank("32:1", "(32,3):(1,32)", 2, 4), Cmp::Eq, 1),
    ];
    for p in &cases {
        let (z, b) = (prove(p, &opts()), brute(p, DEFAULT_WORK));
        assert!(matches!(z, Verdict::Invalid(_)), "{p:?}: {z}");
        assert!(matches!(b, Verdict::Invalid(_)), "{p:?}: {b}");
    }
    // Coordinate values are fine where points are compared.
    assert_eq!(word(&Property::Injective(f(&s, "(4,8):(1@0,1@1)"))), "proved");
}

#[test]
fn the_time_limit_bounds_the_bank_enumeration() {
    // 2^26 accesses: seconds of enumeration, cut at the limit (the engines without F2, which
    // answers it from two ranks).
    let b = bank("67108864:1", "(32,2097152):(1,32)", 4, 4);
    let o = Options {
        timeout_ms: Some(300),
    };
    for p in [
        Property::ConflictDegree(b.clone(), Cmp::Eq, 1),
        Property::BankConflictFree(b.clone()),
    ] {
        let t0 = Instant::now();
        let v = prove_by(&p, &o, Engine::Z3).0;
        assert_eq!(v, Verdict::Unknown("timeout".into()));
        assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
        assert_eq!(prove_by(&p, &o, Engine::Auto), (Verdict::Proved, Engine::F2));
    }
}

#[test]
fn the_time_limit_interrupts_z3() {
    // Nonlinear over unbounded integers: z3 runs for minutes without a limit.
    let s = session(&["M", "N"]);
    let p = Property::Injective(f(&s, "(M,N,8):(8*N,8,1)"));
    let t0 = Instant::now();
    let v = prove(
        &p,
        &Options {
            timeout_ms: Some(500),
        },
    );
    assert_eq!(v, Verdict::Unknown("timeout".into()));
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    // The interrupted context is not reused: the next proof on this thread works.
    assert_eq!(
        prove(&Property::Injective(f(&s, "(M,4):(4,1)")), &opts()),
        Verdict::Proved
    );
    let p = Property::Vectorizable(f(&s, "(M,3):(1,M)"), 2);
    assert!(
        matches!(prove(&p, &opts()), Verdict::Refuted(c) if c.summary.contains("is not a multiple of 2"))
    );
}

/// An unbounded parameter whose congruence admits one `i64` value: z3's model could pick
/// one past `i64::MAX` (the next admitted integer), which no re-check can evaluate; it was an
/// internal error. Now such a model is `unknown` (and a model at the one admitted value a
/// refutation), never an internal error. The same for `(M,N):(1,M/2)` with `M` unbounded,
/// whose model may put an index past `i64`.
#[test]
fn an_unbounded_parameter_stays_an_i64() {
    let s = session(&["N where N % 9223372036854775807 == 9223372036854775806"]);
    let p = Property::InBounds(f(&s, "(N):(1)"), int(&s, "5"));
    let opts = Options {
        timeout_ms: Some(20_000),
    };
    for e in [Engine::Auto, Engine::Z3] {
        match prove_by(&p, &opts, e).0 {
            Verdict::Refuted(c) => assert_eq!(c.params, vec![("N".into(), i64::MAX - 1)]),
            Verdict::Unknown(_) => {}
            v => panic!("{e:?}: {v}"),
        }
    }
}

#[test]
fn a_model_past_i64_is_unknown_not_an_internal_error() {
    let s = session(&["M where M % 128 == 0", "N where 1 <= N <= 4096"]);
    let p = Property::Injective(f(&s, "(M,N):(1,M/2)"));
    match prove_by(&p, &opts(), Engine::Z3).0 {
        Verdict::Refuted(_) | Verdict::Unknown(_) => {}
        v => panic!("{v}"),
    }
}
