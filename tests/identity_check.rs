//! `equal` in check files: which prover closes each identity of the examples, a false
//! identity that neither egg nor the normal form closes and z3 refutes, and `--prover z3`.

use serde_json::Value as Json;
use tessera::check::{self, Assertion, Prover, Provers};
use tessera::identity::{self, Limits, by_normal_form, by_rewriting, by_rewriting_with};
use tessera_verifier::{Options, Verdict};

#[path = "support/cli.rs"]
mod cli;
use cli::tessera;

fn assertions(path: &str) -> Vec<Assertion> {
    let file = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&file).unwrap();
    check::load(path, &src).unwrap().assertions
}

fn opts() -> Options {
    Options {
        timeout_ms: Some(60_000),
    }
}

/// Every `equal` of the identity examples is proved, by egg except the lines listed.
#[test]
fn example_identities_are_closed_by_egg_or_the_normal_form() {
    let normal_form = [("examples/inverses.tess", 16)];
    let mut n = 0;
    for f in [
        "examples/associativity.tess",
        "examples/divide_identity.tess",
        "examples/products.tess",
        "examples/inverses.tess",
        "examples/unbounded_identities.tess",
    ] {
        for a in assertions(f) {
            let Some(id) = &a.identity else { continue };
            n += 1;
            let (v, by, _) = check::decide(&a, &opts(), Provers::All);
            assert!(matches!(v, Verdict::Proved), "{f}:{}: {v:?}", a.line);
            let want = if normal_form.contains(&(f, a.line)) {
                Prover::NormalForm
            } else {
                Prover::Egg
            };
            assert_eq!(by, Some(want), "{f}:{}: {}", a.line, a.text);
            // z3 agrees on each of them.
            let (v, by, _) = check::decide(&a, &opts(), Provers::Z3);
            assert!(matches!(v, Verdict::Proved), "{f}:{} with z3: {v:?}", a.line);
            assert_eq!(by, Some(Prover::Z3));
            if want == Prover::Egg {
                // The laws alone close it, without the check of concrete values.
                let r = by_rewriting_with(
                    &id.lhs,
                    &id.rhs,
                    &Limits::default(),
                    &identity::laws::all(),
                    false,
                );
                assert!(r.closed, "{f}:{}: {r:?}", a.line);
            }
        }
    }
    assert_eq!(n, 2 + 5 + 4 + 6 + 5);
}

const FALSE: &str = "\
param M where M % 4 == 0, 4 <= M <= 64
let A = (2,2):(2,1)
let B = (2,2):(1,4)
assert equal(composition(A, B), composition(B, A))
assert equal((M,2):(1,M), (M,2):(2,1))
assert equal(coalesce(composition(A, B)), composition(B, A))
# Associativity past the size of B: B o C reads B's extension, A o B extends along its own mode.
let P = (2,2):(1,10)
assert equal(composition(P, composition(2:1, 4:1)), composition(composition(P, 2:1), 4:1))
# coalesce keeps the function on [0, size) only: a composition's first operand must stay exact.
assert equal(composition(coalesce((4,1):(1,100)), 8:1), composition((4,1):(1,100), 8:1))
";

/// False identities: not closed by egg (laws alone or checked) nor by the normal form; z3
/// refutes them with a counterexample. The last two would be closed by a careless e-graph
/// (associativity without its side condition; `coalesce(A) = A` under congruence in a
/// composition's first operand).
#[test]
fn a_false_identity_is_refuted_by_z3_only() {
    let cf = check::load("false.tess", FALSE).unwrap();
    assert_eq!(cf.assertions.len(), 5);
    for a in &cf.assertions {
        let id = a.identity.as_ref().unwrap();
        assert!(
            !by_rewriting(&id.lhs, &id.rhs, &Limits::default()).closed,
            "{}",
            a.text
        );
        let unchecked = by_rewriting_with(
            &id.lhs,
            &id.rhs,
            &Limits::default(),
            &identity::laws::all(),
            false,
        );
        assert!(!unchecked.closed, "{}", a.text);
        assert!(!by_normal_form(&id.lhs_value, &id.rhs_value), "{}", a.text);
        let (v, by, _) = check::decide(a, &opts(), Provers::All);
        assert!(matches!(v, Verdict::Refuted(_)), "{}: {v:?}", a.text);
        // Refuted by an engine of the portfolio, never by egg or the normal form.
        assert!(
            matches!(by, Some(Prover::Z3 | Prover::F2 | Prover::Enumeration)),
            "{}: {by:?}",
            a.text
        );
    }
}

