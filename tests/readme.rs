//! The README and the `--help` texts, run literally: every `$ tessera ...` example of the
//! README prints what the README shows, the README's check-file example and `check --help`'s
//! prove, and every `eval --help` example prints its answer.
//!
//! Times are not compared, nor the details of a counterexample (the pair of threads z3 picks
//! may differ from run to run, as the README says); verdicts and every other line are.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs a shell command line with this build's `tessera` first on the PATH.
fn shell(cmd: &str) -> Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_tessera")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    Command::new("bash")
        .arg("-c")
        // On its own line, so that a `# comment` at the end of the command ends there.
        .arg(format!("{{\n{cmd}\n}} 2>&1"))
        .env("PATH", path)
        .current_dir(root())
        .output()
        .unwrap()
}

/// A line of output as compared: without a trailing `(12.3 ms)` or `(0.06 s on 2 threads)`,
/// and only the degree of an `N-way: ...` answer.
fn normalized(line: &str) -> String {
    let line = line.trim_end();
    if let Some((degree, _)) = line.split_once("-way:") {
        return format!("{degree}-way");
    }
    if (line.ends_with(" ms)") || line.ends_with(" threads)"))
        && let Some(k) = line.rfind(" (")
    {
        return line[..k].trim_end().to_string();
    }
    line.to_string()
}

/// The lines compared: a counterexample's detail lines (indented) are left out.
fn compared(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with("    "))
        .map(normalized)
        .collect()
}

/// The `$ tessera ...` examples of the README's code blocks: command and expected output.
fn readme_examples() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let mut out = Vec::new();
    let mut in_block = false;
    let mut current: Option<(String, Vec<String>, bool)> = None;
    let finish = |cur: &mut Option<(String, Vec<String>, bool)>, out: &mut Vec<(String, String)>| {
        if let Some((cmd, lines, _)) = cur.take() {
            out.push((cmd, lines.join("\n")));
        }
    };
    for line in text.lines() {
        if line.starts_with("```") {
            finish(&mut current, &mut out);
            in_block = !in_block;
            continue;
        }
        if !in_block {
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ") {
            finish(&mut current, &mut out);
            current = Some((cmd.to_string(), Vec::new(), cmd.ends_with('\\')));
            continue;
        }
        match &mut current {
            Some((cmd, _, continued)) if *continued => {
                cmd.push('\n');
                cmd.push_str(line);
                *continued = line.ends_with('\\');
            }
            Some((_, lines, _)) if !line.trim().is_empty() => lines.push(line.to_string()),
            _ => finish(&mut current, &mut out),
        }
    }
    out
}

#[test]
fn every_readme_example_prints_what_the_readme_shows() {
    let examples = readme_examples();
    assert!(examples.len() >= 17, "{} examples found", examples.len());
    for (cmd, expected) in examples {
        assert!(cmd.starts_with("tessera "), "{cmd}");
        let out = shell(&cmd);
        let got = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_eq!(
            compared(&got),
            compared(&expected),
            "$ {cmd}\nprinted:\n{got}\nthe README shows:\n{expected}"
        );
    }
}

/// Writes `text` to a scratch check file and checks it: every assertion must be proved.
fn proves(name: &str, text: &str) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("readme");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    let out = shell(&format!("tessera check {}", p.display()));
    let printed = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}\n{printed}");
    assert!(printed.contains(" 0 refuted, 0 unknown"), "{printed}");
}

#[test]
fn the_readme_check_file_example_runs_literally() {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = text.find("A check file (`*.tess`)").unwrap();
    let block = &text[start..];
    let open = block.find("```\n").unwrap() + 4;
    let close = open + block[open..].find("```").unwrap();
    let example = &block[open..close];
    assert!(example.contains("assert equal(composition(A, composition(B, C))"));
    proves("readme_example.tess", example);
}

#[test]
fn the_check_help_example_runs_literally() {
    let help = String::from_utf8_lossy(&shell("tessera check --help").stdout).into_owned();
    let start = help.find("CHECK FILES (*.tess)\n").unwrap() + "CHECK FILES (*.tess)\n".len();
    let example: String = help[start..]
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(|l| format!("{}\n", l.strip_prefix("  ").unwrap_or(l)))
        .collect();
    assert!(example.contains("let C"), "{example}");
    proves("check_help_example.tess", &example);
}

#[test]
fn every_eval_help_example_prints_its_answer() {
    let help = String::from_utf8_lossy(&shell("tessera eval --help").stdout).into_owned();
    let start = help.find("EXAMPLES\n").unwrap();
    let mut n = 0;
    for line in help[start..].lines().skip(1).take_while(|l| !l.trim().is_empty()) {
        let line = line.trim();
        let out = |cmd: &str| String::from_utf8_lossy(&shell(cmd).stdout).trim().to_string();
        if let Some(rest) = line.strip_prefix("tessera eval '") {
            let (expr, expected) = rest.split_once('\'').unwrap();
            assert_eq!(out(&format!("tessera eval '{expr}'")), expected.trim(), "{line}");
        } else {
            // `echo '...' | tessera eval --batch -`
            assert_eq!(out(line), "8:1", "{line}");
        }
        n += 1;
    }
    assert!(n >= 10, "{n} examples");
}

/// The README's function list is the registry's, between its markers.
#[test]
fn the_readme_lists_the_registered_functions() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let (start, end) = ("<!-- builtins:start -->\n", "<!-- builtins:end -->");
    let a = readme.find(start).expect("start marker") + start.len();
    let b = readme.find(end).expect("end marker");
    let want = tessera::lang::builtins::markdown();
    assert!(
        readme[a..b] == want,
        "the README's function list differs from the registry; replace the text between the \
         markers with:\n{want}"
    );
}
