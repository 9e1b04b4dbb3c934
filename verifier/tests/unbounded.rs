//! Parameters without an upper bound: the integer encoding with quotient and remainder
//! variables. Refutations come with parameter values and are re-checked.

mod common;

use common::Text;
use tessera_verifier::{Func, Options, Property, Verdict, prove};

fn f(s: &Text, src: &str) -> Func {
    s.func(src).unwrap()
}

#[test]
fn unbounded_parameters_use_integers() {
    let s = Text::new(&["M", "N where N % 8 == 0"]);
    let o = Options {
        timeout_ms: Some(30_000),
    };
    assert_eq!(
        prove(&Property::Injective(f(&s, "(M,4):(4,1)")), &o),
        Verdict::Proved
    );
    let four_m = s.int("4*M");
    assert_eq!(
        prove(&Property::InBounds(f(&s, "(4,M):(M,1)"), four_m), &o),
        Verdict::Proved
    );
    assert_eq!(
        prove(
            &Property::Equal(
                s.apply("coalesce", &f(&s, "(4,M):(1,4)"), None).unwrap(),
                f(&s, "4*M:1")
            ),
            &o
        ),
        Verdict::Proved
    );
    assert_eq!(
        prove(&Property::Injective(f(&s, "(N,2):(1,N)")), &o),
        Verdict::Proved
    );
    match prove(&Property::Injective(f(&s, "(M,4):(2,1)")), &o) {
        Verdict::Refuted(c) => {
            let m = c.params.iter().find(|p| p.0 == "M").map(|p| p.1).unwrap();
            assert!(m >= 2, "{c}");
        }
        v => panic!("{v}"),
    }
    // Swizzles need bit-vectors, hence bounded parameters: an honest unknown that names the
    // parameter the query uses (N is declared, unbounded and unused).
    let v = prove(&Property::Injective(f(&s, "Sw<3,0,3> o (8,M):(M,1)")), &o);
    assert!(
        matches!(&v, Verdict::Unknown(r) if r.ends_with("give M an upper bound")),
        "{v}"
    );
}
