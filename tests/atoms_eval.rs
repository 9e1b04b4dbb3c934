//! The atom built-ins in `tessera eval` and check files: each construction prints what CuTe
//! C++ prints (the oracle of `ir/tests/data/cute_oracle.txt`, reached here through the
//! expression language), a printed atom reads back to itself, CuTe's static assertions are
//! errors with their reason and a caret, and symbolic partitions are proved in bounds under
//! the facts and refuted, with the value, without them.

use tessera::lang::eval_str;

#[path = "support/cli.rs"]
mod cli;
use cli::tessera;

const ORACLE: &str = include_str!("../ir/tests/data/cute_oracle.txt");

fn cute(key: &str) -> String {
    let line = ORACLE
        .lines()
        .find(|l| l.starts_with(&format!("{key}|")))
        .unwrap_or_else(|| panic!("no oracle line {key}"));
    line.split_once('|').unwrap().1.replace('_', "")
}

fn ev(e: &str) -> String {
    eval_str(e).unwrap_or_else(|err| panic!("{e}: {err}"))
}

const SM80: &str = "make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (2,2,1))";
const SM80_P: &str = "make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (2,2,1), (32,32,16))";
const SM70_PERM: &str = "make_tiled_mma(SM70_8x8x4_F32F16F16F32_NT, (2,2):(2,1), ((4,4,2):(1,8,4), 32, 4))";

#[test]
fn tiled_mmas_print_what_cute_prints() {
    for (t, key) in [
        (SM80, "sm80_2x2"),
        (SM80_P, "sm80_2x2_p32"),
        (SM70_PERM, "sm70_2x2_perm"),
        (
            "make_tiled_mma(SM70_8x8x4_F32F16F16F32_NT, (2,2):(2,1), (32,32,4))",
            "sm70_2x2_32",
        ),
        ("make_tiled_mma(UniversalFMA_F32, (16,16,1))", "fma_16x16"),
        (
            "make_tiled_mma(SM90_64x64x16_F16F16F16_SS_TN, (2,1,1))",
            "gmma_ss_tn",
        ),
        ("make_tiled_mma(SM90_64x128x16_F32F16F16_RS_TT)", "gmma_rs_tt"),
        (
            "make_tiled_mma(SM80_16x8x8_F32TF32TF32F32_TN, (1,2,2))",
            "tf32_1x2x2",
        ),
    ] {
        for x in ["A", "B", "C"] {
            let want = match (key, x) {
                // The known difference: CuTe's C layout with atoms along K leaves the tile.
                ("tf32_1x2x2", "C") => "((4,8,2,2),((2,2),(1,1))):((32,1,128,0),((16,8),(0,0)))".to_string(),
                _ => cute(&format!("mma:{key}:{x}")),
            };
            assert_eq!(ev(&format!("tv_layout_{x}({t})")), want, "{t} {x}");
        }
        assert_eq!(
            ev(&format!("tile_size({t})")),
            cute(&format!("mma:{key}:tile")),
            "{t}"
        );
    }
}

#[test]
fn the_tiled_mma_tutorial_s_thread_0_reads_these_a_coordinates() {
    // 0t_mma_atom.md: with Tile<_32,_32,_4>, T0 reads A at m = 0,1,2,3,16,17,18,19 (k = 0);
    // with the M permutation (4,4,2):(1,8,4) at m = 0..7. A's index is m + 32*k.
    let rows =
        |t: &str| -> Vec<String> { (0..8).map(|v| ev(&format!("tv_layout_A({t})(0, {v})"))).collect() };
    let plain = "make_tiled_mma(SM70_8x8x4_F32F16F16F32_NT, (2,2):(2,1), (32,32,4))";
    assert_eq!(rows(plain), ["0", "1", "2", "3", "16", "17", "18", "19"]);
    assert_eq!(rows(SM70_PERM), ["0", "1", "2", "3", "4", "5", "6", "7"]);
}

