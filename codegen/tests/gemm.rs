//! The JIT-compiled matrix product against a plain triple loop (in `f64`, within a rounding
//! tolerance): random extents `m, n, k` in `0..=70` (multiples and non-multiples of the register
//! tile, 1, 0), random layouts for A, B and C (row- and column-major, padded leading
//! dimensions, hierarchical modes, broadcast rows, offsets, swizzles), random inputs, on 1 and
//! 3 threads, on every micro-kernel (Cranelift's and the wide ones this CPU runs), which must
//! also agree with each other bit for bit. Then the micro-kernels side by side on the edges
//! (tile and block boundaries, `k` = 0, 1, special values) on 1 and 2 threads. And the
//! refusals: short buffers, no thread, offsets outside the buffer.

use proptest::prelude::*;
use tessera_codegen::{GemmKernel, GemmMicro, GemmSpec};
use tessera_ir::index::{IndexExpr, lower_composed_modes, lower_modes};
use tessera_ir::text::{Read, read};

/// The offset of a layout at a linear (colexicographic) index, by direct evaluation.
type Offset = Box<dyn Fn(i64) -> i64>;

/// The offset expression over `c0, c1` and the offset function by linear index.
fn layout(src: &str) -> (IndexExpr, Offset) {
    match read::<i64>(src, &|_| None).unwrap() {
        Read::Layout(l) => {
            let e = lower_modes(&l).unwrap();
            (e, Box::new(move |i| *l.eval_index(&i).unwrap().as_int().unwrap()))
        }
        Read::Composed(c) => {
            let e = lower_composed_modes(&c).unwrap();
            (e, Box::new(move |i| c.eval_index(&i).unwrap()))
        }
        Read::Tuple(_) => panic!("{src}"),
    }
}

/// The text of a layout of `r x k` (first coordinate `r`) of the given kind; `injective`
/// leaves out the broadcast kind.
fn text(kind: u8, r: i64, k: i64, pad: i64, injective: bool) -> String {
    match kind {
        0 => format!("({r},{k}):({k},1)"),
        1 => format!("({r},{k}):(1,{r})"),
        // A padded leading dimension, after an offset (an identity swizzle carries it).
        2 => format!("Sw<0,0,0> o {pad} o ({r},{k}):(1,{})", r + pad),
        // Hierarchical rows where `r` is even: row-major through two modes.
        3 if r % 2 == 0 => format!("((2,{}),{k}):(({k},{}),1)", r / 2, 2 * k),
        3 => format!("({r},{k}):({},1)", k + pad),
        4 if !injective => format!("({r},{k}):(0,1)"),
        _ => format!("Sw<2,1,3> o {pad} o ({r},{k}):({k},1)"),
    }
}

/// Fills a buffer of `len` floats in `[-1, 1)` from `seed`.
fn fill(len: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    (0..len)
        .map(|_| {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((s >> 40) as f32) / (1u64 << 23) as f32 - 1.0
        })
        .collect()
}

fn case() -> impl Strategy<Value = ([i64; 3], [u8; 3], i64, u64)> {
    (
        [0i64..=70, 0i64..=70, 0i64..=70],
        [0u8..6, 0u8..6, 0u8..6],
        0i64..=5,
        any::<u64>(),
    )
}

/// Every micro-kernel there is to ask for (each resolved on this CPU; Cranelift's first).
const MICROS: [GemmMicro; 4] = [
    GemmMicro::Cranelift,
    GemmMicro::Avx2,
    GemmMicro::Avx512,
    GemmMicro::Auto,
];

