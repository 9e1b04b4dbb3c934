//! Kernels after the front end: proof before run (refusals with counterexamples, unknown and
//! `unchecked`, symbolic kernels proved) and the reference interpreter against plain Rust
//! loops, bit for bit, with a proptest of copy kernels over random layouts.

use half::f16;
use proptest::prelude::*;
#[path = "support/kernel_gen.rs"]
mod kernel_gen;
use kernel_gen::{bind, examples, kernel, opts};
use std::collections::HashMap;
use std::sync::Arc;
use tessera::check;
use tessera_codegen::kernel::{
    Buffer, ElemType, Method, Proved, RunError, kernel_verdict, prove_kernel, run,
};
use tessera_ir::{HTuple, Int};
use tessera_verifier::{Concrete, Func, Options, Verdict};

/// A deterministic pseudo-random sequence (xorshift), for buffers.
fn noise(seed: u64, n: usize) -> Vec<f32> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x >> 40) as f32 / (1u64 << 24) as f32) * 8.0 - 4.0
        })
        .collect()
}

#[test]
fn the_example_kernels_are_proved_by_structure() {
    let src = examples();
    for name in ["transpose", "gemm", "bias_relu"] {
        let k = kernel(&src, name);
        let obligations = prove_kernel(&k, &opts());
        assert!(
            obligations
                .iter()
                .all(|o| o.verdict == Verdict::Proved && o.method == Method::Structure)
        );
        assert_eq!(kernel_verdict(&k, &obligations), Verdict::Proved);
    }
}

#[test]
fn a_swizzled_tensor_is_proved_by_the_verifier() {
    let k = kernel(
        "tensor s : f32[Sw<3,0,3> o (8,8):(8,1)]\ntensor d : f32[(8,8):(1,8)]\nkernel k { s[i,j] = d[i,j] }\n",
        "k",
    );
    let o = prove_kernel(&k, &opts());
    assert!(o.iter().all(|o| o.verdict == Verdict::Proved), "{o:?}");
    assert!(o.iter().any(|o| o.method == Method::Verifier));
}

#[test]
fn an_access_out_of_bounds_is_refused_with_a_counterexample() {
    // Stride -1: cosize 1 + 3*(-1) + 3*4 = 10, yet s(3,0) = -3.
    let k = kernel(
        "tensor s : f32[(4,4):(-1,4)]\ntensor d : f32[(4,4):(4,1)]\nkernel k { d[i,j] = s[i,j] }\n",
        "k",
    );
    let r = Proved::check(k, &opts(), true).unwrap_err();
    let Verdict::Refuted(c) = &r.verdict else {
        panic!("{r}")
    };
    assert!(
        c.summary.starts_with("s in bounds of its cosize 10: "),
        "{}",
        c.summary
    );
    assert!(r.to_string().starts_with("kernel k refused: "), "{r}");
    // The same through `tessera check`: a refuted line.
    let cf = check::load(
        "k.tess",
        "tensor s : f32[(4,4):(-1,4)]\ntensor d : f32[(4,4):(4,1)]\nkernel k { d[i,j] = s[i,j] }\n",
    )
    .unwrap();
    let out = check::run(&cf.assertions, &opts(), 1);
    assert!(
        matches!(out[0].verdict, Verdict::Refuted(_)),
        "{}",
        out[0].verdict
    );
}

#[test]
fn a_non_injective_output_is_refused_but_a_reduction_is_not() {
    // A broadcast output: every i writes d[0, j].
    let src = "tensor s : f32[(4,4):(4,1)]\ntensor d : f32[(4,4):(0,1)]\ntensor r : f32[4:1]\n\
               kernel bad { d[i,j] = s[i,j] }\nkernel sum { r[j] += s[i,j] }\n";
    let r = Proved::check(kernel(src, "bad"), &opts(), true).unwrap_err();
    let Verdict::Refuted(c) = &r.verdict else {
        panic!("{r}")
    };
    assert!(
        c.summary.starts_with("output d written once (injective): "),
        "{}",
        c.summary
    );
    // A `+=` over the contraction index i writes each r[j] from many iterations: allowed.
    let p = Proved::check(kernel(src, "sum"), &opts(), false).unwrap();
    let s: Vec<f32> = (0..16).map(|x| x as f32).collect();
    let mut bufs = vec![Buffer::F32(vec![1.0; 4]), Buffer::F32(s)];
    // Tensors in order of first use: r, then s.
    assert_eq!(p.kernel().tensors[0].name, "r");
    run(&p, &HashMap::new(), &mut bufs).unwrap();
    assert_eq!(bufs[0], Buffer::F32(vec![25.0, 29.0, 33.0, 37.0]));
}