#[test]
fn tiled_copies_and_partitions_print_what_cute_prints() {
    let lds = format!("make_tiled_copy_A(copy_atom(SM75_U32x4_LDSM_N, 16), {SM80})");
    assert_eq!(ev(&format!("tv_layout_S({lds})")), cute("copy:ldsm_a:S"));
    assert_eq!(ev(&format!("tv_layout_D({lds})")), cute("copy:ldsm_a:D"));
    let ldsb = format!("make_tiled_copy_B(copy_atom(SM75_U16x8_LDSM_T, 16), {SM80_P})");
    assert_eq!(ev(&format!("tv_layout_S({ldsb})")), cute("copy:ldsmt_b_p:S"));
    let cp = "make_tiled_copy(copy_atom(SM80_CP_ASYNC_CACHEALWAYS_128, 16), (32,4):(4,1), (1,8))";
    assert_eq!(ev(&format!("tv_layout_D({cp})")), cute("copy:cpasync_k:D"));
    assert_eq!(ev(&format!("tile_size({cp})")), cute("copy:cpasync_k:tiler"));
    for t in [0, 5, 127] {
        assert_eq!(
            ev(&format!("partition_S({cp}, (128,32):(32,1), {t})")),
            cute(&format!("part:ps_cp:{t}"))
        );
    }
    for t in [0, 37, 127] {
        assert_eq!(
            ev(&format!("partition_A({SM80}, (128,32):(32,1), {t})")),
            cute(&format!("part:pa_k:{t}"))
        );
    }
    assert_eq!(
        ev(&format!("partition_S({lds}, (128,32):(32,1), 100)")),
        cute("part:ps_ldsm:100")
    );
    // A swizzled tensor keeps its swizzle around the thread's view.
    assert_eq!(
        ev(&format!("partition_D({cp}, Sw<3,3,3> o (128,32):(32,1), 5)")),
        format!("Sw<3,3,3> o {}", cute("part:pd_cp:5"))
    );
}

#[test]
fn a_printed_atom_reads_back_to_itself() {
    for e in [
        SM80,
        SM70_PERM,
        "copy_atom(SM75_U32x4_LDSM_N, 16)",
        "make_tiled_copy(copy_atom(UniversalCopy_128, 32), (32,8), (4,1))",
        &format!("make_tiled_copy_C(copy_atom(SM90_U32x4_STSM_N, 16), {SM80_P})"),
    ] {
        let printed = ev(e);
        assert_eq!(ev(&printed), printed, "{e}");
    }
}

#[test]
fn cute_s_static_assertions_are_errors_with_their_reason() {
    for (e, reason) in [
        (
            "make_tiled_copy(copy_atom(UniversalCopy_128, 16), (32,8), (4,1))",
            "TiledCopy uses too few vals for selected CopyAtom",
        ),
        (
            &*format!("make_tiled_copy_B(copy_atom(SM75_U32x4_LDSM_N, 16), {SM80})"),
            "TiledCopy uses too few vals for selected CopyAtom",
        ),
        (
            "make_tiled_mma(SM90_64x64x16_F16F16F16_RS_NT)",
            "Register source operand A must have K major layout.",
        ),
        ("make_tiled_mma(SM90_64x64x16_F16F16F16_SS)", "needs its majors"),
        (
            "make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (2,1,1), (48,8,16))",
            "Divisibility condition",
        ),
        (
            "make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (2,2,1,2))",
            "TiledMMA requires rank-3 AtomLayoutMNK",
        ),
        (
            "copy_atom(SM80_CP_ASYNC_CACHEGLOBAL_64, 16)",
            "cp.async sizeof(TS) is not supported",
        ),
        (
            "copy_atom(UniversalCopy_8, 16)",
            "not a whole number of 16-bit elements",
        ),
        ("make_tiled_mma(SM80_16x8x16, (1,1,1))", "unknown MMA atom"),
        (
            "partition_A(make_tiled_mma(UniversalFMA_F32, (4,4,1)), (16,16), 16)",
            "thread 16 is not one of",
        ),
        (
            "tv_layout_A(copy_atom(UniversalCopy_32, 32))",
            "expected a tiled MMA",
        ),
    ] {
        let err = eval_str(e).unwrap_err().to_string();
        assert!(err.contains(reason), "{e}: {err}");
        assert!(err.contains("column") || err.contains('^'), "{e}: {err}");
    }
}