/// Checks one product on 1 and 3 threads, on every micro-kernel; `Err` with a message on a
/// difference from the triple loop or between two micro-kernels' bits, `Ok(false)` when a
/// swizzled layout was refused (its offsets not proved inside a buffer).
fn check([m, n, k]: [i64; 3], [ka, kb, kc]: [u8; 3], pad: i64, seed: u64) -> Result<bool, String> {
    let dummy = "(1,1):(1,1)".to_string();
    let empty = m == 0 || n == 0 || k == 0;
    let (ta, tb, tc) = if empty {
        (dummy.clone(), dummy.clone(), dummy)
    } else {
        (
            text(ka, m, k, pad, false),
            text(kb, n, k, pad, false),
            text(kc, m, n, pad, true),
        )
    };
    let ((ea, fa), (eb, fb), (ec, fc)) = (layout(&ta), layout(&tb), layout(&tc));
    let spec = GemmSpec {
        a: ea,
        b: eb,
        c: ec,
        m,
        n,
        k,
    };
    let mut first: Option<(GemmMicro, Vec<u32>)> = None;
    let mut inputs = None;
    for micro in resolved() {
        let g = match GemmKernel::compile_with(&spec, micro) {
            Ok(g) => g,
            // A swizzled layout whose interval bound is not proved is refused, never run.
            Err(e) if [&ta, &tb, &tc].iter().any(|t| t.starts_with("Sw<2")) => {
                let _ = e;
                return Ok(false);
            }
            Err(e) => return Err(format!("{ta} {tb} {tc}: {e}")),
        };
        if g.micro() != micro.resolve() {
            return Err(format!("{micro:?} ran {:?}", g.micro()));
        }
        let (a, b, c0, want, scale) = inputs.get_or_insert_with(|| {
            let a = fill(g.a_len, seed);
            let b = fill(g.b_len, seed ^ 1);
            let c0 = fill(g.c_len.max(1), seed ^ 2);
            let (mut want, mut scale) = (
                c0.iter().map(|x| f64::from(*x)).collect::<Vec<_>>(),
                vec![0f64; c0.len()],
            );
            if !empty {
                for i in 0..m {
                    for j in 0..n {
                        let co = fc(i + j * m) as usize;
                        scale[co] += f64::from(c0[co]).abs();
                        for p in 0..k {
                            let x = f64::from(a[fa(i + p * m) as usize]);
                            let y = f64::from(b[fb(j + p * n) as usize]);
                            want[co] += x * y;
                            scale[co] += (x * y).abs();
                        }
                    }
                }
            }
            (a, b, c0, want, scale)
        });
        for threads in [1, 3] {
            let mut got = c0.clone();
            g.run(a, b, &mut got, threads).map_err(|e| e.to_string())?;
            let what = format!("{m}x{n}x{k} A {ta}, B {tb}, C {tc}, {threads} threads, {micro:?}");
            for (o, (x, w)) in got.iter().zip(want.iter()).enumerate() {
                let tol = 1e-5 * scale[o] + 1e-6;
                if (f64::from(*x) - w).abs() > tol {
                    return Err(format!("{what}: C offset {o}: {x} != {w}"));
                }
            }
            let bits: Vec<u32> = got.iter().map(|x| x.to_bits()).collect();
            match &first {
                None => first = Some((g.micro(), bits)),
                Some((m0, b0)) => {
                    if let Some(o) = (0..bits.len()).find(|o| bits[*o] != b0[*o]) {
                        return Err(format!(
                            "{what}: C offset {o}: {:?} gives {:#010x}, {m0:?} {:#010x}",
                            g.micro(),
                            bits[o],
                            b0[o]
                        ));
                    }
                }
            }
        }
    }
    Ok(true)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn jit_gemm_equals_the_triple_loop((ext, kinds, pad, seed) in case()) {
        let r = check(ext, kinds, pad, seed);
        prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }
}

#[test]
fn edges_and_every_layout_kind() {
    // Extents around the tiles (4 x 12) and the blocks, each layout kind for each operand.
    for (t, ext) in [
        [1, 1, 1],
        [5, 13, 3],
        [4, 12, 1],
        [70, 70, 70],
        [3, 25, 9],
        [9, 2, 70],
    ]
    .into_iter()
    .enumerate()
    {
        for kind in 0..6u8 {
            let kinds = [kind, (kind + 1) % 6, (kind + 2) % 6];
            let ran = check(ext, kinds, (t % 4) as i64, t as u64 * 7 + u64::from(kind)).unwrap();
            // The swizzles used are proved inside their buffers: none is refused.
            assert!(ran, "{ext:?} {kinds:?}");
        }
    }
    // Zero extents: C unchanged.
    for ext in [[0, 5, 5], [5, 0, 5], [5, 5, 0], [0, 0, 0]] {
        assert!(check(ext, [0, 1, 2], 1, 3).unwrap());
    }
}

