//! Soundness cross-check: for random small layouts (swizzles and stride-0 modes included),
//! every property's z3 verdict equals the brute-force verdict. Zero disagreements.

use proptest::prelude::*;
mod common;

use common::Text;
use tessera_verifier::{DEFAULT_WORK, brute};
use tessera_verifier::{Engine, Func, Options, Property, Verdict, prove, prove_by};

fn leaf() -> impl Strategy<Value = String> {
    (1i64..=4, prop_oneof![4 => 0i64..=12, 1 => -3i64..0]).prop_map(|(s, d)| format!("{s}:{d}"))
}

/// Random layouts: flat or nested leaves, sometimes compact, sometimes swizzled.
fn layout() -> impl Strategy<Value = String> {
    let plain = prop::collection::vec(leaf(), 1..=3).prop_map(|ls| {
        let (s, d): (Vec<_>, Vec<_>) = ls.iter().map(|l| l.split_once(':').unwrap()).unzip();
        if s.len() == 1 {
            format!("{}:{}", s[0], d[0])
        } else {
            format!("({}):({})", s.join(","), d.join(","))
        }
    });
    let compact = prop::collection::vec(1i64..=4, 1..=3).prop_map(|s| {
        let t: Vec<String> = s.iter().map(|x| x.to_string()).collect();
        format!("({})", t.join(","))
    });
    let swz =
        (compact.clone(), 0i64..3, 0i64..3).prop_map(|(l, b, m)| format!("Sw<{b},{m},{}> o {l}", b.max(1)));
    prop_oneof![3 => plain, 2 => compact, 1 => swz]
}

fn func(src: &str) -> Func {
    Text::new(&[]).func(src).unwrap()
}

/// `op(a [, b])` of the algebra on the functions of the texts `a` and `b`.
fn int_func(op: &str, a: &str, b: Option<&str>) -> Option<Func> {
    let t = Text::new(&[]);
    let fb = b.and_then(|x| t.func(x));
    t.apply(op, &t.func(a)?, fb.as_ref())
}

/// The verdict of `Auto` and, where F2 gave it, z3's too, each equal to brute force's.
fn agree(p: &Property, what: &str) -> Result<(), TestCaseError> {
    let opts = Options {
        timeout_ms: Some(20_000),
    };
    let b = brute(p, DEFAULT_WORK);
    let (z, engine) = prove_by(p, &opts, Engine::Auto);
    let mut answers = vec![(z, engine)];
    if engine == Engine::F2 {
        answers.push((prove_by(p, &opts, Engine::Z3).0, Engine::Z3));
    }
    for (z, engine) in answers {
        if matches!(z, Verdict::Internal(_)) {
            return Err(TestCaseError::fail(format!("{what}: {z}")));
        }
        prop_assert_eq!(
            z.word(),
            b.word(),
            "{}: {:?} says {} but brute force says {}",
            what,
            engine,
            z,
            b
        );
        prop_assert!(z.word() != "unknown", "{}: {}", what, z);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn single_layout_properties(src in layout(), n in 1i64..40, v in prop::sample::select(vec![1i64, 2, 4])) {
        let f = func(&src);
        let size = f.size().unwrap();
        agree(&Property::Injective(f.clone()), &format!("injective({src})"))?;
        agree(&Property::Bijective(f.clone()), &format!("bijective({src})"))?;
        agree(&Property::Surjective(f.clone(), None), &format!("surjective({src})"))?;
        agree(&Property::InBounds(f.clone(), tessera_ir::Int::lit(n)), &format!("in_bounds({src}, {n})"))?;
        agree(&Property::Contiguous(f.clone()), &format!("contiguous({src})"))?;
        agree(&Property::Vectorizable(f.clone(), v), &format!("vectorizable({src}, {v})"))?;
        let _ = size;
    }

    #[test]
    fn pairs_of_layouts(a in layout(), b in layout()) {
        let (fa, fb) = (func(&a), func(&b));
        agree(&Property::Equal(fa.clone(), fb.clone()), &format!("equal({a}, {b})"))?;
        // Equal to its own coalesced form.
        if let Some(c) = int_func("coalesce", &a, None) {
            agree(&Property::Equal(fa.clone(), c), &format!("equal({a}, coalesce)"))?;
        }
        agree(&Property::LeftInverseValid(fa.clone(), fb.clone()), &format!("left_inverse_valid({a}, {b})"))?;
        agree(&Property::RightInverseValid(fa.clone(), fb.clone()), &format!("right_inverse_valid({a}, {b})"))?;
        if let Some(r) = int_func("left_inverse", &a, None) {
            agree(&Property::LeftInverseValid(fa.clone(), r), &format!("left_inverse_valid({a}, left_inverse)"))?;
        }
        if let Some(r) = int_func("right_inverse", &a, None) {
            agree(&Property::RightInverseValid(fa.clone(), r), &format!("right_inverse_valid({a}, right_inverse)"))?;
        }
        if let Some(c) = Text::new(&[]).complement(&fa, 24) {
            agree(&Property::ComplementValid(fa.clone(), c, Some(tessera_ir::Int::lit(24))), &format!("complement_valid({a})"))?;
        }
        agree(&Property::ComplementValid(fa.clone(), fb.clone(), Some(tessera_ir::Int::lit(8))), &format!("complement_valid({a}, {b})"))?;
        if let Some(r) = int_func("composition", &a, Some(&b)) {
            agree(&Property::CompositionValid(fa.clone(), fb.clone(), r), &format!("composition_valid({a}, {b})"))?;
        }
        agree(&Property::CompositionValid(fa.clone(), fb.clone(), fa.clone()), &format!("composition_valid({a}, {b}, A)"))?;
    }
}

#[test]
fn symbolic_bounded_parameters() {
    let s = Text::new(&["M where 1 <= M <= 12", "N where N % 2 == 0, 2 <= N <= 8"]);
    let f = |x: &str| s.func(x).unwrap();
    let cases = [
        Property::Injective(f("(M,N):(1,M)")),
        Property::Injective(f("(M,N):(1,4)")),
        Property::Bijective(f("(M,N):(N,1)")),
        Property::Equal(
            s.apply("coalesce", &f("(M,N):(1,M)"), None).unwrap(),
            f("(M,N):(1,M)"),
        ),
        Property::Equal(f("(M,N):(1,M)"), f("(M,N):(N,1)")),
        Property::LeftInverseValid(
            f("(M,N):(N,1)"),
            s.apply("left_inverse", &f("(M,N):(N,1)"), None).unwrap(),
        ),
        Property::InBounds(f("(M,N):(1,M)"), tessera_ir::Int::lit(40)),
    ];
    for p in &cases {
        let z = prove(p, &Options::default());
        let b = brute(p, DEFAULT_WORK);
        assert_eq!(z.word(), b.word(), "{p:?}: z3 {z} vs brute {b}");
        assert!(!matches!(z, Verdict::Unknown(_) | Verdict::Internal(_)), "{z}");
    }
}
