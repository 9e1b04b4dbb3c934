//! `tessera suggest`: the time of the swizzle synthesis (every swizzle and row padding of a
//! plain shared-memory layout scored on its access patterns) for the SM80 fp16 A tile
//! (cp.async and ldmatrix), the SM90 fp8 128-byte atom and a 32x32 f32 transpose, and of the
//! proofs of the best candidate. The swizzles found and the candidate counts are printed.
//!
//! `cargo bench --bench suggest -- --warm-up-time 1 --measurement-time 3`

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;
use tessera::ir::sym::Facts;
use tessera::verifier::{Func, Options, Pattern, suggest};

fn func(src: &str) -> Func {
    Func::parse(src, &Arc::new(Facts::default())).expect("a layout")
}

fn pattern(tv: &str, elem: i64, access: i64) -> Pattern {
    Pattern {
        tv: func(tv),
        elem,
        access,
    }
}

fn synthesis(c: &mut Criterion) {
    let cases = [
        (
            "sm80_fp16_copy_ldmatrix",
            "((8,16),64):((64,512),1)",
            vec![
                pattern("((8,16),(8,8)):((1024,1),(128,16))", 2, 16),
                pattern("((16,2),(8,4)):((1,1024),(128,2048))", 2, 16),
            ],
        ),
        (
            "sm90_fp8_rows",
            "(8,128):(128,1)",
            vec![pattern("((8,4),16):((1,128),8)", 1, 16)],
        ),
        (
            "transpose_32x32_f32",
            "(32,32):(32,1)",
            vec![pattern("(32,32):(32,1)", 4, 4), pattern("(32,32):(1,32)", 4, 4)],
        ),
    ];
    let mut g = c.benchmark_group("suggest");
    g.sample_size(10);
    for (name, smem, patterns) in &cases {
        let plain = func(smem);
        let s = suggest(&plain, patterns).expect("suggestions");
        let best = &s.ranked[0];
        let pad = s
            .ranked
            .iter()
            .find(|c| matches!(c.change, tessera::verifier::Change::Pad(_)));
        eprintln!(
            "suggest {name}: {} candidates, {} rejected; best {} degrees {:?}; best padding {}",
            s.searched,
            s.rejected,
            best.smem,
            best.degrees,
            pad.map_or("none".into(), |p| format!(
                "{} degrees {:?} (+{} bytes)",
                p.smem, p.degrees, p.extra_bytes
            )),
        );
        g.bench_function(format!("search_{name}"), |b| {
            b.iter(|| black_box(suggest(black_box(&plain), black_box(patterns)).expect("suggestions")))
        });
        let opts = Options::default();
        g.bench_function(format!("prove_best_{name}"), |b| {
            b.iter(|| black_box(best.prove(patterns, &opts)))
        });
    }
    g.finish();
}

criterion_group!(benches, synthesis);
criterion_main!(benches);
