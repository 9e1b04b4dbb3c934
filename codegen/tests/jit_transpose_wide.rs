//! Transposes of 4-byte elements through the AVX2 band helper ([`CopyMode::TransposeWide`])
//! against direct evaluation of the layouts: odd extents, extents that are no multiple of the
//! helper's blocks (8 x 16) or bands (128 rows), one row or one column, padded destinations
//! (rows 64-byte aligned or not), base pointers off every alignment (offset slices), 1, 2 and
//! 3 threads, and every [`TransposePath`] (streaming stores forced on and off, and the
//! Cranelift path the helper replaces). And the proofs that choose the helper: a step along
//! the other coordinate that is not constant keeps the old path.

use tessera_codegen::{CopyKernel, CopyMode, CopySpec, NoMemo, TransposePath};
use tessera_ir::index::lower_modes;
use tessera_ir::text::{Read, read};

const PATHS: [TransposePath; 4] = TransposePath::ALL;

/// Whether this CPU runs the helper (asked of the CPU here, not of the library, whose choice
/// the tests check).
fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The layout `text`: its offset expression over `c0, c1`, its offsets by linear index, and
/// its extents.
fn layout(text: &str) -> (tessera_ir::index::IndexExpr, Vec<i64>, [i64; 2]) {
    let Read::Layout(l) = read::<i64>(text, &|_| None).unwrap() else {
        panic!("{text}")
    };
    let ext = [
        l.mode(0).unwrap().size().unwrap(),
        l.mode(1).unwrap().size().unwrap(),
    ];
    let offsets = (0..ext[0] * ext[1])
        .map(|i| *l.eval_index(&i).unwrap().as_int().unwrap())
        .collect();
    (lower_modes(&l).unwrap(), offsets, ext)
}

/// Copies `src` to `dst` (two layouts of one shape) on every path, thread count and base
/// offset, and compares every element of the destination buffer (padding included) with
/// direct evaluation; returns the mode of each path.
fn check(src: &str, dst: &str) -> Vec<CopyMode> {
    let (se, so, ext) = layout(src);
    let (de, dof, ext2) = layout(dst);
    assert_eq!(ext, ext2, "{src} {dst}");
    let mut modes = Vec::new();
    for path in PATHS {
        let spec = CopySpec {
            src: se.clone(),
            dst: de.clone(),
            extents: ext,
            elem_bytes: 4,
            tile: [8, 128],
        };
        let k = CopyKernel::compile_path(&spec, &NoMemo, path).unwrap();
        modes.push(k.mode());
        // Every element of the source distinct; the destination's untouched elements keep a
        // marker.
        let input: Vec<u32> = (0..k.src_len as u32 + 16)
            .map(|x| x.wrapping_mul(2_654_435_761) | 1)
            .collect();
        for off in [0usize, 1, 3, 8] {
            let mut want = vec![0u32; k.dst_len + 16];
            for i in 0..so.len() {
                want[dof[i] as usize + off] = input[so[i] as usize + off];
            }
            for threads in [1, 2, 3] {
                let mut out = vec![0u32; k.dst_len + 16];
                k.run(&input[off..], &mut out[off..], threads).unwrap();
                assert!(
                    out == want,
                    "{src} -> {dst}: {path:?} ({:?}), base offset {off}, {threads} threads: first difference at {:?}",
                    k.mode(),
                    (0..out.len()).find(|&i| out[i] != want[i])
                );
            }
        }
    }
    modes
}

#[test]
fn wide_transposes_equal_direct_evaluation_at_every_extent_and_alignment() {
    let wide = avx2();
    // (c0 extent, c1 extent, destination row pitch): pitches that are multiples of 16
    // elements keep every row start 64-byte aligned (streaming stores after a peel); others
    // do not (ordinary stores).
    let cases = [
        (2, 2, 2),
        (8, 16, 16),
        (8, 16, 17),
        (9, 17, 17),
        (7, 5, 5),
        (3, 33, 48),
        (13, 250, 256),
        (16, 16, 32),
        (129, 70, 80),
        (130, 200, 200),
        (255, 31, 31),
        (300, 129, 144),
        (2, 1000, 1000),
        (1000, 2, 2),
    ];
    for (n0, n1, pitch) in cases {
        let src = format!("({n0},{n1}):(1,{n0})");
        let dst = format!("({n0},{n1}):({pitch},1)");
        let modes = check(&src, &dst);
        for (path, mode) in PATHS.iter().zip(&modes) {
            // The default takes the helper from 4 MiB only.
            let helper = wide && matches!(path, TransposePath::Stream | TransposePath::Cached);
            assert_eq!(
                *mode == CopyMode::TransposeWide,
                helper,
                "{src} -> {dst}: {path:?} {mode:?}"
            );
        }
    }
}

