//! The invariants of `ARCHITECTURE.md` that the code's shape must keep:
//!
//! * dependencies point one way, `tessera -> codegen -> verifier -> ir` (read from
//!   `cargo metadata`, dev-dependencies included);
//! * `ir` has no solver and no interpreter in it;
//! * no import cycle between the modules of a crate (`scripts/structure.py --check`);
//! * no source file over 800 lines.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The layer of each workspace crate: a crate may depend only on crates of lower layers.
fn layer(name: &str) -> Option<u32> {
    match name {
        "tessera-ir" => Some(0),
        "tessera-verifier" => Some(1),
        "tessera-codegen" => Some(2),
        "tessera" => Some(3),
        _ => None,
    }
}

fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(root())
        .output()
        .expect("run cargo metadata");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("cargo metadata is JSON")
}

#[test]
fn dependencies_point_one_way() {
    let m = metadata();
    let mut seen = 0;
    for p in m["packages"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        let Some(from) = layer(name) else { continue };
        seen += 1;
        for d in p["dependencies"].as_array().unwrap() {
            let dep = d["name"].as_str().unwrap();
            if let Some(to) = layer(dep) {
                assert!(
                    to < from,
                    "{name} depends on {dep} ({}): against tessera -> codegen -> verifier -> ir",
                    d["kind"]
                );
            }
        }
    }
    assert!(seen >= 3, "the workspace crates were not found");
}

#[test]
fn ir_has_no_solver_and_no_interpreter() {
    let m = metadata();
    let ir = m["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "tessera-ir")
        .expect("tessera-ir");
    for d in ir["dependencies"].as_array().unwrap() {
        let dep = d["name"].as_str().unwrap();
        assert!(!dep.starts_with("z3"), "tessera-ir depends on the solver {dep}");
    }
    // The expression language (names, calls, bindings, `let`) lives in src/lang.
    for bad in ["eval", "lang"] {
        assert!(!root().join("ir/src").join(bad).exists(), "ir/src/{bad} exists");
        assert!(!root().join("ir/src").join(format!("{bad}.rs")).exists());
    }
}

#[test]
fn no_import_cycles() {
    let out = Command::new("python3")
        .args(["scripts/structure.py", "--check"])
        .current_dir(root())
        .output()
        .expect("run python3 scripts/structure.py");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn no_file_over_800_lines() {
    let mut files = Vec::new();
    for d in ["src", "ir", "verifier", "codegen", "tests", "benches"] {
        rust_files(&root().join(d), &mut files);
    }
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).ok()?.lines().count();
            (n > 800).then(|| format!("{} ({n} lines)", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "files over 800 lines: {long:?}");
}
