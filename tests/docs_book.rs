//! The README and the book (`docs/src`), run literally.
//!
//! * Every ` ```console ` block: each `$ tessera ...` command (a line ending in `\` goes on)
//!   runs with this build's `tessera` first on the PATH, from the repository root, with stderr
//!   after stdout, and must print the lines the block shows. Volatile parts are masked in the
//!   text itself: `[..]` in a line matches any characters (a time, the pair of threads z3
//!   picks for a counterexample), and a line that is only `...` matches any number of lines.
//!   Nothing else is normalised, so a changed output fails.
//! * No other block shows a `$ tessera` command (it would escape the check).
//! * Every `examples/...` file the text names exists.
//! * The check-file example of the reference, and `check --help`'s, are proved; every
//!   `eval --help` example prints its answer.
//!
//! `TESSERA_UPDATE_DOCS=1 cargo test --test docs_book` rewrites the output of the console
//! blocks that differ with what the commands print, keeping every line whose mask still
//! matches; review the diff and mask what is volatile.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The Markdown files of the book and the README, sorted, relative to the root.
fn pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "md") {
                out.push(p);
            }
        }
    }
    let mut out = vec![root().join("README.md")];
    walk(&root().join("docs/src"), &mut out);
    out
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
        // The preparation cache of `tessera run` examples: not the user's.
        .env(
            "TESSERA_CACHE_DIR",
            std::env::temp_dir().join("tessera-test-cache"),
        )
        .current_dir(root())
        .output()
        .unwrap()
}

/// One console example: where it is, its command, and the lines it shows.
struct Example {
    file: PathBuf,
    /// The 0-based line numbers of the expected output in the file.
    lines: Vec<usize>,
    cmd: String,
    expected: Vec<String>,
    /// The indentation of the block (a block inside a list item).
    indent: String,
}

/// The console examples of one page; panics on a `$ tessera` line outside a console block.
fn examples(file: &Path) -> Vec<Example> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut out: Vec<Example> = Vec::new();
    let mut fence: Option<(String, bool)> = None; // (indentation, console?)
    let mut continued = false;
    for (n, raw) in text.lines().enumerate() {
        let trimmed = raw.trim_start();
        if trimmed.starts_with("```") {
            fence = match fence {
                None => Some((
                    raw[..raw.len() - trimmed.len()].to_string(),
                    trimmed == "```console",
                )),
                Some(_) => None,
            };
            continued = false;
            continue;
        }
        let Some((indent, console)) = &fence else { continue };
        let line = raw.strip_prefix(indent.as_str()).unwrap_or(raw);
        if let Some(cmd) = line.strip_prefix("$ ") {
            assert!(
                *console,
                "{}:{}: a `$ ` command outside a ```console block escapes the tests",
                file.display(),
                n + 1
            );
            out.push(Example {
                file: file.to_path_buf(),
                lines: Vec::new(),
                cmd: cmd.to_string(),
                expected: Vec::new(),
                indent: indent.clone(),
            });
            continued = cmd.ends_with('\\');
        } else if let Some(ex) = out.last_mut().filter(|_| *console) {
            if continued {
                ex.cmd.push('\n');
                ex.cmd.push_str(line);
                continued = line.ends_with('\\');
            } else {
                ex.lines.push(n);
                ex.expected.push(line.to_string());
            }
        }
    }
    for ex in &mut out {
        while ex.expected.last().is_some_and(|l| l.trim().is_empty()) {
            ex.expected.pop();
            ex.lines.pop();
        }
    }
    out
}

/// Whether `line` matches `pattern`, where `[..]` matches any characters.
fn line_matches(pattern: &str, line: &str) -> bool {
    let parts: Vec<&str> = pattern.split("[..]").collect();
    if parts.len() == 1 {
        return pattern == line;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !line.starts_with(first) || line.len() < first.len() + last.len() || !line.ends_with(last) {
        return false;
    }
    let mut rest = &line[first.len()..line.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(k) => rest = &rest[k + part.len()..],
            None => return false,
        }
    }
    true
}

