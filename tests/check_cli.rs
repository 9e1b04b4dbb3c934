//! `tessera check` and `tessera prove`: the example files' verdicts, exit codes, reports,
//! errors with file:line:col and a caret, and timeouts.

use serde_json::Value;
use std::path::PathBuf;

#[path = "support/cli.rs"]
mod cli;
use cli::tessera;

fn verdicts(file: &str) -> (Vec<String>, i32) {
    let out = tessera(&["check", "--json", file]);
    let j: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{file}: {e}: {:?}", out));
    let v = j["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["verdict"].as_str().unwrap().to_string())
        .collect();
    (v, out.status.code().unwrap_or(-1))
}

fn all(n: usize, w: &str) -> Vec<String> {
    vec![w.to_string(); n]
}

#[test]
fn example_files_have_their_expected_verdicts() {
    assert_eq!(verdicts("examples/sm80_gemm_smem.tess"), (all(9, "proved"), 0));
    assert_eq!(verdicts("examples/sm90_swizzle128.tess"), (all(6, "proved"), 0));
    assert_eq!(verdicts("examples/transpose.tess"), (all(10, "proved"), 0));
    assert_eq!(verdicts("examples/symbolic_tiling.tess"), (all(7, "proved"), 0));
    assert_eq!(verdicts("examples/associativity.tess"), (all(3, "proved"), 0));
    assert_eq!(verdicts("examples/divide_identity.tess"), (all(5, "proved"), 0));
    assert_eq!(verdicts("examples/products.tess"), (all(4, "proved"), 0));
    assert_eq!(verdicts("examples/inverses.tess"), (all(6, "proved"), 0));
    assert_eq!(
        verdicts("examples/unbounded_identities.tess"),
        (all(5, "proved"), 0)
    );
    assert_eq!(
        verdicts("examples/broken/bank_conflict.tess"),
        (vec!["proved".into(), "refuted".into()], 1)
    );
    // Bank questions over parameters: padded tiles, symbolic tile counts.
    assert_eq!(verdicts("examples/symbolic_banks.tess"), (all(5, "proved"), 0));
    assert_eq!(
        verdicts("examples/broken/symbolic_banks.tess"),
        (vec!["refuted".into()], 1)
    );
    // Kernels staged through shared memory: the bank assertions of their stages.
    assert_eq!(verdicts("examples/staged.tess"), (all(4, "proved"), 0));
    assert_eq!(
        verdicts("examples/broken/staged_conflict.tess"),
        (vec!["proved".into(), "refuted".into(), "proved".into()], 1)
    );
    // The README's main job: every example at once.
    let out = tessera(&["check", "examples"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn refutations_carry_a_rechecked_counterexample() {
    let out = tessera(&["check", "--json", "examples/broken/bank_conflict.tess"]);
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = &j["results"][1]["counterexample"];
    assert!(
        c["summary"]
            .as_str()
            .unwrap()
            .starts_with("2-way conflict: threads"),
        "{c}"
    );
    assert_eq!(c["witnesses"].as_array().unwrap().len(), 2);
    let text = String::from_utf8(tessera(&["check", "examples/broken/bank_conflict.tess"]).stdout).unwrap();
    assert!(
        text.contains("refuted  bank_conflict_free(Smem, TV, elem=2, access=16)"),
        "{text}"
    );
    assert!(text.contains("1 refuted"), "{text}");
}

fn temp(name: &str, body: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tessera-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p
}

#[test]
fn bad_input_points_at_line_and_column() {
    let p = temp(
        "bad.tess",
        "let A = (4,8):(1,4)\n\nassert injective(A, (4,8):(1\n",
    );
    let out = tessera(&["check", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("bad.tess:3:29: expected ')'"), "{err}");
    assert!(err.lines().last().unwrap().ends_with('^'), "{err}");

    let p = temp("unknown.tess", "assert injective(B)\n");
    let err = String::from_utf8(tessera(&["check", p.to_str().unwrap()]).stderr).unwrap();
    assert!(err.contains("unknown.tess:1:18: unknown name 'B'"), "{err}");

    let p = temp("prop.tess", "assert injectiv((4,8))\n");
    let err = String::from_utf8(tessera(&["check", p.to_str().unwrap()]).stderr).unwrap();
    assert!(
        err.contains("prop.tess:1:8: unknown property 'injectiv'"),
        "{err}"
    );

    let p = temp("param.tess", "param M where M % 0 == 0\n");
    assert_eq!(tessera(&["check", p.to_str().unwrap()]).status.code(), Some(3));
}

#[test]
fn timeouts_are_unknown_and_exit_2() {
    // Nonlinear over unbounded integers: it cannot be decided within the limit (a concrete
    // query could finish inside even 1 ms and make this test flaky).
    let p = temp(
        "hard.tess",
        "param M\nparam N\nassert injective((M,N,8):(8*N,8,1))\n",
    );
    let t0 = std::time::Instant::now();
    let out = tessera(&["check", "--timeout", "0.2", "--json", p.to_str().unwrap()]);
    assert!(t0.elapsed().as_secs() < 20, "no hang");
    assert_eq!(out.status.code(), Some(2));
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["results"][0]["verdict"], "unknown");
    assert!(
        j["results"][0]["reason"].as_str().unwrap().contains("timeout"),
        "{j}"
    );
}

#[test]
fn junit_report_lists_every_assertion() {
    let dir = std::env::temp_dir().join(format!("tessera-junit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let xml = dir.join("report.xml");
    let out = tessera(&[
        "check",
        "--junit",
        xml.to_str().unwrap(),
        "examples/broken/bank_conflict.tess",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let x = std::fs::read_to_string(&xml).unwrap();
    assert!(
        x.contains("<testsuite name=\"tessera check\" tests=\"2\" failures=\"1\" errors=\"0\""),
        "{x}"
    );
    assert_eq!(x.matches("<testcase ").count(), 2);
    assert!(x.contains("<failure message=\"refuted\">2-way conflict"), "{x}");
}

#[test]
fn prove_one_off_properties() {
    let out = tessera(&["prove", "injective", "(4,8):(8,1)"]);
    assert_eq!(out.status.code(), Some(0));
    // The portfolio enumerates a small layout outside the F2 fragment; z3 finds its own
    // collision.
    let out = tessera(&["prove", "injective", "(4,8):(2,1)"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("L(1) == L(8) == 2") && text.contains("(enumeration, "),
        "{text}"
    );
    let out = tessera(&["prove", "injective", "(4,8):(2,1)", "--engine", "z3"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("L(2) == L(9) == 4") && text.contains("(z3, "),
        "{text}"
    );
    let out = tessera(&["prove", "injective", "(4,8):(2,1)", "--engine", "f2"]);
    assert_eq!(out.status.code(), Some(2), "outside the F2 fragment: unknown");
    let out = tessera(&["prove", "injective", "(4,8):(2,1)", "--engine", "cvc5"]);
    assert_eq!(out.status.code(), Some(3));
    let out = tessera(&["check", "examples", "--prover", "z3", "--engine", "f2"]);
    assert_eq!(out.status.code(), Some(3));
    let out = tessera(&[
        "prove",
        "conflict_degree",
        "(8,64):(64,1)",
        "((8,4),8):((1,64),8)",
        "elem=2",
        "access=16",
    ]);
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("8-way: threads"));
    let out = tessera(&[
        "prove",
        "equal",
        "--param",
        "M where M % 16 == 0, M <= 4096",
        "coalesce((M,4):(1,M))",
        "(M,4):(1,M)",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(tessera(&["prove", "injectiv", "(4,8)"]).status.code(), Some(3));
}
