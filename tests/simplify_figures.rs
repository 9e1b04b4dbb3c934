//! The e-graph simplifier over every layout of the public corpus (results and layout arguments)
//! and the layouts of `examples/`: each lowered at a linear index, simplified, validated, and
//! its cost figures compared with the naive lowering. Run with `--nocapture` for the table.
//! The goals of the issue are asserted: weighted cost at most half the naive one on average,
//! no division or remainder by a power of two left, every result validated.
//! (Times are measured by `benches/simplify.rs`, not here.)

use std::sync::Arc;
use tessera::lang::Session;

#[path = "support/layouts.rs"]
mod layouts;
use layouts::{corpus_layouts, example_layouts};
use tessera::lower::lower_value;
use tessera::verifier::{Options, Validated, Verdict, simplify_validated};
use tessera_ir::simplify::Limits;

#[test]
fn simplification_figures_over_the_corpus_and_the_examples() {
    let mut cases: Vec<(Vec<String>, String)> = corpus_layouts().into_iter().map(|l| (vec![], l)).collect();
    let corpus = cases.len();
    cases.extend(example_layouts());
    let cases = &cases;
    // Each case on one of two threads (the figures are summed in the cases' order after).
    let simplify_one = |k: usize| -> Option<(String, Validated)> {
        let (params, src) = &cases[k];
        let p: Vec<&str> = params.iter().map(String::as_str).collect();
        let s = Session::new(&p, &[]).unwrap();
        // Products, tensors and other values of the examples that are not layouts are skipped.
        let Ok(l) = lower_value(&s, src, false, &[]) else {
            assert!(k >= corpus, "{src} does not lower");
            return None;
        };
        let facts = Arc::new(s.facts().clone());
        // The node and iteration limits decide the result (the time limit is a safety limit
        // that fails rather than changes it), so the figure is the same on any machine.
        let v = simplify_validated(
            &l.expr,
            &l.domain,
            &facts,
            &Limits::default(),
            &Options::default(),
            true,
        )
        .unwrap();
        Some((src.clone(), v))
    };
    const THREADS: usize = 2;
    let mut results: Vec<Option<(String, Validated)>> = (0..cases.len()).map(|_| None).collect();
    std::thread::scope(|sc| {
        let parts: Vec<_> = (0..THREADS)
            .map(|t| {
                let f = &simplify_one;
                sc.spawn(move || {
                    (t..cases.len())
                        .step_by(THREADS)
                        .map(|k| (k, f(k)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for part in parts {
            for (k, r) in part.join().unwrap() {
                results[k] = r;
            }
        }
    });
    let (mut n, mut ratio_sum, mut zero_dm, mut fell_back) = (0usize, 0f64, 0usize, Vec::new());
    let (mut b_ops, mut a_ops, mut b_dm, mut a_dm, mut b_w, mut a_w) =
        (0usize, 0usize, 0usize, 0usize, 0u64, 0u64);
    let (mut max_b_w, mut max_a_w, mut pow2_left) = (0u64, 0u64, 0usize);
    let mut examples_done = 0usize;
    for (k, r) in results.into_iter().enumerate() {
        let Some((src, v)) = r else { continue };
        examples_done += usize::from(k >= corpus);
        if v.fell_back {
            fell_back.push(format!("{src}: {:?}", v.validation));
        }
        if let Some(val) = &v.validation {
            assert!(
                matches!(val, Verdict::Proved | Verdict::Unknown(_)),
                "{src}: {val}\n{}",
                v.candidate
            );
        }
        n += 1;
        let (b, a) = (v.before, v.after);
        if b.weighted > 0 {
            ratio_sum += a.weighted as f64 / b.weighted as f64;
        } else {
            ratio_sum += 1.0;
        }
        zero_dm += usize::from(a.div_mod == 0);
        pow2_left += a.pow2_div_mod;
        (b_ops, a_ops, b_dm, a_dm, b_w, a_w) = (
            b_ops + b.ops,
            a_ops + a.ops,
            b_dm + b.div_mod,
            a_dm + a.div_mod,
            b_w + b.weighted,
            a_w + a.weighted,
        );
        max_b_w = max_b_w.max(b.weighted);
        max_a_w = max_a_w.max(a.weighted);
    }
    let f = |x: usize| x as f64 / n as f64;
    println!(
        "{n} layouts ({} from the corpus, {examples_done} from the examples)",
        n - examples_done
    );
    println!("| | operations (mean) | div/mod (mean) | weighted cost (mean) | weighted cost (max) |");
    println!("|---|---|---|---|---|");
    println!(
        "| naive | {:.2} | {:.2} | {:.2} | {max_b_w} |",
        f(b_ops),
        f(b_dm),
        b_w as f64 / n as f64
    );
    println!(
        "| simplified | {:.2} | {:.2} | {:.2} | {max_a_w} |",
        f(a_ops),
        f(a_dm),
        a_w as f64 / n as f64
    );
    println!(
        "mean per-layout cost ratio {:.3}; total cost ratio {:.3}; {zero_dm} of {n} with no div/mod left; {pow2_left} power-of-two div/mod left; {} fell back",
        ratio_sum / n as f64,
        a_w as f64 / b_w as f64,
        fell_back.len()
    );
    for fb in &fell_back {
        println!("  fell back: {fb}");
    }
    assert!(n > 1000, "{n}");
    assert!(
        ratio_sum / n as f64 <= 0.5,
        "mean cost ratio {}",
        ratio_sum / n as f64
    );
    assert_eq!(pow2_left, 0);
    assert!(fell_back.len() * 100 <= n, "{} fell back", fell_back.len());
}