/// Whether the printed lines match the expected ones (`...` alone matches any lines).
fn block_matches(expected: &[String], got: &[&str]) -> bool {
    match expected.split_first() {
        None => got.is_empty(),
        Some((p, rest)) if p.trim() == "..." => (0..=got.len()).any(|k| block_matches(rest, &got[k..])),
        Some((p, rest)) => {
            !got.is_empty() && line_matches(p.trim_end(), got[0]) && block_matches(rest, &got[1..])
        }
    }
}

/// The printed lines, trailing spaces and blank lines removed.
fn printed(out: &Output) -> Vec<String> {
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines: Vec<String> = text.lines().map(|l| l.trim_end().to_string()).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

#[test]
fn every_console_example_prints_what_the_page_shows() {
    let update = std::env::var_os("TESSERA_UPDATE_DOCS").is_some();
    let mut failures = Vec::new();
    let mut count = 0;
    for page in pages() {
        let exs = examples(&page);
        let mut rewritten: Option<Vec<String>> = None;
        // From the last example up, so that line numbers stay right while rewriting.
        for ex in exs.iter().rev() {
            count += 1;
            assert!(
                ex.cmd.starts_with("tessera "),
                "{}: $ {}",
                ex.file.display(),
                ex.cmd
            );
            let got = printed(&shell(&ex.cmd));
            let got_refs: Vec<&str> = got.iter().map(String::as_str).collect();
            if block_matches(&ex.expected, &got_refs) {
                continue;
            }
            if update {
                let text = rewritten.get_or_insert_with(|| {
                    std::fs::read_to_string(&ex.file)
                        .unwrap()
                        .lines()
                        .map(String::from)
                        .collect()
                });
                // Keep the masked lines that still match at their place.
                let new: Vec<String> = got
                    .iter()
                    .enumerate()
                    .map(|(i, g)| match ex.expected.get(i) {
                        Some(p) if line_matches(p.trim_end(), g) => format!("{}{p}", ex.indent),
                        _ => format!("{}{g}", ex.indent),
                    })
                    .collect();
                let at = ex.lines.first().copied().unwrap_or_else(|| {
                    // No output shown: insert after the command's last line.
                    let text = std::fs::read_to_string(&ex.file).unwrap();
                    let last = ex.cmd.lines().last().unwrap();
                    text.lines().position(|l| l.trim_start().ends_with(last)).unwrap() + 1
                });
                text.splice(at..at + ex.lines.len(), new);
            } else {
                failures.push(format!(
                    "{}: $ {}\nprinted:\n{}\nthe page shows:\n{}\n",
                    ex.file.strip_prefix(root()).unwrap().display(),
                    ex.cmd,
                    got.join("\n"),
                    ex.expected.join("\n")
                ));
            }
        }
        if let Some(text) = rewritten {
            std::fs::write(&page, text.join("\n") + "\n").unwrap();
        }
    }
    assert!(count >= 55, "{count} console examples found");
    assert!(
        failures.is_empty(),
        "{} console examples differ (TESSERA_UPDATE_DOCS=1 rewrites them):\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_line_matcher_masks_only_what_it_is_told() {
    assert!(line_matches("a ([..] ms)", "a (1.5 ms)"));
    assert!(!line_matches("a ([..] ms)", "b (1.5 ms)"));
    assert!(!line_matches("proved", "refuted"));
    assert!(line_matches("x [..] y [..] z", "x 1 y 2 z"));
    assert!(!line_matches("x [..] y [..] z", "x 1 z 2 y"));
    let exp = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(block_matches(&exp(&["a", "...", "d"]), &["a", "b", "c", "d"]));
    assert!(!block_matches(&exp(&["a", "...", "d"]), &["a", "b", "c"]));
    assert!(!block_matches(&exp(&["a"]), &["a", "b"]));
}

#[test]
fn every_example_file_the_book_names_exists() {
    let mut n = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for (k, _) in text.match_indices("examples/") {
            let name: String = text[k..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || "/_.-".contains(*c))
                .collect();
            let name = name.trim_end_matches('.');
            if name.ends_with(".tess") || name.ends_with(".txt") {
                n += 1;
                assert!(
                    root().join(name).is_file(),
                    "{}: {name} does not exist",
                    page.display()
                );
            }
        }
    }
    assert!(n >= 10, "{n} example files named");
}

/// Writes `text` to a scratch check file and checks it: every assertion must be proved.
fn proves(name: &str, text: &str) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("docs_book");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    let out = shell(&format!("tessera check {}", p.display()));
    let printed = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}\n{printed}");
    assert!(printed.contains(" 0 refuted, 0 unknown"), "{printed}");
}

