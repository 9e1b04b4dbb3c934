//! The size of lowered index expressions over the corpus layouts: the baseline that index
//! simplification has to beat. Run with `--nocapture` to see the table.
//!
//! Each layout is lowered at a linear index (`tessera lower`): one `%` and one `/` per leaf
//! but the last, one `*` per stride other than 0 and 1, one `+` per term.

use std::collections::BTreeSet;
use tessera::ir::index::lower_index;
use tessera::ir::parse_layout;
use tessera::lang::eval_str;

#[test]
fn index_expression_baseline() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("tests/data/pycute_public.jsonl")).unwrap();
    let mut layouts = BTreeSet::new();
    for line in text.lines() {
        let j: serde_json::Value = serde_json::from_str(line).unwrap();
        let expr = j["expr"].as_str().unwrap();
        // The result layouts, and the layout arguments of each call.
        if let Ok(r) = eval_str(expr)
            && parse_layout(&r).is_ok()
        {
            layouts.insert(r);
        }
        if let Some(args) = expr.split_once('(').map(|x| x.1) {
            for part in split_top(args.trim_end_matches(')')) {
                if part.contains(':') && parse_layout(&part).is_ok() {
                    layouts.insert(part);
                }
            }
        }
    }
    let (mut n, mut ops, mut dm, mut mul, mut max_ops, mut max_dm, mut leaves) = (0usize, 0, 0, 0, 0, 0, 0);
    for s in &layouts {
        let l = parse_layout(s).unwrap();
        let e = lower_index(&l).unwrap();
        let st = e.stats();
        let k = l.flat_shape().len();
        assert!(st.div_mod <= 2 * (k - 1), "{s}: {st:?}");
        n += 1;
        ops += st.ops;
        dm += st.div_mod;
        mul += st.mul;
        leaves += k;
        max_ops = max_ops.max(st.ops);
        max_dm = max_dm.max(st.div_mod);
    }
    assert!(n > 1000, "only {n} corpus layouts");
    let f = |x: usize| x as f64 / n as f64;
    println!("| corpus layouts | mean leaves | mean ops | mean div/mod | mean mul | max ops | max div/mod |");
    println!("|---|---|---|---|---|---|---|");
    println!(
        "| {n} | {:.2} | {:.2} | {:.2} | {:.2} | {max_ops} | {max_dm} |",
        f(leaves),
        f(ops),
        f(dm),
        f(mul)
    );
}

/// Splits a comma-separated argument list at the top level of parentheses.
fn split_top(s: &str) -> Vec<String> {
    let (mut depth, mut cur, mut out) = (0i32, String::new(), Vec::new());
    for ch in s.chars() {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    out.push(cur);
    out
}
