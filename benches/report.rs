//! The HTML report of `tessera check --html` for 1,000 assertions: the time to write the page
//! from the outcomes (proving them is done once, before, and printed apart) and its size.
//!
//! Ten generated files of 100 assertions each: 80 proved `injective`, 10 refuted `injective`
//! (two coordinates, one offset), 8 refuted `bank_conflict_free` (two threads, the bank
//! picture) and 2 `equal` closed by egg.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::{Duration, Instant};
use tessera::check::{self, Loaded, Provers};

/// The text of generated file `k`.
fn file(k: usize) -> String {
    let mut s = String::from("let TV = (32,32):(1,32)\nlet A = (8,16):(16,1)\nlet B = (4,2):(2,1)\n");
    for i in 0..100 {
        let n = k * 100 + i + 1;
        let line = match i % 50 {
            0..40 => format!("assert injective(({},{n}):({n},1))", 2 + i % 7),
            40..45 => format!("assert injective((4,{}):(1,2))", 2 + n % 9),
            45..49 => format!(
                "assert bank_conflict_free(({},32):(32,1), TV, elem=4, access=4)",
                32 + 32 * (n % 3)
            ),
            _ => "assert equal(composition(A, B), composition(A, B))".to_string(),
        };
        s.push_str(&line);
        s.push('\n');
    }
    s
}

fn bench(c: &mut Criterion) {
    let loaded: Vec<Loaded> = (0..10)
        .map(|k| {
            let cf = check::load(&format!("generated/file_{k}.tess"), &file(k)).expect("parses");
            Loaded::File(cf)
        })
        .collect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let t0 = Instant::now();
    let outcomes = check::run_all(&loaded, &Default::default(), threads, Provers::All);
    let proving = t0.elapsed();
    let page = check::html::html(&outcomes, proving, threads);
    let word = |w: &str| outcomes.iter().filter(|o| o.verdict.word() == w).count();
    println!(
        "report: {} assertions ({} proved, {} refuted, {} unknown), proved in {:.2} s on {threads} threads (not part of the time below); page {} bytes ({:.0} bytes per assertion)",
        outcomes.len(),
        word("proved"),
        word("refuted"),
        word("unknown"),
        proving.as_secs_f64(),
        page.len(),
        page.len() as f64 / outcomes.len() as f64
    );
    let mut g = c.benchmark_group("report");
    g.sample_size(20).measurement_time(Duration::from_secs(5));
    g.bench_function("html_1000_assertions", |b| {
        b.iter(|| check::html::html(black_box(&outcomes), proving, threads))
    });
    g.bench_function("json_1000_assertions", |b| {
        b.iter(|| check::report::json(black_box(&outcomes), proving, threads).to_string())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
