//! The whole-configuration examples: `examples/cutlass_sm80_gemm.tess` and
//! `examples/cutlass_sm90_gemm.tess` are proved; their broken twins under `examples/broken/`
//! are refuted exactly where the bug is, each bank and coverage refutation with its picture in
//! the HTML report.

use serde_json::Value;

#[path = "support/cli.rs"]
mod cli;
use cli::tessera;

/// `(line, verdict)` of each assertion, and the exit code.
fn verdicts(file: &str) -> (Vec<(i64, String)>, i32) {
    let out = tessera(&["check", "--json", file]);
    let j: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{file}: {e}: {out:?}"));
    let v = j["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["line"].as_i64().unwrap(),
                r["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (v, out.status.code().unwrap_or(-1))
}

/// The lines of `file` whose assertion contains `needle`.
fn lines_with(file: &str, needle: &str) -> Vec<i64> {
    let text = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap();
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with("assert") && l.contains(needle))
        .map(|(k, _)| k as i64 + 1)
        .collect()
}

#[test]
fn the_shipped_configurations_are_proved() {
    for file in [
        "examples/cutlass_sm80_gemm.tess",
        "examples/cutlass_sm90_gemm.tess",
    ] {
        let (v, code) = verdicts(file);
        assert_eq!(v.len(), 13, "{file}: {v:?}");
        assert!(v.iter().all(|(_, w)| w == "proved"), "{file}: {v:?}");
        assert_eq!(code, 0);
    }
}

#[test]
fn the_broken_twins_are_refuted_where_the_bugs_are() {
    let cases = [
        (
            "examples/broken/cutlass_sm80_gemm.tess",
            vec![
                "equal(tv_layout_D(S2RB)",
                "surjective(tv_layout_D(S2RB)",
                "bank_conflict_free(SmemA, S2RA)",
                "bank_conflict_free(SmemB, S2RB)",
            ],
        ),
        (
            "examples/broken/cutlass_sm90_gemm.tess",
            vec![
                "equal(SmemA,",
                "equal(tv_layout_D(S2RA)",
                "surjective(tv_layout_D(S2RA)",
                "bank_conflict_free(SmemA, S2RA)",
            ],
        ),
    ];
    for (file, bugs) in cases {
        let (v, code) = verdicts(file);
        let mut refuted: Vec<i64> = v
            .iter()
            .filter(|(_, w)| w == "refuted")
            .map(|(l, _)| *l)
            .collect();
        refuted.sort();
        let mut want: Vec<i64> = bugs.iter().flat_map(|b| lines_with(file, b)).collect();
        want.sort();
        assert_eq!(refuted, want, "{file}: {v:?}");
        assert!(
            v.iter().all(|(_, w)| w == "proved" || w == "refuted"),
            "{file}: {v:?}"
        );
        assert_ne!(code, 0);
        // The HTML report draws the bank conflicts and the hole.
        let html = std::env::temp_dir().join(format!(
            "tessera-atoms-{}-{}.html",
            std::process::id(),
            refuted.len()
        ));
        tessera(&["check", "--html", html.to_str().unwrap(), file]);
        let page = std::fs::read_to_string(&html).unwrap();
        assert!(page.matches("<svg").count() >= 3, "{file}: pictures");
    }
}
