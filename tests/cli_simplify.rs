//! `tessera simplify`: layouts, swizzled layouts, symbolic layouts, coordinates and index
//! expressions before and after, the validation line, and bad input (exit code 3 with a
//! message, never a panic).

#[path = "support/cli.rs"]
mod cli;
use cli::{ok, tessera};

#[test]
fn before_after_and_the_validation() {
    let out = ok(&["simplify", "Sw<3,4,3> o (8,128):(128,1)"]);
    for want in [
        "# Sw<3,4,3> o (8,128):(128,1) at linear index i, 0 <= i <= 1023\n",
        "# before: 7 operations, 2 div/mod, weighted cost 21\n",
        "# after: 6 operations, 0 div/mod, weighted cost 6",
        "# validated: equal at every point of the domain, by enumeration",
        "let t4 = i & 7\n",
    ] {
        assert!(out.contains(want), "{want:?}\n{out}");
    }
    let out = ok(&["simplify", "(i % 8) + 8 * (i / 8) + 1", "--range", "i=-20..20"]);
    assert!(out.contains("# after: 1 operations, 0 div/mod"), "{out}");
    let out = ok(&[
        "simplify",
        "(4,M):(M,1)",
        "--coords",
        "--param",
        "M where M % 8 == 0, 8 <= M <= 64",
    ]);
    assert!(out.contains("0 <= c1 <= 63"), "{out}");
    let out = ok(&[
        "simplify",
        "(i % 4) * 8 + i / 4",
        "--range",
        "i=0..31",
        "--no-validate",
    ]);
    assert!(out.contains("NOT VALIDATED (--no-validate)"), "{out}");
    // A large domain goes to z3.
    let out = ok(&["simplify", "(i % 4) * 8 + i / 4", "--range", "i=0..10000000"]);
    assert!(out.contains("validated: z3 proved it equal"), "{out}");
}

#[test]
fn bad_input_is_exit_code_3_with_a_message() {
    for (args, want) in [
        (vec!["simplify", "i +"], "column 4"),
        (vec!["simplify", "i + 1"], "i has no range"),
        (vec!["simplify", "i", "--range", "i=5..1"], "is empty"),
        (vec!["simplify", "i", "--range", "i=0..x"], "is not a range"),
        (vec!["simplify", "i % 0", "--range", "i=0..3"], "may be 0"),
        (vec!["simplify", "i << 70", "--range", "i=0..3"], "shift amount"),
        (
            vec!["simplify", "i * M", "--range", "i=0..3"],
            "not a declared parameter",
        ),
        (
            vec!["simplify", "composition((4,3):(0,1), (2,3):(2,1))"],
            "composition",
        ),
        (
            vec!["emit", "--lang", "c", "i / (i - 2)", "--range", "i=0..3"],
            "may be 0",
        ),
    ] {
        let o = tessera(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(3), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
