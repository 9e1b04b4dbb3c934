//! A 1024 x 1024 x 1024 f32 matrix product, `C[i, j] += sum_k A[i, k] * B[j, k]` with A
//! `(M,K):(K,1)`, B `(N,K):(K,1)`, C `(M,N):(1,M)`, on one thread: the JIT-compiled GEMM
//! (`tessera_codegen::GemmKernel`, offsets lowered from the three layouts) with each of its
//! micro-kernels this CPU runs (the default, the widest; AVX2; Cranelift's), the naive triple
//! loop (a dot product over `k` per element), and `matrixmultiply::sgemm` with the same
//! strides, in the same run. Prints GFLOP/s (`2 M N K` flops), the ratios and the JIT compile
//! time first, then the criterion measurements.

#![allow(unsafe_code)] // matrixmultiply::sgemm takes raw pointers

use criterion::{Criterion, Throughput, criterion_group};
use std::hint::black_box;
use std::time::{Duration, Instant};
use tessera::codegen::{GemmKernel, GemmMicro, GemmSpec};
use tessera::ir::index::lower_modes;
use tessera::ir::parse_layout;

const M: usize = 1024;
const N: usize = 1024;
const K: usize = 1024;

fn kernel(micro: GemmMicro) -> GemmKernel {
    let l = |s: &str| lower_modes(&parse_layout(s).unwrap()).unwrap();
    GemmKernel::compile_with(
        &GemmSpec {
            a: l(&format!("({M},{K}):({K},1)")),
            b: l(&format!("({N},{K}):({K},1)")),
            c: l(&format!("({M},{N}):(1,{M})")),
            m: M as i64,
            n: N as i64,
            k: K as i64,
        },
        micro,
    )
    .unwrap()
}

fn naive(a: &[f32], b: &[f32], c: &mut [f32]) {
    for i in 0..M {
        for j in 0..N {
            let mut s = 0f32;
            for p in 0..K {
                s += a[i * K + p] * b[j * K + p];
            }
            c[i + j * M] += s;
        }
    }
}

fn mm(a: &[f32], b: &[f32], c: &mut [f32]) {
    // SAFETY: A is M x K with strides (K, 1), B is read as K x N with strides (1, K), C is
    // M x N with strides (1, M); all three buffers hold M*K, N*K and M*N floats.
    unsafe {
        matrixmultiply::sgemm(
            M,
            K,
            N,
            1.0,
            a.as_ptr(),
            K as isize,
            1,
            b.as_ptr(),
            1,
            K as isize,
            1.0,
            c.as_mut_ptr(),
            1,
            M as isize,
        )
    }
}

/// GFLOP/s of the fastest of `reps` runs of `f`.
fn gflops(reps: usize, mut f: impl FnMut()) -> f64 {
    let best = (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap();
    2.0 * (M * N * K) as f64 / best.as_secs_f64() / 1e9
}

fn bench(c: &mut Criterion) {
    let a: Vec<f32> = (0..M * K).map(|x| (x % 17) as f32 / 17.0 - 0.5).collect();
    let b: Vec<f32> = (0..N * K).map(|x| (x % 13) as f32 / 13.0 - 0.5).collect();
    let c0: Vec<f32> = (0..M * N).map(|x| (x % 7) as f32).collect();
    // The micro-kernels this CPU runs, each once, the default first.
    let mut micros = vec![GemmMicro::Auto.resolve()];
    for m in [GemmMicro::Avx2, GemmMicro::Cranelift] {
        if !micros.contains(&m.resolve()) {
            micros.push(m.resolve());
        }
    }
    let ks: Vec<GemmKernel> = micros.iter().map(|m| kernel(*m)).collect();
    // The JIT's result against matrixmultiply's (both in f32: a tolerance), and the
    // micro-kernels against each other (the same bits).
    let mut want = c0.clone();
    mm(&a, &b, &mut want);
    let mut first: Option<Vec<f32>> = None;
    for g in &ks {
        let mut got = c0.clone();
        g.run(&a, &b, &mut got, 1).unwrap();
        let err = got
            .iter()
            .zip(&want)
            .map(|(x, y)| (x - y).abs())
            .fold(0f32, f32::max);
        assert!(err < 1e-2, "{:?}: largest difference {err}", g.micro());
        let f = first.get_or_insert_with(|| got.clone());
        assert!(
            f.iter().zip(&got).all(|(x, y)| x.to_bits() == y.to_bits()),
            "{:?} differs from {:?}",
            g.micro(),
            micros[0]
        );
    }
    let compiled: Vec<GemmKernel> = (0..11).map(|_| kernel(GemmMicro::Auto)).collect();
    let mut times: Vec<Duration> = compiled.iter().map(GemmKernel::compile_time).collect();
    times.sort();
    let mut dst = c0.clone();
    // Alternating rounds: each kernel's best of 5 runs per round, over 3 rounds.
    let mut jit = vec![0f64; ks.len()];
    let mut mm_rate = 0f64;
    for _ in 0..3 {
        for (r, g) in jit.iter_mut().zip(&ks) {
            let x = gflops(5, || g.run(black_box(&a), black_box(&b), &mut dst, 1).unwrap());
            *r = r.max(x);
        }
        mm_rate = mm_rate.max(gflops(5, || mm(black_box(&a), black_box(&b), &mut dst)));
    }
    let naive_rate = gflops(2, || naive(black_box(&a), black_box(&b), &mut dst));
    let rows: Vec<String> = micros
        .iter()
        .zip(&jit)
        .map(|(m, r)| format!("JIT ({m:?}) {r:.2} GFLOP/s = {:.2}x matrixmultiply", r / mm_rate))
        .collect();
    println!(
        "gemm {M}x{N}x{K} f32, 1 thread (best of runs): {}; naive {naive_rate:.2}, \
         matrixmultiply {mm_rate:.2}; JIT/naive {:.1}x; JIT compile {:.3} ms (median of 11)",
        rows.join("; "),
        jit[0] / naive_rate,
        times[5].as_secs_f64() * 1e3
    );

    let mut g = c.benchmark_group("gemm_1024_f32");
    g.throughput(Throughput::Elements((2 * M * N * K) as u64));
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    for g2 in &ks {
        let name = format!("jit {}", format!("{:?}", g2.micro()).to_lowercase());
        g.bench_function(name, |bn| {
            bn.iter(|| g2.run(black_box(&a), black_box(&b), &mut dst, 1).unwrap())
        });
    }
    g.bench_function("matrixmultiply", |bn| {
        bn.iter(|| mm(black_box(&a), black_box(&b), &mut dst))
    });
    g.bench_function("naive loop", |bn| {
        bn.iter(|| naive(black_box(&a), black_box(&b), &mut dst))
    });
    g.finish();
}

criterion_group!(benches, bench);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}
