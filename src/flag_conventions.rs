//! The conventions every subcommand's flags keep, read from clap's own description of the
//! command line (`Cli::command()`), so a new flag that breaks one fails here: one name per
//! concept (threads are `-j/--jobs` with the alias `--threads`; a time limit is `--timeout`
//! reading a duration with a unit), `--engine`'s placeholder listing every engine, the
//! property's keywords never flags.

use super::Cli;
use clap::{CommandFactory, Parser};

/// `tessera run`'s flags belong to the kernel path (`--threads`, `--timeout` in seconds,
/// `--output NAME=FILE`); they are checked where they do not differ.
const RUN: &str = "run";

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
        if !threads || sub == RUN {
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
    assert!(seen >= 2, "check and eval take -j/--jobs");
}

#[test]
fn every_timeout_reads_a_duration_with_a_unit() {
    let mut seen = Vec::new();
    for (sub, a) in flags() {
        let long = a.get_long().unwrap_or_default();
        let is_time = ["timeout", "time-limit", "deadline", "timeout-ms"].contains(&long);
        if !is_time || sub == RUN {
            continue;
        }
        assert_eq!(long, "timeout", "{sub}: a time limit is --timeout");
        let names: Vec<String> = a
            .get_value_names()
            .unwrap_or_default()
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(names, ["DURATION"], "{sub}: --timeout's placeholder");
        let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
        assert!(
            help.contains("500ms, 2s, 1m"),
            "{sub}: --timeout's help names the forms: {help}"
        );
        assert!(
            help.contains("a bare number is"),
            "{sub}: --timeout's help names the bare unit"
        );
        seen.push(sub);
    }
    seen.sort();
    assert_eq!(seen, ["build", "check", "emit", "prove", "simplify", "suggest"]);
    // And each of them reads the three forms.
    for sub in ["check", "prove", "simplify", "emit"] {
        for t in ["500ms", "2s", "1m", "3"] {
            let mut argv = vec!["tessera", sub];
            argv.extend(match sub {
                "check" => vec!["examples"],
                "prove" => vec!["injective", "4:1"],
                "emit" => vec!["4:1", "--lang", "c"],
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
            if sub == RUN && long == "bind" {
                continue;
            }
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
