//! The F2 engine next to z3 and enumeration on the SM80 fp16 swizzled tile
//! `Sw<3,3,3> o (R,64):(64,1)` read ldmatrix-style: injectivity and bank-conflict freedom at
//! 1K, 64K, 1M and 2^30 elements (z3 and enumeration only where they finish in seconds). In
//! the verifier crate, so that its release build is the verifier's alone.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;
use tessera_ir::sym::Facts;
use tessera_verifier::{Bank, Engine, Func, Options, Property, Verdict, brute, prove_by};

/// The tile of `rows` x 64 fp16 elements and its ldmatrix-style reads (as `benches/prover.rs`).
fn tile(rows: i64) -> (Property, Property) {
    let s = Arc::new(Facts::default());
    let f = |src: &str| Func::parse(src, &s).unwrap();
    let smem = f(&format!("Sw<3,3,3> o ({rows},64):(64,1)"));
    let tv = f(&format!(
        "((8,4),(8,{},2)):((1,{}),({rows},8,{}))",
        rows / 8,
        8 * rows,
        32 * rows
    ));
    let bank = Bank {
        smem: smem.clone(),
        tv,
        elem: 2,
        access: 16,
    };
    (Property::Injective(smem), Property::BankConflictFree(bank))
}

fn engines(c: &mut Criterion) {
    let opts = Options {
        timeout_ms: Some(60_000),
    };
    let mut g = c.benchmark_group("f2_engines");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    for rows in [16i64, 1024, 16384, 1 << 24] {
        let n = rows * 64;
        let (inj, bank) = tile(rows);
        for (name, p) in [("injective", &inj), ("bank_free", &bank)] {
            assert_eq!(prove_by(p, &opts, Engine::F2), (Verdict::Proved, Engine::F2));
            g.bench_with_input(BenchmarkId::new(format!("{name}_f2"), n), p, |b, p| {
                b.iter(|| black_box(prove_by(p, &opts, Engine::F2)))
            });
            // z3's bank path checks every access by enumeration, as brute force does.
            if n <= 1 << 20 && (name == "injective" || n <= 1 << 16) {
                g.bench_with_input(BenchmarkId::new(format!("{name}_z3"), n), p, |b, p| {
                    b.iter(|| black_box(prove_by(p, &opts, Engine::Z3)))
                });
                g.bench_with_input(BenchmarkId::new(format!("{name}_enumeration"), n), p, |b, p| {
                    b.iter(|| black_box(brute(p, 1 << 30)))
                });
            }
        }
    }
    g.finish();
}

criterion_group!(benches, engines);
criterion_main!(benches);