#[test]
fn an_unknown_proof_is_refused_unless_unchecked() {
    let src = "param M, N where M % 32 == 0, N % 32 == 0, 32 <= M <= 65536, 32 <= N <= 65536\n\
               tensor s : f32[(M,N):(1,M)]\ntensor d : f32[Sw<2,0,3> o (M,N):(N,1)]\n\
               kernel k { d[i,j] = s[i,j] }\n";
    let short = Options {
        timeout_ms: Some(200),
    };
    let r = Proved::check(kernel(src, "k"), &short, false).unwrap_err();
    let Verdict::Unknown(m) = &r.verdict else {
        panic!("{r}")
    };
    assert!(m.starts_with("d in bounds of its cosize M*N: "), "{m}");
    let p = Proved::check(kernel(src, "k"), &short, true).unwrap();
    assert!(p.unchecked().is_some_and(|m| m.contains("timeout")));
    // Unchecked still runs (every offset is checked as it is used): 32x32 with the swizzle
    // of 3-bit groups stays inside the buffer, so the copy completes.
    let b = bind(&[("M", 32), ("N", 32)]);
    let src_buf: Vec<f32> = (0..1024).map(|x| x as f32).collect();
    let mut bufs = vec![Buffer::F32(vec![0.0; 1024]), Buffer::F32(src_buf)];
    run(&p, &b, &mut bufs).unwrap();
}

#[test]
fn a_kernel_unknown_symbolically_is_proved_at_the_bound_values_only() {
    let src = "param M, N where M % 32 == 0, N % 32 == 0, 32 <= M <= 65536, 32 <= N <= 65536\n\
               tensor s : f32[(M,N):(1,M)]\ntensor d : f32[Sw<2,0,3> o (M,N):(N,1)]\n\
               kernel k { d[i,j] = s[i,j] }\n";
    let short = Options {
        timeout_ms: Some(200),
    };
    let b = bind(&[("M", 32), ("N", 64)]);
    let p = Proved::check_at(kernel(src, "k"), &b, &short, false).unwrap();
    let proved_at: Vec<(&str, i64)> = p.bound().unwrap().iter().map(|(n, v)| (n.as_str(), *v)).collect();
    assert_eq!(proved_at, [("M", 32), ("N", 64)]);
    assert!(p.unchecked().is_none());
    let mut bufs = vec![
        Buffer::zeros(ElemType::F32, 2048),
        Buffer::F32((0..2048).map(|x| x as f32).collect()),
    ];
    run(&p, &b, &mut bufs).unwrap();
    // Other values are not covered by the proof.
    let other = bind(&[("M", 64), ("N", 32)]);
    assert_eq!(
        run(&p, &other, &mut bufs),
        Err(RunError::NotProvedFor {
            name: "M".into(),
            proved: 32
        })
    );
    // A layout out of bounds at the bound values is refuted there.
    let oob = "param M where 4 <= M <= 64\ntensor s : f32[(M,4):(-1,M)]\ntensor d : f32[(M,4):(4,1)]\n\
               kernel k { d[i,j] = s[i,j] }\n";
    let r = Proved::check_at(kernel(oob, "k"), &bind(&[("M", 8)]), &opts(), false).unwrap_err();
    let Verdict::Refuted(c) = &r.verdict else {
        panic!("{r}")
    };
    assert!(
        c.summary.starts_with("s in bounds of its cosize"),
        "{}",
        c.summary
    );
}

