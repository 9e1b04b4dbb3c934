//! z3 proofs (the F2 engine left out: `benches/f2.rs` compares it) next to brute-force
//! enumeration:
//! * injectivity and bank-conflict freedom of swizzled fp16 tiles from 1K to 64K elements;
//! * injectivity of a tiled `(M,8)` layout for every `M <= 65536` (a multiple of 128): one
//!   symbolic proof, against enumerating every `M`.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;
use tessera::ir::algebra::{Tiler, zipped_divide};
use tessera::ir::sym::{Facts, SymInt};
use tessera::ir::{HTuple, Int};
use tessera::verifier::Bank;
use tessera::verifier::brute;
use tessera::verifier::{Engine, Func, Options, Property, Verdict, prove, prove_by};

fn func(s: &Arc<Facts>, src: &str) -> Func {
    Func::parse(src, s).unwrap()
}

/// Parameters declared as `tessera --param` declares them.
fn facts(decls: &[&str]) -> Arc<Facts> {
    let mut f = Facts::default();
    for d in decls {
        f.declare(d).unwrap();
    }
    Arc::new(f)
}

/// The SM80 fp16 swizzled tile of `rows` x 64 elements, read ldmatrix-style.
fn tile(rows: i64) -> (Func, Bank) {
    let s = facts(&[]);
    let smem = func(&s, &format!("Sw<3,3,3> o ({rows},64):(64,1)"));
    let tv = func(
        &s,
        &format!(
            "((8,4),(8,{},2)):((1,{}),({rows},8,{}))",
            rows / 8,
            8 * rows,
            32 * rows
        ),
    );
    (
        smem.clone(),
        Bank {
            smem,
            tv,
            elem: 2,
            access: 16,
        },
    )
}

fn sizes(c: &mut Criterion) {
    let opts = Options {
        timeout_ms: Some(60_000),
    };
    let mut g = c.benchmark_group("swizzled_tile");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for rows in [16i64, 64, 256, 1024, 4096, 16384] {
        let n = rows * 64;
        let (f, b) = tile(rows);
        let inj = Property::Injective(f);
        let bank = Property::BankConflictFree(b);
        let z3 = |p: &Property| prove_by(p, &opts, Engine::Z3).0;
        assert_eq!(z3(&inj), Verdict::Proved);
        assert_eq!(brute(&inj, 1 << 30), Verdict::Proved);
        assert_eq!(z3(&bank), Verdict::Proved);
        g.bench_with_input(BenchmarkId::new("injective_z3", n), &inj, |bch, p| {
            bch.iter(|| black_box(z3(p)))
        });
        g.bench_with_input(BenchmarkId::new("injective_brute", n), &inj, |bch, p| {
            bch.iter(|| black_box(brute(p, 1 << 30)))
        });
        g.bench_with_input(BenchmarkId::new("bank_free_z3", n), &bank, |bch, p| {
            bch.iter(|| black_box(z3(p)))
        });
        g.bench_with_input(BenchmarkId::new("bank_free_brute", n), &bank, |bch, p| {
            bch.iter(|| black_box(brute(p, 1 << 30)))
        });
    }
    g.finish();
}

fn symbolic(c: &mut Criterion) {
    let s = facts(&["M where M % 128 == 0, 128 <= M <= 65536"]);
    // Row-major (M,8), tiled by 128x8 blocks: coalescing cannot reduce it to the identity.
    let Func::Layout(a) = func(&s, "(M,8):(8,1)") else {
        unreachable!("a layout")
    };
    let t = Tiler::from_shape(&HTuple::flat([SymInt::lit(128), SymInt::lit(8)]));
    let f = Func::Layout(zipped_divide(&a, &t).unwrap());
    let p = Property::Injective(f);
    let opts = Options {
        timeout_ms: Some(120_000),
    };
    assert_eq!(prove(&p, &opts), Verdict::Proved);
    let mut g = c.benchmark_group("symbolic_tiled_injective");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_secs(5));
    g.bench_function("z3_all_M", |b| b.iter(|| black_box(prove(&p, &opts))));
    g.bench_function("brute_every_M", |b| b.iter(|| black_box(brute(&p, 1 << 40))));
    g.finish();
}

criterion_group!(benches, sizes, symbolic);
criterion_main!(benches);
