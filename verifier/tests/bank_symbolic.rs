//! Bank questions over parameters: the padded-tile figures, and z3 against brute force on
//! random symbolic questions (padded strides `N+p`, symbolic value counts, congruences,
//! small bounds), with every refutation genuine: its parameter values admitted and the
//! exact analysis at those values failing the question.

use std::collections::HashMap;
use std::sync::Arc;
use tessera_ir::sym::Facts;
use tessera_verifier::{Bank, Cmp, DEFAULT_WORK, Engine, Func, Options, Property, Verdict, brute, prove_by};

mod common;
use common::SplitMix as Rng;

fn facts(decls: &[&str]) -> Arc<Facts> {
    let mut f = Facts::default();
    for d in decls {
        f.declare(d).unwrap();
    }
    Arc::new(f)
}

fn bank(f: &Arc<Facts>, smem: &str, tv: &str, elem: i64, access: i64) -> Bank {
    Bank {
        smem: Func::parse(smem, f).unwrap(),
        tv: Func::parse(tv, f).unwrap(),
        elem,
        access,
    }
}

fn by(p: &Property, e: Engine) -> (Verdict, Engine) {
    prove_by(
        p,
        &Options {
            timeout_ms: Some(20_000),
        },
        e,
    )
}

fn param(v: &Verdict, n: &str) -> i64 {
    let Verdict::Refuted(c) = v else { panic!("{v}") };
    c.params.iter().find(|(k, _)| k == n).unwrap().1
}

#[test]
fn padded_tile_read_by_columns() {
    // (32,N):(N+1,1) read by columns: conflict-free exactly when N+1 is odd.
    for (decl, free) in [
        ("N where 1 <= N <= 256, N % 2 == 0", true),
        ("N where 1 <= N <= 256", false),
        ("N where 1 <= N <= 256, N % 2 == 1", false),
        ("N where N % 2 == 0, N <= 100000", true),
    ] {
        let f = facts(&[decl]);
        for tv in ["(32,N):(1,32)", "(32,N):(1,32)"] {
            let p = Property::BankConflictFree(bank(&f, "(32,N):(N+1,1)", tv, 4, 4));
            for e in [Engine::Auto, Engine::Z3] {
                let (v, used) = by(&p, e);
                if free {
                    assert_eq!(v, Verdict::Proved, "{decl} {e:?}");
                } else {
                    assert!(param(&v, "N") % 2 == 1, "{decl} {e:?}: {v}");
                }
                if e == Engine::Z3 {
                    assert_eq!(used, Engine::Z3);
                }
            }
        }
    }
    // Bounded and few: the automatic choice enumerates.
    let f = facts(&["N where 1 <= N <= 16"]);
    let p = Property::BankConflictFree(bank(&f, "(32,N):(N+1,1)", "(32,N):(1,32)", 4, 4));
    let (v, used) = by(&p, Engine::Auto);
    assert_eq!((param(&v, "N"), used), (1, Engine::Enumeration));
    // Unbounded: integers; the refutation is re-checked at z3's value.
    let f = facts(&["N"]);
    let p = Property::BankConflictFree(bank(&f, "(32,N):(N+1,1)", "(32,N):(1,32)", 4, 4));
    let (v, _) = by(&p, Engine::Auto);
    match v {
        Verdict::Refuted(_) => assert!(param(&v, "N") % 2 == 1),
        Verdict::Unknown(_) => {}
        v => panic!("{v}"),
    }
}

