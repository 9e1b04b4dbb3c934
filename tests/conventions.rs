//! The conventions a user relies on without reading the source: no silent default changes the
//! question asked (bank questions name their element and access sizes, `draw -o` writes the
//! format its extension names or refuses).

#[path = "support/cli.rs"]
mod cli;

use cli::tessera;

/// Exit code and standard error of a run.
fn err_of(args: &[&str]) -> (Option<i32>, String) {
    let o = tessera(args);
    (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
}

const SW: &str = "Sw<3,3,3> o (8,64):(64,1)";
const TV: &str = "((8,4),8):((1,64),8)";

#[test]
fn bank_questions_without_elem_or_access_are_refused_with_the_fix() {
    // `prove`: both missing, then one of them; every bank property.
    for prop in ["bank_conflict_free", "conflict_degree", "wavefronts"] {
        let (code, err) = err_of(&["prove", prop, SW, TV]);
        assert_eq!(code, Some(3), "{prop}: {err}");
        assert!(err.contains("give elem= and access="), "{prop}: {err}");
        assert!(
            err.contains(&format!("e.g. {prop}({SW}, {TV}, elem=4, access=4)")),
            "{err}"
        );
        assert!(err.contains("2 and 16 for fp16"), "{err}");
    }
    let (code, err) = err_of(&["prove", "bank_conflict_free", SW, TV, "elem=2"]);
    assert_eq!(code, Some(3), "{err}");
    assert!(err.contains("give access="), "{err}");
    assert!(!err.contains("give elem="), "{err}");
    let (code, err) = err_of(&["prove", "bank_conflict_free", SW, TV, "access=16"]);
    assert_eq!(code, Some(3), "{err}");
    assert!(err.contains("give elem="), "{err}");
    // With both, CUTLASS's fp16 ldmatrix swizzle is proved, and the line shows the values.
    let o = tessera(&["prove", "bank_conflict_free", SW, TV, "elem=2", "access=16"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("elem=2, access=16"), "{out}");
    // A check file: the line, column and the fix.
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("conventions");
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("banks.tess");
    std::fs::write(
        &f,
        format!("let S = {SW}\nassert conflict_degree(S, {TV}) == 1\n"),
    )
    .unwrap();
    let (code, err) = err_of(&["check", f.to_str().unwrap()]);
    assert_eq!(code, Some(3), "{err}");
    assert!(err.contains("banks.tess:2:8"), "{err}");
    assert!(
        err.contains(&format!("e.g. conflict_degree(S, {TV}, elem=4, access=4)")),
        "{err}"
    );
    // `draw --banks`.
    let (code, err) = err_of(&["draw", "--banks", "(8,64):(64,1)", "--tv", TV, "elem=2"]);
    assert_eq!(code, Some(3), "{err}");
    assert!(err.contains("give access="), "{err}");
}

#[test]
fn draw_refuses_an_extension_it_does_not_write() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("conventions");
    std::fs::create_dir_all(&dir).unwrap();
    for ext in ["pdf", "jpg", "jpeg", "eps"] {
        let path = dir.join(format!("out.{ext}"));
        let _ = std::fs::remove_file(&path);
        let (code, err) = err_of(&["draw", "(4,8):(8,1)", "-o", path.to_str().unwrap()]);
        assert_eq!(code, Some(3), "{ext}: {err}");
        assert!(err.contains("writes svg, tex, png and html"), "{err}");
        assert!(!path.exists(), "{ext}: a file was written");
    }
    // The extensions it writes choose the format; upper case too; --format overrides.
    for (ext, head) in [("svg", "<svg"), ("SVG", "<svg"), ("tex", "\\documentclass")] {
        let path = dir.join(format!("pic.{ext}"));
        let (code, err) = err_of(&["draw", "(4,8):(8,1)", "-o", path.to_str().unwrap()]);
        assert_eq!(code, Some(0), "{err}");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(head), "{ext}: {}", &text[..text.len().min(200)]);
    }
    let path = dir.join("forced.pdf");
    let (code, err) = err_of(&[
        "draw",
        "(4,8):(8,1)",
        "--format",
        "svg",
        "-o",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let png = dir.join("pic.png");
    let (code, err) = err_of(&["draw", "(4,8):(8,1)", "-o", png.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
}

#[test]
fn flags_share_one_convention() {
    // Threads: -j, --jobs and --threads on check and eval.
    for j in [["-j", "1"], ["--jobs", "1"], ["--threads", "1"]] {
        let o = tessera(&["check", j[0], j[1], "examples/transpose.tess"]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{j:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(String::from_utf8_lossy(&o.stdout).contains("on 1 thread"));
        let o = tessera(&["eval", j[0], j[1], "--batch", "/dev/null"]);
        assert_eq!(o.status.code(), Some(0), "{j:?}");
    }
    // --timeout with a unit on every command that has one; a bare number keeps its unit.
    for t in ["500ms", "2s", "1m", "30"] {
        let o = tessera(&["prove", "injective", "(4,8):(8,1)", "--timeout", t]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{t}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let o = tessera(&["simplify", "(4,8):(8,1)", "--timeout", t]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{t}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    for t in ["0", "-1s", "2h", "1e10", "ms"] {
        let flag = format!("--timeout={t}");
        let (code, err) = err_of(&["check", &flag, "examples/transpose.tess"]);
        assert_eq!(code, Some(3), "{t}: {err}");
        assert!(err.contains("--timeout"), "{err}");
    }
    let (_, err) = err_of(&["simplify", "4:1", "--timeout", "2h"]);
    assert!(err.contains("a bare number is seconds"), "{err}");
    // `run` too: -j/--jobs/--threads, --timeout with a unit, --out NAME=FILE (`--output` is
    // a single file in draw and build; on run it is refused with a pointer to --out).
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("conventions");
    std::fs::create_dir_all(&dir).unwrap();
    let npy = dir.join("dst.npy");
    let npy_arg = format!("dst={}", npy.display());
    let run = [
        "run",
        "examples/kernels.tess",
        "--kernel",
        "transpose",
        "--bind",
        "M=32,N=32",
    ];
    for (j, t) in [
        (["-j", "2"], "2s"),
        (["--jobs", "1"], "500ms"),
        (["--threads", "2"], "1m"),
    ] {
        let _ = std::fs::remove_file(&npy);
        let argv = [&run[..], &[j[0], j[1], "--timeout", t, "--out", &npy_arg]].concat();
        let o = tessera(&argv);
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{argv:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(out.contains(&format!("on {} thread", j[1])), "{argv:?}: {out}");
        assert!(std::fs::read(&npy).unwrap().starts_with(b"\x93NUMPY"));
    }
    let (code, err) = err_of(&[&run[..], &["--output", &npy_arg]].concat());
    assert_eq!(code, Some(3), "{err}");
    assert!(err.contains("--out"), "{err}");
    let (code, err) = err_of(&[&run[..], &["--timeout", "2h"]].concat());
    assert_eq!(code, Some(3), "{err}");
    assert!(err.contains("write 500ms, 2s or 1m"), "{err}");
    // --bind M=1,N=2 on eval, as on run.
    let o = tessera(&["eval", "--param", "M, N", "--bind", "M=4,N=2", "M*N"]);
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "8");
    let (code, err) = err_of(&["eval", "--param", "M, N", "--bind", "M=4,M=2", "M"]);
    assert_eq!(code, Some(3));
    assert!(err.contains("bound twice"), "{err}");
    // One reader of --bind behind every command: the same answers and the same errors.
    let o = tessera(&[&run[..4], &["--bind", " M = 32 , N=32"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let o = tessera(&["eval", "--param", "M, N", "--bind", " M = 4 , N=2", "M*N"]);
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "8");
    for (bind, want) in [
        ("M=32,M=64", "--bind M: 'M' is bound twice"),
        ("M=x", "--bind M: 'x' is not an integer"),
        ("M", "--bind expects NAME=VALUE, got 'M'"),
        ("M=99999999999999999999", "is not an integer"),
        ("o=1", "--bind: 'o' cannot be a parameter name"),
    ] {
        let eval = ["eval", "--param", "M, N", "--bind", bind, "M"];
        let run = [&run[..4], &["--bind", bind]].concat();
        let build = ["build", "examples/kernels.tess", "--bind", bind];
        for argv in [&eval[..], &run[..], &build[..]] {
            let (code, err) = err_of(argv);
            assert_eq!(code, Some(3), "{argv:?}: {err}");
            assert!(err.contains(want), "{argv:?}: {err}");
        }
    }
    // --engine's placeholder lists structural.
    let o = tessera(&["prove", "--help"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("<auto|enum|f2|z3|structural>"));
    // `prove ... --elem 2` says elem=2.
    let (code, err) = err_of(&["prove", "bank_conflict_free", SW, TV, "--elem", "2", "access=16"]);
    assert_eq!(code, Some(3));
    assert!(err.contains("written without dashes: elem=2"), "{err}");
}

#[test]
fn errors_speak_cute() {
    // CuTe C++, PyCuTe and CuTe DSL spellings: the exact Tessera text to write.
    for (cute, tessera_text) in [
        ("Int<4>{}", "4"),
        ("Swizzle<3,3,3>{}", "Sw<3,3,3>"),
        ("Layout<Shape<_4,_8>, Stride<_1,_4>>{}", "(4,8):(1,4)"),
        (
            "Layout<Shape<Shape<_2,_2>,_8>, Stride<Stride<_1,_16>,_2>>{}",
            "((2,2),8):((1,16),2)",
        ),
        ("make_layout(make_shape(4,8), make_stride(1,4))", "(4,8):(1,4)"),
        ("Layout((4,8),(1,4))", "(4,8):(1,4)"),
        ("Swizzle(3,3,3)", "Sw<3,3,3>"),
        (
            "composition(Swizzle<3,3,3>{}, (8,64):(64,1))",
            "Sw<3,3,3> o (8,64):(64,1)",
        ),
    ] {
        let (code, err) = err_of(&["eval", cute]);
        assert_eq!(code, Some(3), "{cute}: {err}");
        assert!(
            err.contains(&format!("in Tessera write `{tessera_text}`")),
            "{cute}: {err}"
        );
        // And the suggested text is Tessera.
        let o = tessera(&["eval", tessera_text]);
        assert_eq!(o.status.code(), Some(0), "{tessera_text}");
    }
    // `_4` already reads as 4.
    assert_eq!(cli::ok(&["eval", "(_4,_8):(_1,_4)"]).trim(), "(4,8):(1,4)");
    // Tessera's own errors get no CuTe hint.
    let (_, err) = err_of(&["eval", "size(4:1"]);
    assert!(!err.contains("CuTe"), "{err}");

    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("conventions");
    std::fs::create_dir_all(&dir).unwrap();
    // In a check file: the translation too, with the line and column.
    let f = dir.join("cute.tess");
    std::fs::write(&f, "let A = Layout<Shape<_4,_8>, Stride<_1,_4>>{}\n").unwrap();
    let (code, err) = err_of(&["check", f.to_str().unwrap()]);
    assert_eq!(code, Some(3), "{err}");
    assert!(
        err.contains("cute.tess:1:44") && err.contains("write `(4,8):(1,4)`"),
        "{err}"
    );
    // An undefined name: let/param, not --param, and the nearest defined name.
    let f = dir.join("names.tess");
    std::fs::write(&f, "let Smem = (8,64):(64,1)\nassert injective(Smme)\n").unwrap();
    let (code, err) = err_of(&["check", f.to_str().unwrap()]);
    assert_eq!(code, Some(3), "{err}");
    assert!(err.contains("names.tess:2:18"), "{err}");
    assert!(err.contains("`let Smme = ...` or `param Smme`"), "{err}");
    assert!(err.contains("did you mean 'Smem'?"), "{err}");
    assert!(!err.contains("--param"), "{err}");
    std::fs::write(&f, "let Smem = (8,64):(64,1)\nlet B = composition(Smem, Q)\n").unwrap();
    let (_, err) = err_of(&["check", f.to_str().unwrap()]);
    assert!(
        err.contains("unknown name 'Q'") && !err.contains("did you mean"),
        "{err}"
    );
    // Invalid UTF-8: the line and the byte.
    let f = dir.join("latin1.tess");
    std::fs::write(&f, b"let A = 4:1\n# caf\xe9\nassert injective(A)\n").unwrap();
    let (code, err) = err_of(&["check", f.to_str().unwrap()]);
    assert_eq!(code, Some(3), "{err}");
    assert!(
        err.contains("line 2, byte 6 (offset 17): invalid UTF-8 (0xe9)"),
        "{err}"
    );
}

#[test]
fn a_bank_colouring_names_its_element_size() {
    // Without elem= the legend says which size it assumed; with elem=2 two elements share a
    // word and so a colour.
    let svg = cli::ok(&["draw", "(4,8):(8,1)", "--color", "bank"]);
    assert!(svg.contains("(offset * 4 / 4) % 32, at elem=4 bytes"), "{svg}");
    let svg = cli::ok(&["draw", "(4,8):(8,1)", "--color", "bank", "elem=2"]);
    assert!(svg.contains("at elem=2 bytes"), "{svg}");
    // A keyword with the grey colouring is still refused.
    let (code, err) = err_of(&["draw", "(4,8):(8,1)", "elem=2"]);
    assert_eq!(code, Some(3));
    assert!(err.contains("--color bank"), "{err}");
}
