//! `tessera emit` models the machine: the emitted code's intermediates fit in int64 for every
//! value its stated assumptions admit (bounds the facts do not imply are added and said), an
//! operation that overflows everywhere is an error pointing at it, sizes past int64 are a clear
//! error, and the output is byte-identical on an idle and on a loaded machine. Compiled with
//! UBSan at the int64 edges, the emitted C computes what `tessera eval` computes.
//!
//! Also: `--coords` on swizzled and offset layouts, coordinate-valued layouts emitted as the
//! whole tuple `eval` prints (and refused where `eval` refuses), unused `--range` inputs,
//! `emit --timeout`.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

#[path = "support/cli.rs"]
mod cli;
use cli::{ok, tessera};

fn bad(args: &[&str]) -> String {
    let o = tessera(args);
    assert_eq!(
        o.status.code(),
        Some(3),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Compiles `c` with a `main` that prints `calls` (C expressions, one per line), under UBSan
/// (signed overflow, shifts and division by zero abort), and returns the printed lines.
fn run_c(name: &str, c: &str, calls: &[String]) -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_emit_int64");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{name}.c"));
    let body: String = calls
        .iter()
        .map(|c| format!("    printf(\"%lld\\n\", (long long)({c}));\n"))
        .collect();
    let main = format!("#include <stdio.h>\nint main(void) {{\n{body}    return 0;\n}}\n");
    std::fs::write(&file, format!("{c}{main}")).unwrap();
    let exe = dir.join(name);
    let cc = Command::new("cc")
        .args([
            "-std=c11",
            "-Wall",
            "-Werror",
            "-O1",
            "-fsanitize=signed-integer-overflow,shift,integer-divide-by-zero",
            "-fno-sanitize-recover=all",
        ])
        .arg(&file)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(cc.status.success(), "{}", String::from_utf8_lossy(&cc.stderr));
    let out = Command::new(&exe).output().unwrap();
    assert!(
        out.status.success(),
        "{c}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The cases: each once emitted wrong values under a "validated" claim.
#[test]
fn the_overflowing_rewrites_are_not_emitted() {
    let c = ok(&[
        "emit",
        "--lang",
        "c",
        "--name",
        "f",
        "--param",
        "N where N >= 1",
        "(i / 4) / N",
        "--range",
        "i=0..7",
    ]);
    let code: String = c.lines().filter(|l| !l.starts_with("//")).collect();
    // egg's guard keeps the product out (`(i >> 2) / N` is what it finds); the validation
    // refuses it when injected (verifier/tests/int64_validation.rs).
    assert!(!code.contains("<<") && !code.contains('*'), "{c}");
    let got = run_c(
        "div_div",
        &c,
        &[
            "f(7, 4611686018427387905)".into(),
            "f(7, 4611686018427387904)".into(),
            "f(7, 1)".into(),
        ],
    );
    assert_eq!(got, vec!["0", "0", "1"]);

    let c = ok(&[
        "emit",
        "--lang",
        "c",
        "--name",
        "f",
        "--param",
        "M where M >= 1",
        "--param",
        "N where N >= 1",
        "(i / M) / N",
        "--range",
        "i=0..7",
    ]);
    let got = run_c(
        "div_mn",
        &c,
        &["f(7, 4294967297, 4294967295)".into(), "f(7, 2, 3)".into()],
    );
    assert_eq!(got, vec!["0", "1"]);

    // The layout form, against `tessera eval --bind` at the same values.
    let c = ok(&[
        "emit",
        "--lang",
        "c",
        "--name",
        "f",
        "--param",
        "N where N >= 1",
        "(4,N,3):(0,0,1)",
    ]);
    let n = "4611686018427387905";
    let want = ok(&[
        "eval",
        "--param",
        "N where N >= 1",
        "--bind",
        &format!("N={n}"),
        "((4,N,3):(0,0,1))(5)",
    ]);
    let got = run_c("layout", &c, &[format!("f(5, {n})")]);
    assert_eq!(got, vec![want.trim().to_string()]);

    // `i * (N + M)` overflows at M = N = 2^62 where the input is 0 at i = 0.
    let c = ok(&[
        "emit",
        "--lang",
        "c",
        "--name",
        "f",
        "--param",
        "N where N >= 1",
        "--param",
        "M where M >= 1",
        "(N * i) + (i * M)",
        "--range",
        "i=0..1",
    ]);
    let code: String = c.lines().filter(|l| !l.starts_with("//")).collect();
    assert!(!code.contains("N + M") && !code.contains("M + N"), "{c}");
    // The sum itself can still overflow, so the function bounds M and N and says so.
    assert!(
        c.contains("Added so that every intermediate fits in int64"),
        "{c}"
    );
    let got = run_c(
        "sum",
        &c,
        &[
            "f(0, 4611686018427387904, 4611686018427387903)".into(),
            "f(1, 3, 4)".into(),
        ],
    );
    assert_eq!(got, vec!["0", "7"]);
}

#[test]
fn the_stated_domain_makes_every_intermediate_fit() {
    let c = ok(&[
        "emit",
        "--lang",
        "c",
        "--name",
        "f",
        "--param",
        "M where M >= 1",
        "M + 15",
    ]);
    assert!(c.contains("//   1 <= M <= 9223372036854775792\n"), "{c}");
    assert!(
        c.contains("(not implied by the facts): M <= 9223372036854775792."),
        "{c}"
    );
    assert!(
        c.contains("assert(1 <= M && M <= INT64_C(9223372036854775792));"),
        "{c}"
    );
    let got = run_c("m15", &c, &["f(9223372036854775792)".into()]);
    assert_eq!(got, vec![i64::MAX.to_string()]);
    // Rust states it too, and checks it with debug_assert!.
    let r = ok(&[
        "emit",
        "--lang",
        "rust",
        "--name",
        "f",
        "--param",
        "M where M >= 1",
        "M + 15",
    ]);
    assert!(
        r.contains("debug_assert!((1..=9223372036854775792).contains(&m)")
            || r.contains("9223372036854775792"),
        "{r}"
    );
    // Facts that already bound every intermediate add nothing.
    let c = ok(&[
        "emit",
        "--lang",
        "c",
        "--param",
        "M where 1 <= M <= 1024",
        "(M,4):(1,M)",
    ]);
    assert!(!c.contains("Added so that"), "{c}");
}

#[test]
fn overflow_everywhere_and_sizes_past_int64_are_clear_errors() {
    let e = bad(&["emit", "--lang", "c", "(7 << 61) + i", "--range", "i=0..3"]);
    assert!(
        e.contains("column 4") && e.contains("leaves int64 at every point"),
        "{e}"
    );
    assert!(e.contains("\n  (7 << 61) + i\n     ^"), "{e}");
    let e = bad(&[
        "emit",
        "--lang",
        "c",
        "--param",
        "N where N <= 4611686018427387904",
        "(4,N):(0,1)",
    ]);
    assert!(
        e.contains("size 4*N reaches 18446744073709551616") && e.contains("past int64"),
        "{e}"
    );
    assert!(!e.contains("internal"), "{e}");
    // An index range whose products leave int64 somewhere is bounded, not refused...
    let c = ok(&[
        "emit",
        "--lang",
        "c",
        "i * 4611686018427387904",
        "--range",
        "i=0..3",
    ]);
    assert!(c.contains("0 <= i <= 1"), "{c}");
}

#[test]
fn coords_on_swizzled_and_offset_layouts() {
    let src = "Sw<2,1,3> o 4 o ((2,4),(4,2)):((1,16),(2,64))";
    let c = ok(&["emit", "--lang", "c", "--name", "f", "--coords", src]);
    assert!(
        c.contains("f(int64_t c0, int64_t c1, int64_t c2, int64_t c3)"),
        "{c}"
    );
    let mut calls = Vec::new();
    let mut want = Vec::new();
    for c3 in 0..2 {
        for c2 in 0..4 {
            for c1 in 0..4 {
                for c0 in 0..2 {
                    calls.push(format!("f({c0}, {c1}, {c2}, {c3})"));
                    want.push(
                        tessera::lang::eval_str(&format!("({src})((({c0},{c1}),({c2},{c3})))")).unwrap(),
                    );
                }
            }
        }
    }
    assert_eq!(run_c("coords", &c, &calls), want);
}

#[test]
fn coordinate_layouts_are_emitted_as_the_tuple_eval_prints() {
    let c = ok(&["emit", "--lang", "c", "--name", "f", "(2,3):(1@1,1@1)"]);
    assert!(c.contains("int64_t *out_coord_0, int64_t *out_coord_1"), "{c}");
    assert!(c.contains("*out_coord_0 = 0;"), "{c}");
    assert_eq!(ok(&["eval", "(2,3):(1@1,1@1)(3)"]).trim(), "(0,2)");
    let e = bad(&["emit", "--lang", "c", "(2,3):(1@1@0,1@0)"]);
    assert!(e.contains("overlap"), "{e}");
    // Components past 9 keep their numeric order.
    let c = ok(&["emit", "--lang", "c", "--name", "g", "(2,2):(1@0,1@10)"]);
    let at = |s: &str| c.find(s).unwrap_or_else(|| panic!("{s}\n{c}"));
    assert!(at("out_coord_2,") < at("out_coord_10"), "{c}");
}

#[test]
fn unused_ranges_and_the_timeout_flag() {
    let out = ok(&[
        "simplify",
        "(i * 0) + c0",
        "--range",
        "i=0..3",
        "--range",
        "c0=0..7",
    ]);
    assert!(out.contains("value = c0"), "{out}");
    let c = ok(&[
        "emit",
        "--lang",
        "c",
        "--timeout",
        "60s",
        "(i % 6) + (i / 6) * 6",
        "--range",
        "i=0..1073741823",
    ]);
    assert!(c.contains("return i;"), "{c}");
}

/// The output is decided by counted limits: the same bytes with the machine idle and with
/// every core busy (four spinning threads per core here).
#[test]
fn emission_is_byte_identical_under_cpu_load() {
    let cases: [&[&str]; 3] = [
        &[
            "emit",
            "--lang",
            "c",
            "--param",
            "M where M % 32 == 0, M <= 16384",
            "(i % M) + M * (i / M)",
            "--range",
            "i=0..1023",
        ],
        &[
            "emit",
            "--lang",
            "c",
            "--param",
            "M where M % 32 == 0, 32 <= M <= 4096",
            "--param",
            "N where N % 8 == 0, 8 <= N <= 256",
            "(M,N):(1,M)",
        ],
        &["emit", "--lang", "rust", "Sw<3,3,3> o ((8,16),64):((64,512),1)"],
    ];
    let idle: Vec<String> = cases.iter().map(|a| ok(a)).collect();
    let stop = Arc::new(AtomicBool::new(false));
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let spinners: Vec<_> = (0..4 * cores)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut x = 1u64;
                while !stop.load(Ordering::Relaxed) {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                    std::hint::black_box(x);
                }
            })
        })
        .collect();
    let loaded: Vec<String> = cases.iter().map(|a| ok(a)).collect();
    stop.store(true, Ordering::Relaxed);
    for s in spinners {
        s.join().unwrap();
    }
    assert_eq!(idle, loaded);
}
