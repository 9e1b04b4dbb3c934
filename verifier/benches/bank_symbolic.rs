//! The symbolic bank analysis on the assertions of `examples/symbolic_banks.tess` (and the
//! refuted one of `examples/broken/symbolic_banks.tess`): the automatic choice (enumeration
//! of few bounded valuations, else z3) next to z3 alone. In the verifier crate, so that its
//! release build is the verifier's alone. Each case prints its verdict and engine once.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;
use tessera_ir::sym::Facts;
use tessera_verifier::{Bank, Cmp, Engine, Func, Options, Property, prove_by};

fn facts() -> Arc<Facts> {
    let mut f = Facts::default();
    for d in [
        "N where 2 <= N <= 1024, N % 2 == 0",
        "J where 2 <= J <= 512, J % 2 == 0",
        "K where 1 <= K <= 64",
        "M where M % 32 == 0, 32 <= M <= 1024",
        "O where 1 <= O <= 1024",
    ] {
        f.declare(d).unwrap();
    }
    Arc::new(f)
}

fn bank(f: &Arc<Facts>, smem: &str, tv: &str, elem: i64, access: i64) -> Bank {
    Bank {
        smem: Func::parse(smem, f).unwrap(),
        tv: Func::parse(tv, f).unwrap(),
        elem,
        access,
    }
}

/// The assertions, named.
fn cases() -> Vec<(&'static str, Property)> {
    let f = facts();
    let padded = bank(&f, "(32,N):(N+1,1)", "(32,N):(1,32)", 4, 4);
    vec![
        ("padded_free", Property::BankConflictFree(padded.clone())),
        (
            "rows16_free",
            Property::BankConflictFree(bank(&f, "(8,(8,J)):(8*J+8,(1,8))", "(8,(8,J)):(1,(8,64))", 2, 16)),
        ),
        (
            "tiles_free",
            Property::BankConflictFree(bank(&f, "(32,K):(1,32)", "(32,K):(1,32)", 4, 4)),
        ),
        (
            "plain_eq_32",
            Property::ConflictDegree(bank(&f, "(32,M):(M,1)", "(32,M):(1,32)", 4, 4), Cmp::Eq, 32),
        ),
        ("padded_le_1", Property::ConflictDegree(padded, Cmp::Le, 1)),
        (
            "broken_refuted",
            Property::BankConflictFree(bank(&f, "(32,O):(O+1,1)", "(32,O):(1,32)", 4, 4)),
        ),
    ]
}

fn symbolic_banks(c: &mut Criterion) {
    let opts = Options {
        timeout_ms: Some(60_000),
    };
    let mut g = c.benchmark_group("symbolic_banks");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(1));
    for (name, p) in cases() {
        for engine in [Engine::Auto, Engine::Z3] {
            let (v, used) = prove_by(&p, &opts, engine);
            eprintln!("{name} {engine:?}: {} by {used:?}", v.word());
            g.bench_with_input(BenchmarkId::new(name, format!("{engine:?}")), &p, |bch, p| {
                bch.iter(|| black_box(prove_by(p, &opts, engine)))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, symbolic_banks);
criterion_main!(benches);
