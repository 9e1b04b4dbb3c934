//! Shared by the round-trip tests: the cases, the drivers that run emitted code on every point
//! of each case's domain, and a small interpreter of the emitted PTX.

#![allow(dead_code)] // each test binary uses part of the support

pub mod cases;
pub mod drivers;
pub mod ptx_interp;

use std::path::PathBuf;
use std::process::Command;

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("codegen-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs a command, panicking with its output when it fails; returns its stdout.
pub fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    if !out.status.success() {
        panic!(
            "{cmd:?} failed ({}):\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout)
                .chars()
                .take(4000)
                .collect::<String>(),
            String::from_utf8_lossy(&out.stderr)
                .chars()
                .take(8000)
                .collect::<String>()
        );
    }
    String::from_utf8(out.stdout).unwrap()
}

/// Compares a driver's output (`# f<k>` then one line per point, per case) with the IR's
/// evaluation, naming the first point that differs.
pub fn compare(cases: &[cases::Case], stdout: &str, what: &str) {
    let mut lines = stdout.lines();
    let mut points = 0;
    for c in cases {
        assert_eq!(
            lines.next(),
            Some(format!("# {}", c.sig.name).as_str()),
            "{what}: output out of step"
        );
        let want = c.expected().unwrap();
        for (p, w) in c.points().iter().zip(&want) {
            let got = lines.next().unwrap_or("<missing>");
            assert_eq!(
                got, w,
                "{what}: {} ({}) at {:?} = {p:?}\n{}",
                c.sig.name, c.what, c.sig.args, c.expr
            );
            points += 1;
        }
    }
    assert_eq!(lines.next(), None, "{what}: extra output");
    assert!(points > 10_000, "{what}: only {points} points were compared");
}
