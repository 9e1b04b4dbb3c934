//! Proving the identities of the example check files: egg (the expressions rewritten with
//! the algebra's laws) against z3 alone (the values compared pointwise), per identity.
//!
//! Besides criterion's measurements, prints a table (the median of 9 runs of each prover on
//! each identity), the one the book's figures (figures/prover.md) quote.

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::{Duration, Instant};
use tessera::check::{self, Assertion};
use tessera::identity::{Limits, by_rewriting};
use tessera::verifier::{Options, Verdict, prove};

const FILES: [&str; 5] = [
    "examples/associativity.tess",
    "examples/divide_identity.tess",
    "examples/products.tess",
    "examples/inverses.tess",
    "examples/unbounded_identities.tess",
];

/// Every `equal` assertion of the example files that egg closes.
fn identities() -> Vec<Assertion> {
    let mut out = Vec::new();
    for f in FILES {
        let path = format!("{}/{f}", env!("CARGO_MANIFEST_DIR"));
        let src = std::fs::read_to_string(&path).expect("example file");
        for a in check::load(f, &src).expect("example loads").assertions {
            if let Some(id) = &a.identity
                && by_rewriting(&id.lhs, &id.rhs, &Limits::default()).closed
            {
                out.push(a);
            }
        }
    }
    out
}

fn egg(a: &Assertion) -> bool {
    let id = a.identity.as_ref().expect("an identity");
    by_rewriting(&id.lhs, &id.rhs, &Limits::default()).closed
}

fn z3(a: &Assertion) -> bool {
    let opts = Options {
        timeout_ms: Some(60_000),
    };
    matches!(prove(&a.property, &opts), Verdict::Proved)
}

fn median(f: impl Fn() -> bool) -> Duration {
    let mut t: Vec<Duration> = (0..9)
        .map(|_| {
            let t0 = Instant::now();
            assert!(f());
            t0.elapsed()
        })
        .collect();
    t.sort();
    t[4]
}

fn ms(d: Duration) -> String {
    let x = d.as_secs_f64() * 1e3;
    if x < 1.0 {
        format!("{x:.2} ms")
    } else {
        format!("{x:.1} ms")
    }
}

fn table(ids: &[Assertion]) {
    println!("\n| identity | egg | z3 alone | z3 / egg |");
    println!("|---|---|---|---|");
    for a in ids {
        let (e, z) = (median(|| egg(a)), median(|| z3(a)));
        println!(
            "| `{}:{}` `{}` | {} | {} | {:.0}x |",
            a.file.trim_start_matches("examples/"),
            a.line,
            a.text,
            ms(e),
            ms(z),
            z.as_secs_f64() / e.as_secs_f64()
        );
    }
    println!();
}

fn bench(c: &mut Criterion) {
    let ids = identities();
    table(&ids);
    let mut g = c.benchmark_group("identities");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_millis(400));
    for a in &ids {
        let name = format!("{}:{}", a.file.trim_start_matches("examples/"), a.line);
        g.bench_function(format!("egg/{name}"), |b| b.iter(|| black_box(egg(a))));
        g.bench_function(format!("z3/{name}"), |b| b.iter(|| black_box(z3(a))));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
