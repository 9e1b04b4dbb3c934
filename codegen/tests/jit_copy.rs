//! JIT-compiled copies against direct evaluation of the layouts: random rank-2 layouts
//! (hierarchical modes, broadcast and repeated strides in the source, swizzled and offset
//! composed layouts, row- and column-major destinations), copied on 1 and 3 threads with
//! tiles that do not divide the extents; every element compared. And the refusals.

use proptest::prelude::*;
use tessera_codegen::{CopyKernel, CopySpec};
use tessera_ir::index::{IndexExpr, lower_composed_modes, lower_modes};
use tessera_ir::text::{Read, read};

/// The offset of a layout at a linear index, by direct evaluation.
type Offset = Box<dyn Fn(i64) -> i64>;

/// The offset expression over `c0, c1` and the offset function by linear index.
fn layout(src: &str) -> (IndexExpr, Offset, [i64; 2]) {
    match read::<i64>(src, &|_| None).unwrap() {
        Read::Layout(l) => {
            let ext = [
                l.mode(0).unwrap().size().unwrap(),
                l.mode(1).unwrap().size().unwrap(),
            ];
            let e = lower_modes(&l).unwrap();
            (
                e,
                Box::new(move |i| *l.eval_index(&i).unwrap().as_int().unwrap()),
                ext,
            )
        }
        Read::Composed(c) => {
            let ext = [
                c.inner.mode(0).unwrap().size().unwrap(),
                c.inner.mode(1).unwrap().size().unwrap(),
            ];
            let e = lower_composed_modes(&c).unwrap();
            (e, Box::new(move |i| c.eval_index(&i).unwrap()), ext)
        }
        Read::Tuple(_) => panic!("{src}"),
    }
}

/// A mode of extent `n` split or not: `(text of shape, strides for a compact start)`.
fn mode_text(split: bool, a: i64, b: i64) -> String {
    if split {
        format!("({a},{b})")
    } else {
        format!("{}", a * b)
    }
}

