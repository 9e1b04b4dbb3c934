//! The structural proofs of symbolic kernels (monotone bounds of polynomial offsets, sorted
//! stride domination over symbols) against brute force at every parameter value the facts
//! admit: a generator of layouts over `M` and `N` (symbolic and product extents, strides of
//! every sign, `0`, `1`, products and sums of parameters, offsets), and the share of
//! obligations structure decides. A structural "proved" that brute force contradicts at any
//! admitted value fails the test.

use std::collections::HashMap;
use tessera::check;
use tessera_codegen::kernel::{Method, ObligationKind, prove_kernel};
use tessera_verifier::{Options, Verdict};

/// xorshift64*: a deterministic stream.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[(self.next() % xs.len() as u64) as usize]
    }
}

/// A random shape over `M` and `N` of `rank` modes.
fn shape<'a>(r: &mut Rng, rank: usize) -> Vec<&'a str> {
    let extents = ["M", "N", "2", "3", "1", "M*N"];
    (0..rank).map(|_| r.pick(&extents)).collect()
}

/// A random layout of `shape`, with an optional offset.
fn layout(r: &mut Rng, shape: &[&str]) -> String {
    let rank = shape.len();
    let strides = [
        "0", "1", "2", "M", "N", "M*N", "N+1", "M+1", "-1", "-M", "2*M", "M*M",
    ];
    let stride: Vec<&str> = (0..rank).map(|_| r.pick(&strides)).collect();
    let core = if rank == 1 {
        format!("{}:{}", shape[0], stride[0])
    } else {
        format!("({}):({})", shape.join(","), stride.join(","))
    };
    match r.pick(&["", "", "1", "M", "3"]) {
        "" => core,
        o => format!("{o} o {core}"),
    }
}

/// Every offset of `layout` at `b`, or `None` when it does not evaluate.
fn offsets(t: &tessera_codegen::kernel::Tensor, b: &HashMap<String, i64>) -> Option<(Vec<i64>, i64)> {
    let c = t.layout.at(b).ok()?;
    let n = c.size().ok()?;
    let offs: Vec<i64> = (0..n).map(|i| c.offset(i)).collect::<Result<_, _>>().ok()?;
    Some((offs, t.cosize.eval(b).ok()?))
}

#[test]
fn structural_proofs_hold_at_every_admitted_value() {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut total, mut structural, mut kernels) = (0usize, 0usize, 0usize);
    let opts = Options { timeout_ms: Some(1) };
    for case in 0..400 {
        let rank = 1 + (r.next() % 3) as usize;
        let sh = shape(&mut r, rank);
        let (x, y) = (layout(&mut r, &sh), layout(&mut r, &sh));
        let idx = ["i", "j", "k"][..rank].join(",");
        let src = format!(
            "param M, N where 1 <= M <= 7, 1 <= N <= 7\ntensor x : f32[{x}]\ntensor y : f32[{y}]\n\
             kernel k {{ y[{idx}] = x[{idx}] }}\n"
        );
        let Ok(file) = check::load("g.tess", &src) else {
            continue;
        };
        let Some(k) = file.kernels.first() else { continue };
        kernels += 1;
        for o in prove_kernel(k, &opts) {
            total += 1;
            if o.method != Method::Structure {
                continue;
            }
            structural += 1;
            assert_eq!(o.verdict, Verdict::Proved, "case {case}: {src}");
            let t = &k.tensors[o.tensor.index()];
            for m in 1..=7 {
                for n in 1..=7 {
                    let b = HashMap::from([("M".to_string(), m), ("N".to_string(), n)]);
                    let Some((offs, len)) = offsets(t, &b) else {
                        panic!(
                            "case {case}: {} does not evaluate at M={m}, N={n}: {src}",
                            t.layout
                        )
                    };
                    match o.kind {
                        ObligationKind::InBounds => assert!(
                            offs.iter().all(|&p| 0 <= p && p < len),
                            "case {case}: {} proved in bounds of {len} by structure, wrong at M={m}, N={n}: {src}",
                            t.layout
                        ),
                        ObligationKind::Injective => {
                            let mut s = offs.clone();
                            s.sort_unstable();
                            s.dedup();
                            assert_eq!(
                                s.len(),
                                offs.len(),
                                "case {case}: {} proved injective by structure, wrong at M={m}, N={n}: {src}",
                                t.layout
                            );
                        }
                    }
                }
            }
        }
    }
    eprintln!("{kernels} kernels, {total} obligations, {structural} decided by structure");
    assert!(kernels > 100, "{kernels}");
    // The structural share: most obligations of these layouts are decided before any solver.
    assert!(structural * 2 > total, "{structural} of {total}");
}

#[test]
fn the_issue_kernels_are_proved_by_structure() {
    let src = "param M, N where 1 <= M <= 65536, 1 <= N <= 65536\n\
        tensor x : f32[(M,M):(M,1)]\ntensor y : f32[1 o (M,M):(M,1)]\nkernel k1 { y[i,j] = x[i,j] }\n\
        tensor a : f32[(N,M,N):(M*N,1,M)]\ntensor b : f32[(N,M,N):(1,N,M*N)]\nkernel k2 { b[i,j,k] = a[i,j,k] }\n\
        tensor p : f32[(M,N):(N+1,1)]\ntensor q : f32[(M,N):(1,M)]\nkernel k3 { q[i,j] = p[i,j] * 2 }\n";
    let file = check::load("s.tess", src).unwrap();
    for k in &file.kernels {
        for o in prove_kernel(k, &Options::default()) {
            assert_eq!(
                (o.verdict, o.method),
                (Verdict::Proved, Method::Structure),
                "{}",
                k.name
            );
        }
    }
}
