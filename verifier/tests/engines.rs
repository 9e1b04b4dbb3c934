//! Every engine pair agrees: on random concrete layouts covering the input language
//! (power-of-two layouts in the F2 fragment and their near misses, odd, zero and negative
//! strides, `F2` and coordinate strides, nested shapes, swizzles with offsets), each property
//! is answered by enumeration (the oracle), F2, the structural engine, z3 and `auto`. Every
//! definite answer (proved or refuted) must be the oracle's, a bad-input answer must be bad
//! input for every engine, and no engine may fail internally. Each engine must decide a
//! share of the cases, so the agreement is not vacuous.

use std::collections::HashMap;
use std::sync::Arc;
use tessera_ir::sym::{Facts, SymInt};
use tessera_ir::{Int, Layout, algebra};
use tessera_verifier::{Bank, DEFAULT_WORK, Engine, Func, Options, Property, Verdict, brute, prove_by};

mod common;
use common::Rng;

fn func(src: &str) -> Func {
    Func::parse(src, &Arc::new(Facts::default())).unwrap_or_else(|e| panic!("{src}: {e}"))
}

fn join(xs: &[String]) -> String {
    match xs {
        [x] => x.clone(),
        _ => format!("({})", xs.join(",")),
    }
}

/// A random layout text of at most 512 elements.
fn layout(rng: &mut Rng) -> String {
    let leaves = 1 + rng.below(4) as usize;
    let (mut shape, mut stride) = (Vec::new(), Vec::new());
    let kind = rng.below(6);
    for _ in 0..leaves {
        let (s, d) = match kind {
            // Powers of two with power-of-two or zero strides: mostly in the F2 fragment.
            0 | 1 => {
                let s = 1u64 << rng.below(4);
                let d = match rng.below(6) {
                    0 => 0,
                    _ => 1u64 << rng.below(7),
                };
                (s.to_string(), d.to_string())
            }
            // F2 strides.
            2 => {
                let s = 1u64 << rng.below(3);
                (s.to_string(), format!("F2({})", rng.below(16)))
            }
            // Near misses: any extent, odd, zero and negative strides.
            3 | 4 => {
                let s = 1 + rng.below(6);
                let d = rng.below(17) as i64 - 4;
                (s.to_string(), d.to_string())
            }
            // Coordinate strides.
            _ => {
                let s = 1 + rng.below(4);
                (s.to_string(), format!("{}@{}", 1 + rng.below(3), rng.below(2)))
            }
        };
        shape.push(s);
        stride.push(d);
    }
    // Nest the first two leaves now and then.
    let (shape, stride) = if leaves >= 3 && rng.below(3) == 0 {
        let nest = |v: &[String]| {
            let mut out = vec![format!("({},{})", v[0], v[1])];
            out.extend(v[2..].iter().cloned());
            out
        };
        (nest(&shape), nest(&stride))
    } else {
        (shape, stride)
    };
    let plain = format!("{}:{}", join(&shape), join(&stride));
    // Swizzles of power-of-two layouts and of F2-strided ones.
    if kind <= 2 && rng.below(3) == 0 {
        let b = 1 + rng.below(3);
        let m = rng.below(3);
        let s = b + rng.below(3);
        let off = rng.pick(&["0", "1", "64", "512", "3"]);
        return format!("Sw<{b},{m},{s}> o {off} o {plain}");
    }
    plain
}

fn plain(f: &Func) -> Option<Layout<SymInt>> {
    match f {
        Func::Layout(l) => Some(l.clone()),
        Func::Composed(_) => None,
    }
}

/// The properties asked of one random layout (and a second one of the same kind).
fn properties(rng: &mut Rng, src: &str, other: &str) -> Vec<Property> {
    let l = func(src);
    let k = |v: i64| SymInt::lit(v);
    let mut out = vec![
        Property::Injective(l.clone()),
        Property::Bijective(l.clone()),
        Property::Contiguous(l.clone()),
        Property::Surjective(l.clone(), None),
        Property::Surjective(l.clone(), Some(k(rng.below(20) as i64))),
        Property::InBounds(l.clone(), k(rng.below(600) as i64 - 20)),
        Property::Equal(l.clone(), l.clone()),
        Property::Equal(l.clone(), func(other)),
    ];
    if let Ok(n) = l.size() {
        out.push(Property::InBounds(l.clone(), n));
    }
    if let Some(p) = plain(&l) {
        if let Ok(c) = algebra::coalesce(&p) {
            out.push(Property::Equal(l.clone(), Func::Layout(c)));
        }
        if let Ok(inv) = algebra::left_inverse(&p) {
            out.push(Property::LeftInverseValid(l.clone(), Func::Layout(inv)));
        }
        if let Ok(inv) = algebra::right_inverse(&p) {
            out.push(Property::RightInverseValid(l.clone(), Func::Layout(inv)));
        }
        if let Some(q) = plain(&func(other))
            && let Ok(r) = algebra::composition(&q, &p)
        {
            let (a, b) = (Func::Layout(q), l.clone());
            out.push(Property::CompositionValid(a.clone(), b.clone(), Func::Layout(r)));
            out.push(Property::CompositionValid(a, b, func(other)));
        }
    }
    out
}