fn pair() -> impl Strategy<Value = (String, String, [i64; 2])> {
    (
        (1i64..=6, 1i64..=7, any::<bool>()),
        (1i64..=5, 1i64..=9, any::<bool>()),
        prop::collection::vec(0i64..=40, 4),
        0u8..4,
        (0i64..=2, 0i64..=3, 1i64..=3),
        1i64..=9,
        1i64..=9,
    )
        .prop_map(|((a0, b0, s0), (a1, b1, s1), st, kind, (bb, m, extra), t0, t1)| {
            let s = bb + extra;
            let (n0, n1) = (a0 * b0, a1 * b1);
            let shape = format!("({},{})", mode_text(s0, a0, b0), mode_text(s1, a1, b1));
            // Source: any non-negative strides (broadcast and overlap allowed).
            let sd = |split: bool, x: i64, y: i64| {
                if split {
                    format!("({x},{y})")
                } else {
                    x.to_string()
                }
            };
            let src = format!("{shape}:({},{})", sd(s0, st[0], st[1]), sd(s1, st[2], st[3]));
            // Destination: compact row-major or column-major, swizzled or offset sometimes.
            let compact = |first: i64, second: i64| -> String {
                let m0 = if s0 {
                    format!("({first},{})", first * a0)
                } else {
                    first.to_string()
                };
                let m1 = if s1 {
                    format!("({second},{})", second * a1)
                } else {
                    second.to_string()
                };
                format!("{shape}:({m0},{m1})")
            };
            let dst = match kind {
                0 => compact(1, n0),
                1 => compact(n1, 1),
                2 => format!("Sw<{bb},{m},{s}> o {}", compact(1, n0)),
                _ => format!("Sw<{bb},{m},{s}> o 5 o {}", compact(n1, 1)),
            };
            (src, dst, [t0, t1])
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn jit_copies_equal_direct_evaluation((src, dst, tile) in pair()) {
        let (se, sf, ext) = layout(&src);
        let (de, df, ext2) = layout(&dst);
        prop_assert_eq!(ext, ext2);
        let spec = CopySpec { src: se, dst: de, extents: ext, elem_bytes: 4, tile };
        let k = match CopyKernel::compile(&spec) {
            Ok(k) => k,
            // A swizzled destination whose interval bound is not proved is refused, never run.
            Err(e) => {
                prop_assert!(dst.starts_with("Sw<"), "{src} -> {dst}: {e}");
                return Ok(());
            }
        };
        let input: Vec<u32> = (0..k.src_len as u32).map(|x| x.wrapping_mul(2_654_435_761)).collect();
        let mut want = vec![0u32; k.dst_len];
        for c1 in 0..ext[1] {
            for c0 in 0..ext[0] {
                let i = c0 + c1 * ext[0];
                want[df(i) as usize] = input[sf(i) as usize];
            }
        }
        for threads in [1, 3] {
            let mut out = vec![0u32; k.dst_len];
            k.run(&input, &mut out, threads).unwrap();
            prop_assert!(out == want, "{} -> {} ({} threads, tile {:?})", src, dst, threads, tile);
        }
    }
}

#[test]
fn refusals_and_checked_buffers() {
    let (se, _, _) = layout("(4,8):(1,4)");
    let (de, _, _) = layout("(4,8):(8,1)");
    let spec = CopySpec {
        src: se.clone(),
        dst: de.clone(),
        extents: [4, 8],
        elem_bytes: 4,
        tile: [2, 2],
    };
    let k = CopyKernel::compile(&spec).unwrap();
    assert_eq!((k.src_len, k.dst_len), (32, 32));
    let src = vec![1f32; 32];
    let mut short = vec![0f32; 31];
    assert!(
        k.run(&src, &mut short, 1)
            .unwrap_err()
            .to_string()
            .contains("buffers of 32 and 31")
    );
    let mut wrong = vec![0f64; 32];
    let src64 = vec![0f64; 32];
    assert!(k.run(&src64, &mut wrong, 1).is_err());
    let mut ok = vec![0f32; 32];
    assert!(k.run(&src, &mut ok, 0).is_err());
    k.run(&src, &mut ok, 2).unwrap();
    assert!(ok.iter().all(|x| *x == 1.0));
    // A negative stride's offsets leave the buffer: refused before any code exists.
    let (neg, _, _) = layout("(4,8):(-1,4)");
    let bad = CopySpec {
        src: neg,
        ..spec.clone()
    };
    assert!(
        CopyKernel::compile(&bad)
            .unwrap_err()
            .to_string()
            .contains("not proved inside")
    );
    for (extents, tile, bytes) in [([0, 8], [2, 2], 4), ([4, 8], [0, 2], 4), ([4, 8], [2, 2], 3)] {
        let s = CopySpec {
            extents,
            tile,
            elem_bytes: bytes,
            ..spec.clone()
        };
        assert!(CopyKernel::compile(&s).is_err(), "{extents:?} {tile:?} {bytes}");
    }
}

#[test]
fn vector_and_in_register_transpose_modes_are_chosen_by_proof_and_copy_right() {
    use tessera_codegen::CopyMode;
    let cases = [
        // (source, destination, tile, mode)
        ("(12,8):(1,12)", "(12,8):(8,1)", [4, 4], CopyMode::Transpose4),
        ("(16,20):(1,16)", "(16,20):(20,1)", [8, 12], CopyMode::Transpose4),
        (
            "((2,4),8):((1,2),8)",
            "((2,4),8):((8,16),1)",
            [4, 8],
            CopyMode::Transpose4,
        ),
        ("(16,6):(1,16)", "(16,6):(1,20)", [8, 3], CopyMode::Vector),
        ("(16,6):(1,16)", "(16,6):(6,1)", [8, 3], CopyMode::Scalar), // 6 % 4 != 0
        (
            "(16,8):(1,16)",
            "Sw<2,0,3> o (16,8):(8,1)",
            [4, 4],
            CopyMode::Scalar,
        ),
        ("(16,8):(2,40)", "(16,8):(8,1)", [4, 4], CopyMode::Scalar),
        ("(16,8):(1,16)", "(16,8):(8,1)", [6, 4], CopyMode::Scalar), // tile 6 % 4 != 0
    ];
    for (src, dst, tile, mode) in cases {
        let (se, sf, ext) = layout(src);
        let (de, df, _) = layout(dst);
        let k = CopyKernel::compile(&CopySpec {
            src: se,
            dst: de,
            extents: ext,
            elem_bytes: 4,
            tile,
        })
        .unwrap();
        assert_eq!(k.mode(), mode, "{src} -> {dst}");
        let input: Vec<f32> = (0..k.src_len).map(|x| x as f32 + 0.5).collect();
        let mut want = vec![0f32; k.dst_len];
        for c1 in 0..ext[1] {
            for c0 in 0..ext[0] {
                let i = c0 + c1 * ext[0];
                want[df(i) as usize] = input[sf(i) as usize];
            }
        }
        for threads in [1, 2] {
            let mut out = vec![0f32; k.dst_len];
            k.run(&input, &mut out, threads).unwrap();
            assert!(out == want, "{src} -> {dst} on {threads} threads");
        }
    }
    // Vectors of 2- and 8-byte elements.
    for bytes in [2u8, 8] {
        let (se, _, ext) = layout("(16,3):(1,16)");
        let (de, _, _) = layout("(16,3):(1,17)");
        let k = CopyKernel::compile(&CopySpec {
            src: se,
            dst: de,
            extents: ext,
            elem_bytes: bytes,
            tile: [8, 2],
        })
        .unwrap();
        assert_eq!(k.mode(), CopyMode::Vector);
        if bytes == 2 {
            let input: Vec<u16> = (0..k.src_len as u16).collect();
            let mut out = vec![0u16; k.dst_len];
            k.run(&input, &mut out, 1).unwrap();
            assert!((0..3).all(|c1| (0..16).all(|c0| out[c0 + 17 * c1] == input[c0 + 16 * c1])));
        } else {
            let input: Vec<u64> = (0..k.src_len as u64).collect();
            let mut out = vec![0u64; k.dst_len];
            k.run(&input, &mut out, 1).unwrap();
            assert!((0..3).all(|c1| (0..16).all(|c0| out[c0 + 17 * c1] == input[c0 + 16 * c1])));
        }
    }
}
