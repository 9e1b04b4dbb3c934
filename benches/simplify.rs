//! The e-graph simplifier and its validation: criterion timings of the SM80 and SM90 swizzled
//! tiles of `examples/` and of a nested tiling, and, printed first, the distribution (median,
//! p99) of the simplify and validation times over every layout of the corpus and the examples.

use criterion::{Criterion, criterion_group};
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tessera::lang::Session;
use tessera::lower::{Lowered, lower_value};
use tessera::verifier::{Engine, Options, simplify_validated};
use tessera_ir::simplify::{Limits, simplify};

#[path = "../tests/support/layouts.rs"]
mod layouts;

fn lowered(params: &[String], src: &str) -> Option<(Lowered, Arc<tessera_ir::sym::Facts>)> {
    let p: Vec<&str> = params.iter().map(String::as_str).collect();
    let s = Session::new(&p, &[]).ok()?;
    let l = lower_value(&s, src, false, &[]).ok()?;
    Some((l, Arc::new(s.facts().clone())))
}

fn quantile(v: &mut [Duration], q: f64) -> f64 {
    v.sort();
    let k = ((v.len() as f64 - 1.0) * q).round() as usize;
    v[k].as_secs_f64() * 1e3
}

/// The distribution over the corpus and the examples.
fn distribution() {
    let mut cases: Vec<(Vec<String>, String)> = layouts::corpus_layouts()
        .into_iter()
        .map(|l| (vec![], l))
        .collect();
    cases.extend(layouts::example_layouts());
    let (mut simp, mut val, mut total) = (Vec::new(), Vec::new(), Vec::new());
    let (mut by_enum, mut by_z3) = (0usize, 0usize);
    for (params, src) in &cases {
        let Some((l, facts)) = lowered(params, src) else {
            continue;
        };
        let start = Instant::now();
        let v = simplify_validated(
            &l.expr,
            &l.domain,
            &facts,
            &Limits::default(),
            &Options::default(),
            true,
        )
        .expect("simplifies");
        total.push(start.elapsed());
        simp.push(v.simplify_time);
        val.push(v.validate_time);
        match v.engine {
            Some(Engine::Z3) => by_z3 += 1,
            Some(_) => by_enum += 1,
            None => {}
        }
    }
    let n = total.len();
    println!("simplify + validate over {n} layouts (validated by enumeration {by_enum}, by z3 {by_z3}):");
    println!("| | median | p99 | max |");
    println!("|---|---|---|---|");
    for (name, v) in [
        ("simplify (egg)", &mut simp),
        ("validate", &mut val),
        ("together", &mut total),
    ] {
        let max = v.iter().max().copied().unwrap_or_default().as_secs_f64() * 1e3;
        println!(
            "| {name} | {:.3} ms | {:.3} ms | {max:.1} ms |",
            quantile(v, 0.5),
            quantile(v, 0.99)
        );
    }
}

const TILES: &[&str] = &[
    "Sw<3,3,3> o (8,64):(64,1)",
    "Sw<3,4,3> o (8,128):(128,1)",
    "Sw<3,3,3> o ((8,16),64):((64,512),1)",
    "((2,2),(4,2)):((1,8),(2,16))",
];

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("simplify");
    for t in TILES {
        let (l, facts) = lowered(&[], t).expect("lowers");
        g.bench_function(format!("egg {t}"), |b| {
            b.iter(|| simplify(black_box(&l.expr), &l.domain, &Limits::default()).unwrap())
        });
        g.bench_function(format!("egg + validation {t}"), |b| {
            b.iter(|| {
                simplify_validated(
                    black_box(&l.expr),
                    &l.domain,
                    &facts,
                    &Limits::default(),
                    &Options::default(),
                    true,
                )
                .unwrap()
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(2));
    targets = bench
}

fn main() {
    distribution();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
