//! The F2 engine against enumeration: random power-of-two and swizzled layouts (some of
//! 2^20 elements) agree on injectivity, bijectivity and bank degrees; near misses stay
//! outside the fragment and are still answered by the other engines; a 2^30-element layout
//! is answered by F2.

use std::sync::Arc;
use tessera_ir::sym::Facts;
use tessera_verifier::{
    Bank, Cmp, DEFAULT_WORK, Engine, F2Layout, Func, Options, Property, Verdict, analyze, bank_degree, brute,
    prove_by,
};

fn f(src: &str) -> Func {
    Func::parse(src, &Arc::new(Facts::default())).unwrap_or_else(|e| panic!("{src}: {e}"))
}

mod common;
use common::Rng;

/// A random layout of `bits` index bits: extents and strides powers of two (strides
/// sometimes zero), most of them permutations of the offset bits.
fn layout(rng: &mut Rng, bits: u32, max_stride_bit: u64) -> String {
    let mut left = bits;
    let (mut shape, mut stride) = (Vec::new(), Vec::new());
    while left > 0 {
        let b = 1 + rng.below(u64::from(left.min(4))) as u32;
        left -= b;
        shape.push((1u64 << b).to_string());
        stride.push(match rng.below(8) {
            0 => "0".to_string(),
            _ => (1u64 << rng.below(max_stride_bit)).to_string(),
        });
    }
    format!("({}):({})", shape.join(","), stride.join(","))
}

/// The layout's bits permuted: a bijection of `[0, 2^bits)` (strides as permuted powers).
fn permutation(rng: &mut Rng, bits: u32) -> String {
    let mut order: Vec<u32> = (0..bits).collect();
    for k in (1..order.len()).rev() {
        order.swap(k, rng.below(k as u64 + 1) as usize);
    }
    let shape = vec!["2"; bits as usize].join(",");
    let stride: Vec<String> = order.iter().map(|b| (1u64 << b).to_string()).collect();
    format!("({shape}):({})", stride.join(","))
}

fn swizzle(rng: &mut Rng) -> String {
    let b = rng.below(4);
    let m = rng.below(4);
    let s = b + rng.below(3);
    format!("Sw<{b},{m},{s}> o ")
}

fn kind(v: &Verdict) -> &'static str {
    match v {
        Verdict::Proved => "proved",
        Verdict::Refuted(_) => "refuted",
        _ => "other",
    }
}

/// Injectivity and bijectivity by `Auto`, by F2 and by brute force; returns whether F2 answered.
fn agree(src: &str) -> bool {
    let opts = Options::default();
    let mut by_f2 = false;
    for p in [Property::Injective(f(src)), Property::Bijective(f(src))] {
        let (v, e) = prove_by(&p, &opts, Engine::Auto);
        let b = brute(&p, DEFAULT_WORK);
        assert_eq!(
            kind(&v),
            kind(&b),
            "{} {src}: {v} by {e:?}, brute force: {b}",
            p.name()
        );
        assert_ne!(kind(&v), "other", "{src}: {v}");
        // F2 forced: in the fragment it answers, and agrees (`Auto` may have asked the
        // structural engine first).
        let (v, _) = prove_by(&p, &opts, Engine::F2);
        if kind(&v) != "other" {
            assert_eq!(
                kind(&v),
                kind(&b),
                "{} {src}: F2 says {v}, brute force: {b}",
                p.name()
            );
            by_f2 = true;
        }
    }
    by_f2
}

#[test]
fn random_layouts_agree_with_enumeration() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut f2 = 0;
    for k in 0..300 {
        let bits = 1 + rng.below(10) as u32;
        let l = if k % 3 == 0 {
            permutation(&mut rng, bits)
        } else {
            layout(&mut rng, bits, 12)
        };
        let src = if k % 2 == 0 {
            format!("{}{l}", swizzle(&mut rng))
        } else {
            l
        };
        f2 += usize::from(agree(&src));
    }
    // Most random layouts are in the fragment; the rest went to z3 and agreed too.
    eprintln!("F2 answered {f2} of 300 layouts");
    assert!(f2 > 150, "F2 answered {f2} of 300");
}

#[test]
fn large_layouts_agree_with_enumeration() {
    let mut rng = Rng(42);
    let mut srcs: Vec<String> = (0..3)
        .map(|_| format!("{}{}", swizzle(&mut rng), permutation(&mut rng, 20)))
        .collect();
    srcs.push("Sw<3,4,3> o (1024,2,512):(1,0,1024)".into());
    for src in srcs {
        let p = Property::Injective(f(&src));
        let (v, e) = prove_by(&p, &Options::default(), Engine::F2);
        assert_eq!(e, Engine::F2);
        assert_eq!(kind(&v), kind(&brute(&p, DEFAULT_WORK)), "{src}: {v}");
    }
    assert!(agree("Sw<3,4,3> o (1024,1024):(1024,1)"));
}

