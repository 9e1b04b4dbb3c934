//! `tessera check` and `tessera prove` as a CI job runs them: a time limit always ends in a
//! verdict (each run here is killed past a hard outer limit, so a hang fails the test instead
//! of hanging it), a bad file is a result of its own, and bad input exits 3.

use serde_json::Value;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs the binary, killing it past `limit`: `(exit code, stdout, stderr)`.
fn run_for(args: &[&str], limit: Duration) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("tessera {args:?} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (mut out, mut err) = (String::new(), String::new());
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    (status.code().unwrap_or(-1), out, err)
}

fn run(args: &[&str]) -> (i32, String, String) {
    run_for(args, Duration::from_secs(120))
}

fn temp(name: &str, body: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tessera-prover-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p
}

#[test]
fn a_timeout_always_ends_as_unknown() {
    // Debian's libz3 deadlocked in its own timer here; an unused unbounded N also made the
    // query nonlinear. Now the query is over bit-vectors: about a second on a loaded machine
    // (two variable divisors bit-blasted), so the limit leaves room for a busier one.
    let p = temp(
        "deadlock.tess",
        "param M where M <= 4096\nparam N\nassert injective((M,8):(8,1))\n",
    );
    let (code, out, _) = run_for(
        &["check", "--timeout", "20", p.to_str().unwrap()],
        Duration::from_secs(60),
    );
    assert_eq!(code, 0, "{out}");
    // Nonlinear over unbounded integers: minutes without a limit, two seconds with one.
    let p = temp(
        "hard.tess",
        "param M\nparam N\nassert injective((M,N,8):(8*N,8,1))\n",
    );
    let t0 = Instant::now();
    let (code, out, _) = run_for(
        &["check", "--json", "--timeout", "2", p.to_str().unwrap()],
        Duration::from_secs(60),
    );
    assert_eq!(code, 2, "{out}");
    let j: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["results"][0]["reason"], "timeout", "{j}");
    assert!(t0.elapsed() < Duration::from_secs(30), "{:?}", t0.elapsed());
    let (code, out, _) = run_for(
        &[
            "prove",
            "--timeout",
            "1",
            "--param",
            "M",
            "--param",
            "N",
            "injective",
            "(M,N,8):(8*N,8,1)",
        ],
        Duration::from_secs(60),
    );
    assert_eq!(code, 2, "{out}");
    // The bank enumeration stops at the limit too (2^26 accesses; without F2, which answers
    // it from two ranks).
    let p = temp(
        "bank.tess",
        "assert conflict_degree(67108864:1, (32,2097152):(1,32), elem=4, access=4) == 1\n",
    );
    let t0 = Instant::now();
    let (code, out, _) = run_for(
        &["check", "--timeout", "1", "--prover", "z3", p.to_str().unwrap()],
        Duration::from_secs(60),
    );
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("timeout"), "{out}");
    assert!(t0.elapsed() < Duration::from_secs(20), "{:?}", t0.elapsed());
    let (code, out, _) = run_for(
        &["check", "--timeout", "1", p.to_str().unwrap()],
        Duration::from_secs(60),
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("(F2, "), "{out}");
}

#[test]
fn a_timeout_must_be_positive() {
    let p = temp("ok.tess", "assert injective((4,8):(1,4))\n");
    let f = p.to_str().unwrap();
    for t in ["0", "--timeout=-1", "nan", "inf"] {
        let arg = if t.starts_with("--") {
            t.to_string()
        } else {
            format!("--timeout={t}")
        };
        let (code, _, err) = run(&["check", &arg, f]);
        assert_eq!(code, 3, "{t}: {err}");
        assert!(err.contains("--timeout"), "{err}");
        assert!(
            err.contains("positive duration") || err.contains("is not a duration"),
            "{err}"
        );
        let (code, _, _) = run(&["prove", &arg, "injective", "(4,8)"]);
        assert_eq!(code, 3, "{t}");
    }
    assert_eq!(run(&["check", "--timeout", "0.5", f]).0, 0);
}

#[test]
fn one_bad_file_does_not_hide_the_others() {
    let good = temp("good.tess", "assert injective((4,8):(1,4))\n");
    let bad = temp("bad.tess", "assert injective((4,8):(1,4)\n");
    let refuted = temp("refuted.tess", "assert injective((4,8):(2,1))\n");
    let files = [
        good.to_str().unwrap(),
        bad.to_str().unwrap(),
        refuted.to_str().unwrap(),
    ];
    let (code, out, err) = run(&["check", "--json", files[0], files[1], files[2]]);
    assert_eq!(code, 3, "the worst verdict: bad input");
    assert!(err.contains("bad.tess:1:29: expected ')'"), "{err}");
    let j: Value = serde_json::from_str(&out).unwrap();
    let r = j["results"].as_array().unwrap();
    let verdicts: Vec<&str> = r.iter().map(|x| x["verdict"].as_str().unwrap()).collect();
    assert_eq!(verdicts, ["proved", "bad input", "refuted"], "{j}");
    assert!(r[1]["reason"].as_str().unwrap().contains("column 29"), "{j}");
    assert_eq!(j["summary"]["bad_input"], 1);
    // Text output too, and an unreadable file.
    let missing = good.with_file_name("missing.tess");
    let (code, out, _) = run(&["check", files[0], missing.to_str().unwrap()]);
    assert_eq!(code, 3);
    assert!(out.contains("1 proved") && out.contains("1 bad input"), "{out}");
}

