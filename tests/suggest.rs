//! `tessera suggest` and `tessera::verifier::suggest`: the swizzles CUTLASS uses are found
//! (SM80 fp16 `Sw<3,3,3>`, SM90 fp8 `Sw<3,4,3>`, the 32x32 transpose's `Sw<5,0,5>` and its
//! padding to 33); every scored candidate is re-checked by the exact `analyze` on a layout
//! read back from its printed text, and its injectivity by its offsets; the printed
//! check-file lines pass `tessera check`; bad input is exit code 3 with a message, never a
//! panic; every limit is enforced.

#[path = "support/cli.rs"]
mod cli;

use cli::tessera;
use serde_json::Value as Json;
use std::collections::HashSet;
use std::sync::Arc;
use tessera::ir::Int;
use tessera::ir::sym::Facts;
use tessera::verifier::{Bank, Change, Engine, Func, MAX_PAD, Pattern, Suggestions, analyze, suggest};

const SM80: &str = "examples/sm80_gemm_smem.tess";
const SM90: &str = "examples/sm90_swizzle128.tess";

fn func(src: &str) -> Func {
    Func::parse(src, &Arc::new(Facts::default())).unwrap_or_else(|e| panic!("{src}: {e}"))
}

fn pattern(tv: &str, elem: i64, access: i64) -> Pattern {
    Pattern {
        tv: func(tv),
        elem,
        access,
    }
}

/// The SM80 A tile and its cp.async and ldmatrix patterns (examples/sm80_gemm_smem.tess).
fn sm80() -> (Func, Vec<Pattern>) {
    (
        func("((8,16),64):((64,512),1)"),
        vec![
            pattern("((8,16),(8,8)):((1024,1),(128,16))", 2, 16),
            pattern("((16,2),(8,4)):((1,1024),(128,2048))", 2, 16),
        ],
    )
}

fn sm90() -> (Func, Vec<Pattern>) {
    (
        func("(8,128):(128,1)"),
        vec![pattern("((8,4),16):((1,128),8)", 1, 16)],
    )
}

fn transpose() -> (Func, Vec<Pattern>) {
    (
        func("(32,32):(32,1)"),
        vec![pattern("(32,32):(32,1)", 4, 4), pattern("(32,32):(1,32)", 4, 4)],
    )
}

/// Every candidate of `s` re-checked independently: its text read back, each pattern's degree
/// by the exact enumeration, its offsets distinct, the ranking ordered.
fn recheck(s: &Suggestions, plain: &Func, patterns: &[Pattern]) {
    let cosize = match plain {
        Func::Layout(l) => l.cosize().unwrap().as_const().unwrap(),
        _ => panic!("plain"),
    };
    let mut last = (0, 0, 0, 0);
    for c in &s.ranked {
        let smem = func(&c.smem.to_string());
        for (k, p) in patterns.iter().enumerate() {
            let b = Bank {
                smem: smem.clone(),
                tv: p.tv.clone(),
                elem: p.elem,
                access: p.access,
            };
            let a = analyze(&b).unwrap_or_else(|e| panic!("{smem}: {e}"));
            assert_eq!(a.degree, c.degrees[k], "{smem}, pattern {k}");
            // The wavefronts, counted instruction by instruction (F2's shortcut included).
            let w = tessera_verifier::wavefronts(&b).unwrap();
            assert_eq!(
                (w.total, w.ideal),
                (c.wavefronts[k], c.ideal[k]),
                "{smem}, pattern {k}"
            );
        }
        let offsets = smem.at(&Default::default()).unwrap().offsets().unwrap().unwrap();
        let distinct: HashSet<i64> = offsets.iter().copied().collect();
        assert_eq!(distinct.len(), offsets.len(), "{smem} is not injective");
        let top = offsets.iter().max().unwrap() + 1;
        assert_eq!(c.extra_bytes, (top - cosize).max(0) * patterns[0].elem, "{smem}");
        let key = (
            c.wavefronts.iter().sum(),
            c.worst(),
            c.degrees.iter().sum(),
            c.extra_bytes,
        );
        assert!(key >= last, "{smem}: ranked after a worse candidate");
        last = key;
        match c.change {
            Change::Swizzle(sw) => {
                assert!(sw.bits >= 1 && sw.shift >= sw.bits as i32);
                assert_eq!(c.extra_bytes, 0, "{smem}: a swizzle costs no memory");
                assert!((cosize as u64).trailing_zeros() >= sw.bits + sw.base + sw.shift as u32);
            }
            Change::Pad(p) => assert!((1..=MAX_PAD).contains(&p)),
            Change::None => assert_eq!(c.smem, *plain),
        }
    }
    assert_eq!(s.ranked.len() + s.rejected, s.searched);
}

