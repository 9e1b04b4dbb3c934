//! Run by hand (it repeats `simplify_figures`' work with timings, several minutes in a debug
//! build): `cargo test --test validation_figures -- --ignored --nocapture`.
//!
//! Figures of translation validation over the corpus (every layout of the public
//! corpus and the `let` layouts of `examples/`, lowered at a linear index and simplified): how
//! many each engine validated, how many kept their input, and the median, p95 and largest
//! validation time. Run with `--nocapture` for the table; the book's figures
//! (docs/src/figures/index-code.md) quote it. It asserts only what does not depend on the machine (the counts' consistency and that
//! nothing is refuted); times are printed, never asserted.

use std::sync::Arc;
use std::time::Duration;
use tessera::lang::Session;

#[path = "support/layouts.rs"]
mod layouts;
use layouts::{corpus_layouts, example_layouts};
use tessera::lower::lower_value;
use tessera::verifier::{Engine, Options, Verdict, simplify_validated};
use tessera_ir::simplify::Limits;

#[test]
#[ignore = "a figure, run by hand (see the module documentation)"]
fn validation_share_by_engine_and_times() {
    let mut cases: Vec<(Vec<String>, String)> = corpus_layouts().into_iter().map(|l| (vec![], l)).collect();
    cases.extend(example_layouts());
    let (mut n, mut by_enum, mut by_z3, mut nothing, mut kept) = (0usize, 0usize, 0usize, 0usize, Vec::new());
    let mut times: Vec<Duration> = Vec::new();
    for (params, src) in &cases {
        let p: Vec<&str> = params.iter().map(String::as_str).collect();
        let s = Session::new(&p, &[]).unwrap();
        let Ok(l) = lower_value(&s, src, false, &[]) else {
            continue;
        };
        let facts = Arc::new(s.facts().divisibility_only());
        let v = simplify_validated(
            &l.expr,
            &l.domain,
            &facts,
            &Limits::default(),
            &Options::default(),
            true,
        )
        .unwrap();
        n += 1;
        match (&v.validation, v.engine) {
            (None, _) => nothing += 1,
            (Some(Verdict::Proved), Some(Engine::Enumeration)) => by_enum += 1,
            (Some(Verdict::Proved), _) => by_z3 += 1,
            (Some(other), _) => {
                assert!(!matches!(other, Verdict::Internal(_)), "{src}: {other}");
                kept.push(format!("{src}: {other}"));
            }
        }
        if v.validation.is_some() {
            times.push(v.validate_time);
        }
    }
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    println!(
        "{n} layouts: {by_enum} validated by enumeration, {by_z3} by z3, {nothing} with no cheaper form, {} kept their input",
        kept.len()
    );
    println!(
        "validation time: median {:.3} ms, p95 {:.3} ms, max {:.1} ms",
        at(0.5).as_secs_f64() * 1e3,
        at(0.95).as_secs_f64() * 1e3,
        times.last().unwrap().as_secs_f64() * 1e3
    );
    for k in &kept {
        println!("  kept: {k}");
    }
    assert_eq!(by_enum + by_z3 + nothing + kept.len(), n);
    assert!(n > 1000, "{n}");
}