#[test]
fn row_stride_a_multiple_of_32_is_32_way() {
    let f = facts(&["N where 32 <= N <= 512, N % 32 == 0"]);
    let b = bank(&f, "(32,N):(N,1)", "(32,N):(1,32)", 4, 4);
    let (v, _) = by(&Property::ConflictDegree(b.clone(), Cmp::Eq, 32), Engine::Auto);
    assert_eq!(v, Verdict::Proved);
    let (v, _) = by(&Property::ConflictDegree(b.clone(), Cmp::Le, 31), Engine::Z3);
    assert!(param(&v, "N") % 32 == 0, "{v}");
    let (v, _) = by(&Property::BankConflictFree(b.clone()), Engine::Z3);
    assert!(matches!(v, Verdict::Refuted(_)), "{v}");
    let (v, _) = by(&Property::ConflictDegree(b, Cmp::Ge, 32), Engine::Z3);
    assert_eq!(v, Verdict::Proved);
    // Unbounded N: `<= 32` holds trivially, `>= 32` needs every N: unknown, with the reason.
    let f = facts(&["N where N % 32 == 0"]);
    let b = bank(&f, "(32,N):(N,1)", "(32,N):(1,32)", 4, 4);
    let (v, _) = by(&Property::ConflictDegree(b.clone(), Cmp::Le, 32), Engine::Auto);
    assert_eq!(v, Verdict::Proved);
    let (v, _) = by(&Property::ConflictDegree(b.clone(), Cmp::Eq, 32), Engine::Auto);
    assert!(
        matches!(&v, Verdict::Unknown(r) if r.contains("every admitted value")),
        "{v}"
    );
    // ... but a sampled value refutes a wrong `>=`.
    let f = facts(&["N where N % 2 == 0"]);
    let b = bank(&f, "(32,N):(N,1)", "(32,N):(1,32)", 4, 4);
    let (v, _) = by(&Property::ConflictDegree(b, Cmp::Ge, 32), Engine::Auto);
    assert!(matches!(&v, Verdict::Refuted(_)), "{v}");
}

#[test]
fn symbolic_values_count_and_bad_input() {
    // A symbolic number of values per thread (a tile count): K tiles of 32 words.
    let f = facts(&["K where 1 <= K <= 1000"]);
    let b = bank(&f, "(32,K):(1,32)", "(32,K):(1,32)", 4, 4);
    assert_eq!(by(&Property::BankConflictFree(b), Engine::Z3).0, Verdict::Proved);
    // 8-byte accesses of 4-byte elements: the values count must be even for every K.
    let f = facts(&["K where 1 <= K <= 1000"]);
    let b = bank(&f, "(16,K):(64,1)", "(16,K):(1,16)", 4, 8);
    let (v, _) = by(&Property::BankConflictFree(b), Engine::Z3);
    assert!(matches!(&v, Verdict::Invalid(m) if m.contains("K = ")), "{v}");
    // A non-contiguous vector access for odd N names the value.
    let f = facts(&["N where 1 <= N <= 1000"]);
    let b = bank(&f, "(16,(2,4)):(N,(1,2))", "(16,8):(1,16)", 4, 8);
    let (v, _) = by(&Property::BankConflictFree(b), Engine::Z3);
    assert!(matches!(&v, Verdict::Invalid(m) if m.contains("N = ")), "{v}");
    // A symbolic thread count is bad input.
    let f = facts(&["T where 1 <= T <= 32"]);
    let b = bank(&f, "(32,32):(33,1)", "(T,32):(1,32)", 4, 4);
    let (v, _) = by(&Property::BankConflictFree(b), Engine::Auto);
    assert!(
        matches!(&v, Verdict::Invalid(m) if m.contains("thread count")),
        "{v}"
    );
}

