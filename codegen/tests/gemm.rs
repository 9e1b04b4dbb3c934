//! The JIT-compiled matrix product against a plain triple loop (in `f64`, within a rounding
//! tolerance): random extents `m, n, k` in `0..=70` (multiples and non-multiples of the register
//! tile, 1, 0), random layouts for A, B and C (row- and column-major, padded leading
//! dimensions, hierarchical modes, broadcast rows, offsets, swizzles), random inputs, on 1 and
//! 3 threads. And the refusals: short buffers, no thread, offsets outside the buffer.

use proptest::prelude::*;
use tessera_codegen::{GemmKernel, GemmSpec};
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

/// Checks one product on 1 and 3 threads; `Err` with a message on a difference, `Ok(false)`
/// when a swizzled layout was refused (its offsets not proved inside a buffer).
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
    let g = match GemmKernel::compile(&spec) {
        Ok(g) => g,
        // A swizzled layout whose interval bound is not proved is refused, never run.
        Err(e) if [&ta, &tb, &tc].iter().any(|t| t.starts_with("Sw<2")) => {
            let _ = e;
            return Ok(false);
        }
        Err(e) => return Err(format!("{ta} {tb} {tc}: {e}")),
    };
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
    for threads in [1, 3] {
        let mut got = c0.clone();
        g.run(&a, &b, &mut got, threads).map_err(|e| e.to_string())?;
        for (o, (x, w)) in got.iter().zip(&want).enumerate() {
            let tol = 1e-5 * scale[o] + 1e-6;
            if (f64::from(*x) - w).abs() > tol {
                return Err(format!(
                    "{m}x{n}x{k} A {ta}, B {tb}, C {tc}, {threads} threads: C offset {o}: {x} != {w}"
                ));
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
    // k > KC (512) and m > MC (96): several packed blocks of each; n > NC (768): several
    // packed blocks of B.
    assert!(check([200, 30, 1100], [0, 0, 1], 0, 11).unwrap());
    assert!(check([7, 790, 20], [1, 2, 0], 3, 12).unwrap());
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