#[test]
fn the_reference_check_file_example_runs_literally() {
    let text = std::fs::read_to_string(root().join("docs/src/reference/check.md")).unwrap();
    let start = text.find("A check file (`*.tess`)").unwrap();
    let block = &text[start..];
    let open = block.find("```\n").unwrap() + 4;
    let close = open + block[open..].find("```").unwrap();
    let example = &block[open..close];
    assert!(example.contains("assert equal(composition(A, composition(B, C))"));
    proves("reference_example.tess", example);
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

/// The relative link targets of a Markdown text (`[text](target)`), outside code blocks and
/// code spans, without their `#fragment`; web links are left out.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        // Code spans are not links.
        let plain: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        for (k, _) in plain.match_indices("](") {
            let rest = &plain[k + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = rest[..end].split('#').next().unwrap();
            if !target.is_empty() && !target.contains("://") && !target.starts_with("mailto:") {
                out.push(target.to_string());
            }
        }
    }
    out
}

#[test]
fn every_link_of_the_book_and_the_readme_resolves() {
    let mut n = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for target in links(&text) {
            n += 1;
            let path = page.parent().unwrap().join(&target);
            assert!(
                path.exists(),
                "{}: the link to {target} leads nowhere",
                page.display()
            );
        }
    }
    assert!(n >= 30, "{n} links");
}

#[test]
fn the_table_of_contents_lists_every_page_once() {
    let src = root().join("docs/src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap();
    let listed = links(&summary);
    let mut seen = std::collections::BTreeSet::new();
    for l in &listed {
        assert!(seen.insert(l.clone()), "SUMMARY.md lists {l} twice");
    }
    for page in pages().iter().filter(|p| p.starts_with(&src)) {
        let rel = page.strip_prefix(&src).unwrap().to_string_lossy().into_owned();
        if rel != "SUMMARY.md" {
            assert!(
                seen.contains(&rel),
                "{rel} is not in SUMMARY.md (mdbook would leave it out)"
            );
        }
    }
}

#[test]
fn the_link_reader_finds_links_and_skips_code() {
    let text = "see [a](x/b.md#c) and `[d](e)` and [w](https://example.org)\n```\n[f](g)\n```\n";
    assert_eq!(links(text), vec!["x/b.md".to_string()]);
}

/// A ` ```text ` block right after a paragraph that names `examples/NAME.tess` shows that file:
/// its lines must be consecutive lines of the file, so that the book shows the file as it is.
#[test]
fn every_check_file_the_book_shows_is_the_file() {
    let mut n = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut i = 0;
        while i < lines.len() {
            if lines[i].trim() != "```text" {
                i += 1;
                continue;
            }
            let close = i + 1 + lines[i + 1..].iter().position(|l| l.trim() == "```").unwrap();
            let block = &lines[i + 1..close];
            let before = lines[i.saturating_sub(4)..i].join(" ");
            let named = before.match_indices("examples/").last().map(|(k, _)| {
                before[k..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || "/_.-".contains(*c))
                    .collect::<String>()
            });
            if let Some(name) = named.filter(|s| s.trim_end_matches(['.', ',']).ends_with(".tess")) {
                let name = name.trim_end_matches(['.', ',']);
                let file = std::fs::read_to_string(root().join(name)).unwrap();
                let file: Vec<&str> = file.lines().collect();
                let shown = file.windows(block.len()).any(|w| w == block);
                assert!(
                    shown,
                    "{}:{}: the block is not a part of {name} as it is",
                    page.display(),
                    i + 1
                );
                n += 1;
            }
            i = close + 1;
        }
    }
    assert!(n >= 2, "{n} check files shown");
}