fn check(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("tessera-atoms-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    let out = tessera(&["check", p.to_str().unwrap()]);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn symbolic_partitions_are_proved_in_bounds_under_the_facts_and_refuted_without() {
    let head = "let T = make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (2,2,1))\n\
                let PA = partition_A(T, (128,32):(LD,1), 127)\n\
                assert in_bounds(PA, 128*LD)\n";
    let good = format!(
        "param M, LD where M % 32 == 0, 32 <= M <= 4096, LD % 8 == 0, 32 <= LD <= 8192\n{head}\
         assert injective(PA)\n\
         let PC = partition_C(T, (M,M):(1,M), 100)\n\
         assert in_bounds(PC, M*M)\n"
    );
    let out = check("good.tess", &good);
    assert!(out.contains("3 proved, 0 refuted"), "{out}");
    // Thread 127 reads A(127,31): without LD >= 32 it is past the buffer, z3 finds the stride.
    let bad = format!("param LD where LD % 8 == 0, 8 <= LD <= 8192\n{head}");
    let out = check("bad.tess", &bad);
    assert!(out.contains("refuted") && out.contains("LD="), "{out}");
    let ld: i64 = out
        .split("LD=")
        .nth(1)
        .unwrap()
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(ld < 32, "{out}");
}

#[test]
fn a_tiled_mma_operand_draws_as_cute_s_picture() {
    // CuTe's print_latex(tiled_mma) A panel for SM80_16x8x16 2x2x1: T0 holds (0,0),(0,1) as
    // V0,V1, (8,0),(8,1) as V2,V3 and (0,8),(0,9) as V4,V5.
    let out = tessera(&[
        "draw",
        "--tv",
        &format!("tv_layout_A({SM80})"),
        "--tile",
        "(32,16)",
        "--format",
        "svg",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = String::from_utf8(out.stdout).unwrap();
    // Each cell shows the first (thread, value) reaching it: the N warps (64..127) repeat A.
    for cell in ["T0V0", "T0V5", "T63V7"] {
        assert!(svg.contains(&format!(">{cell}<")), "{cell}");
    }
    assert!(!svg.contains(">T64V0<"));
    let at = |m: i64, k: i64| ev(&format!("crd2idx(({m},{k}), (32,16))"));
    let tv = |t: i64, v: i64| ev(&format!("tv_layout_A({SM80})({t},{v})"));
    assert_eq!(tv(0, 0), at(0, 0));
    assert_eq!(tv(0, 1), at(0, 1));
    assert_eq!(tv(0, 2), at(8, 0));
    assert_eq!(tv(0, 4), at(0, 8));
    assert_eq!(tv(1, 0), at(0, 2));
    assert_eq!(tv(4, 0), at(1, 0));
}

#[test]
fn gmma_smem_atoms_and_tma_swizzles_swizzle_element_offsets() {
    // CUTLASS's Swizzle<B,4,3> acts on bytes: on 16-bit offsets it is Sw<B,3,3>.
    assert_eq!(ev("tma_swizzle(SW128, 16)"), "Sw<3,3,3>");
    assert_eq!(ev("tma_swizzle(SW32, 8)"), "Sw<1,4,3>");
    assert_eq!(ev("tma_swizzle(INTER, 32)"), "Sw<0,2,3>");
    assert_eq!(
        ev("smem_atom(Layout_K_SW128_Atom, 16)"),
        "Sw<3,3,3> o (8,64):(64,1)"
    );
    assert_eq!(
        ev("smem_atom(Layout_MN_SW64_Atom, 16)"),
        "Sw<2,3,3> o (32,8):(1,32)"
    );
    assert_eq!(
        ev("smem_atom(Layout_K_INTER_Atom, 32)"),
        "Sw<0,2,3> o (8,4):(4,1)"
    );
    // The byte address of every element is CUTLASS's Swizzle<3,4,3> of its unswizzled byte
    // address, for every element width.
    for bits in [8i64, 16, 32, 64] {
        let per_row = 1024 / bits;
        for i in [0, 1, per_row + 3, 5 * per_row + 7, 8 * per_row - 1] {
            let got: i64 = ev(&format!("smem_atom(Layout_K_SW128_Atom, {bits})({i})"))
                .parse()
                .unwrap();
            let (row, col) = (i % 8, i / 8);
            let byte = (row * per_row + col) * bits / 8;
            let sw = byte ^ ((byte >> 3) & (0b111 << 4));
            assert_eq!(got * bits / 8, sw, "bits {bits} index {i}");
        }
    }
    assert!(
        eval_str("tma_swizzle(SW256, 16)")
            .unwrap_err()
            .to_string()
            .contains("unknown swizzle mode")
    );
}