#[test]
fn bindings_and_buffers_are_checked() {
    let p = Proved::check(kernel(&examples(), "transpose"), &opts(), false).unwrap();
    let mut bufs = vec![
        Buffer::zeros(ElemType::F32, 64 * 32),
        Buffer::zeros(ElemType::F32, 64 * 32),
    ];
    assert_eq!(
        run(&p, &bind(&[("M", 64)]), &mut bufs),
        Err(RunError::Unbound("N".into()))
    );
    assert_eq!(
        run(&p, &bind(&[("M", 33), ("N", 64)]), &mut bufs),
        Err(RunError::NotAdmitted {
            name: "M".into(),
            value: 33
        })
    );
    let b = bind(&[("M", 64), ("N", 32)]);
    run(&p, &b, &mut bufs).unwrap();
    let mut short = vec![
        Buffer::zeros(ElemType::F32, 64 * 32),
        Buffer::zeros(ElemType::F32, 100),
    ];
    assert_eq!(
        run(&p, &b, &mut short),
        Err(RunError::BufferLength {
            tensor: "src".into(),
            expected: 2048,
            got: 100
        })
    );
    let mut typed = vec![
        Buffer::zeros(ElemType::F64, 2048),
        Buffer::zeros(ElemType::F32, 2048),
    ];
    assert_eq!(
        run(&p, &b, &mut typed),
        Err(RunError::BufferType {
            tensor: "dst".into(),
            expected: "f32",
            got: "f64"
        })
    );
    assert!(matches!(
        run(&p, &b, &mut bufs[..1]),
        Err(RunError::BufferCount { expected: 2, got: 1 })
    ));
}

#[test]
fn transpose_equals_the_loop() {
    let p = Proved::check(kernel(&examples(), "transpose"), &opts(), false).unwrap();
    let (m, n) = (64usize, 96usize);
    let src = noise(1, m * n);
    // Tensors in order of first use: dst, src.
    let mut bufs = vec![Buffer::zeros(ElemType::F32, m * n), Buffer::F32(src.clone())];
    run(&p, &bind(&[("M", m as i64), ("N", n as i64)]), &mut bufs).unwrap();
    let mut want = vec![0.0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            want[i * n + j] = src[i + m * j];
        }
    }
    assert_eq!(bufs[0], Buffer::F32(want));
}

#[test]
fn gemm_equals_the_loop_in_the_documented_order() {
    let p = Proved::check(kernel(&examples(), "gemm"), &opts(), false).unwrap();
    let (m, n, k) = (64usize, 32usize, 48usize);
    let names: Vec<&str> = p.kernel().tensors.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["C", "A", "B"]);
    let (a, b, c0) = (noise(2, m * k), noise(3, n * k), noise(4, m * n));
    let mut bufs = vec![
        Buffer::F32(c0.clone()),
        Buffer::F32(a.clone()),
        Buffer::F32(b.clone()),
    ];
    run(
        &p,
        &bind(&[("M", m as i64), ("N", n as i64), ("K", k as i64)]),
        &mut bufs,
    )
    .unwrap();
    let mut want = c0;
    for i in 0..m {
        for j in 0..n {
            // Start from C's element, add the products in increasing k, store once.
            let mut acc = want[i + m * j];
            for kk in 0..k {
                acc += a[i * k + kk] * b[j * k + kk];
            }
            want[i + m * j] = acc;
        }
    }
    assert_eq!(bufs[0], Buffer::F32(want));
}

#[test]
fn bias_relu_in_f16_rounds_to_nearest_even() {
    let p = Proved::check(kernel(&examples(), "bias_relu"), &opts(), false).unwrap();
    let names: Vec<&str> = p.kernel().tensors.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["y", "x", "b"]);
    let (m, n) = (32usize, 64usize);
    let mut x: Vec<f16> = noise(5, m * n).into_iter().map(f16::from_f32).collect();
    let mut b: Vec<f16> = noise(6, n).into_iter().map(f16::from_f32).collect();
    // Ties: 2048 + 1 = 2049 lies halfway between f16 neighbours 2048 and 2050 (even: 2048);
    // 2048 + 3 = 2051 lies halfway between 2050 and 2052 (even mantissa: 2052).
    x[0] = f16::from_f32(2048.0);
    b[0] = f16::from_f32(1.0);
    x[n] = f16::from_f32(2048.0);
    b[1] = f16::from_f32(3.0);
    x[n + 1] = f16::from_f32(2048.0);
    let mut bufs = vec![
        Buffer::zeros(ElemType::F16, m * n),
        Buffer::F16(x.clone()),
        Buffer::F16(b.clone()),
    ];
    run(&p, &bind(&[("M", m as i64), ("N", n as i64)]), &mut bufs).unwrap();
    let Buffer::F16(y) = &bufs[0] else { panic!() };
    let mut rounded = 0;
    for i in 0..m {
        for j in 0..n {
            let exact = (x[i * n + j].to_f32() + b[j].to_f32()).max(0.0);
            let want = f16::from_f32(exact);
            assert_eq!(y[i * n + j].to_bits(), want.to_bits(), "({i},{j})");
            rounded += usize::from(want.to_f32() != exact);
        }
    }
    assert!(rounded > 0, "some sums needed rounding");
    assert_eq!(y[0].to_f32(), 2048.0);
    assert_eq!(y[n].to_f32(), 2048.0);
    assert_eq!(y[n + 1].to_f32(), 2052.0);
}