#[test]
fn a_large_product_crosses_the_k_and_row_blocks() {
    // k > KC (512) and m > MC (96, 192): several packed blocks of each; n > NC (768, 1536):
    // several packed blocks of B.
    assert!(check([200, 30, 1100], [0, 0, 1], 0, 11).unwrap());
    assert!(check([7, 790, 20], [1, 2, 0], 3, 12).unwrap());
    assert!(check([40, 1550, 9], [0, 1, 0], 1, 13).unwrap());
}

/// Values over a wide range of magnitudes and both signs (so that any other order of the sums
/// would round differently), and, where `special`, NaNs, infinities, signed zeros and
/// subnormals among them.
fn values(len: usize, seed: u64, special: bool) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let r = (s >> 11) as u32;
            match (special, r % 48) {
                (true, 0) => f32::NAN,
                (true, 1) => f32::INFINITY,
                (true, 2) => f32::NEG_INFINITY,
                (true, 3) => -0.0,
                (true, 4) => f32::from_bits((r >> 9) & 0x7f_ffff | 1),
                _ => {
                    let mantissa = 1.0 + (r >> 9) as f32 / (1u32 << 23) as f32;
                    let sign = if r & 64 == 0 { 1.0 } else { -1.0 };
                    sign * mantissa * 2f32.powi((r % 31) as i32 - 15)
                }
            }
        })
        .collect()
}

/// The micro-kernels this CPU runs, each once (Cranelift's first).
fn resolved() -> Vec<GemmMicro> {
    let mut v: Vec<GemmMicro> = Vec::new();
    for m in MICROS.map(GemmMicro::resolve) {
        if !v.contains(&m) {
            v.push(m);
        }
    }
    v
}

#[test]
fn the_widest_micro_kernel_runs_where_the_cpu_has_it() {
    #[cfg(target_arch = "x86_64")]
    let (avx512, avx2) = (
        std::arch::is_x86_feature_detected!("avx512f"),
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma"),
    );
    #[cfg(not(target_arch = "x86_64"))]
    let (avx512, avx2) = (false, false);
    let or_cranelift = |has: bool, m: GemmMicro| if has { m } else { GemmMicro::Cranelift };
    let auto = match (avx512, avx2) {
        (true, _) => GemmMicro::Avx512,
        (false, true) => GemmMicro::Avx2,
        _ => GemmMicro::Cranelift,
    };
    assert_eq!(GemmMicro::Auto.resolve(), auto);
    assert_eq!(
        GemmMicro::Avx512.resolve(),
        or_cranelift(avx512, GemmMicro::Avx512)
    );
    assert_eq!(GemmMicro::Avx2.resolve(), or_cranelift(avx2, GemmMicro::Avx2));
    assert_eq!(GemmMicro::Cranelift.resolve(), GemmMicro::Cranelift);
    let (a, _) = layout("(5,3):(3,1)");
    let (b, _) = layout("(7,3):(3,1)");
    let (c, _) = layout("(5,7):(1,5)");
    let spec = GemmSpec {
        a,
        b,
        c,
        m: 5,
        n: 7,
        k: 3,
    };
    for micro in MICROS {
        assert_eq!(
            GemmKernel::compile_with(&spec, micro).unwrap().micro(),
            micro.resolve()
        );
    }
    assert_eq!(GemmKernel::compile(&spec).unwrap().micro(), auto);
    if auto == GemmMicro::Cranelift {
        eprintln!("note: this CPU runs no wide micro-kernel; only Cranelift's is tested");
    }
}

