//! The conventions every subcommand's flags keep, read from clap's own description of the
//! command line (`Cli::command()`), so a new flag that breaks one fails here: one name per
//! concept (threads are `-j/--jobs` with the alias `--threads`; a time limit is `--timeout`
//! reading a duration with a unit, a bare number being seconds), `--output` a single file and
//! `--out`/`--input` a tensor's `NAME=FILE`, `--engine`'s placeholder listing every engine, the
//! property's keywords never flags. No subcommand is exempt.

use super::Cli;
use clap::{CommandFactory, Parser};

/// Every (subcommand, flag) of the command line.
fn flags() -> Vec<(String, clap::Arg)> {
    let cli = Cli::command();
    let mut out = Vec::new();
    for sub in cli.get_subcommands() {
        for a in sub.get_arguments() {
            if a.get_long().is_some() || a.get_short().is_some() {
                out.push((sub.get_name().to_string(), a.clone()));
            }
        }
    }
    out
}

/// The placeholders clap shows for a flag's value (`<FILE>` is `["FILE"]`).
fn value_names(a: &clap::Arg) -> Vec<String> {
    a.get_value_names()
        .unwrap_or_default()
        .iter()
        .map(|s| s.to_string())
        .collect()
}

#[test]
fn the_command_line_is_well_formed() {
    Cli::command().debug_assert();
}

#[test]
fn threads_are_jobs_with_a_threads_alias() {
    let mut seen = 0;
    for (sub, a) in flags() {
        let long = a.get_long().unwrap_or_default();
        let aliases: Vec<&str> = a.get_all_aliases().unwrap_or_default();
        let threads = ["jobs", "threads", "workers", "j"].contains(&long)
            || aliases.iter().any(|x| ["jobs", "threads"].contains(x));
        if !threads {
            continue;
        }
        seen += 1;
        assert_eq!(long, "jobs", "{sub}: threads flag named --{long}");
        assert_eq!(a.get_short(), Some('j'), "{sub}: --jobs without -j");
        assert!(
            aliases.contains(&"threads"),
            "{sub}: --jobs without the --threads alias"
        );
    }
    assert_eq!(seen, 3, "check, eval and run take -j/--jobs");
}

#[test]
fn every_timeout_reads_a_duration_with_a_unit() {
    let mut seen = Vec::new();
    for (sub, a) in flags() {
        let long = a.get_long().unwrap_or_default();
        let is_time = ["timeout", "time-limit", "deadline", "timeout-ms"].contains(&long);
        if !is_time {
            continue;
        }
        assert_eq!(long, "timeout", "{sub}: a time limit is --timeout");
        let names = value_names(&a);
        assert_eq!(names, ["DURATION"], "{sub}: --timeout's placeholder");
        let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
        assert!(
            help.contains("500ms, 2s, 1m"),
            "{sub}: --timeout's help names the forms: {help}"
        );
        assert!(
            help.contains("a bare number is seconds"),
            "{sub}: --timeout's help names the bare unit, seconds everywhere: {help}"
        );
        seen.push(sub);
    }
    seen.sort();
    assert_eq!(
        seen,
        ["build", "check", "emit", "prove", "run", "simplify", "suggest"]
    );
    // And each of them reads the three forms.
    for sub in ["check", "prove", "simplify", "emit", "run", "build"] {
        for t in ["500ms", "2s", "1m", "3"] {
            let mut argv = vec!["tessera", sub];
            argv.extend(match sub {
                "check" => vec!["examples"],
                "prove" => vec!["injective", "4:1"],
                "emit" => vec!["4:1", "--lang", "c"],
                "run" => vec!["k.tess", "--kernel", "k"],
                _ => vec!["4:1"],
            });
            argv.extend(["--timeout", t]);
            assert!(Cli::try_parse_from(&argv).is_ok(), "{argv:?}");
        }
        let argv = [vec!["tessera", sub, "4:1"], vec!["--timeout", "2h"]].concat();
        assert!(Cli::try_parse_from(&argv).is_err(), "{argv:?}");
    }
}

#[test]
fn engine_placeholders_list_every_engine() {
    let all = ["auto", "enum", "f2", "z3", "structural"];
    let mut seen = 0;
    for (sub, a) in flags() {
        if a.get_long() != Some("engine") {
            continue;
        }
        seen += 1;
        let name = a.get_value_names().unwrap_or_default()[0].to_string();
        let listed: Vec<&str> = name.split('|').collect();
        assert_eq!(listed, all, "{sub}: --engine <{name}>");
        for e in &listed {
            assert!(e.parse::<tessera_verifier::Engine>().is_ok(), "{sub}: {e}");
        }
    }
    assert!(seen >= 2, "check and prove take --engine");
}

#[test]
fn one_placeholder_per_concept() {
    // The same flag name means the same thing, with the same placeholder, in every subcommand.
    let expect = [
        ("param", "DECL"),
        ("bind", "NAME=VALUE"),
        ("range", "NAME=LO..HI"),
    ];
    for (sub, a) in flags() {
        let long = a.get_long().unwrap_or_default();
        if let Some((_, want)) = expect.iter().find(|(l, _)| *l == long) {
            let name = a.get_value_names().unwrap_or_default()[0].to_string();
            assert_eq!(&name, want, "{sub}: --{long} <{name}>");
        }
        // The bank question's sizes are keyword arguments, never flags (`suggest --access`
        // is an access pattern, with its own elem= and access= keywords).
        assert!(long != "elem", "{sub}: --{long}");
        assert!(long != "access" || sub == "suggest", "{sub}: --{long}");
    }
}