#[test]
fn copies_move_bits_and_integers_wrap() {
    let src = "tensor a : f16[4:1]\ntensor c : f16[4:1]\ntensor p : i32[4:1]\ntensor q : i32[4:1]\n\
               kernel copy { c[i] = a[i] }\nkernel ints { q[i] = p[i] * 2 + 1 }\nkernel div { q[i] = p[i] / p[i] }\n";
    let pc = Proved::check(kernel(src, "copy"), &opts(), false).unwrap();
    let nan = f16::from_bits(0x7d01); // a signalling NaN with a payload
    let mut bufs = vec![
        Buffer::zeros(ElemType::F16, 4),
        Buffer::F16(vec![nan, f16::ONE, f16::NEG_ZERO, f16::MAX]),
    ];
    run(&pc, &HashMap::new(), &mut bufs).unwrap();
    let Buffer::F16(c) = &bufs[0] else { panic!() };
    assert_eq!(
        c.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        [0x7d01, 0x3c00, 0x8000, 0x7bff]
    );
    let pi = Proved::check(kernel(src, "ints"), &opts(), false).unwrap();
    let mut bufs = vec![Buffer::I32(vec![0; 4]), Buffer::I32(vec![1, -3, i32::MAX, 7])];
    run(&pi, &HashMap::new(), &mut bufs).unwrap();
    assert_eq!(bufs[0], Buffer::I32(vec![3, -5, -1, 15]));
    let pd = Proved::check(kernel(src, "div"), &opts(), false).unwrap();
    let mut bufs = vec![Buffer::I32(vec![0; 4]), Buffer::I32(vec![1, 2, 0, 3])];
    assert_eq!(
        run(&pd, &HashMap::new(), &mut bufs),
        Err(RunError::DivisionByZero(ElemType::I32))
    );
}

/// One dimension of a random layout: a leaf or two leaves, with their strides.
#[derive(Clone, Debug)]
struct Dim {
    leaves: Vec<i64>,
}

fn dims() -> impl Strategy<Value = Vec<Dim>> {
    let dim = prop_oneof![
        (1i64..6).prop_map(|s| Dim { leaves: vec![s] }),
        (1i64..4, 1i64..4).prop_map(|(a, b)| Dim { leaves: vec![a, b] }),
    ];
    proptest::collection::vec(dim, 2..=2)
}

/// The text of a layout with those dimensions and the flat strides `d`.
fn text(ds: &[Dim], d: &[i64]) -> String {
    let mut k = 0;
    let mut shape = Vec::new();
    let mut stride = Vec::new();
    for x in ds {
        let n = x.leaves.len();
        let s: Vec<String> = x.leaves.iter().map(i64::to_string).collect();
        let t: Vec<String> = d[k..k + n].iter().map(i64::to_string).collect();
        k += n;
        if n == 1 {
            shape.push(s[0].clone());
            stride.push(t[0].clone());
        } else {
            shape.push(format!("({})", s.join(",")));
            stride.push(format!("({})", t.join(",")));
        }
    }
    format!("({}):({})", shape.join(","), stride.join(","))
}