#[test]
fn sm80_finds_cutlass_swizzle_from_cp_async_and_ldmatrix() {
    let (plain, patterns) = sm80();
    let s = suggest(&plain, &patterns).unwrap();
    let best = &s.ranked[0];
    assert_eq!(best.smem.to_string(), "Sw<3,3,3> o ((8,16),64):((64,512),1)");
    assert_eq!((best.degrees.clone(), best.extra_bytes), (vec![1, 1], 0));
    assert_eq!(best.engines, vec![Engine::F2, Engine::F2]);
    let none = s.ranked.iter().find(|c| c.change == Change::None).unwrap();
    assert_eq!(none.degrees, vec![1, 8]);
    recheck(&s, &plain, &patterns);
}

#[test]
fn sm90_finds_the_128_byte_swizzle() {
    let (plain, patterns) = sm90();
    let s = suggest(&plain, &patterns).unwrap();
    assert_eq!(s.ranked[0].smem.to_string(), "Sw<3,4,3> o (8,128):(128,1)");
    assert_eq!(s.ranked[0].degrees, vec![1]);
    // The padding that keeps 16-byte accesses aligned: 16 one-byte elements per row.
    let pad = s
        .ranked
        .iter()
        .find(|c| matches!(c.change, Change::Pad(_)))
        .unwrap();
    assert_eq!((pad.change, pad.degrees.clone()), (Change::Pad(16), vec![1]));
    recheck(&s, &plain, &patterns);
}

#[test]
fn transpose_finds_sw505_and_the_padding_of_33() {
    let (plain, patterns) = transpose();
    let s = suggest(&plain, &patterns).unwrap();
    assert_eq!(s.ranked[0].smem.to_string(), "Sw<5,0,5> o (32,32):(32,1)");
    assert_eq!(s.ranked[1].smem.to_string(), "(32,32):(33,1)");
    assert_eq!(
        (s.ranked[1].degrees.clone(), s.ranked[1].extra_bytes),
        (vec![1, 1], 124)
    );
    // design.md's figure: Sw<3,0,5> leaves a 4-way conflict on the column read.
    let sw305 = s
        .ranked
        .iter()
        .find(|c| c.smem.to_string() == "Sw<3,0,5> o (32,32):(32,1)")
        .unwrap();
    assert_eq!(sw305.degrees, vec![1, 4]);
    recheck(&s, &plain, &patterns);
}

#[test]
fn a_layout_outside_the_f2_fragment_is_scored_by_enumeration() {
    // 48 rows: the cosize 1536 = 3 * 2^9 keeps swizzles to 9 bits; none is in the fragment.
    let plain = func("(48,32):(32,1)");
    let patterns = vec![pattern("(32,48):(48,1)", 4, 4), pattern("(32,48):(1,32)", 4, 4)];
    let s = suggest(&plain, &patterns).unwrap();
    assert!(
        s.ranked
            .iter()
            .all(|c| c.engines.iter().all(|&e| e == Engine::Enumeration))
    );
    let none = s.ranked.iter().find(|c| c.change == Change::None).unwrap();
    assert_eq!(none.degrees, vec![1, 32]);
    assert_eq!(s.ranked[0].degrees, vec![1, 2], "{}", s.ranked[0].smem);
    recheck(&s, &plain, &patterns);
}

