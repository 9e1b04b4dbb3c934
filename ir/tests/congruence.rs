//! Congruence facts `N % k == r`: parsing, their combination (CRT), the errors, `admits`,
//! `bounds`, and that the symbolic algebra uses only the divisibility a congruence implies.

use std::sync::Arc;
use tessera_ir::Int;
use tessera_ir::sym::{Facts, ParamFacts, SymInt};

fn one(decl: &str) -> ParamFacts {
    let mut f = Facts::default();
    let names = f.declare(decl).unwrap();
    f.get(&names[0]).unwrap().clone()
}

#[test]
fn congruences_parse_and_normalise() {
    let n = one("N where N % 4 == 1");
    assert_eq!((n.modulus, n.residue), (4, 1));
    // Residues are normalised to 0 <= r < k, negative ones included.
    let n = one("N where N % 4 == 7");
    assert_eq!((n.modulus, n.residue), (4, 3));
    let n = one("N where N % 4 == -1");
    assert_eq!((n.modulus, n.residue), (4, 3));
    let n = one("N where N % 1 == 5");
    assert_eq!((n.modulus, n.residue), (1, 0));
    // Divisibility is the residue 0.
    let n = one("N where N % 8 == 0");
    assert_eq!((n.modulus, n.residue, n.divisor()), (8, 0, 8));
}

#[test]
fn congruences_combine_by_crt() {
    let n = one("N where N % 2 == 1, N % 3 == 2");
    assert_eq!((n.modulus, n.residue), (6, 5));
    let n = one("N where N % 4 == 2, N % 6 == 2");
    assert_eq!((n.modulus, n.residue), (12, 2));
    let n = one("N where N % 4 == 2, N % 2 == 0");
    assert_eq!((n.modulus, n.residue), (4, 2));
    // Brute force over one period agrees with the combination.
    for (k1, r1, k2, r2) in [(4, 1, 6, 3), (9, 4, 6, 1), (5, 2, 7, 3), (8, 6, 12, 2)] {
        let decl = format!("N where N % {k1} == {r1}, N % {k2} == {r2}, 0 <= N <= 500");
        let mut f = Facts::default();
        let want: Vec<i64> = (0..=500).filter(|v| v % k1 == r1 && v % k2 == r2).collect();
        match f.declare(&decl) {
            Ok(_) => {
                let n = f.get("N").unwrap();
                let got: Vec<i64> = (0..=500).filter(|v| n.admits(*v)).collect();
                assert_eq!(got, want, "{decl}");
                assert_eq!(n.bounds(), (want[0] as i128, Some(*want.last().unwrap() as i128)));
            }
            Err(e) => assert!(want.is_empty(), "{decl}: {e}"),
        }
    }
}

#[test]
fn inconsistent_or_huge_congruences_are_errors_with_a_caret() {
    let mut f = Facts::default();
    let e = f
        .declare("N where N % 4 == 1, N % 2 == 0")
        .unwrap_err()
        .to_string();
    assert!(e.contains("N % 2 == 0 contradicts N % 4 == 1"), "{e}");
    assert!(e.contains('^'), "{e}");
    // The caret is under the second fact.
    let caret = e.lines().last().unwrap().find('^').unwrap();
    let line = e.lines().rev().nth(1).unwrap();
    assert!(line[caret..].starts_with("N % 2"), "{e}");
    let mut f = Facts::default();
    let e = f
        .declare("N where N % 9223372036854775807 == 1, N % 9223372036854775806 == 1")
        .unwrap_err()
        .to_string();
    assert!(e.contains("beyond i64"), "{e}");
    let mut f = Facts::default();
    assert!(f.declare("N where N % 0 == 1").is_err());
    assert!(f.declare("N where N % 4 == M").is_err());
    assert!(f.declare("N where N % 4 < 1").is_err());
    // A residue near i64's ends is read and normalised without overflow.
    let n = one("N where N % 7 == 9223372036854775807");
    assert_eq!(n.residue, 9223372036854775807 % 7);
    let n = one("N where N % 7 == -9223372036854775808");
    assert_eq!(n.residue, (-9223372036854775808i128).rem_euclid(7) as i64);
    // Facts that leave no value are an error.
    let mut f = Facts::default();
    assert!(f.declare("N where N % 4 == 1, 2 <= N <= 4").is_err());
}

#[test]
fn admits_and_bounds_respect_the_residue() {
    let n = one("N where N % 4 == 1, 0 <= N <= 20");
    assert_eq!(n.bounds(), (1, Some(17)));
    assert!(n.admits(1) && n.admits(5) && n.admits(17));
    assert!(!n.admits(0) && !n.admits(4) && !n.admits(21) && !n.admits(-3));
    let n = one("N where N % 4 == 3, -10 <= N <= 10");
    assert_eq!(n.bounds(), (-9, Some(7)));
    assert!(n.admits(-9) && n.admits(-1) && !n.admits(-10));
    assert_eq!(n.divisor(), 1);
    let n = one("N where N % 12 == 8");
    assert_eq!(n.divisor(), 4);
    assert_eq!(n.congruence_text("N").unwrap(), "N % 12 == 8");
}

#[test]
fn printing_round_trips() {
    for decl in [
        "N where N % 4 == 1, 1 <= N <= 99",
        "N where N % 6 == 5",
        "N where N % 2 == 1, N % 5 == 3, -7 <= N <= 300",
    ] {
        let n = one(decl);
        let mut text = match n.hi {
            Some(h) => format!("N where {} <= N <= {h}", n.lo),
            None => format!("N where N >= {}", n.lo),
        };
        if let Some(c) = n.congruence_text("N") {
            text.push_str(&format!(", {c}"));
        }
        let back = one(&text);
        assert_eq!(
            (back.bounds(), back.modulus, back.residue),
            (n.bounds(), n.modulus, n.residue),
            "{decl} -> {text}"
        );
    }
}

/// The algebra decides divisibility from `gcd(k, r)` only: `N % 4 == 2` makes `N` even, not a
/// multiple of 4; `N % 4 == 1` says nothing. (Reading the modulus alone would call `N + 2`
/// not a multiple of 4 under `N % 4 == 2`, which is false.)
#[test]
fn the_algebra_uses_only_the_implied_divisor() {
    let mut f = Facts::default();
    f.declare("N where N % 4 == 2").unwrap();
    let f = Arc::new(f);
    let n = SymInt::param("N", &f);
    let k = SymInt::lit;
    assert!(k(2).divides(&n).unwrap());
    assert!(k(4).divides(&n).is_err());
    let n2 = n.add(&k(2)).unwrap();
    assert!(
        k(4).divides(&n2).is_err(),
        "N + 2 is a multiple of 4 for every admitted N"
    );
    let mut g = Facts::default();
    g.declare("N where N % 4 == 1").unwrap();
    let g = Arc::new(g);
    let n = SymInt::param("N", &g);
    assert!(k(2).divides(&n).is_err());
    assert!(n.div_exact(&k(2)).is_err());
    let mut h = Facts::default();
    h.declare("N where N % 4 == 0").unwrap();
    let h = Arc::new(h);
    let n = SymInt::param("N", &h);
    assert!(k(4).divides(&n).unwrap());
    assert_eq!(n.div_exact(&k(4)).unwrap().to_string(), "N/4");
}
