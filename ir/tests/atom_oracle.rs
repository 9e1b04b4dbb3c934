//! The atom constructions against what CuTe C++ prints (`tests/data/cute_oracle.txt`,
//! printed by a test program compiled against CuTe's headers on the host, kept as data): every
//! `get_layout{A,B,C}_TV`, `ThrLayoutVMNK`, `tile_size`, `TiledLayout_TV`, `Tiler_MN`,
//! `get_layout{S,D}_TV` and thread partition, compared as text (CuTe's `_` marks of static
//! integers removed).

use std::collections::HashMap;
use tessera_ir::atom::{CopyAtom, Operand, Permutation, Side, TiledCopy, TiledMma, copy_op, mma_atom};
use tessera_ir::{ComposedLayout, Layout, parse_layout};

const ORACLE: &str = include_str!("data/cute_oracle.txt");

fn l(s: &str) -> Layout {
    parse_layout(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn mma(key: &str) -> TiledMma {
    let (name, lay, perm): (&str, &str, Option<[&str; 3]>) = match key {
        "sm80_2x2" => ("SM80_16x8x16_F32F16F16F32_TN", "(2,2,1):(1,2,0)", None),
        "sm80_2x2_p32" => (
            "SM80_16x8x16_F32F16F16F32_TN",
            "(2,2,1):(1,2,0)",
            Some(["32:1", "32:1", "16:1"]),
        ),
        "sm80_2x2_p_layout" => (
            "SM80_16x8x16_F32F16F16F32_TN",
            "(2,2,1):(1,2,0)",
            Some(["(16,2):(1,16)", "(8,2,2):(1,16,8)", "16:1"]),
        ),
        "sm70_2x2" => ("SM70_8x8x4_F32F16F16F32_NT", "(2,2):(2,1)", None),
        "sm70_2x2_32" => (
            "SM70_8x8x4_F32F16F16F32_NT",
            "(2,2):(2,1)",
            Some(["32:1", "32:1", "4:1"]),
        ),
        "sm70_2x2_perm" => (
            "SM70_8x8x4_F32F16F16F32_NT",
            "(2,2):(2,1)",
            Some(["(4,4,2):(1,8,4)", "32:1", "4:1"]),
        ),
        "sm70_tn_1" => ("SM70_8x8x4_F16F16F16F16_TN", "(1,1,1):(0,0,0)", None),
        "fma_16x16" => ("UniversalFMA_F32", "(16,16,1):(1,16,0)", None),
        "fma_8x32_k" => ("UniversalFMA_F64", "(8,32):(32,1)", None),
        "tf32_1x2x2" => ("SM80_16x8x8_F32TF32TF32F32_TN", "(1,2,2):(0,1,2)", None),
        "tf32x4_2x1" => ("SM80_16x8x4_F32TF32TF32F32_TN", "(2,1,1):(1,0,0)", None),
        "gmma_ss_tn" => ("SM90_64x64x16_F16F16F16_SS_TN", "(2,1,1):(1,0,0)", None),
        "gmma_rs_tt" => ("SM90_64x128x16_F32F16F16_RS_TT", "(1,1,1):(0,0,0)", None),
        "gmma_tf32" => ("SM90_64x32x8_F32TF32TF32_SS_TN", "(1,1,1):(0,0,0)", None),
        "sm75_p" => (
            "SM75_16x8x8_F32F16F16F32_TN",
            "(2,2,1):(1,2,0)",
            Some(["32:1", "32:1", "16:1"]),
        ),
        "sm75_s8" => ("SM75_8x8x16_S32S8S8S32_TN", "(2,2,1):(1,2,0)", None),
        "dp4a" => ("SM61_DP4A", "(4,8,1):(1,4,0)", None),
        "f64_2x2" => ("SM80_8x8x4_F64F64F64F64_TN", "(2,2,1):(1,2,0)", None),
        "f64_sm90" => ("SM90_16x8x16_F64F64F64F64_TN", "(1,2,1):(0,1,0)", None),
        "fp8" => ("SM89_16x8x32_F32E4M3E4M3F32_TN", "(2,2,1):(1,2,0)", None),
        "s4" => ("SM80_8x8x32_S32S4S4S32_TN", "(1,1,1):(0,0,0)", None),
        "s4_16" => ("SM80_16x8x64_S32S4S4S32_TN", "(2,1,1):(1,0,0)", None),
        k => panic!("unknown MMA key {k}"),
    };
    let perms = perm
        .map(|p| p.iter().map(|s| Permutation::Layout(l(s))).collect())
        .unwrap_or_default();
    TiledMma::with(mma_atom(name).unwrap(), &l(lay), perms).unwrap()
}

fn copy(key: &str) -> TiledCopy {
    let atom = |op: &str, bits: i64| CopyAtom::new(copy_op(op).unwrap(), bits).unwrap();
    let mk = |op: &str, bits: i64, thr: &str, val: &str| {
        TiledCopy::make(atom(op, bits), &l(thr), &l(val)).unwrap()
    };
    let for_mma = |op: &str, m: &str, o: Operand| TiledCopy::for_mma(atom(op, 16), &mma(m), o).unwrap();
    match key {
        "uc128_32x8" => mk("UniversalCopy_128", 32, "(32,8):(1,32)", "(4,1):(1,0)"),
        "cpasync_k" => mk("SM80_CP_ASYNC_CACHEALWAYS_128", 16, "(32,4):(4,1)", "(1,8):(0,1)"),
        "cpasync_m" => mk(
            "SM80_CP_ASYNC_CACHEGLOBAL_128",
            16,
            "(16,8):(1,16)",
            "(8,1):(1,0)",
        ),
        "uc32_f32" => mk("UniversalCopy_32", 32, "(32,8):(8,1)", "(1,1):(0,0)"),
        "uc64_2x2" => mk("UniversalCopy_64", 16, "(8,16):(16,1)", "(2,2):(1,2)"),
        "ldsm_a" => for_mma("SM75_U32x4_LDSM_N", "sm80_2x2", Operand::A),
        "ldsm_a_p" => for_mma("SM75_U32x4_LDSM_N", "sm80_2x2_p32", Operand::A),
        "ldsm_b_p" => for_mma("SM75_U32x4_LDSM_N", "sm80_2x2_p32", Operand::B),
        "ldsm_x2_b" => for_mma("SM75_U32x2_LDSM_N", "sm80_2x2", Operand::B),
        "ldsm_x1_b" => for_mma("SM75_U32x1_LDSM_N", "sm80_2x2", Operand::B),
        "ldsmt_b_p" => for_mma("SM75_U16x8_LDSM_T", "sm80_2x2_p32", Operand::B),
        "ldsmt4_b" => for_mma("SM75_U16x4_LDSM_T", "sm80_2x2_p32", Operand::B),
        "stsm_c_p" => for_mma("SM90_U32x4_STSM_N", "sm80_2x2_p32", Operand::C),
        "stsmt_c_p" => for_mma("SM90_U16x8_STSM_T", "sm80_2x2_p32", Operand::C),
        "uc32_c" => for_mma("UniversalCopy_32", "sm80_2x2", Operand::C),
        "uc16_a_fma" => for_mma("UniversalCopy_16", "fma_16x16", Operand::A),
        k => panic!("unknown copy key {k}"),
    }
}

fn part(key: &str, kind: &str, obj: &str, thread: i64) -> String {
    let tensor = |s: &str| ComposedLayout {
        swizzle: None,
        offset: 0i64,
        inner: l(s),
    };
    let (tk, t) = match key {
        "pa_k" | "pb_k" => ("", tensor("(128,32):(32,1)")),
        "pc" | "pc_fma" => ("", tensor("(128,128):(1,128)")),
        "pa_perm" => ("", tensor("(64,8):(1,64)")),
        "pa_3" => ("", tensor("(64,32,3):(1,64,2048)")),
        "ps_cp" | "pd_cp" | "ps_ldsm" => ("", tensor("(128,32):(32,1)")),
        "pd_ldsm" => ("", tensor("(32,16):(1,32)")),
        "ps_uc" => ("", tensor("(256,16):(1,256)")),
        k => panic!("unknown partition {k}"),
    };
    let _ = tk;
    let f = match kind {
        "A" => mma(obj).partition(Operand::A, &t, thread),
        "B" => mma(obj).partition(Operand::B, &t, thread),
        "C" => mma(obj).partition(Operand::C, &t, thread),
        "S" => copy(obj).partition(Side::Src, &t, thread),
        "D" => copy(obj).partition(Side::Dst, &t, thread),
        k => panic!("kind {k}"),
    }
    .unwrap_or_else(|e| panic!("{key} {thread}: {e}"));
    format!("{} o {}", f.view.offset, f.view.inner)
}

/// The partitions of the oracle: key -> (kind, object).
fn part_defs() -> HashMap<&'static str, (&'static str, &'static str)> {
    HashMap::from([
        ("pa_k", ("A", "sm80_2x2")),
        ("pb_k", ("B", "sm80_2x2")),
        ("pc", ("C", "sm80_2x2")),
        ("pa_perm", ("A", "sm70_2x2_perm")),
        ("pc_fma", ("C", "fma_16x16")),
        ("pa_3", ("A", "sm80_2x2_p32")),
        ("ps_cp", ("S", "cpasync_k")),
        ("pd_cp", ("D", "cpasync_k")),
        ("ps_ldsm", ("S", "ldsm_a")),
        ("pd_ldsm", ("D", "ldsm_a")),
        ("ps_uc", ("S", "uc128_32x8")),
    ])
}

#[test]
fn every_construction_prints_what_cute_prints() {
    let defs = part_defs();
    let mut n = 0;
    let mut bad = Vec::new();
    for line in ORACLE.lines() {
        if line.starts_with('#') || line.starts_with("def:") || line.is_empty() {
            continue;
        }
        let (key, want) = line.split_once('|').unwrap();
        let mut want = want.replace('_', "");
        // The one known difference (the book, tutorials/atoms.md, "Where Tessera's atoms differ from CuTe"): with
        // atoms along K, CuTe's get_layoutC_TV sends the second K group of threads past the
        // 16 x 16 tile (stride 256); each K group holds the whole tile here.
        if key == "mma:tf32_1x2x2:C" {
            assert_eq!(want, "((4,8,4),((2,2),(1,1))):((32,1,128),((16,8),(0,0)))");
            want = "((4,8,2,2),((2,2),(1,1))):((32,1,128,0),((16,8),(0,0)))".to_string();
        }
        let parts: Vec<&str> = key.split(':').collect();
        let got = match parts.as_slice() {
            ["mma", k, what] => {
                let t = mma(k);
                match *what {
                    "A" => t.tv_layout(Operand::A).unwrap().to_string(),
                    "B" => t.tv_layout(Operand::B).unwrap().to_string(),
                    "C" => t.tv_layout(Operand::C).unwrap().to_string(),
                    "vmnk" => t.thr_layout_vmnk.to_string(),
                    "tile" => {
                        let [a, b, c] = t.tile_size().unwrap();
                        format!("({a},{b},{c})")
                    }
                    w => panic!("{w}"),
                }
            }
            ["copy", k, what] => {
                let t = match std::panic::catch_unwind(|| copy(k)) {
                    Ok(t) => t,
                    Err(_) => {
                        bad.push(format!("{key}: construction failed"));
                        continue;
                    }
                };
                match *what {
                    "tv" => t.layout_tv.to_string(),
                    "tiler" => t.tiler.to_string(),
                    "S" => t.tv_layout(Side::Src).unwrap().to_string(),
                    "D" => t.tv_layout(Side::Dst).unwrap().to_string(),
                    w => panic!("{w}"),
                }
            }
            ["part", k, thread] => {
                let (kind, obj) = defs[k];
                match std::panic::catch_unwind(|| part(k, kind, obj, thread.parse().unwrap())) {
                    Ok(s) => s,
                    Err(_) => {
                        bad.push(format!("{key}: partition failed"));
                        continue;
                    }
                }
            }
            other => panic!("{other:?}"),
        };
        n += 1;
        if got != want {
            bad.push(format!("{key}\n   cute    {want}\n   tessera {got}"));
        }
    }
    assert!(n > 140, "{n} cases");
    assert!(bad.is_empty(), "{} of {n} differ:\n{}", bad.len(), bad.join("\n"));
}
