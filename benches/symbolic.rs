//! Symbolic versus concrete: the same operations on `(M,N)` layouts with parameters, and on
//! the layouts instantiated at `M=256, N=64`.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use tessera::ir::Int;
use tessera::ir::text::{ExprKind, parse_expr};
use tessera::lang::{Env, Session, Value, eval_expr};

/// `(op, A, B)` with B a tiler or `None`.
const CASES: &[(&str, &str, Option<&str>)] = &[
    ("composition", "(M,N):(1,M)", Some("(4,8):(1,M)")),
    ("composition", "(16,N):(1,16)", Some("(4,32):(4,16)")),
    ("logical_divide", "(M,N):(1,M)", Some("(128:1,64:1)")),
    ("zipped_divide", "(M,8):(1,M)", Some("(16,4)")),
    ("logical_product", "(4,2):(1,4)", Some("(M,N):(N,1)")),
    ("complement", "(4,M):(1,4)", None),
    ("coalesce", "((M,2),N):((1,M),2*M)", None),
    ("right_inverse", "(16,N):(1,16)", None),
    ("left_inverse", "(M,4):(4,1)", None),
];

fn args<I: Int>(src: &str, env: &Env<I>) -> Vec<Value<I>> {
    let e = parse_expr(src).unwrap();
    match &e.kind {
        ExprKind::Call(_, a) => a.iter().map(|x| eval_expr(x, env, src).unwrap()).collect(),
        _ => unreachable!(),
    }
}

fn run<I: Int>(op: &str, a: &[Value<I>]) {
    use tessera::ir::algebra as alg;
    let l = a[0].to_layout().unwrap();
    let t = a.get(1).map(|v| v.to_tiler().unwrap());
    let r = match (op, t) {
        ("composition", Some(t)) => alg::composition_tiler(&l, &t),
        ("logical_divide", Some(t)) => alg::logical_divide(&l, &t),
        ("zipped_divide", Some(t)) => alg::zipped_divide(&l, &t),
        ("logical_product", Some(t)) => alg::logical_product(&l, &t),
        ("complement", _) => alg::complement(&l, None),
        ("coalesce", _) => alg::coalesce(&l),
        ("right_inverse", _) => alg::right_inverse(&l),
        ("left_inverse", _) => alg::left_inverse(&l),
        _ => unreachable!(),
    };
    black_box(r.unwrap());
}

fn bench(c: &mut Criterion) {
    let sym = Session::new(&["M where M % 128 == 0", "N where N % 64 == 0"], &[]).unwrap();
    let mut g = c.benchmark_group("symbolic_vs_concrete");
    for (k, (op, a, b)) in CASES.iter().enumerate() {
        let src = match b {
            Some(b) => format!("{op}({a}, {b})"),
            None => format!("{op}({a})"),
        };
        let conc_src = src.replace('M', "256").replace('N', "64");
        let sargs = args(&src, sym.env());
        let cargs = args::<i64>(&conc_src, &Env::new());
        g.bench_function(format!("{k}_{op}/symbolic"), |bch| {
            bch.iter(|| run(op, black_box(&sargs)))
        });
        g.bench_function(format!("{k}_{op}/concrete"), |bch| {
            bch.iter(|| run(op, black_box(&cargs)))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
