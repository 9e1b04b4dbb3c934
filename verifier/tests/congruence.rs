//! Congruence facts in the prover: z3's parameter constraints, brute force's valuations and
//! the re-check of counterexamples all read `N % k == r`, never `N % k == 0` in its place.

use std::sync::Arc;
use tessera_ir::sym::Facts;
use tessera_verifier::{DEFAULT_WORK, Engine, Func, Options, Property, Verdict, brute, prove_by};

fn equal(decl: &str, a: &str, b: &str) -> Property {
    let mut f = Facts::default();
    f.declare(decl).unwrap();
    let f = Arc::new(f);
    Property::Equal(Func::parse(a, &f).unwrap(), Func::parse(b, &f).unwrap())
}

fn verdicts(p: &Property) -> (Verdict, Verdict) {
    let (z, _) = prove_by(p, &Options::default(), Engine::Z3);
    (z, brute(p, DEFAULT_WORK))
}

/// `Sw<1,0,1>` flips bit 0 when bit 1 is set, so `Sw<1,0,1> o N o 1:1` equals `Sw<0,0,0> o N o 1:1` (the constant N) exactly
/// when `N % 4` is 0 or 1.
#[test]
fn an_identity_that_needs_the_residue() {
    let (a, b) = ("Sw<1,0,1> o N o 1:1", "Sw<0,0,0> o N o 1:1");
    for (decl, holds) in [
        ("N where 0 <= N <= 64, N % 4 == 1", true),
        ("N where 0 <= N <= 64, N % 4 == 0", true),
        ("N where 0 <= N <= 64, N % 4 == 2", false),
        ("N where 0 <= N <= 64, N % 4 == 3", false),
        ("N where 0 <= N <= 64, N % 2 == 1, N % 4 == 1", true),
        ("N where 0 <= N <= 64", false),
    ] {
        let p = equal(decl, a, b);
        let (z, bf) = verdicts(&p);
        assert_eq!(z.word(), bf.word(), "{decl}: z3 {z}, brute {bf}");
        if holds {
            assert_eq!(z, Verdict::Proved, "{decl}");
        } else {
            let Verdict::Refuted(c) = &z else {
                panic!("{decl}: {z}")
            };
            let n = c.params.iter().find(|(k, _)| k == "N").unwrap().1;
            assert!(n % 4 >= 2, "{decl}: N = {n}");
            if decl.contains("== 2") {
                assert_eq!(n % 4, 2, "{decl}: the counterexample obeys the congruence");
            }
        }
    }
}

/// A parameter with a residue: z3's counterexample satisfies the congruence (the re-check of
/// `confirm` would call it an internal error otherwise).
#[test]
fn counterexamples_obey_the_congruence() {
    for r in 0..6 {
        let decl = format!("N where 1 <= N <= 40, N % 6 == {r}");
        let p = equal(&decl, "N:1", "N:2");
        let (z, bf) = verdicts(&p);
        assert_eq!(z.word(), bf.word(), "{decl}: z3 {z}, brute {bf}");
        if let Verdict::Refuted(c) = z {
            let n = c.params[0].1;
            assert_eq!(n % 6, r, "{decl}");
        }
    }
}
