//! `contiguous(RowMajor)` of a transposed 4096x4096 `f32` view, against `memcpy` of the same
//! bytes and against `ndarray`'s `as_standard_layout()` of the same transposed view.
//!
//! `cargo bench --bench views -- --warm-up-time 1 --measurement-time 5`
//!
//! This is the baseline that the JIT copy kernels are to beat. `memcpy` copies into a buffer
//! that is already allocated and touched; `memcpy+alloc` (`to_vec`) allocates its output as
//! `contiguous` and `as_standard_layout` do.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use tessera::ir::view::{MemoryOrder, Tensor};

const N: usize = 4096;

fn views(c: &mut Criterion) {
    let src: Vec<f32> = (0..N * N).map(|i| i as f32).collect();
    let t = Tensor::from_shape_vec(&[N, N], MemoryOrder::RowMajor, src.clone()).expect("a 4096x4096 tensor");
    let tv = t.view().permute(&[1, 0]).expect("the transposed view");
    let a = ndarray::Array2::from_shape_vec((N, N), src.clone()).expect("a 4096x4096 array");

    // Both copies produce the same elements in the same order.
    let ours = tv.contiguous(MemoryOrder::RowMajor);
    let theirs = a.t().as_standard_layout().into_owned();
    assert_eq!(ours.data(), theirs.as_slice().expect("standard layout"));
    assert_eq!(ours.data()[1], src[N]);

    let mut g = c.benchmark_group("views");
    g.sample_size(10);
    g.throughput(Throughput::Bytes((N * N * size_of::<f32>()) as u64));
    g.bench_function("contiguous_rowmajor_transposed_4096", |b| {
        b.iter(|| black_box(tv.contiguous(MemoryOrder::RowMajor)))
    });
    let mut dst = vec![0f32; N * N];
    g.bench_function("memcpy_64MiB", |b| {
        b.iter(|| {
            dst.copy_from_slice(black_box(&src));
            black_box(&dst);
        })
    });
    g.bench_function("memcpy_alloc_64MiB", |b| {
        b.iter(|| black_box(black_box(&src).to_vec()))
    });
    g.bench_function("ndarray_as_standard_layout_transposed_4096", |b| {
        b.iter(|| black_box(black_box(&a).t().as_standard_layout().into_owned()))
    });
    g.finish();
}

criterion_group!(benches, views);
criterion_main!(benches);
