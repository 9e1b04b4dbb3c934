//! The layouts the simplification figures and benchmarks run over: every layout of the public
//! corpus (results and layout arguments) and the `let` layouts of `examples/`.

#![allow(dead_code)]

use std::collections::BTreeSet;
use tessera::lang::eval_str;

/// Every layout of the corpus (results and arguments), as text.
pub fn corpus_layouts() -> BTreeSet<String> {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("tests/data/pycute_public.jsonl")).unwrap();
    let mut layouts = BTreeSet::new();
    for line in text.lines() {
        let j: serde_json::Value = serde_json::from_str(line).unwrap();
        let expr = j["expr"].as_str().unwrap();
        // A bare shape is its compact layout.
        if let Ok(l) = eval_str(expr).and_then(|r| tessera_ir::parse_layout(&r)) {
            layouts.insert(l.to_string());
        }
        if let Some(args) = expr.split_once('(').map(|x| x.1) {
            let (mut depth, mut cur) = (0i32, String::new());
            for ch in args.trim_end_matches(')').chars().chain([',']) {
                match ch {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    ',' if depth == 0 => {
                        let part = std::mem::take(&mut cur);
                        if let Ok(l) = tessera_ir::parse_layout(&part)
                            && part.contains(':')
                        {
                            layouts.insert(l.to_string());
                        }
                        continue;
                    }
                    _ => {}
                }
                cur.push(ch);
            }
        }
    }
    layouts
}

/// The `let` layouts of the examples, with their files' parameter declarations.
pub fn example_layouts() -> Vec<(Vec<String>, String)> {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut out = Vec::new();
    for f in std::fs::read_dir(root).unwrap() {
        let p = f.unwrap().path();
        if p.extension().is_none_or(|e| e != "tess") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let params: Vec<String> = text
            .lines()
            .filter_map(|l| l.strip_prefix("param "))
            .map(str::to_string)
            .collect();
        for l in text.lines() {
            if let Some((_, rhs)) = l.strip_prefix("let ").and_then(|l| l.split_once('=')) {
                out.push((params.clone(), rhs.trim().to_string()));
            }
        }
    }
    out
}
