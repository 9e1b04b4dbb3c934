//! Running the `tessera` binary from the CLI tests (in the package's folder, so that paths
//! such as `examples/...` resolve).

#![allow(dead_code)]

use std::process::{Command, Output};

/// Runs `tessera` with `args`.
pub fn tessera(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
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