#[test]
fn bank_keywords_given_as_flags_get_the_keyword_text() {
    let argv = |v: &[&str]| v.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
    let m = super::keyword_flag(&argv(&[
        "tessera",
        "prove",
        "bank_conflict_free",
        "A",
        "B",
        "--elem",
        "2",
    ]));
    assert!(m.unwrap().ends_with("elem=2"));
    let m = super::keyword_flag(&argv(&[
        "tessera",
        "draw",
        "--banks",
        "A",
        "--tv",
        "B",
        "--access=16",
    ]));
    assert!(m.unwrap().ends_with("access=16"));
    assert!(super::keyword_flag(&argv(&["tessera", "prove", "injective", "4:1"])).is_none());
    assert!(super::keyword_flag(&argv(&["tessera", "eval", "--elem"])).is_none());
    let suggest = argv(&["tessera", "suggest", "S", "--access", "T", "elem=4", "access=4"]);
    assert!(super::keyword_flag(&suggest).is_none());
    let suggest = argv(&["tessera", "suggest", "S", "--access", "T", "--elem", "4"]);
    assert!(super::keyword_flag(&suggest).unwrap().ends_with("elem=4"));
}

/// The time limit a parsed command line carries, in milliseconds.
fn timeout_ms(argv: &[&str]) -> Option<u64> {
    use super::Cmd;
    let s = |x: f64| Some((x * 1000.0).round() as u64);
    match Cli::try_parse_from(argv).ok()?.cmd {
        Cmd::Check { timeout, .. }
        | Cmd::Run { timeout, .. }
        | Cmd::Build { timeout, .. }
        | Cmd::Prove { timeout, .. } => s(timeout),
        Cmd::Suggest(a) => s(a.timeout),
        Cmd::Simplify { timeout, .. } | Cmd::Emit { timeout, .. } => timeout,
        _ => None,
    }
}

#[test]
fn a_bare_timeout_is_seconds_everywhere() {
    let cases: [&[&str]; 7] = [
        &["check", "examples"],
        &["run", "k.tess", "--kernel", "k"],
        &["build", "k.tess"],
        &["prove", "injective", "4:1"],
        &["suggest", "(8,64):(64,1)", "--access", "((8,4),8):((1,64),8)"],
        &["simplify", "4:1"],
        &["emit", "4:1", "--lang", "c"],
    ];
    for c in cases {
        for (t, ms) in [("3", 3000), ("3s", 3000), ("250ms", 250), ("2m", 120_000)] {
            let argv = [&["tessera"], c, &["--timeout", t]].concat();
            assert_eq!(timeout_ms(&argv), Some(ms), "{argv:?}");
        }
    }
}

#[test]
fn output_is_a_file_and_a_tensor_file_is_out() {
    // `--output`/`-o` is one file wherever it exists; a tensor's file is NAME=FILE under
    // `--input`/`--out`, never `--output`.
    let mut files = 0;
    for (sub, a) in flags() {
        let long = a.get_long().unwrap_or_default();
        let names = value_names(&a);
        if long == "output" {
            files += 1;
            assert_eq!(names, ["FILE"], "{sub}: --output <{names:?}>");
            assert_eq!(a.get_short(), Some('o'), "{sub}: --output without -o");
        }
        if names.iter().any(|n| n.contains("=FILE")) {
            assert!(["input", "out"].contains(&long), "{sub}: --{long} <{names:?}>");
            assert_eq!(names, ["NAME=FILE"], "{sub}: --{long}");
        }
    }
    assert!(files >= 2, "draw and build write --output FILE");
    // `run --out NAME=FILE`; `run --output` is refused and clap points at --out.
    let ok = ["tessera", "run", "k.tess", "--kernel", "k", "--out", "C=c.npy"];
    assert!(Cli::try_parse_from(ok).is_ok());
    let old = ["tessera", "run", "k.tess", "--kernel", "k", "--output", "C=c.npy"];
    let err = Cli::try_parse_from(old).err().map(|e| e.to_string());
    assert!(err.unwrap_or_default().contains("--out"));
}

#[test]
fn run_takes_jobs_threads_and_j() {
    use super::Cmd;
    for j in [["-j", "3"], ["--jobs", "3"], ["--threads", "3"]] {
        let argv = ["tessera", "run", "k.tess", "--kernel", "k", j[0], j[1]];
        match Cli::try_parse_from(argv).map(|c| c.cmd) {
            Ok(Cmd::Run { threads, .. }) => assert_eq!(threads, Some(3), "{j:?}"),
            _ => panic!("{j:?}"),
        }
    }
    let zero = ["tessera", "run", "k.tess", "--kernel", "k", "-j", "0"];
    assert!(Cli::try_parse_from(zero).is_err());
}