/// A bank question whose degree F2 and the exact analysis both compute: the degree, or
/// `None` where F2 declines it.
fn bank_agrees(smem: &str, tv: &str, elem: i64, access: i64) -> Option<i64> {
    let b = Bank {
        smem: f(smem),
        tv: f(tv),
        elem,
        access,
    };
    let exact = analyze(&b).unwrap_or_else(|e| panic!("{smem} {tv}: {e}")).degree;
    let Ok(by_f2) = bank_degree(&b).unwrap() else {
        return None;
    };
    assert_eq!(
        by_f2.degree, exact,
        "{smem} with {tv}, {elem}-byte elements, {access}-byte accesses"
    );
    assert_eq!(by_f2.pair.is_some(), exact > 1);
    let p = Property::ConflictDegree(b.clone(), Cmp::Eq, exact);
    assert_eq!(
        prove_by(&p, &Options::default(), Engine::Auto),
        (Verdict::Proved, Engine::F2)
    );
    let p = Property::BankConflictFree(b);
    let (v, e) = prove_by(&p, &Options::default(), Engine::Auto);
    assert_eq!(
        (kind(&v), e),
        (if exact == 1 { "proved" } else { "refuted" }, Engine::F2)
    );
    Some(exact)
}

#[test]
fn random_bank_degrees_agree_with_the_exact_analysis() {
    let mut rng = Rng(7);
    let (mut f2, mut conflicts) = (0, 0);
    for k in 0..300 {
        let bits = 6 + rng.below(7) as u32;
        let smem = match k % 3 {
            0 => layout(&mut rng, bits, u64::from(bits) + 2),
            _ => permutation(&mut rng, bits),
        };
        let smem = if k % 2 == 0 {
            format!("{}{smem}", swizzle(&mut rng))
        } else {
            smem
        };
        // Threads 8..64, values 1..8: a TV layout into the indices of smem.
        let tb = 3 + rng.below(4) as u32;
        let vb = rng.below(4) as u32;
        // Distinct index bits of smem (sometimes zero): the TV layout is in the fragment.
        let mut order: Vec<u32> = (0..bits).collect();
        for j in (1..order.len()).rev() {
            order.swap(j, rng.below(j as u64 + 1) as usize);
        }
        let mut next = order.into_iter();
        let mut pick = |rng: &mut Rng, n: u32| -> Vec<String> {
            (0..n)
                .map(|_| match (rng.below(6), next.next()) {
                    (0, _) | (_, None) => "0".to_string(),
                    (_, Some(b)) => (1u64 << b).to_string(),
                })
                .collect()
        };
        let (ts, vs) = (pick(&mut rng, tb), pick(&mut rng, vb.max(1)));
        let vshape = if vb == 0 {
            "1".to_string()
        } else {
            vec!["2"; vb as usize].join(",")
        };
        let tv = format!(
            "(({}),({vshape})):(({}),({}))",
            vec!["2"; tb as usize].join(","),
            ts.join(","),
            vs.join(",")
        );
        let elem = [1, 2, 4, 8, 16][rng.below(5) as usize];
        if let Some(d) = bank_agrees(&smem, &tv, elem, elem) {
            f2 += 1;
            conflicts += usize::from(d > 1);
        }
    }
    eprintln!("F2 answered {f2} of 300 bank questions, {conflicts} with conflicts");
    assert!(
        f2 > 200 && conflicts > 50,
        "F2 answered {f2} of 300, {conflicts} with conflicts"
    );
}

