//! Running the `tessera` binary from the CLI tests (in the package's folder, so that paths
//! such as `examples/...` resolve).

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// The preparation cache of the tests' `tessera run`s (`TESSERA_CACHE_DIR`): under the temporary
/// folder, never the user's `~/.cache`. A test that spawns `tessera` itself sets it too.
pub fn cache_dir() -> PathBuf {
    std::env::temp_dir().join("tessera-test-cache")
}

/// Runs `tessera` with `args`.
pub fn tessera(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .env("TESSERA_CACHE_DIR", cache_dir())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

/// The standard output of a run that must succeed (exit code 0).
pub fn ok(args: &[&str]) -> String {
    let o = tessera(args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// Runs `tessera` with `args`: its exit code (-1 when a signal ended it), standard output and
/// standard error.
pub fn run(args: &[&str]) -> (i32, String, String) {
    let o = tessera(args);
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Runs `python3 ARGS` with the NumPy `scripts/setup.sh` installs (`.deps/numpy`) on its path.
pub fn python(args: &[&str]) -> std::io::Result<Output> {
    Command::new("python3")
        .args(args)
        .env("PYTHONPATH", concat!(env!("CARGO_MANIFEST_DIR"), "/.deps/numpy"))
        .output()
}

/// Whether `python3` imports NumPy; where it does not, a note says the test is skipped.
pub fn has_numpy() -> bool {
    let ok = python(&["-c", "import numpy"]).is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("note: NumPy is not installed (scripts/setup.sh installs it); skipped");
    }
    ok
}