/// One random symbolic bank question: a tile of `R` rows read by `threads` threads.
fn random_question(r: &mut Rng) -> (Vec<String>, String, String, i64, i64) {
    let fact_n = r.pick(&[
        "N where 1 <= N <= 8",
        "N where 1 <= N <= 40",
        "N where 1 <= N <= 40, N % 2 == 0",
        "N where 1 <= N <= 40, N % 2 == 1",
        "N where 1 <= N <= 64, N % 4 == 2",
        "N where 3 <= N <= 50, N % 3 == 1",
        "N where 1 <= N <= 3",
    ]);
    let fact_k = r.pick(&[
        "K where 1 <= K <= 4",
        "K where 2 <= K <= 6, K % 2 == 0",
        "K where K == 1",
    ]);
    let (elem, access) = [(4, 4), (4, 8), (4, 16), (2, 4), (2, 16), (8, 8), (1, 1)][r.below(7)];
    let vpa = access / elem;
    let threads = [8, 16, 32][r.below(3)];
    let pad = r.pick(&["N", "N+1", "N+2", "N+3", "N+4", "2*N+1", "N*4", "N+8"]);
    // Mostly a multiple of the values per access, so that vector accesses stay aligned.
    let pad = if r.below(3) > 0 {
        format!("{vpa}*({pad})")
    } else {
        pad.to_string()
    };
    // Row-major tile (threads, vpa*K) with a padded row stride: thread t reads row t.
    let smem = format!("({threads},({vpa},K)):({pad},(1,{vpa}))");
    let tv = match r.below(6) {
        0..=2 => format!("({threads},({vpa},K)):(1,({threads},{}))", threads * vpa),
        // Rows shuffled: thread (a, b) reads row a*h + b, so phases mix distant rows.
        3 | 4 => {
            let h = threads / 2;
            format!("((2,{h}),({vpa},K)):(({h},1),({threads},{}))", threads * vpa)
        }
        // Values out of order: malformed vector accesses when vpa > 1.
        _ => format!("({threads},(K,{vpa})):(1,({},{threads}))", threads * vpa),
    };
    (
        vec![fact_n.to_string(), fact_k.to_string()],
        smem,
        tv,
        elem,
        access,
    )
}

#[test]
fn z3_agrees_with_brute_force_on_random_symbolic_questions() {
    let mut r = Rng(0x5EED_BA4C);
    let mut disagreements = Vec::new();
    let mut counts: HashMap<&'static str, usize> = HashMap::new();
    let cases = 80;
    for i in 0..cases {
        let (decls, smem, tv, elem, access) = random_question(&mut r);
        let refs: Vec<&str> = decls.iter().map(String::as_str).collect();
        let f = facts(&refs);
        let Ok(s) = Func::parse(&smem, &f) else { continue };
        let Ok(t) = Func::parse(&tv, &f) else { continue };
        let b = Bank {
            smem: s,
            tv: t,
            elem,
            access,
        };
        let q = match i % 4 {
            0 | 1 => Property::BankConflictFree(b),
            2 => Property::ConflictDegree(b, Cmp::Le, 1 + r.below(4) as i64),
            _ => Property::ConflictDegree(
                b,
                [Cmp::Lt, Cmp::Eq, Cmp::Ge, Cmp::Gt][r.below(4)],
                1 + r.below(8) as i64,
            ),
        };
        let (z, _) = by(&q, Engine::Z3);
        let bf = brute(&q, DEFAULT_WORK);
        *counts.entry(z.word()).or_default() += 1;
        if z.word() != bf.word() {
            disagreements.push(format!(
                "{decls:?} {smem} / {tv} e{elem} a{access} {}: z3 {z}, brute {bf}",
                q.name()
            ));
            continue;
        }
        if let Verdict::Refuted(c) = &z {
            // Genuine: admitted values, and brute force at exactly those values refutes.
            let mut pinned = Facts::default();
            for (n, v) in &c.params {
                let pf = f.get(n).unwrap();
                assert!(pf.admits(*v), "{n} = {v} breaks {decls:?}");
                pinned.declare(&format!("{n} where {n} == {v}")).unwrap();
            }
            let pinned = Arc::new(pinned);
            let b = Bank {
                smem: Func::parse(&smem, &pinned).unwrap(),
                tv: Func::parse(&tv, &pinned).unwrap(),
                elem,
                access,
            };
            let at = match &q {
                Property::ConflictDegree(_, c, n) => Property::ConflictDegree(b, *c, *n),
                _ => Property::BankConflictFree(b),
            };
            let v = brute(&at, DEFAULT_WORK);
            assert!(
                matches!(v, Verdict::Refuted(_)),
                "{decls:?} {smem} at {:?}: {v}",
                c.params
            );
        }
    }
    eprintln!("verdicts: {counts:?}");
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    assert!(counts.get("proved").copied().unwrap_or(0) >= 5, "{counts:?}");
    assert!(counts.get("refuted").copied().unwrap_or(0) >= 5, "{counts:?}");
}
