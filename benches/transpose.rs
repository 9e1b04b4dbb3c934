//! Transpose of a 4096 x 4096 f32 matrix, column-major to row-major: the JIT-compiled copy
//! (`tessera_codegen::CopyKernel`, index code lowered from the two layouts and simplified) on 1
//! and 2 threads, by the AVX2 band helper where the CPU has it (`jit`; `jit_stream` and
//! `jit_cached` with streaming stores forced on and off) and by Cranelift's in-register 4 x 4
//! transposes (`jit_registers`, the path before the helper), against `memcpy` of the same bytes, a naive and a 32 x 32 blocked Rust loop,
//! ndarray's `as_standard_layout` and the views' `contiguous(RowMajor)`, in the same run. Prints GB/s (bytes read + written) and
//! the JIT compile time first.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use std::hint::black_box;
use std::time::Duration;
use tessera::codegen::{CopyKernel, CopySpec, NoMemo, TransposePath};
use tessera::ir::index::{Var, lower_modes};
use tessera::ir::parse_layout;
use tessera::ir::simplify::{Domain, Limits, simplify};

const N: usize = 4096;

fn kernel(tile: [i64; 2]) -> CopyKernel {
    kernel_path(tile, TransposePath::Auto)
}

fn kernel_path(tile: [i64; 2], path: TransposePath) -> CopyKernel {
    let lower = |s: &str| {
        let e = lower_modes(&parse_layout(s).unwrap()).unwrap();
        let mut d = Domain::default();
        d.range(Var::Coord(0), 0, N as i64 - 1)
            .range(Var::Coord(1), 0, N as i64 - 1);
        simplify(&e, &d, &Limits::default()).unwrap().expr
    };
    let src = lower(&format!("({N},{N}):(1,{N})"));
    let dst = lower(&format!("({N},{N}):({N},1)"));
    let spec = CopySpec {
        src,
        dst,
        extents: [N as i64; 2],
        elem_bytes: 4,
        tile,
    };
    CopyKernel::compile_path(&spec, &NoMemo, path).unwrap()
}

fn naive(src: &[f32], dst: &mut [f32]) {
    for i in 0..N {
        for j in 0..N {
            dst[i * N + j] = src[i + j * N];
        }
    }
}

fn blocked(src: &[f32], dst: &mut [f32]) {
    const B: usize = 32;
    for ib in (0..N).step_by(B) {
        for jb in (0..N).step_by(B) {
            for j in jb..jb + B {
                for i in ib..ib + B {
                    dst[i * N + j] = src[i + j * N];
                }
            }
        }
    }
}

fn bench(c: &mut Criterion) {
    let src: Vec<f32> = (0..N * N).map(|x| x as f32).collect();
    let mut dst = vec![0f32; N * N];
    // The tile (c0 innermost): `TESSERA_TILE=64x8` to try others.
    let tile: [i64; 2] = std::env::var("TESSERA_TILE")
        .ok()
        .and_then(|t| {
            let (a, b) = t.split_once('x')?;
            Some([a.parse().ok()?, b.parse().ok()?])
        })
        .unwrap_or([8, 128]);
    let k = kernel(tile);
    let paths = [
        ("jit_registers", TransposePath::Registers),
        ("jit_stream", TransposePath::Stream),
        ("jit_cached", TransposePath::Cached),
    ];
    let others: Vec<(&str, CopyKernel)> = paths.iter().map(|(n, p)| (*n, kernel_path(tile, *p))).collect();
    // Each JIT's result is the transpose.
    let mut want = vec![0f32; N * N];
    naive(&src, &mut want);
    for k in std::iter::once(&k).chain(others.iter().map(|(_, k)| k)) {
        dst.fill(0.0);
        k.run(&src, &mut dst, 2).unwrap();
        assert!(dst == want, "{:?}", k.mode());
    }
    let ks: Vec<CopyKernel> = (0..21).map(|_| kernel(tile)).collect();
    let median = |mut v: Vec<Duration>| {
        v.sort();
        v[10].as_secs_f64() * 1e3
    };
    println!(
        "copy kernel {:?}, tile {tile:?}: JIT compile {:.3} ms, contiguity proofs {:.3} ms (medians of 21)",
        k.mode(),
        median(ks.iter().map(CopyKernel::compile_time).collect()),
        median(ks.iter().map(CopyKernel::proof_time).collect())
    );

    let mut g = c.benchmark_group("transpose_4096_f32");
    g.throughput(Throughput::Bytes((2 * N * N * 4) as u64));
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    g.bench_function("memcpy", |b| b.iter(|| dst.copy_from_slice(black_box(&src))));
    for threads in [1, 2] {
        g.bench_with_input(BenchmarkId::new("jit", threads), &threads, |b, &t| {
            b.iter(|| k.run(black_box(&src), &mut dst, t).unwrap())
        });
        for (name, k) in &others {
            g.bench_with_input(BenchmarkId::new(*name, threads), &threads, |b, &t| {
                b.iter(|| k.run(black_box(&src), &mut dst, t).unwrap())
            });
        }
    }
    g.bench_function("naive loop", |b| b.iter(|| naive(black_box(&src), &mut dst)));
    g.bench_function("blocked loop 32x32", |b| {
        b.iter(|| blocked(black_box(&src), &mut dst))
    });
    let a = ndarray::Array2::from_shape_vec((N, N).f(), src.clone()).unwrap();
    g.bench_function("ndarray as_standard_layout", |b| {
        b.iter(|| black_box(a.as_standard_layout().into_owned()))
    });
    // The views' strided gather (issue 5): the column-major source as a transposed view of a
    // row-major tensor, made contiguous row-major.
    let t = Tensor::from_shape_vec(&[N, N], MemoryOrder::RowMajor, src.clone()).unwrap();
    let tv = t.view().permute(&[1, 0]).unwrap();
    assert!(tv.contiguous(MemoryOrder::RowMajor).data() == want.as_slice());
    g.bench_function("views contiguous(RowMajor)", |b| {
        b.iter(|| black_box(tv.contiguous(MemoryOrder::RowMajor)))
    });
    g.finish();
}

use ndarray::ShapeBuilder;
use tessera::ir::view::{MemoryOrder, Tensor};

criterion_group!(benches, bench);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}
