//! The Cranelift backend against the IR's evaluator: every case of `support::cases` (fixed,
//! random, F2, coordinate, swizzled and symbolic layouts at the index and at coordinates;
//! every operator over negative domains; large constants; and all of them again as the
//! e-graph simplifier leaves them) compiled to native code and called at every point of its
//! domain. A case the backend refuses must be one that is not total on its domain, and calls
//! outside the domain are errors.

mod support;

use support::cases::cases;
use tessera_codegen::{IndexFn, JitError};

#[test]
fn jit_computes_what_the_ir_does_at_every_point() {
    let cs = cases(0x7e55_e7a0);
    let (mut compiled, mut refused) = (0usize, Vec::new());
    for c in &cs {
        let f = match IndexFn::compile(&c.expr, &c.sig) {
            Ok(f) => f,
            Err(e @ (JitError::Unbounded(_) | JitError::Division(_))) => {
                refused.push(format!("{}: {e}", c.what));
                continue;
            }
            Err(e) => panic!("{}: {e}", c.what),
        };
        compiled += 1;
        let want = c.expected().expect("the cases are defined on their domains");
        let mut out = vec![0i64; c.expr.outputs().len()];
        for (p, w) in c.points().iter().zip(&want) {
            f.call(p, &mut out)
                .unwrap_or_else(|e| panic!("{} at {p:?}: {e}", c.what));
            let got = out.iter().map(i64::to_string).collect::<Vec<_>>().join(" ");
            assert_eq!(&got, w, "{} at {p:?}\n{}", c.what, c.expr);
        }
    }
    println!("{compiled} compiled, {} refused", refused.len());
    for r in &refused {
        println!("  refused: {r}");
    }
    assert!(compiled >= 250, "only {compiled} compiled");
    // Refusals are for divisions by a value whose interval holds 0 (the hand-built
    // expressions divide by `select(y, y, 3)` or by operands of both signs: never 0 at a point,
    // but the interval analysis cannot tell), never for a layout.
    assert!(
        refused
            .iter()
            .all(|r| r.starts_with("random expression") || r.contains("on both signs")),
        "{refused:#?}"
    );
}

#[test]
fn calls_outside_the_domain_are_errors() {
    use std::collections::HashMap;
    use tessera_codegen::Signature;
    use tessera_ir::index::{Var, parse_index};
    use tessera_ir::sym::Interval;
    let e = parse_index("(i % 6) * M + i / 6").unwrap();
    let ranges = HashMap::from([
        (Var::Index, Interval::new(Some(-10), Some(40))),
        (Var::Param("M".into()), Interval::new(Some(8), Some(64))),
    ]);
    let moduli = HashMap::from([(Var::Param("M".into()), 8)]);
    let sig = Signature::for_expr(&e, "f", &ranges, &moduli).unwrap();
    let f = IndexFn::compile(&e, &sig).unwrap();
    let mut out = [0i64];
    f.call(&[-7, 16], &mut out).unwrap();
    assert_eq!(out[0], (-7i64).rem_euclid(6) * 16 + (-7i64).div_euclid(6));
    for (args, what) in [
        (vec![41, 16], "outside"),
        (vec![0, 12], "outside"),
        (vec![0, 72], "outside"),
        (vec![0], "expected 2 arguments"),
    ] {
        let err = f.call(&args, &mut out).unwrap_err().to_string();
        assert!(err.contains(what), "{args:?}: {err}");
    }
    assert!(f.call(&[0, 8], &mut []).is_err());
    // Not total: a divisor that may be 0, a product beyond 64 bits.
    let d = parse_index("i / M").unwrap();
    let r = HashMap::from([
        (Var::Index, Interval::new(Some(0), Some(9))),
        (Var::Param("M".into()), Interval::new(Some(0), Some(4))),
    ]);
    let sig = Signature::for_expr(&d, "g", &r, &HashMap::new()).unwrap();
    assert!(matches!(IndexFn::compile(&d, &sig), Err(JitError::Division(_))));
    let big = parse_index("i * 4611686018427387904").unwrap();
    let r = HashMap::from([(Var::Index, Interval::new(Some(0), Some(9)))]);
    let sig = Signature::for_expr(&big, "h", &r, &HashMap::new()).unwrap();
    assert!(matches!(
        IndexFn::compile(&big, &sig),
        Err(JitError::Unbounded(_))
    ));
}
