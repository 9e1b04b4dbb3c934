//! `tessera draw`: the time to build and write the SVG of 32x32, 128x64 and 256x256 layouts
//! (every cell evaluated by the expression language's evaluator), with the SVG's size and
//! the time of one PNG rendering.
//!
//! `cargo bench --bench draw -- --warm-up-time 1 --measurement-time 3`

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use tessera::draw::{Color, layout};
use tessera::lang::Session;

fn draw(c: &mut Criterion) {
    let session = Session::default();
    let mut g = c.benchmark_group("draw");
    g.sample_size(10);
    for (name, src) in [
        ("32x32", "(32,32):(32,1)"),
        ("128x64_swizzled", "Sw<3,3,3> o (128,64):(64,1)"),
        ("256x256_hierarchical", "((16,16),(16,16)):((1,256),(16,4096))"),
    ] {
        let v = session.value(src).expect("a layout");
        let pic = layout(&v, Color::Index).expect("drawn");
        let svg = pic.svg();
        // The PNG once (seconds for the largest: not a criterion sample).
        let t0 = std::time::Instant::now();
        let png = pic.png().expect("rendered");
        eprintln!(
            "draw {name}: SVG {} bytes, TikZ {} bytes; PNG {} bytes in {:.2} s",
            svg.len(),
            pic.tex().len(),
            png.len(),
            t0.elapsed().as_secs_f64()
        );
        g.bench_function(format!("layout_svg_{name}"), |b| {
            b.iter(|| black_box(layout(black_box(&v), Color::Index).expect("drawn").svg()))
        });
        g.bench_function(format!("layout_{name}"), |b| {
            b.iter(|| black_box(layout(black_box(&v), Color::Index).expect("drawn")))
        });
    }
    g.finish();
}

criterion_group!(benches, draw);
criterion_main!(benches);