/// Vector accesses (`access = elem·vpa`, up to 16 bytes) of swizzled row-major tiles: the
/// element size and width scaling, the phases of 16 and 8 threads, broadcast (zero strides);
/// a swizzle that breaks an access's contiguity is left to the exact analysis, which calls the
/// question bad input.
#[test]
fn random_vector_accesses_agree_with_the_exact_analysis() {
    let mut rng = Rng(2024);
    let (mut f2, mut invalid, mut conflicts) = (0, 0, 0);
    for _ in 0..300 {
        let (rb, cb) = (3 + rng.below(4) as u32, 3 + rng.below(4) as u32);
        let elem = [1i64, 2, 4, 8][rng.below(4) as usize];
        let most = (16 / elem).min(1 << cb).trailing_zeros();
        let lv = rng.below(u64::from(most) + 1) as u32;
        let sw = if rng.below(3) == 0 {
            String::new()
        } else {
            swizzle(&mut rng)
        };
        let smem = format!("{sw}({},{}):({},1)", 1u64 << rb, 1u64 << cb, 1u64 << cb);
        // Index i = r + R·c: rows are bits 0..rb, columns rb..rb+cb; a vector's values are
        // the columns' low lv bits.
        let mut free: Vec<u32> = (0..rb).chain(rb + lv..rb + cb).collect();
        for j in (1..free.len()).rev() {
            free.swap(j, rng.below(j as u64 + 1) as usize);
        }
        let mut next = free.into_iter();
        let mut bit = |rng: &mut Rng| match (rng.below(8), next.next()) {
            (0, _) | (_, None) => "0".to_string(),
            (_, Some(b)) => (1u64 << b).to_string(),
        };
        let threads: Vec<String> = (0..5).map(|_| bit(&mut rng)).collect();
        let more = bit(&mut rng);
        let tv = format!(
            "((2,2,2,2,2),({},2)):(({}),({},{more}))",
            1u64 << lv,
            threads.join(","),
            1u64 << rb
        );
        let b = Bank {
            smem: f(&smem),
            tv: f(&tv),
            elem,
            access: elem << lv,
        };
        match analyze(&b) {
            Ok(_) => {
                if let Some(d) = bank_agrees(&smem, &tv, elem, elem << lv) {
                    f2 += 1;
                    conflicts += usize::from(d > 1);
                }
            }
            Err(e) => {
                invalid += 1;
                assert!(matches!(bank_degree(&b), Ok(Err(_))), "{smem} {tv}: {e}");
                let p = Property::BankConflictFree(b);
                assert!(matches!(
                    prove_by(&p, &Options::default(), Engine::Auto).0,
                    Verdict::Invalid(_)
                ));
            }
        }
    }
    eprintln!("F2 answered {f2} of 300 vector questions, {conflicts} with conflicts, {invalid} malformed");
    assert!(
        f2 > 150 && invalid > 10 && conflicts > 30,
        "F2 answered {f2}, {invalid} malformed, of 300"
    );
}

fn bank_agrees_some(smem: &str, tv: &str, elem: i64, access: i64) -> bool {
    bank_agrees(smem, tv, elem, access).is_some()
}

#[test]
fn design_bank_figures_by_f2() {
    let col = "(32,32):(1,32)";
    assert!(bank_agrees_some("(32,32):(32,1)", col, 4, 4));
    assert!(bank_agrees_some("Sw<5,0,5> o (32,32):(32,1)", col, 4, 4));
    assert!(bank_agrees_some("Sw<3,0,5> o (32,32):(32,1)", col, 4, 4));
    let ldm = "((8,4),8):((1,64),8)";
    assert!(bank_agrees_some("(8,64):(64,1)", ldm, 2, 16));
    assert!(bank_agrees_some("Sw<3,3,3> o (8,64):(64,1)", ldm, 2, 16));
    // 8-byte accesses of 4-byte elements (two phases of 16), a 2^20-access TV layout.
    assert!(bank_agrees_some(
        "(64,64):(64,1)",
        "(32,(2,32)):(1,(64,128))",
        4,
        8
    ));
    assert!(bank_agrees_some(
        "(64,64):(64,1)",
        "(32,(2,64)):(128,(64,1))",
        4,
        8
    ));
    assert!(bank_agrees_some(
        "Sw<3,0,10> o (1024,1024):(1024,1)",
        "(32,32768):(1,32)",
        4,
        4
    ));
}