/// The reports name the prover of each `equal`; `--prover z3` forces z3.
#[test]
fn reports_name_the_prover_and_prover_z3_forces_z3() {
    let out = tessera(&["check", "examples/associativity.tess"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.matches("(egg, ").count(), 2, "{text}");
    let json = |args: &[&str]| -> Vec<Option<String>> {
        let out = tessera(args);
        let j: Json = serde_json::from_slice(&out.stdout).unwrap();
        j["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["prover"].as_str().map(String::from))
            .collect()
    };
    let egg = Some("egg".to_string());
    let z3 = Some("z3".to_string());
    assert_eq!(
        json(&["check", "--json", "examples/associativity.tess"]),
        vec![egg.clone(), egg, z3.clone()]
    );
    assert_eq!(
        json(&["check", "--json", "--prover", "z3", "examples/associativity.tess"]),
        vec![z3.clone(), z3.clone(), z3.clone()]
    );
    assert_eq!(
        json(&["check", "--json", "--engine", "z3", "examples/associativity.tess"]),
        vec![z3.clone(), z3.clone(), z3]
    );
    let enumeration = Some("enumeration".to_string());
    assert_eq!(
        json(&[
            "check",
            "--json",
            "--engine",
            "enum",
            "examples/associativity.tess"
        ]),
        vec![enumeration.clone(), enumeration.clone(), enumeration]
    );
    let bad = tessera(&["check", "--prover", "vampire", "examples/associativity.tess"]);
    assert_ne!(bad.status.code(), Some(0));
    // JUnit: the prover is a property of the test case.
    let dir = std::env::temp_dir().join(format!("tessera-ident-junit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("r.xml");
    let out = tessera(&[
        "check",
        "--junit",
        path.to_str().unwrap(),
        "examples/associativity.tess",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let x = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        x.matches("<property name=\"prover\" value=\"egg\"/>").count(),
        2,
        "{x}"
    );
    assert_eq!(
        x.matches("<property name=\"prover\" value=\"z3\"/>").count(),
        1,
        "{x}"
    );
    assert_eq!(x.matches("</testcase>").count(), 3, "{x}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The symbolic example identities hold at sample values of their parameters: each file is
/// loaded again with its `param` line replaced by `let` bindings, and z3 (on concrete
/// layouts now) proves every identity egg proved symbolically.
#[test]
fn example_identities_hold_at_sample_parameter_values() {
    let samples: [(&str, &[&str]); 5] = [
        ("examples/associativity.tess", &["M=32", "M=96", "M=256"]),
        ("examples/divide_identity.tess", &["M=32", "M=160", "M=512"]),
        ("examples/products.tess", &["M=32", "M=64", "M=224"]),
        ("examples/inverses.tess", &["M=32", "M=48", "M=256"]),
        (
            "examples/unbounded_identities.tess",
            &["M=32,N=16", "M=96,N=48", "M=64,N=128"],
        ),
    ];
    let mut n = 0;
    for (f, values) in samples {
        let src = std::fs::read_to_string(format!("{}/{f}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        for v in values {
            let lets: String = v
                .split(',')
                .map(|b| format!("let {}\n", b.replace('=', " = ")))
                .collect();
            let text: String = src
                .lines()
                .map(|l| {
                    if l.starts_with("param ") {
                        lets.clone()
                    } else {
                        format!("{l}\n")
                    }
                })
                .collect();
            for a in check::load(f, &text).unwrap().assertions {
                if a.identity.is_none() {
                    continue;
                }
                let (verdict, _, _) = check::decide(&a, &opts(), Provers::Z3);
                assert!(
                    matches!(verdict, Verdict::Proved),
                    "{f}:{} at {v}: {verdict:?}",
                    a.line
                );
                n += 1;
            }
        }
    }
    assert_eq!(n, 3 * (2 + 5 + 4 + 6 + 5));
}