fn json(args: &[&str]) -> Json {
    let out = tessera(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The check-file lines of every printed suggestion, written to a file, pass `tessera check`.
fn check_lines_pass(j: &Json, name: &str) {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("suggest");
    std::fs::create_dir_all(&dir).unwrap();
    for s in j["suggestions"].as_array().unwrap() {
        let lines: Vec<&str> = s["check"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap())
            .collect();
        let path = dir.join(format!("{name}_{}.tess", s["rank"]));
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let out = tessera(&["check", path.to_str().unwrap()]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{lines:?}\n{text}");
        assert_eq!(text.matches(": proved ").count(), lines.len() - 1, "{text}");
        for p in s["proofs"].as_array().unwrap() {
            assert_eq!(p["verdict"], "proved", "{p}");
        }
    }
}

#[test]
fn cli_sm80_with_file_names_proves_and_prints_lines_that_check() {
    let j = json(&[
        "suggest",
        "PlainA",
        "--file",
        SM80,
        "--access",
        "CopyA",
        "elem=2",
        "access=16",
        "--access",
        "LdsmA",
        "elem=2",
        "access=16",
        "--json",
    ]);
    let best = &j["suggestions"][0];
    assert_eq!(best["layout"], "Sw<3,3,3> o ((8,16),64):((64,512),1)");
    assert_eq!(best["change"]["kind"], "swizzle");
    assert_eq!(best["degrees"], serde_json::json!([1, 1]));
    assert_eq!(best["padding_bytes"], 0);
    // Injectivity and both accesses, each by the F2 engine.
    for p in best["proofs"].as_array().unwrap() {
        assert_eq!(
            (p["verdict"].as_str(), p["engine"].as_str()),
            (Some("proved"), Some("F2")),
            "{p}"
        );
    }
    assert_eq!(j["plain_degrees"], serde_json::json!([1, 8]));
    assert_eq!(j["suggestions"].as_array().unwrap().len(), 5);
    check_lines_pass(&j, "sm80");
}

#[test]
fn cli_sm90_and_transpose_print_lines_that_check() {
    let j = json(&[
        "suggest",
        "Plain",
        "--file",
        SM90,
        "--access",
        "Rows",
        "elem=1",
        "access=16",
        "--json",
        "--top",
        "3",
    ]);
    assert_eq!(j["suggestions"][0]["layout"], "Sw<3,4,3> o (8,128):(128,1)");
    assert_eq!(j["suggestions"].as_array().unwrap().len(), 3);
    check_lines_pass(&j, "sm90");
    let j = json(&[
        "suggest",
        "(32,32):(32,1)",
        "--access",
        "(32,32):(32,1)",
        "elem=4",
        "access=4",
        "--access",
        "(32,32):(1,32)",
        "elem=4",
        "access=4",
        "--json",
    ]);
    assert_eq!(j["suggestions"][0]["layout"], "Sw<5,0,5> o (32,32):(32,1)");
    assert_eq!(j["suggestions"][1]["layout"], "(32,32):(33,1)");
    assert_eq!(
        j["suggestions"][1]["change"],
        serde_json::json!({"kind": "pad", "elements": 1})
    );
    check_lines_pass(&j, "transpose");
}

#[test]
fn cli_text_names_the_engines_and_the_lines() {
    let out = cli::ok(&[
        "suggest",
        "(32,32):(32,1)",
        "--access",
        "(32,32):(32,1)",
        "elem=4",
        "access=4",
        "--access",
        "(32,32):(1,32)",
        "elem=4",
        "access=4",
        "--top",
        "2",
    ]);
    assert!(
        out.contains("plain: degrees 1, 32  wavefronts 32 (ideal 32), 1024 (ideal 32)"),
        "{out}"
    );
    assert!(
        out.contains("#1  Sw<5,0,5> o (32,32):(32,1)  degrees 1, 1  wavefronts 32 (ideal 32), 32 (ideal 32)  padding 0 bytes"),
        "{out}"
    );
    assert!(out.contains("access 2: proved (F2)"), "{out}");
    assert!(
        out.contains(
            "#2  (32,32):(33,1)  degrees 1, 1  wavefronts 32 (ideal 32), 32 (ideal 32)  padding 124 bytes"
        ),
        "{out}"
    );
    assert!(
        out.contains("    let Smem = Sw<5,0,5> o (32,32):(32,1)\n"),
        "{out}"
    );
    assert!(!out.contains("#3"), "{out}");
}

#[test]
fn no_conflict_free_candidate_gives_a_degree_bound_that_checks() {
    // 33 elements: no swizzle fits (cosize odd), one mode: no padding. Threads 0 and 1 read
    // words 0 and 32, both in bank 0.
    let j = json(&[
        "suggest",
        "33:1",
        "--access",
        "(2,1):(32,1)",
        "elem=4",
        "access=4",
        "--json",
    ]);
    let s = &j["suggestions"][0];
    assert_eq!(s["degrees"], serde_json::json!([2]));
    assert_eq!(j["suggestions"].as_array().unwrap().len(), 1);
    assert!(j["no_padding"].as_str().unwrap().contains("one mode"), "{j}");
    let last = s["check"].as_array().unwrap().last().unwrap().as_str().unwrap();
    assert_eq!(
        last,
        "assert conflict_degree(Smem, (2,1):(32,1), elem=4, access=4) <= 2"
    );
    check_lines_pass(&j, "bound");
}

/// Runs `tessera suggest ARGS` expecting bad input (exit 3) with `needle` in the message.
fn bad(args: &[&str], needle: &str) {
    let mut all = vec!["suggest"];
    all.extend_from_slice(args);
    let out = tessera(&all);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: expected '{needle}' in:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_input_is_exit_3_with_a_message() {
    let tv = ["--access", "(32,32):(1,32)", "elem=4", "access=4"];
    let with = |smem: &'static str| -> Vec<&'static str> {
        let mut v = vec![smem];
        v.extend_from_slice(&tv);
        v
    };
    // An expression that does not parse: the message and a caret under the assertion.
    bad(&with("(32,32):(32"), "^");
    bad(&with("(32,32):(1@0,1@1)"), "coordinate");
    bad(&with("Sw<3,3,3> o (8,128):(128,1)"), "already swizzled");
    bad(&with("(32,32):(1,1)"), "not injective");
    bad(&with("(32,32):(-32,1)"), "negative stride");
    bad(
        &[
            "(32,32):(32,1)",
            "--access",
            "(32,32):(1,32)",
            "elem=3",
            "access=3",
        ],
        "access=3 must be",
    );
    bad(
        &[
            "(32,32):(32,1)",
            "--access",
            "(32,32):(1,32)",
            "elem=4",
            "access=32",
        ],
        "access=32",
    );
    bad(
        &[
            "(32,32):(32,1)",
            "--access",
            "(32,32):(1,32)",
            "elem=4",
            "bogus=1",
        ],
        "unknown keyword",
    );
    bad(
        &["(32,32):(32,1)", "--access", "1024:1", "elem=4", "access=4"],
        "rank 2",
    );
    // No default element or access size: the message names the missing keyword.
    bad(
        &["(32,32):(32,1)", "--access", "(32,32):(1,32)", "elem=4"],
        "give access=",
    );
    bad(
        &[
            "(32,32):(32,1)",
            "--access",
            "(32,32):(1,32)",
            "elem=4",
            "access=4",
            "--access",
            "(32,32):(32,1)",
            "elem=2",
            "access=4",
        ],
        "element size",
    );
    // Every candidate leaves the 16-byte accesses non-contiguous.
    bad(
        &[
            "(32,32):(32,1)",
            "--access",
            "(32,32):(32,1)",
            "elem=4",
            "access=16",
        ],
        "no candidate",
    );
    bad(
        &["(32,32):(32,1)", "--access", "elem=4", "(32,32):(1,32)"],
        "starts with its thread-value layout",
    );
    bad(
        &[
            "(32,32):(32,1)",
            "--access",
            "(32,32):(1,32)\nassert injective(2:0)",
        ],
        "one expression",
    );
    bad(&["(32,32):(32,1)"], "--access");
    bad(
        &with("(32,32):(32,1)")
            .into_iter()
            .chain(["--top", "0"])
            .collect::<Vec<_>>(),
        "--top",
    );
    bad(
        &with("(32,32):(32,1)")
            .into_iter()
            .chain(["--timeout", "0"])
            .collect::<Vec<_>>(),
        "--timeout",
    );
    bad(
        &with("(32,32):(32,1)")
            .into_iter()
            .chain(["--file", "examples/no_such.tess"])
            .collect::<Vec<_>>(),
        "no_such",
    );
    // A layout with parameters.
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("suggest");
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("param.tess");
    std::fs::write(&f, "param M where M % 32 == 0\nlet P = (M,32):(32,1)\n").unwrap();
    bad(
        &[
            "P",
            "--file",
            f.to_str().unwrap(),
            "--access",
            "(32,32):(1,32)",
            "elem=4",
            "access=4",
        ],
        "parameters",
    );
    // An error in the file itself names the file, line and column.
    let g = dir.join("broken.tess");
    std::fs::write(&g, "let P = (32,32):(32,\n").unwrap();
    bad(
        &["P", "--file", g.to_str().unwrap(), "--access", "(32,32):(1,32)"],
        "broken.tess:1:",
    );
}

#[test]
fn limits_are_enforced() {
    // More than MAX_COSIZE elements.
    bad(
        &[
            "(8192,4096):(4096,1)",
            "--access",
            "(32,32):(1,32)",
            "elem=4",
            "access=4",
        ],
        "at most 16777216",
    );
    // Outside the F2 fragment, 10^6-point patterns over every candidate: too much to enumerate.
    bad(
        &[
            "(1000,1000):(1000,1)",
            "--access",
            "(1000,1000):(1,1000)",
            "elem=4",
            "access=4",
        ],
        "search space is too large",
    );
    let patterns: Vec<Pattern> = (0..17).map(|_| pattern("(32,32):(1,32)", 4, 4)).collect();
    let e = suggest(&func("(32,32):(32,1)"), &patterns).unwrap_err();
    assert!(e.to_string().contains("at most 16"), "{e}");
    let e = suggest(&func("(32,32):(32,1)"), &[]).unwrap_err();
    assert!(e.to_string().contains("at least one"), "{e}");
    let out = tessera(&[
        "suggest",
        "(32,32):(32,1)",
        "--access",
        "(32,32):(1,32)",
        "--top",
        "101",
    ]);
    assert_eq!(out.status.code(), Some(3));
}
