//! Shared helpers of the benchmarks: reading corpus inputs.

#![allow(dead_code)]

use std::path::PathBuf;
use tessera::ir::text::{ExprKind, parse_expr};
use tessera::lang::{Env, Value, eval_expr};

/// The corpus file (the shared copy when present, else the one in tests/data).
pub fn corpus_path() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let shared = root.join("../shared/corpus/pycute_public.jsonl");
    if shared.exists() {
        shared
    } else {
        root.join("tests/data/pycute_public.jsonl")
    }
}

/// The argument values of every corpus call to `op`.
pub fn corpus_args(op: &str) -> Vec<Vec<Value<i64>>> {
    let text = std::fs::read_to_string(corpus_path()).expect("corpus");
    let mut out = Vec::new();
    for line in text.lines() {
        let j: serde_json::Value = serde_json::from_str(line).expect("json");
        if j["op"] != op {
            continue;
        }
        let src = j["expr"].as_str().unwrap_or_default();
        let e = parse_expr(src).expect("corpus expression parses");
        if let ExprKind::Call(_, args) = &e.kind {
            let env = Env::new();
            let vals: Result<Vec<_>, _> = args.iter().map(|a| eval_expr::<i64>(a, &env, src)).collect();
            if let Ok(v) = vals {
                out.push(v);
            }
        }
    }
    out
}