#[test]
fn the_micro_kernels_agree_bit_for_bit_on_the_edges() {
    let micros = resolved();
    // Around the tiles (4 x 12, 16 x 6, 32 x 12) and the blocks (KC 512, MC 96 and 192, NC 768
    // and 1536), k = 0 and 1, extents where two threads split the rows unevenly.
    let cases: [[i64; 3]; 16] = [
        [1, 1, 1],
        [3, 5, 1],
        [4, 12, 2],
        [16, 6, 1],
        [31, 11, 7],
        [32, 12, 5],
        [33, 13, 3],
        [47, 7, 9],
        [64, 24, 1],
        [65, 25, 17],
        [17, 6, 513],
        [200, 14, 40],
        [5, 1600, 3],
        [16, 6, 0],
        [0, 5, 5],
        [9, 0, 2],
    ];
    for (t, [m, n, k]) in cases.into_iter().enumerate() {
        for kinds in [[0u8, 0, 1], [1, 1, 0], [2, 3, 2]] {
            let (ta, tb, tc) = if m == 0 || n == 0 || k == 0 {
                let one = "(1,1):(1,1)".to_string();
                (one.clone(), one.clone(), one)
            } else {
                (
                    text(kinds[0], m, k, 3, false),
                    text(kinds[1], n, k, 1, false),
                    text(kinds[2], m, n, 2, true),
                )
            };
            let spec = GemmSpec {
                a: layout(&ta).0,
                b: layout(&tb).0,
                c: layout(&tc).0,
                m,
                n,
                k,
            };
            let special = t % 2 == 1;
            let mut want: Option<Vec<u32>> = None;
            for micro in &micros {
                let g = GemmKernel::compile_with(&spec, *micro).unwrap();
                let seed = t as u64 * 16 + u64::from(kinds[2]);
                let a = values(g.a_len, seed, special);
                let b = values(g.b_len, seed ^ 1, special);
                let c0 = values(g.c_len.max(1), seed ^ 2, special);
                for threads in [1, 2] {
                    let mut c = c0.clone();
                    g.run(&a, &b, &mut c, threads).unwrap();
                    let bits: Vec<u32> = c.iter().map(|x| x.to_bits()).collect();
                    if m == 0 || n == 0 || k == 0 {
                        assert_eq!(c0.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), bits);
                    }
                    let w = want.get_or_insert_with(|| bits.clone());
                    if let Some(o) = (0..bits.len()).find(|o| bits[*o] != w[*o]) {
                        panic!(
                            "{m}x{n}x{k} A {ta}, B {tb}, C {tc}, {threads} threads: {micro:?} gives \
                             {:#010x} at C offset {o}, Cranelift's 1 thread {:#010x}",
                            bits[o], w[o]
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn refusals_and_checked_buffers() {
    let (a, _) = layout("(6,5):(5,1)");
    let (b, _) = layout("(7,5):(5,1)");
    let (c, _) = layout("(6,7):(1,6)");
    let spec = GemmSpec {
        a,
        b,
        c,
        m: 6,
        n: 7,
        k: 5,
    };
    let g = GemmKernel::compile(&spec).unwrap();
    assert_eq!((g.a_len, g.b_len, g.c_len), (30, 35, 42));
    let (a, b) = (vec![1f32; 30], vec![1f32; 35]);
    let mut short = vec![0f32; 41];
    let e = g.run(&a, &b, &mut short, 1).unwrap_err().to_string();
    assert!(e.contains("buffers of 30, 35 and 41"), "{e}");
    assert!(g.run(&a[..29], &b, &mut [0f32; 42], 1).is_err());
    assert!(g.run(&a, &b[..34], &mut [0f32; 42], 1).is_err());
    let mut c = vec![0f32; 42];
    assert!(g.run(&a, &b, &mut c, 0).is_err());
    g.run(&a, &b, &mut c, 4).unwrap();
    assert!(c.iter().all(|x| *x == 5.0));
    // A negative stride's offsets leave the buffer: refused before any code exists.
    let (neg, _) = layout("(6,5):(-1,6)");
    let bad = GemmSpec {
        a: neg,
        ..spec.clone()
    };
    let e = GemmKernel::compile(&bad).unwrap_err().to_string();
    assert!(e.contains("not proved inside"), "{e}");
    let bad = GemmSpec { k: -1, ..spec };
    assert!(GemmKernel::compile(&bad).is_err());
}