/// The offset of a layout at the coordinate `(i, j)`, by the layout algebra's own evaluation.
fn at(c: &Concrete, i: i64, j: i64) -> i64 {
    let crd = HTuple::flat([i, j]);
    match c {
        Concrete::Layout(l) => *l.eval(&crd).unwrap().as_int().unwrap(),
        Concrete::Composed(c) => c.eval(&crd).unwrap(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// `dst[i,j] = src[i,j]` over random hierarchical, swizzled, broadcast and negative-stride
    /// sources and compact destinations in a random order: refused exactly when a source offset
    /// leaves `[0, cosize)`, and otherwise `dst` holds what direct evaluation says.
    #[test]
    fn copy_kernels_over_random_layouts(
        ds in dims(),
        strides in proptest::collection::vec(-1i64..9, 4),
        order in Just(()).prop_perturb(|_, mut rng| { let mut v = vec![0usize, 1, 2, 3]; for k in (1..4).rev() { v.swap(k, (rng.next_u32() as usize) % (k + 1)); } v }),
        swizzle in prop_oneof![Just(None), (1i64..3, 0i64..2, 0i64..2).prop_map(|(b, m, e)| Some((b, m, b + e)))],
    ) {
        let nleaves: usize = ds.iter().map(|x| x.leaves.len()).sum();
        let flat: Vec<i64> = ds.iter().flat_map(|x| x.leaves.clone()).collect();
        // Destination: compact, the leaves taken in a random order.
        let mut dd = vec![0i64; nleaves];
        let mut m = 1;
        for &k in order.iter().filter(|&&k| k < nleaves) {
            dd[k] = m;
            m *= flat[k];
        }
        let src_text = match swizzle {
            Some((b, mm, s)) => format!("Sw<{b},{mm},{s}> o {}", text(&ds, &strides[..nleaves])),
            None => text(&ds, &strides[..nleaves]),
        };
        let file = format!(
            "tensor src : f32[{src_text}]\ntensor dst : f32[{}]\nkernel copy {{ dst[i,j] = src[i,j] }}\n",
            text(&ds, &dd)
        );
        let k = kernel(&file, "copy");
        let facts = Arc::new(Default::default());
        let sf = Func::parse(&src_text, &facts).unwrap().at(&HashMap::new()).unwrap();
        let df = Func::parse(&text(&ds, &dd), &facts).unwrap().at(&HashMap::new()).unwrap();
        let (e0, e1): (i64, i64) = (ds[0].leaves.iter().product(), ds[1].leaves.iter().product());
        let cosize = k.tensors[1].cosize.as_const().unwrap();
        let inside = (0..e0).all(|i| (0..e1).all(|j| (0..cosize).contains(&at(&sf, i, j))));
        match Proved::check(k, &opts(), false) {
            Err(r) => {
                prop_assert!(!inside, "{file}: refused although in bounds: {r}");
                prop_assert!(matches!(r.verdict, Verdict::Refuted(_)), "{file}: {r}");
            }
            Ok(p) => {
                prop_assert!(inside, "{file}: accepted although out of bounds");
                let src: Vec<f32> = (0..cosize).map(|x| x as f32 + 0.5).collect();
                let mut bufs = vec![Buffer::zeros(ElemType::F32, m as usize), Buffer::F32(src.clone())];
                run(&p, &HashMap::new(), &mut bufs).unwrap();
                let Buffer::F32(got) = &bufs[0] else { panic!() };
                for i in 0..e0 {
                    for j in 0..e1 {
                        let want = src[at(&sf, i, j) as usize];
                        prop_assert_eq!(got[at(&df, i, j) as usize].to_bits(), want.to_bits(), "{} ({},{})", file, i, j);
                    }
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Random output layouts (strides 0 to 8, hierarchical): the kernel is refused exactly
    /// when two coordinates reach one offset (direct evaluation), whether the structural
    /// proof or the verifier answers.
    #[test]
    fn outputs_are_refused_exactly_when_not_injective(
        ds in dims(),
        strides in proptest::collection::vec(0i64..9, 4),
    ) {
        let nleaves: usize = ds.iter().map(|x| x.leaves.len()).sum();
        let out = text(&ds, &strides[..nleaves]);
        let file = format!(
            "tensor s : f32[{}]\ntensor d : f32[{out}]\nkernel k {{ d[i,j] = s[i,j] }}\n",
            text(&ds, &vec![0; nleaves])
        );
        let k = kernel(&file, "k");
        let c = Func::parse(&out, &Arc::new(Default::default())).unwrap().at(&HashMap::new()).unwrap();
        let (e0, e1): (i64, i64) = (ds[0].leaves.iter().product(), ds[1].leaves.iter().product());
        let mut seen = std::collections::HashSet::new();
        let injective = (0..e0).all(|i| (0..e1).all(|j| seen.insert(at(&c, i, j))));
        let r = Proved::check(k, &opts(), false);
        prop_assert_eq!(r.is_ok(), injective, "{}: {:?}", file, r.err().map(|e| e.to_string()));
    }
}
