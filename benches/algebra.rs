//! Throughput of the layout algebra over the corpus inputs (composition, logical_divide,
//! complement, coalesce). `scripts/bench_compare.py` runs PyCuTe on the same inputs and prints
//! the ratio.

mod common;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use tessera::ir::algebra::{Tiler, coalesce, coalesce_by, complement, composition_tiler, logical_divide};
use tessera::ir::{HTuple, Layout};
use tessera::lang::Value;

struct Inputs {
    composition: Vec<(Layout<i64>, Tiler<i64>)>,
    logical_divide: Vec<(Layout<i64>, Tiler<i64>)>,
    complement: Vec<(Layout<i64>, Option<HTuple<i64>>)>,
    coalesce: Vec<(Layout<i64>, Option<HTuple<bool>>)>,
}

fn pairs(op: &str) -> Vec<(Layout<i64>, Tiler<i64>)> {
    common::corpus_args(op)
        .into_iter()
        .filter_map(|a| Some((a.first()?.to_layout().ok()?, a.get(1)?.to_tiler().ok()?)))
        .collect()
}

fn inputs() -> Inputs {
    Inputs {
        composition: pairs("composition"),
        logical_divide: pairs("logical_divide"),
        complement: common::corpus_args("complement")
            .into_iter()
            .filter_map(|a| {
                Some((
                    a.first()?.to_layout().ok()?,
                    a.get(1).map(Value::to_shape).transpose().ok()?,
                ))
            })
            .collect(),
        coalesce: common::corpus_args("coalesce")
            .into_iter()
            .filter_map(|a| {
                Some((
                    a.first()?.to_layout().ok()?,
                    a.get(1).map(Value::to_profile).transpose().ok()?,
                ))
            })
            .collect(),
    }
}

fn bench(c: &mut Criterion) {
    let inp = inputs();
    let mut g = c.benchmark_group("corpus");
    g.throughput(Throughput::Elements(inp.composition.len() as u64));
    g.bench_function("composition", |b| {
        b.iter(|| {
            for (a, t) in &inp.composition {
                let _ = black_box(composition_tiler(black_box(a), t));
            }
        })
    });
    g.throughput(Throughput::Elements(inp.logical_divide.len() as u64));
    g.bench_function("logical_divide", |b| {
        b.iter(|| {
            for (a, t) in &inp.logical_divide {
                let _ = black_box(logical_divide(black_box(a), t));
            }
        })
    });
    g.throughput(Throughput::Elements(inp.complement.len() as u64));
    g.bench_function("complement", |b| {
        b.iter(|| {
            for (a, t) in &inp.complement {
                let _ = black_box(complement(black_box(a), t.as_ref()));
            }
        })
    });
    g.throughput(Throughput::Elements(inp.coalesce.len() as u64));
    g.bench_function("coalesce", |b| {
        b.iter(|| {
            for (a, p) in &inp.coalesce {
                let _ = black_box(match p {
                    Some(p) => coalesce_by(black_box(a), p),
                    None => coalesce(black_box(a)),
                });
            }
        })
    });
    g.finish();
    // Input counts, read by scripts/bench_compare.py.
    println!(
        "inputs: composition={} logical_divide={} complement={} coalesce={}",
        inp.composition.len(),
        inp.logical_divide.len(),
        inp.complement.len(),
        inp.coalesce.len()
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
