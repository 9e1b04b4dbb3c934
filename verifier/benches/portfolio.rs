//! The portfolio against each engine alone: per property and size (1K, 64K, 1M, 2^30
//! elements), the time of enumeration, F2, the structural engine, z3 and `auto`, each where
//! it decides the query (and finishes in seconds). `scripts/portfolio_table.py` turns the
//! estimates into the book's table (figures/prover.md) and the ratio of `auto` to the fastest engine.
//!
//! The families:
//! * `swizzled`: `Sw<3,3,3> o (R,64):(64,1)`, in the F2 fragment;
//! * `padded`: `(R,65):(65,1)`, outside it, its strides dominating;
//! * `interleaved`: `(2,3,R):(3,2,6)`, injective with neither (its strides overlap: only
//!   enumeration and z3 decide it);
//! * bank questions on the swizzled tile read ldmatrix-style, and on a padded 65-wide tile
//!   read by columns.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;
use tessera_ir::Int;
use tessera_ir::sym::{Facts, SymInt};
use tessera_verifier::{Bank, Engine, Func, Options, Property, Verdict, prove_by};

fn f(src: &str) -> Func {
    Func::parse(src, &Arc::new(Facts::default())).unwrap()
}

/// `(name, property)` for a family at `n` elements (a power of two, at least 1024).
fn queries(n: i64) -> Vec<(&'static str, Property)> {
    let rows = n / 64;
    let swz = f(&format!("Sw<3,3,3> o ({rows},64):(64,1)"));
    let padded = f(&format!("({},65):(65,1)", n / 64));
    let inter = f(&format!("(2,3,{}):(3,2,6)", n / 6));
    let ldsm = f(&format!(
        "((8,4),(8,{},2)):((1,{}),({rows},8,{}))",
        rows / 8,
        8 * rows,
        32 * rows
    ));
    let mut out = vec![
        ("injective_swizzled", Property::Injective(swz.clone())),
        ("bijective_swizzled", Property::Bijective(swz.clone())),
        ("injective_padded", Property::Injective(padded.clone())),
        (
            "in_bounds_padded",
            Property::InBounds(padded.clone(), SymInt::lit(65 * (n / 64))),
        ),
        ("injective_interleaved", Property::Injective(inter)),
        (
            "bank_swizzled",
            Property::BankConflictFree(Bank {
                smem: swz,
                tv: ldsm,
                elem: 2,
                access: 16,
            }),
        ),
    ];
    if n <= 1 << 20 {
        // 32 threads read a column each of a 65-wide padded tile, every row in turn.
        let tv = f(&format!("(32,{}):(1,32)", n / 32));
        let smem = f(&format!("(32,{}):(65,1)", n / 32));
        out.push((
            "bank_padded",
            Property::BankConflictFree(Bank {
                smem,
                tv,
                elem: 4,
                access: 4,
            }),
        ));
    }
    out
}

/// Whether `engine` is measured on `name` at `n` elements: it decides there, and a run takes
/// at most seconds (enumeration stops at its limit of 2^24 points; z3 is skipped where it
/// takes longer than that, and on the bank questions past 64K, which it must enumerate).
fn measured(engine: Engine, name: &str, n: i64) -> bool {
    match engine {
        Engine::Enumeration => n <= 1 << 20,
        // z3 on every size where it is the only complete engine left (2^30 interleaved).
        Engine::Z3 => {
            !name.starts_with("bank") && (n <= 1 << 20 || name.contains("interleaved")) || n <= 1 << 16
        }
        _ => true,
    }
}

fn portfolio(c: &mut Criterion) {
    let opts = Options {
        timeout_ms: Some(120_000),
    };
    let mut g = c.benchmark_group("portfolio");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(1));
    for n in [1i64 << 10, 1 << 16, 1 << 20, 1 << 30] {
        for (name, p) in queries(n) {
            let (want, _) = prove_by(&p, &opts, Engine::Auto);
            assert_eq!(want, Verdict::Proved, "{name} at {n}");
            for e in [
                Engine::Auto,
                Engine::F2,
                Engine::Structural,
                Engine::Enumeration,
                Engine::Z3,
            ] {
                if !measured(e, name, n) || prove_by(&p, &opts, e).0 != Verdict::Proved {
                    continue;
                }
                let id = BenchmarkId::new(format!("{name}/{}", e.name()), n);
                g.bench_with_input(id, &p, |b, p| b.iter(|| black_box(prove_by(p, &opts, e))));
            }
        }
    }
    g.finish();
}

criterion_group!(benches, portfolio);
criterion_main!(benches);