/// `proved`, `refuted`, `bad input`, or `None` for no definite answer.
fn kind(v: &Verdict) -> Option<&'static str> {
    match v {
        Verdict::Proved => Some("proved"),
        Verdict::Refuted(_) => Some("refuted"),
        Verdict::Invalid(_) => Some("bad input"),
        Verdict::Unknown(_) => None,
        Verdict::Internal(m) => panic!("internal error: {m}"),
    }
}

#[derive(Default)]
struct Tally {
    decided: HashMap<Engine, usize>,
    cases: usize,
}

/// Every engine's answer on `p` against the oracle's.
fn compare(p: &Property, tally: &mut Tally) {
    let oracle = brute(p, DEFAULT_WORK);
    let Some(want) = kind(&oracle) else { return };
    tally.cases += 1;
    let opts = Options {
        timeout_ms: Some(20_000),
    };
    for e in [Engine::F2, Engine::Structural, Engine::Z3, Engine::Auto] {
        let (v, by) = prove_by(p, &opts, e);
        if let Some(got) = kind(&v) {
            assert_eq!(
                got,
                want,
                "{} of {p:?}: {e:?} (answered by {by:?}) says {v}, enumeration says {oracle}",
                p.name()
            );
            if got != "bad input" {
                *tally.decided.entry(by).or_default() += 1;
            }
        } else {
            assert_ne!(e, Engine::Auto, "auto left {} of {p:?} undecided: {v}", p.name());
        }
    }
}

#[test]
fn every_engine_pair_agrees_on_random_layouts() {
    let mut rng = Rng(0x5eed_f00d_1234_5678);
    let mut tally = Tally::default();
    for _ in 0..120 {
        let (a, b) = (layout(&mut rng), layout(&mut rng));
        for p in properties(&mut rng, &a, &b) {
            compare(&p, &mut tally);
        }
    }
    let d = |e| tally.decided.get(&e).copied().unwrap_or(0);
    eprintln!("{} cases; decided: {:?}", tally.cases, tally.decided);
    assert!(tally.cases > 1000, "{} cases", tally.cases);
    for (e, least) in [
        (Engine::F2, 150),
        (Engine::Structural, 100),
        (Engine::Z3, 500),
        (Engine::Enumeration, 100),
    ] {
        assert!(d(e) >= least, "{e:?} decided {} cases, fewer than {least}", d(e));
    }
}

/// Bank questions on swizzled, padded and plain tiles: F2 (where it applies), z3, `auto`
/// and the exact enumeration give the same verdict.
#[test]
fn every_engine_pair_agrees_on_bank_questions() {
    let mut rng = Rng(0xba4c_0001);
    let mut tally = Tally::default();
    for _ in 0..40 {
        let cols = 1u64 << (3 + rng.below(3));
        let pad = rng.pick(&["0", "0", "1", "4", "8"]).parse::<u64>().unwrap_or(0);
        let base = format!("(8,{cols}):({},1)", cols + pad);
        let smem = match rng.below(3) {
            0 => base,
            _ => format!("Sw<{},{},3> o {base}", 1 + rng.below(3), rng.below(4)),
        };
        // Eight threads per phase reading rows, or 32 reading a column.
        let (tv, elem, access) = match rng.below(3) {
            // Thread t reads 8 elements of row t % 8 at column block t / 8.
            0 => (format!("((8,{}),8):((1,64),8)", cols / 8), 2, 16),
            1 => (format!("(8,{cols}):(1,8)"), 4, 4),
            _ => (format!("(8,{cols}):({cols},1)"), 4, 4),
        };
        let b = Bank {
            smem: func(&smem),
            tv: func(&tv),
            elem,
            access,
        };
        compare(&Property::BankConflictFree(b), &mut tally);
    }
    assert!(tally.cases >= 30, "{} cases", tally.cases);
}

