//! The command line as a new user meets it (issue 8): the `--batch` contract (one answer per
//! line whatever the bytes, bounded memory, a closed pipe is a normal end), long and deep
//! input through every subcommand, usage errors exiting 3 everywhere, and the messages of bad
//! parameters, binds, check files and `prove` arguments.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tessera"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn tessera(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

/// A scratch file under the target directory, unique to this test.
fn scratch(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_frontend");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `tessera eval --batch FILE` on `input`: the answer lines and the exit code.
fn batch(name: &str, input: &[u8]) -> (Vec<String>, i32) {
    let p = scratch(name, input);
    let out = tessera(&["eval", "--batch", p.to_str().unwrap()]);
    (
        text(&out.stdout).lines().map(str::to_string).collect(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn batch_answers_an_invalid_utf8_line_and_goes_on() {
    let (lines, code) = batch(
        "utf8.txt",
        b"1+1\n\xff\xfe(2,3)\nsize((4,8))\n(4,\xc3\n\n# c\n(2+3)*4\n",
    );
    assert_eq!(code, 0, "{lines:?}");
    assert_eq!(lines.len(), 7, "{lines:?}");
    assert_eq!(lines[0], "2");
    assert_eq!(
        lines[1],
        "error: line is not valid UTF-8 (invalid byte at column 1)"
    );
    assert_eq!(lines[2], "32");
    assert_eq!(
        lines[3],
        "error: line is not valid UTF-8 (invalid byte at column 4)"
    );
    assert_eq!(lines[4..], ["", "", "20"]);
    // A character split between two lines (`\xc3` ends one, `\xa9` starts the next: together
    // an `é`): each line alone is invalid, also when the lines around are valid.
    let (lines, code) = batch("utf8_split.txt", b"size(4:1)\n(2,\xc3\n\xa9,3)\nsize(8:1)\n");
    assert_eq!(code, 0, "{lines:?}");
    assert_eq!(
        lines,
        [
            "4",
            "error: line is not valid UTF-8 (invalid byte at column 4)",
            "error: line is not valid UTF-8 (invalid byte at column 1)",
            "8"
        ]
    );
}

#[test]
fn batch_trims_each_line_as_str_trim_does() {
    // A line whose ends are visible ASCII is taken as it is; any other end (ASCII or Unicode
    // whitespace, a CRLF line end, a non-ASCII character) goes through `str::trim`.
    let input = "size(4:1)\r\n\t size(8:1) \n\u{3000}size(2:1)\u{a0}\n\u{2003}# c\n\
        size(4:1)\u{e9}\n \u{85}\n";
    let (lines, code) = batch("trim.txt", input.as_bytes());
    assert_eq!(code, 0, "{lines:?}");
    assert_eq!(lines.len(), 6, "{lines:?}");
    assert_eq!(lines[..4], ["4", "8", "2", ""]);
    assert!(lines[4].starts_with("error: "), "{lines:?}");
    assert_eq!(lines[5], "");
}

#[test]
fn batch_skips_an_overlong_line_and_goes_on() {
    const MIB: usize = 1 << 20;
    let mut input = b"1+2\n".to_vec();
    input.extend(vec![b'x'; 3 * MIB]);
    input.extend(b"\n3*3\n");
    // Exactly at the limit: read and parsed (an unknown name here).
    input.extend(vec![b'y'; MIB]);
    input.extend(b"\n");
    // One byte past it, and a last line without a newline.
    input.extend(vec![b'z'; MIB + 1]);
    input.extend(b"\n4:1(3)");
    let (lines, code) = batch("overlong.txt", &input);
    assert_eq!(code, 0);
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[0], "3");
    assert_eq!(lines[1], "error: line longer than 1048576 bytes (1 MiB); skipped");
    assert_eq!(lines[2], "9");
    assert!(lines[3].starts_with("error: parse error at column 1: unknown name 'yyy"));
    // The excerpt of a long line is a window, not the line.
    assert!(lines[3].len() < 400, "{}", lines[3].len());
    assert_eq!(lines[4], lines[1]);
    assert_eq!(lines[5], "3");
}

#[test]
fn batch_ends_normally_when_the_reader_closes_the_pipe() {
    let mut input = String::new();
    for k in 0..200_000 {
        input.push_str(&format!("{k}+1\n"));
    }
    let p = scratch("many.txt", input.as_bytes());
    let mut child = bin()
        .args(["eval", "--batch", p.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // The reader is dropped here: `tessera eval --batch many.txt | head -1`.
    assert_eq!(first, "1\n");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
}

#[test]
fn batch_answers_each_line_as_it_arrives() {
    let mut child = bin()
        .args(["eval", "--batch", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    for (q, a) in [("(2+3)*4", "20"), ("size((4,8))", "32"), ("\u{ff}", "error: ")] {
        writeln!(stdin, "{q}").unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        assert!(line.starts_with(a), "{q}: {line}");
    }
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

/// A named pipe given as the path waits for its writer as standard input does: each line is
/// answered as it arrives (a regular file is answered in whole blocks; a FIFO taken for one
/// would wait here for 4096 lines or the end).
#[cfg(target_os = "linux")]
#[test]
fn batch_answers_a_named_pipe_line_by_line() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_frontend");
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("questions.fifo");
    let _ = std::fs::remove_file(&fifo);
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let mut child = bin()
        .args(["eval", "--batch", fifo.to_str().unwrap()])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                return;
            }
        }
    });
    for (q, a) in [
        ("composition((6,2):(8,2),(4,3):(3,1))", "((2,2),3):((24,2),8)"),
        ("size((4,8))", "32"),
    ] {
        writeln!(writer, "{q}").unwrap();
        writer.flush().unwrap();
        let got = rx.recv_timeout(std::time::Duration::from_secs(20));
        assert_eq!(got.as_deref(), Ok(a), "{q}: no answer before the next line");
    }
    drop(writer);
    assert_eq!(child.wait().unwrap().code(), Some(0));
    let _ = std::fs::remove_file(&fifo);
}

/// `--batch /dev/zero` is one endless line: it is skipped in bounded memory.
#[cfg(target_os = "linux")]
#[test]
fn batch_reads_an_endless_line_in_bounded_memory() {
    let mut child = bin()
        .args(["eval", "--batch", "/dev/zero"])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    let rss_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap();
    // A few MiB of buffers; reading the line into memory grew past 20 GB.
    assert!(rss_kib < 64 * 1024, "{rss_kib} KiB resident");
}

#[test]
fn long_and_deep_input_is_answered_by_every_subcommand() {
    let chain = vec!["1"; 3000].join("+");
    let out = tessera(&["eval", &chain]);
    assert_eq!((text(&out.stdout).trim(), out.status.code()), ("3000", Some(0)));
    let out = tessera(&["lower", &chain]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let layout_sum = format!("4:1@0{}", "+1@0".repeat(3000));
    let out = tessera(&["eval", &layout_sum]);
    assert_eq!(text(&out.stdout).trim(), "4:3001@0");
    let out = tessera(&["prove", "injective", &format!("(4,8):(1,{chain})")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let swizzles = "Sw<".repeat(9000);
    let out = tessera(&["eval", &swizzles]);
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out.stderr).contains("nested deeper than 128 levels"));
    // Under --batch every line is answered: the long ones, the deep ones, and the next ones.
    let lines = [
        vec!["1"; 100_000].join("+"),
        vec!["1"; 100_000].join("*"),
        vec!["1"; 100_000].join("-"),
        format!("7{}", "(3)".repeat(100_000)),
        format!("8:1{}", "[:]".repeat(50_000)),
        format!("4:1@0{}", "+1@0".repeat(100_000)),
        "Sw<".repeat(9_000),
        format!("{}1{}", "(".repeat(129), ")".repeat(129)),
        "size((4,8))".to_string(),
    ];
    let (answers, code) = batch("long.txt", lines.join("\n").as_bytes());
    assert_eq!(code, 0);
    assert_eq!(answers.len(), lines.len());
    assert_eq!(answers[0], "100000");
    assert_eq!(answers[1], "1");
    assert_eq!(answers[2], "-99998");
    assert_eq!(answers[3], "3");
    assert_eq!(answers[4], "0 o 8:1");
    assert_eq!(answers[5], "4:100001@0");
    assert!(answers[6].contains("nested deeper than 128 levels"));
    assert!(answers[7].contains("nested deeper than 128 levels"));
    assert_eq!(answers[8], "32");
    // A check file's `let` of a long chain.
    let file = format!(
        "let S = {}\nlet L = (4,8):(S,4)\nassert injective(L)\n",
        vec!["1"; 100_000].join("+")
    );
    let p = scratch("long_let.tess", file.as_bytes());
    let out = tessera(&["check", p.to_str().unwrap()]);
    assert!(
        text(&out.stdout).contains("proved"),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

#[test]
fn usage_errors_exit_3_in_every_subcommand() {
    let cases: &[&[&str]] = &[
        &[],
        &["--bogus"],
        &["frobnicate"],
        &["eval", "--bogus", "1"],
        &["eval"],
        &["eval", "1", "--batch", "x"],
        &["lower"],
        &["lower", "--bogus", "4:1"],
        &["emit"],
        &["emit", "--lang", "c"],
        &["emit", "--bogus", "--lang", "c", "4:1"],
        &["emit", "--lang", "cobol", "4:1"],
        &["check"],
        &["check", "--timeout", "abc", "examples"],
        &["check", "-j", "abc", "examples"],
        &["check", "-j", "0", "examples"],
        &["check", "--bogus", "examples"],
        &["check", "examples/no_such_file.tess"],
        &["prove"],
        &["prove", "injective"],
        &["prove", "--timeout", "abc", "injective", "4:1"],
        &["prove", "--bogus", "injective", "4:1"],
    ];
    for args in cases {
        let out = tessera(args);
        assert_eq!(
            out.status.code(),
            Some(3),
            "tessera {args:?}: {}",
            text(&out.stderr)
        );
        assert!(!text(&out.stderr).is_empty(), "tessera {args:?}");
    }
    for args in [
        &["--help"][..],
        &["--version"],
        &["eval", "--help"],
        &["check", "--help"],
    ] {
        assert_eq!(tessera(args).status.code(), Some(0), "tessera {args:?}");
    }
    let out = tessera(&["check", "-j", "0", "examples"]);
    assert!(
        text(&out.stderr).contains("must be at least 1"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn an_expression_may_start_with_a_minus() {
    let out = tessera(&["eval", "-1+5"]);
    assert_eq!((text(&out.stdout).trim(), out.status.code()), ("4", Some(0)));
    // Read as the expression, not a flag: the answer is the algebra's.
    let out = tessera(&["eval", "-4:1"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out.stderr).contains("extent -4 in shape -4 is not positive"));
    let out = tessera(&["lower", "-(2+3)"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // Flags may follow prove's arguments, so one that starts with '-' comes after '--'.
    let out = tessera(&["prove", "injective", "--", "-1:1"]);
    assert!(text(&out.stderr).contains("extent -1"), "{}", text(&out.stderr));
    let out = tessera(&["prove", "injective", "(4,8):(8,1)", "--timeout", "5"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = tessera(&["eval", "-M", "--param", "M"]);
    assert_eq!(text(&out.stdout).trim(), "-M", "{}", text(&out.stderr));
    let out = tessera(&["lower", "-(4+4)", "--coords"]);
    assert!(text(&out.stdout).contains("value = -8"), "{}", text(&out.stderr));
    let out = tessera(&["eval", "(Sw<3,3,3> o (16,64):(64,1))(17)"]);
    assert_eq!(text(&out.stdout).trim(), "73");
}

#[test]
fn prove_arguments_make_exactly_one_assertion() {
    let out = tessera(&["prove", "injective", "4:1\nassert injective(2:0)"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out.stderr).contains("line break"), "{}", text(&out.stderr));
    let out = tessera(&["prove", "--param", "M\nassert injective(2:0)", "injective", "4:1"]);
    assert_eq!(out.status.code(), Some(3));
    let out = tessera(&["prove", "injective(2:0)\n", "4:1"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out.stderr).contains("is not a property name"));
    let out = tessera(&["prove", "injective", "4:1"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}

#[test]
fn parameters_and_binds_are_checked() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["eval", "--param", "M where M % 128 == 0", "--bind", "M=100", "M"],
            "--bind M=100 violates M % 128 == 0 (the facts on M: M >= 1, M % 128 == 0)",
        ),
        (
            &["eval", "--param", "M", "--bind", "M=3", "--bind", "M=4", "M"],
            "'M' is bound twice",
        ),
        (
            &["eval", "--param", "M", "--bind", "N=3", "M"],
            "'N' is not a declared parameter (declare it with --param N)",
        ),
        (
            &["eval", "--param", "M", "--param", "M", "M"],
            "parameter 'M' is declared twice",
        ),
        (
            &["lower", "--param", "M", "--bind", "N=3", "M"],
            "'N' is not a declared parameter",
        ),
    ];
    for (args, msg) in cases {
        let out = tessera(args);
        assert_eq!(out.status.code(), Some(3), "{args:?}");
        let err = text(&out.stderr);
        assert!(
            err.contains(msg) && !err.contains("ParamFacts"),
            "{args:?}: {err}"
        );
    }
    let out = tessera(&[
        "eval",
        "--param",
        "M",
        "--bind",
        "M=129",
        "((M+127)/128, 4):(1, 2)",
    ]);
    assert_eq!(text(&out.stdout).trim(), "(2,4):(1,2)");
}

#[test]
fn check_files_accept_a_bom_and_tabs() {
    let src = "\u{feff}param\tM where M % 8 == 0, 8 <= M <= 64\nlet\tL = (M,4):(1,M)\nassert\tinjective(L)\nassert  \t bijective((4,8):(8,1))\n";
    let p = scratch("bom_tabs.tess", src.as_bytes());
    let out = tessera(&["check", p.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let proved = text(&out.stdout)
        .lines()
        .filter(|l| l.contains(": proved"))
        .count();
    assert_eq!(proved, 2, "{}", text(&out.stdout));
}

#[test]
fn check_files_reject_duplicates_with_their_position() {
    let cases = [
        (
            "dup_param.tess",
            "param M\nparam N, M\nassert injective(4:1)\n",
            ":2:10: parameter 'M' is declared twice",
        ),
        (
            "dup_param_one_line.tess",
            "param MN, M, M\n",
            ":1:14: parameter 'M' is declared twice",
        ),
        (
            "dup_kw.tess",
            "let S = (8,64):(64,1)\nassert bank_conflict_free(S, ((8,4),8):((1,64),8), elem=2, elem=16)\n",
            ":2:60: keyword argument 'elem=' is given twice",
        ),
    ];
    for (name, src, msg) in cases {
        let p = scratch(name, src.as_bytes());
        let out = tessera(&["check", p.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(3), "{name}");
        assert!(text(&out.stderr).contains(msg), "{name}: {}", text(&out.stderr));
    }
}

#[test]
fn a_thread_value_shape_is_not_called_a_rank() {
    let p = scratch(
        "tv_rank.tess",
        b"assert bank_conflict_free(64:1, 64:1, elem=2, access=4)\n",
    );
    let out = tessera(&["check", p.to_str().unwrap()]);
    let all = text(&out.stdout) + &text(&out.stderr);
    assert!(
        all.contains("must have rank 2, a shape (threads, values), not the shape 64"),
        "{all}"
    );
}

/// Bindings cannot nest a value deeper than an expression may be, one `let` at a time.
#[test]
fn check_file_bindings_stay_within_the_nesting_limit() {
    let mut src = String::from("let A0 = 1\n");
    for k in 1..=200 {
        src.push_str(&format!("let A{k} = (A{})\n", k - 1));
    }
    src.push_str("assert injective(4:1)\n");
    let p = scratch("let_depth.tess", src.as_bytes());
    let out = tessera(&["check", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        text(&out.stderr).contains(":130:12: the result is nested deeper than 128 levels"),
        "{}",
        text(&out.stderr)
    );
}
