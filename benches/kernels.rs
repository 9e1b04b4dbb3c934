//! Kernels of the kernel language through the whole path (front end, proof, JIT):
//! * the time to prove and to compile each kernel of `examples/kernels.tess` (and a few more),
//!   medians of 21, printed before criterion runs: the kernel proof, egg and its validation,
//!   the contiguity proofs, and Cranelift, separately;
//! * f16 bias + ReLU over 4096 x 4096 on 1 and 2 threads against `memcpy` of the same bytes
//!   (read x and b, write y), measured in the same run, in GB/s, on each way of converting the
//!   16-bit floats ([`HalfPath`]: tiles converted by the CPU's instructions, the same tiles
//!   converted in software, and the inline Cranelift conversions); the same in bf16.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use std::collections::HashMap;
use std::hint::black_box;
use std::time::{Duration, Instant};
use tessera::check;
use tessera_codegen::kernel::{Buffer, ElemType, Proved};
use tessera_codegen::{CompiledKernel, HalfPath, JitOptions};
use tessera_verifier::Options;

const N: i64 = 4096;

/// More kernels for the compile-time figures: an f32 epilogue, an i32 reduction, a bf16
/// conversion, a scaled copy into a swizzled 64 x 64 tile.
const MORE: &str = "
tensor xf : f32[(M,N):(N,1)]
tensor yf : f32[(M,N):(N,1)]
tensor bf : f32[N:1]
kernel epilogue { yf[i,j] = max(fma(xf[i,j], 0.5, bf[j]), 0) }
tensor xi : i32[(M,N):(N,1)]
tensor si : i32[M:1]
kernel row_sum { si[i] += xi[i,j] }
tensor yb : bf16[(M,N):(1,M)]
kernel to_bf16 tile i:32, j:32 { yb[i,j] = bf16(xf[i,j]) }
tensor xh : bf16[(M,N):(N,1)]
tensor bh : bf16[N:1]
tensor yh : bf16[(M,N):(N,1)]
kernel bias_relu_bf16 { yh[i,j] = max(xh[i,j] + bh[j], 0) }
tensor s64 : f32[(64,64):(64,1)]
tensor sw : f32[Sw<3,2,3> o (64,64):(64,1)]
kernel swizzle { sw[i,j] = s64[i,j] * 2 }
";

fn file() -> check::CheckFile {
    let path = format!("{}/examples/kernels.tess", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&path).unwrap() + MORE;
    check::load(&path, &src).unwrap()
}

fn bench(c: &mut Criterion) {
    let f = file();
    let small = HashMap::from([
        ("M".to_string(), 1024),
        ("N".to_string(), 1024),
        ("K".to_string(), 1024),
    ]);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!(
        "kernel        proof ms  egg ms  validate ms  contiguity ms  Cranelift ms  (medians of 21; M=N=K=1024)"
    );
    for k in &f.kernels {
        let mut rows: [Vec<f64>; 5] = Default::default();
        let mut paths = String::new();
        for _ in 0..21 {
            let t = Instant::now();
            let p = Proved::check_at(k.clone(), &small, &Options::default(), false).unwrap();
            rows[0].push(ms(t.elapsed()));
            let jit = CompiledKernel::compile(&p, &small, &JitOptions::default()).unwrap();
            let times = jit.times();
            rows[1].push(ms(times.simplify));
            rows[2].push(ms(times.validate));
            rows[3].push(ms(times.proofs));
            rows[4].push(ms(times.compile));
            paths = jit
                .paths()
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join("; ");
        }
        let [a, b, cc, d, e] = rows.map(median);
        println!(
            "{:<13} {a:>8.3} {b:>7.3} {cc:>12.3} {d:>14.3} {e:>13.3}  {paths}",
            k.name
        );
    }

    for (name, brain) in [("bias_relu", false), ("bias_relu_bf16", true)] {
        half_kernel(c, &f, name, brain);
    }
}

/// The 16-bit bias + ReLU kernel `name` at 4096 x 4096 on every [`HalfPath`], against
/// `memcpy` of the same bytes in the same run.
fn half_kernel(c: &mut Criterion, f: &check::CheckFile, name: &str, brain: bool) {
    let k = f.kernels.iter().find(|k| k.name == name).unwrap().clone();
    let at = HashMap::from([("M".to_string(), N), ("N".to_string(), N)]);
    let p = Proved::check_at(k, &at, &Options::default(), false).unwrap();
    let paths = [
        ("tiles", HalfPath::Tiles),
        ("software_tiles", HalfPath::SoftwareTiles),
        ("inline", HalfPath::Inline),
    ];
    let jits: Vec<(&str, CompiledKernel)> = paths
        .iter()
        .map(|(label, half)| {
            let o = JitOptions {
                half: *half,
                ..JitOptions::default()
            };
            (*label, CompiledKernel::compile(&p, &at, &o).unwrap())
        })
        .collect();
    let n = (N * N) as usize;
    let x: Vec<f32> = (0..n).map(|i| (i % 97) as f32 / 16.0 - 3.0).collect();
    let b: Vec<f32> = (0..N as usize).map(|j| (j % 13) as f32 / 8.0 - 0.75).collect();
    let buffer = |v: &[f32]| {
        if brain {
            Buffer::BF16(v.iter().map(|x| half::bf16::from_f32(*x)).collect())
        } else {
            Buffer::F16(v.iter().map(|x| half::f16::from_f32(*x)).collect())
        }
    };
    let elem = if brain { ElemType::BF16 } else { ElemType::F16 };
    // Tensors in order of first use: y, x, b.
    let mut bufs = vec![Buffer::zeros(elem, n), buffer(&x), buffer(&b)];
    let bytes = (2 * n + N as usize) * 2;
    let src = vec![1u8; bytes / 2];
    let mut dst = vec![0u8; bytes / 2];
    // Same-run figures first, so that the ratio is read off one line.
    let time = |f: &mut dyn FnMut()| {
        f();
        let mut v: Vec<f64> = (0..15)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64()
            })
            .collect();
        v.sort_by(f64::total_cmp);
        v[7]
    };
    let gbps = |t: f64| bytes as f64 / t / 1e9;
    let mut outputs = Vec::new();
    for (label, jit) in &jits {
        let mc = time(&mut || dst.copy_from_slice(black_box(&src)));
        let one = time(&mut || jit.run(&mut bufs, 1).unwrap());
        let two = time(&mut || jit.run(&mut bufs, 2).unwrap());
        outputs.push(bufs[0].clone());
        println!(
            "{name} 4096x4096 {label:<14} ({}): 1 thread {:.2} GB/s, 2 threads {:.2} GB/s; memcpy {:.2} GB/s; ratios {:.3} and {:.3}",
            jit.paths()[0],
            gbps(one),
            gbps(two),
            gbps(mc),
            gbps(one) / gbps(mc),
            gbps(two) / gbps(mc)
        );
    }
    assert!(outputs.windows(2).all(|w| w[0] == w[1]), "the paths disagree");

    let mut g = c.benchmark_group(if brain {
        "bias_relu_bf16_4096"
    } else {
        "bias_relu_f16_4096"
    });
    g.throughput(Throughput::Bytes(bytes as u64));
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    g.bench_function("memcpy", |bn| bn.iter(|| dst.copy_from_slice(black_box(&src))));
    for (label, jit) in &jits {
        for threads in [1, 2] {
            g.bench_with_input(BenchmarkId::new(*label, threads), &threads, |bn, &t| {
                bn.iter(|| jit.run(&mut bufs, t).unwrap())
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}