#[test]
fn malformed_assertions_exit_3() {
    for a in [
        "vectorizable((4,8):(1,4), 0)",
        "bank_conflict_free(32:1, (32,1,1):(1,0,0), elem=4, access=4)",
        "in_bounds((4,8):(1@0,1@1), 8)",
        "injective((4,8):(F2(1),4))",
        "bank_conflict_free(32:1, (32,3):(1,32), elem=2, access=4)",
    ] {
        let p = temp(
            "malformed.tess",
            &format!("assert injective((4,8))\nassert {a}\n"),
        );
        let (code, out, _) = run(&["check", p.to_str().unwrap()]);
        assert_eq!(code, 3, "{a}: {out}");
        assert!(
            out.contains("1 proved") && out.contains("1 bad input"),
            "{a}: {out}"
        );
    }
    let (code, _, _) = run(&["prove", "vectorizable", "(4,8):(1,4)", "0"]);
    assert_eq!(code, 3);
}

#[test]
fn conflict_bytes_lie_in_the_named_bank() {
    let (code, out, _) = run(&[
        "prove",
        "conflict_degree",
        "(8,64):(64,1)",
        "((8,4),8):((1,64),8)",
        "elem=2",
        "access=16",
    ]);
    assert_eq!(code, 0);
    // "8-way: threads 0 and 1 (access 0) reach bank B at bytes X and Y"
    let bank: i64 = out
        .split("bank ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let bytes: Vec<i64> = out
        .trim()
        .rsplit("bytes ")
        .next()
        .unwrap()
        .split(" and ")
        .map(|x| x.parse().unwrap())
        .collect();
    for b in bytes {
        assert_eq!(b / 4 % 32, bank, "{out}");
    }
}

/// `prove` takes a check file's comparisons after its arguments, as separate words or one.
#[test]
fn prove_takes_comparisons() {
    let args = ["(32,32):(32,1)", "(32,32):(1,32)", "elem=4", "access=4"];
    for (cmp, code) in [
        (&["==", "32"][..], 0),
        (&["<=", "31"][..], 1),
        (&[">=32"][..], 0),
        (&["== 32"][..], 0),
        (&["<", "32"][..], 1),
    ] {
        let mut a = vec!["prove", "conflict_degree"];
        a.extend(args);
        a.extend(cmp);
        let (got, out, err) = run(&a);
        assert_eq!(got, code, "{cmp:?}: {out}{err}");
        assert!(out.contains("conflict_degree("), "{out}");
    }
    // A comparison on a property that takes none is bad input.
    let (code, _, err) = run(&["prove", "injective", "(4,8):(8,1)", "==", "1"]);
    assert_eq!(code, 3, "{err}");
}

/// `wavefronts(...)` in check files and `prove`, and the bank figures beside each bank
/// assertion of a report.
#[test]
fn wavefronts_are_asserted_and_reported() {
    let p = temp(
        "wavefronts.tess",
        "let S = (8,64):(64,1)\n\
         let TV = ((8,4),8):((1,64),8)\n\
         assert wavefronts(S, TV, elem=2, access=16) == 32\n\
         assert wavefronts(Sw<3,3,3> o S, TV, elem=2, access=16) <= 4\n\
         assert wavefronts(S, TV, elem=2, access=16) < 32\n\
         assert bank_conflict_free(Sw<3,3,3> o S, TV, elem=2, access=16)\n",
    );
    let (code, out, _) = run(&["check", p.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("3 proved, 1 refuted"), "{out}");
    assert!(out.contains("is 32 (ideal 4), not < 32"), "{out}");
    assert!(
        out.contains("degree 8, wavefronts 32 (ideal 4) in the worst warp instruction, 32 in all (ideal 4)"),
        "{out}"
    );
    assert!(out.contains("degree 1, wavefronts 4 (ideal 4)"), "{out}");
    let (code, out, _) = run(&["check", "--json", p.to_str().unwrap()]);
    assert_eq!(code, 1);
    let j: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["results"][0]["banks"]["wavefronts"], 32);
    assert_eq!(j["results"][0]["banks"]["ideal"], 4);
    let (code, out, _) = run(&[
        "prove",
        "wavefronts",
        "(8,64):(64,1)",
        "((8,4),8):((1,64),8)",
        "elem=2",
        "access=16",
        "--json",
    ]);
    assert_eq!(code, 0);
    let j: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (j["wavefronts"].as_i64(), j["ideal"].as_i64()),
        (Some(32), Some(4))
    );
}