#[test]
fn near_misses_stay_outside_and_are_answered_by_the_other_engines() {
    let cases = [
        ("(3,4):(4,1)", "not a power of two"),
        ("(4,2):(3,1)", "neither 0 nor a power of two"),
        ("(8):(5)", "neither 0 nor a power of two"),
        ("(2,2):(1,1)", "the sum carries"),
        ("(4,2):(1,2)", "the sum carries"),
        ("(4,4):(2,1)", "the sum carries"),
        ("(4):(F2(3))", "carries"),
        ("Sw<2,0,2> o 1 o (4,4):(4,1)", "shares bits"),
        ("Sw<3,4,3> o 32 o (8,64):(64,1)", "shares bits"),
        ("(4,8):(1@0,1@1)", "coordinate-valued"),
    ];
    for (src, why) in cases {
        let e = F2Layout::from_func(&f(src)).expect_err(src);
        assert!(e.0.contains(why), "{src}: {e}");
        let p = Property::Injective(f(src));
        let (v, engine) = prove_by(&p, &Options::default(), Engine::Auto);
        assert_ne!(engine, Engine::F2, "{src}");
        assert_eq!(kind(&v), kind(&brute(&p, DEFAULT_WORK)), "{src}: {v}");
        let (v, engine) = prove_by(&p, &Options::default(), Engine::F2);
        assert_eq!(engine, Engine::F2);
        assert!(matches!(&v, Verdict::Unknown(r) if r.contains(why)), "{src}: {v}");
    }
    // Exact although they look close: a swizzle is linear whatever its bits, an offset whose
    // bits are free, F2 strides whose multiples do not carry.
    for src in [
        "Sw<3,0,3> o (8,8):(1,8)",
        "Sw<2,1,2> o (4,4,4):(1,4,16)",
        "Sw<3,4,3> o 512 o (8,64):(64,1)",
        "(4,8):(F2(4),F2(9))",
        "(2,2):(F2(3),F2(3))",
        "(4,2):(F2(5),F2(2))",
    ] {
        assert!(F2Layout::from_func(&f(src)).is_ok(), "{src}");
        assert!(agree(src), "{src}");
    }
    // A padded tile: outside, answered by the exact analysis.
    let b = Bank {
        smem: f("(32,33):(33,1)"),
        tv: f("(32,32):(1,32)"),
        elem: 4,
        access: 4,
    };
    assert!(bank_degree(&b).unwrap().is_err());
    let p = Property::ConflictDegree(b, Cmp::Eq, 1);
    assert_eq!(
        prove_by(&p, &Options::default(), Engine::Auto),
        (Verdict::Proved, Engine::Enumeration)
    );
}

#[test]
fn a_layout_of_2_pow_30_elements_is_answered_by_f2() {
    let opts = Options::default();
    let p = Property::Injective(f("Sw<3,4,3> o (32768,32768):(32768,1)"));
    assert_eq!(prove_by(&p, &opts, Engine::Auto), (Verdict::Proved, Engine::F2));
    // Unswizzled, the structural engine answers first (its strides dominate); F2 agrees.
    let p = Property::Bijective(f("(32768,32768):(32768,1)"));
    assert_eq!(
        prove_by(&p, &opts, Engine::Auto),
        (Verdict::Proved, Engine::Structural)
    );
    assert_eq!(prove_by(&p, &opts, Engine::F2), (Verdict::Proved, Engine::F2));
    let p = Property::Injective(f("(32768,32768):(1,0)"));
    let (v, e) = prove_by(&p, &opts, Engine::F2);
    assert_eq!(e, Engine::F2);
    match v {
        Verdict::Refuted(c) => assert!(c.summary.starts_with("L(0) == L("), "{}", c.summary),
        other => panic!("{other}"),
    }
    // 2^30 accesses, past the exact analysis's limit: thread t reads row t, every row starts
    // in bank 0 (32-way); `Sw<5,0,15>` moves the row bits into the bank bits (1-way).
    for (smem, degree) in [
        ("(32768,32768):(32768,1)", 32),
        ("Sw<5,0,15> o (32768,32768):(32768,1)", 1),
    ] {
        let b = Bank {
            smem: f(smem),
            tv: f("(32,(32,1048576)):(1,(32,1024))"),
            elem: 4,
            access: 4,
        };
        assert!(analyze(&b).is_err());
        let p = Property::ConflictDegree(b, Cmp::Eq, degree);
        assert_eq!(
            prove_by(&p, &opts, Engine::Auto),
            (Verdict::Proved, Engine::F2),
            "{smem}"
        );
    }
}

#[test]
fn left_inverse_and_composition_by_solving() {
    let l = F2Layout::from_func(&f("Sw<3,4,3> o (64,32):(32,1)")).unwrap();
    let inv = l.left_inverse().unwrap();
    for i in 0..2048 {
        assert_eq!(inv.eval(l.eval(i)), i);
    }
    let id = inv.compose(&l).unwrap();
    assert!(id.matrix.cols().iter().enumerate().all(|(j, &c)| c == 1 << j) && id.constant == 0);
    assert!(l.surjective_onto(11) && !F2Layout::from_func(&f("(4):(2)")).unwrap().surjective_onto(2));
    let a = F2Layout::from_func(&f("(8,8):(8,1)")).unwrap();
    let b = F2Layout::from_func(&f("(4,2):(2,32)")).unwrap();
    let ab = a.compose(&b).unwrap();
    for i in 0..8 {
        assert_eq!(ab.eval(i), a.eval(b.eval(i)));
    }
    assert!(b.compose(&a).is_none(), "a reaches past the size of b");
    assert!(
        F2Layout::from_func(&f("(4,2):(1,0)"))
            .unwrap_or_else(|e| panic!("{e}"))
            .left_inverse()
            .is_none()
    );
}
