//! `tessera check --html FILE`: the report's structure (files, rows, counts per verdict,
//! counterexamples, reasons), that it is self-contained, and that no input text can inject
//! markup.

use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;
use tessera::check::html::{MAX_PICTURE_BYTES, counterexample_picture, escape, html};
use tessera::check::{self, Outcome, Prover};
use tessera::verifier::{Counterexample, Verdict, Witness};

#[path = "support/cli.rs"]
mod cli;
#[path = "support/html.rs"]
mod support;
use cli::tessera;
use support::{balanced_tags, self_contained};

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tessera-report-html-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `tessera check --json --html` on `args`: the JSON and the page.
fn check_both(args: &[&str], dir: &std::path::Path) -> (Value, String, i32) {
    let page = dir.join("report.html");
    let mut a = vec!["check", "--json", "--html", page.to_str().unwrap()];
    a.extend_from_slice(args);
    let out = tessera(&a);
    let j: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    (
        j,
        std::fs::read_to_string(&page).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

fn count(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

#[test]
fn the_examples_report_has_every_file_and_assertion_with_its_verdict() {
    let dir = temp("examples");
    let (j, page, code) = check_both(&["examples/", "examples/broken/"], &dir);
    assert_eq!(code, 1, "the broken examples are refuted");
    balanced_tags(&page);
    self_contained(&page);
    let results = j["results"].as_array().unwrap();
    // One row per assertion, its class the verdict's, as many of each as the JSON says.
    assert_eq!(count(&page, "<tr class=\"a "), results.len());
    for (word, class) in [
        ("proved", "proved"),
        ("refuted", "refuted"),
        ("unknown", "unknown"),
    ] {
        let n = results.iter().filter(|r| r["verdict"] == word).count();
        assert_eq!(count(&page, &format!("<tr class=\"a {class}")), n, "{word}");
    }
    let s = &j["summary"];
    assert!(s["refuted"].as_u64().unwrap() >= 2);
    assert!(page.contains(&format!(
        "<span class=\"proved\">{} proved</span><span class=\"refuted\">{} refuted</span>",
        s["proved"], s["refuted"]
    )));
    // One collapsed <details> per file, the files with refutations marked for the filter.
    let mut files: Vec<&str> = results.iter().map(|r| r["file"].as_str().unwrap()).collect();
    files.dedup();
    assert_eq!(count(&page, "<details class=\"file"), files.len());
    assert!(!page.contains("<details open"));
    for f in &files {
        assert!(page.contains(&format!("<span class=\"name\">{f}</span>")), "{f}");
    }
    // Three broken examples, and the broken twins of the CUTLASS configurations.
    assert_eq!(count(&page, "<details class=\"file has-refuted has-np\">"), 5);
    // The prover of each `equal` is in its row.
    let egg = results.iter().filter(|r| r["prover"] == "egg").count();
    assert!(egg > 0);
    assert_eq!(count(&page, "<td class=\"prover\">egg</td>"), egg);
    // Each refutation: its summary, the layouts, the two threads with their bank, the banks.
    for r in results.iter().filter(|r| r["verdict"] == "refuted") {
        let c = &r["counterexample"];
        assert!(page.contains(&escape(c["summary"].as_str().unwrap())));
        for w in c["witnesses"].as_array().unwrap() {
            // Bank witnesses are threads (their own table); others (an `equal`'s "A at x") points.
            let name = w["name"].as_str().unwrap();
            let cell = match name.strip_prefix("thread ") {
                Some(t) => format!("<td class=\"thread\">{t}</td>"),
                None => format!("<td class=\"point\">{}</td>", escape(name)),
            };
            assert!(page.contains(&cell), "{cell}");
        }
    }
    // Bank witnesses under their own headers, each picture in a scrolling box of at most
    // 32 x 32 cells with the command that draws the whole, and no picture over the cap.
    let bank_headers = "<tr><th>thread</th><th>access</th><th>byte</th><th>bank</th><th>word</th></tr>";
    // Bank refutations (every witness a thread) get the bank table; the others (an `equal`
    // refuted at a point, in the broken CUTLASS twins) the table of points.
    let is_bank = |r: &Value| {
        let ws = r["counterexample"]["witnesses"].as_array().unwrap();
        !ws.is_empty()
            && ws
                .iter()
                .all(|w| w["name"].as_str().unwrap().starts_with("thread "))
    };
    let with_points = |r: &Value| {
        let ws = r["counterexample"]["witnesses"].as_array().unwrap();
        !ws.is_empty() && !is_bank(r)
    };
    let refuted: Vec<&Value> = results.iter().filter(|r| r["verdict"] == "refuted").collect();
    let banks = refuted.iter().filter(|r| is_bank(r)).count();
    assert_eq!(count(&page, bank_headers), banks);
    assert_eq!(
        count(&page, "<th>point</th>"),
        refuted.iter().filter(|r| with_points(r)).count()
    );
    assert_eq!(
        count(
            &page,
            "<p class=\"whole\">the whole picture: <code>tessera draw --banks"
        ),
        banks
    );
    assert!(
        page.contains("--param &#39;N&#39; --bind N="),
        "the symbolic one at its values"
    );
    for svg in page.split("<svg").skip(1) {
        let end = svg.find("</svg>").unwrap();
        assert!(end <= MAX_PICTURE_BYTES, "{end} bytes");
    }
    assert!(page.contains("figure.picture{margin:.3em 0;overflow:auto;max-height:36em"));
    assert!(page.len() < 1 << 20, "the page weighs {} bytes", page.len());
    assert!(page.contains("<th>Smem</th><td><code>Sw&lt;2,3,3&gt; o (8,64):(64,1)</code></td>"));
    assert!(page.contains("<th>TV</th><td><code>((8,4),8):((1,64),8)</code></td>"));
    // Three bank refutations, the symbolic one drawn at its counterexample's parameters, and
    // the three of the CUTLASS configurations' broken twins (ldmatrix from lost swizzles).
    assert_eq!(count(&page, "<table class=\"banks\">"), 6);
    assert_eq!(count(&page, "<td class=\"hit\">"), 6);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unknown_and_bad_input_say_why() {
    let dir = temp("unknown");
    let f = dir.join("slow.tess");
    // Unbounded parameters and a swizzle: z3 cannot decide it in a millisecond.
    std::fs::write(
        &f,
        "param M, N where M >= 1, N >= 1\nassert injective(Sw<3,3,3> o (M,N):(N,1))\n",
    )
    .unwrap();
    let bad = dir.join("bad.tess");
    std::fs::write(&bad, "assert injective((4,4):(1,\n").unwrap();
    let (j, page, _) = check_both(
        &["--timeout", "0.001", f.to_str().unwrap(), bad.to_str().unwrap()],
        &dir,
    );
    balanced_tags(&page);
    let results = j["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["verdict"], "unknown", "{j}");
    let why = escape(results[0]["reason"].as_str().unwrap());
    assert!(
        page.contains(&format!("<p class=\"reason\">unknown: {why}</p>")),
        "{page}"
    );
    assert!(page.contains("<tr class=\"a unknown np\">"));
    assert!(page.contains("<details class=\"file has-unknown has-np\">"));
    assert_eq!(results[1]["verdict"], "bad input");
    let why = escape(results[1]["reason"].as_str().unwrap());
    assert!(page.contains(&format!("<p class=\"reason\">bad input: {why}</p>")));
    assert!(page.contains("<details class=\"file has-np\">"));
    let _ = std::fs::remove_dir_all(&dir);
}

const ATTACK: &str = "<script>alert(1)</script><img src=x onerror=alert(2)>\"'&";

/// An outcome whose every text is an attack.
fn hostile(verdict: Verdict) -> Outcome {
    Outcome {
        file: format!("{ATTACK}.tess"),
        line: 1,
        text: ATTACK.into(),
        verdict,
        elapsed: Duration::from_micros(1500),
        prover: Some(Prover::Egg),
        property: None,
        assumption: Some(ATTACK.into()),
    }
}

#[test]
fn no_text_of_the_input_becomes_markup() {
    let w = Witness {
        name: ATTACK.into(),
        index: 3,
        coord: ATTACK.into(),
        value: ATTACK.into(),
    };
    let cex = Counterexample {
        params: vec![(ATTACK.into(), 4)],
        witnesses: vec![w],
        summary: ATTACK.into(),
    };
    let outcomes = vec![
        hostile(Verdict::Proved),
        hostile(Verdict::Refuted(cex)),
        hostile(Verdict::Unknown(ATTACK.into())),
        hostile(Verdict::Internal(ATTACK.into())),
        hostile(Verdict::Invalid(ATTACK.into())),
    ];
    let page = html(&outcomes, Duration::from_millis(5), 1);
    // The page's own script is its only one, and no attacker's element or attribute exists.
    assert_eq!(count(&page, "<script"), 1);
    assert!(!page.contains("<img"));
    let tags = balanced_tags(&page);
    assert!(!tags.iter().any(|t| t.name == "img" || t.text.contains("onerror")));
    assert_eq!(tags.iter().filter(|t| t.name == "script").count(), 1);
    self_contained(&page);
    // Every text is there, escaped: the file name, the assertion, summary, parameter,
    // witness (three fields) and each reason.
    let esc = escape(ATTACK);
    assert_eq!(
        esc,
        "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&quot;&#39;&amp;"
    );
    assert!(count(&page, &esc) >= 1 + 5 + 1 + 1 + 3 + 3);
    // All five verdicts are counted.
    assert!(page.contains("<span class=\"internal\">1 internal errors</span>"));
    assert!(page.contains("<span class=\"invalid\">1 bad input</span>"));
}

#[test]
fn hostile_file_names_and_texts_from_the_command_line_are_escaped() {
    let dir = temp("hostile");
    let f = dir.join("<img src=x onerror=alert(1)>.tess");
    std::fs::write(
        &f,
        "assert injective((4,4):(1,4))\nassert injective(</td><script>alert(3)</script>)\n",
    )
    .unwrap();
    let (j, page, code) = check_both(&[f.to_str().unwrap()], &dir);
    assert_eq!(code, 3, "{j}");
    balanced_tags(&page);
    self_contained(&page);
    assert_eq!(count(&page, "<script"), 1);
    assert!(!page.contains("<img"));
    assert!(page.contains("&lt;img src=x onerror=alert(1)&gt;.tess"));
    assert!(page.contains("&lt;/td&gt;&lt;script&gt;alert(3)&lt;/script&gt;"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_picture_of_a_bank_conflict_marks_its_bank() {
    let cf = check::load(
        "t.tess",
        "let S = (32,32):(32,1)\nlet TV = (32,32):(1,32)\nassert bank_conflict_free(S, TV, elem=4, access=4)\n",
    )
    .unwrap();
    let a = &cf.assertions[0];
    let Verdict::Refuted(cex) = check::decide(a, &Default::default(), check::Provers::All).0 else {
        panic!("a column of a row-major 32x32 tile is refuted")
    };
    let pic = counterexample_picture(&a.property, &cex).expect("a bank conflict has a picture");
    balanced_tags(&pic);
    assert_eq!(count(&pic, "<td class=\"hit\">"), 1);
    // Bank 0: the first cell after the 32 numbered banks and the row's header.
    assert!(pic.contains("<tr><th>threads</th><td class=\"hit\">"), "{pic}");
    // An injectivity refutation draws its layout, the two colliding indices outlined.
    let cf = check::load("t.tess", "assert injective((4,4):(1,2))\n").unwrap();
    let a = &cf.assertions[0];
    let Verdict::Refuted(cex) = check::decide(a, &Default::default(), check::Provers::All).0 else {
        panic!("(4,4):(1,2) is not injective")
    };
    let pic = counterexample_picture(&a.property, &cex).expect("a layout's refutation has a picture");
    balanced_tags(&pic);
    assert!(pic.starts_with("<svg") && !pic.contains("http"), "{pic}");
    assert!(count(&pic, "</text>") >= 16);
    assert_eq!(
        count(&pic, r##"stroke="#000000" stroke-width="4""##),
        1 + cex.witnesses.len()
    );
    // A property of two functions at several places has none.
    let cf = check::load("t.tess", "assert compatible((2,2), (4,4))\n").unwrap();
    let a = &cf.assertions[0];
    if let Verdict::Refuted(cex) = check::decide(a, &Default::default(), check::Provers::All).0 {
        assert_eq!(counterexample_picture(&a.property, &cex), None);
    }
}

/// A concrete bank assertion shows its degree and wavefronts beside the verdict, proved or
/// refuted.
#[test]
fn bank_assertions_show_degree_and_wavefronts() {
    let dir = std::env::temp_dir().join(format!("tessera-html-banks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("banks.html");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "check",
            "--html",
            page.to_str().unwrap(),
            "examples/broken/bank_conflict.tess",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("<p class=\"banks\">degree 2, wavefronts 8 (ideal 4) in the worst warp instruction"),
        "{html}"
    );
}

/// A large layout's refutation is drawn as a window of at most 32 x 32 cells around its
/// counterexample, named in the legend, with the command that draws the whole.
#[test]
fn a_large_refutation_is_drawn_as_a_window_around_the_counterexample() {
    let dir = temp("window");
    let f = dir.join("big.tess");
    // Indices 0 and 1 of (2,(128,4)):(0,(4,1)) share offset 0: rows 0 and 1, column 0; the
    // whole picture is 2 x 512 cells.
    std::fs::write(&f, "assert injective((2,(128,4)):(0,(4,1)))\n").unwrap();
    let (j, page, code) = check_both(&[f.to_str().unwrap()], &dir);
    assert_eq!(code, 1, "{j}");
    assert!(
        page.contains("window: rows 0 to 1 and columns 0 to 31 of 2 x 512"),
        "{page}"
    );
    assert!(page.contains(
        "the whole picture: <code>tessera draw &#39;(2,(128,4)):(0,(4,1))&#39; -o whole.svg</code>"
    ));
    let svg = &page[page.find("<svg").unwrap()..];
    let width: usize = svg["<svg version=\"1.1\" width=\"".len()..]
        .split('"')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(width < 2000, "{width} px wide");
    let _ = std::fs::remove_dir_all(&dir);
}