/// Layouts at the edges of `i64` (offsets of 2^62, 2^63 - 1, strides whose sums leave `i64`,
/// F2 strides of 2^62): every engine gives the same answer or none, and a layout whose
/// offsets leave `i64` is bad input for every engine.
#[test]
fn every_engine_pair_agrees_at_the_edges_of_i64() {
    let max = i64::MAX;
    let edges = [
        format!("{} o 16:1", max - 15),
        format!("{} o 16:1", max - 14),
        format!("{max} o 1:1"),
        format!("{max} o 2:-1"),
        "(2,3):(4611686018427387904,3074457345618258602)".to_string(),
        "(2,3):(4611686018427387904,1537228672809129301)".to_string(),
        "(2,2):(4611686018427387904,4611686018427387903)".to_string(),
        "(2,2):(-4611686018427387904,-4611686018427387904)".to_string(),
        "(4,2):(F2(4611686018427387904),F2(1))".to_string(),
        "(2,2):(F2(4611686018427387904),F2(1))".to_string(),
        "Sw<3,4,3> o 4294967296 o (32,32):(32,1)".to_string(),
        "(2,2):(2147483648,4294967296)".to_string(),
        format!("(4,4):({},{})", 1i64 << 60, 1i64 << 61),
    ];
    let opts = Options {
        timeout_ms: Some(20_000),
    };
    let mut decided = 0;
    for src in &edges {
        let l = func(src);
        let n = SymInt::lit(max);
        for p in [
            Property::Injective(l.clone()),
            Property::Contiguous(l.clone()),
            Property::InBounds(l.clone(), n),
        ] {
            let mut answers = Vec::new();
            for e in [
                Engine::Enumeration,
                Engine::F2,
                Engine::Structural,
                Engine::Z3,
                Engine::Auto,
            ] {
                let v = prove_by(&p, &opts, e).0;
                if let Some(k) = kind(&v) {
                    answers.push((e, k, v.to_string()));
                }
            }
            assert!(
                answers.windows(2).all(|w| w[0].1 == w[1].1),
                "{} of {src}: {answers:?}",
                p.name()
            );
            assert!(
                answers.iter().any(|a| a.0 == Engine::Auto),
                "auto left {} of {src} undecided",
                p.name()
            );
            decided += answers.len();
        }
    }
    assert!(decided > 80, "{decided}");
}

/// Bounded symbolic bank questions of more than 2^14 accesses in all (the old limit of the
/// automatic enumeration): `auto` decides each, and agrees with enumeration and with z3 (asked
/// where it answers within seconds; on `<= 11` it ran out a minute).
#[test]
fn every_engine_pair_agrees_on_large_bounded_symbolic_bank_questions() {
    let n100 = "N where 2 <= N <= 2000, N % 100 == 7";
    let n32 = "N where 32 <= N <= 1024, N % 32 == 0";
    let cases = [
        (n100, "(32,N):(N,1)", "(32,N):(N,1)", 4, 4, "<= 11", false),
        (n100, "(32,N):(N,1)", "(32,N):(N,1)", 4, 4, "<= 12", false),
        (n32, "(32,N):(N+1,1)", "(32,N):(1,32)", 4, 4, "== 1", true),
        (n32, "(32,N):(N,1)", "(32,N):(1,32)", 4, 4, "== 32", true),
        (n32, "(32,N):(N,1)", "(32,N):(1,32)", 4, 4, "<= 31", true),
        (
            "N where 8 <= N <= 512, N % 8 == 0",
            "(8,N):(N,1)",
            "((8,4),N/4):((1,8*N),8)",
            2,
            16,
            "<= 1",
            true,
        ),
    ];
    let opts = Options {
        timeout_ms: Some(20_000),
    };
    for (decl, smem, tv, elem, access, cmp, ask_z3) in cases {
        let s = common::Text::new(&[decl]);
        let b = Bank {
            smem: s.func(smem).unwrap(),
            tv: s.func(tv).unwrap(),
            elem,
            access,
        };
        let (op, n) = cmp.split_once(' ').unwrap();
        let op = match op {
            "<=" => tessera_verifier::Cmp::Le,
            _ => tessera_verifier::Cmp::Eq,
        };
        let p = Property::ConflictDegree(b, op, n.parse().unwrap());
        let (auto, by) = prove_by(&p, &opts, Engine::Auto);
        let want = kind(&auto).unwrap_or_else(|| panic!("auto left {smem} {tv} {cmp} undecided: {auto}"));
        let engines: &[Engine] = if ask_z3 {
            &[Engine::Enumeration, Engine::Z3]
        } else {
            &[Engine::Enumeration]
        };
        for e in engines {
            let v = prove_by(&p, &opts, *e).0;
            if let Some(k) = kind(&v) {
                assert_eq!(k, want, "{smem} {tv} {cmp}: {e:?} says {v}, auto ({by:?}) {auto}");
            }
        }
    }
}