#[test]
fn one_row_or_one_column_and_padded_sources_copy_right() {
    // One row or one column: the contiguity along an extent of 1 is not proved (an empty
    // range), so the old paths copy; they must still be right.
    for (src, dst) in [
        ("(1,9):(1,1)", "(1,9):(9,1)"),
        ("(9,1):(1,9)", "(9,1):(1,1)"),
        ("(1,1):(1,1)", "(1,1):(1,1)"),
        // A padded source (columns 40 apart) into a padded destination.
        ("(33,20):(1,40)", "(33,20):(24,1)"),
        // A hierarchical mode along c0 that is still contiguous, with a constant step.
        ("((4,8),20):((1,4),32)", "((4,8),20):((20,80),1)"),
    ] {
        let modes = check(src, dst);
        assert!(modes.iter().all(|m| *m != CopyMode::Vector), "{src} {modes:?}");
    }
    if avx2() {
        let modes = check("((4,8),20):((1,4),32)", "((4,8),20):((20,80),1)");
        assert_eq!(modes[1], CopyMode::TransposeWide);
    }
}

#[test]
fn the_default_takes_the_helper_from_four_mebibytes() {
    // 1024 x 1023 f32: 4 MiB - 4 KiB, the old path; 1024 x 1024: the helper, streaming.
    for (n1, wide) in [(1023, false), (1024, avx2())] {
        let (se, so, ext) = layout(&format!("(1024,{n1}):(1,1024)"));
        let (de, dof, _) = layout(&format!("(1024,{n1}):({n1},1)"));
        let spec = CopySpec {
            src: se,
            dst: de,
            extents: ext,
            elem_bytes: 4,
            tile: [8, 128],
        };
        let k = CopyKernel::compile(&spec).unwrap();
        assert_eq!(k.mode() == CopyMode::TransposeWide, wide, "{n1}: {:?}", k.mode());
        let input: Vec<u32> = (0..k.src_len as u32).collect();
        let mut want = vec![0u32; k.dst_len];
        for i in 0..so.len() {
            want[dof[i] as usize] = input[so[i] as usize];
        }
        let mut out = vec![0u32; k.dst_len];
        k.run(&input, &mut out, 2).unwrap();
        assert!(out == want, "{n1}");
    }
}

#[test]
fn a_step_that_is_not_constant_keeps_the_old_path() {
    // Contiguous along c0, but along c1 the step is 8 and then 100 (hierarchical): not one
    // constant step, so not the helper; the in-register path copies it.
    let src = "(8,(2,4)):(1,(8,100))";
    let dst = "(8,(2,4)):(8,1)";
    let modes = check(src, dst);
    assert!(modes.iter().all(|m| *m == CopyMode::Transpose4), "{modes:?}");
    // The destination's step along c0 not constant (a hierarchical row mode).
    let modes = check("((2,4),8):((1,2),8)", "((2,4),8):((8,100),1)");
    assert!(modes.iter().all(|m| *m != CopyMode::TransposeWide), "{modes:?}");
}

#[test]
fn elements_of_other_sizes_never_take_the_helper() {
    let (se, _, ext) = layout("(16,8):(1,16)");
    let (de, _, _) = layout("(16,8):(8,1)");
    for bytes in [1u8, 2, 8] {
        let k = CopyKernel::compile_path(
            &CopySpec {
                src: se.clone(),
                dst: de.clone(),
                extents: ext,
                elem_bytes: bytes,
                tile: [4, 4],
            },
            &NoMemo,
            TransposePath::Stream,
        )
        .unwrap();
        assert_ne!(k.mode(), CopyMode::TransposeWide, "{bytes} bytes");
    }
}
