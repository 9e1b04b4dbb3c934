//! The MMA atoms of SM61 to SM89 (and SM90's F64 `mma.sync`), `UniversalFMA`, as data.
//!
//! Each row is one `MMA_Traits<...>` of CUTLASS (`include/cute/atom/mma_traits_sm*.hpp`):
//! `Shape_MNK`, `ThrID`, `ALayout` (`(tid,vid) -> m + M*k`), `BLayout` (`-> n + N*k`),
//! `CLayout` (`-> m + M*n`), written as CuTe prints them (static size-1 modes with stride
//! 0). The SM90 GMMA atoms are built from their formulas in [`super::gmma`].

use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::text::parse_layout;

/// One MMA atom: CuTe's `MMA_Atom<MMA_Traits<Op>>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MmaAtom {
    /// The C++ struct name (GMMA: with its `_TN`/`_NT`/`_NN`/`_TT` majors suffix).
    pub name: String,
    /// `Shape_MNK`.
    pub shape_mnk: [i64; 3],
    /// `ThrID`: logical thread id -> thread index.
    pub thr_id: Layout,
    /// `ALayout`: `(tid,vid) -> (m,k)` (column-major index in `M x K`).
    pub a: Layout,
    /// `BLayout`: `(tid,vid) -> (n,k)`.
    pub b: Layout,
    /// `CLayout`: `(tid,vid) -> (m,n)`.
    pub c: Layout,
    /// Whether A and B are read through shared-memory descriptors (GMMA `_SS`: every thread
    /// of the warpgroup names the whole tile, so `ALayout`/`BLayout` are not injective).
    pub a_broadcast: bool,
    /// Whether B is read through a shared-memory descriptor (GMMA `_SS` and `_RS`).
    pub b_broadcast: bool,
}

/// A family of atoms with the same layouts: the names, `Shape_MNK`, `ThrID`, A, B, C.
struct Row {
    names: &'static [&'static str],
    mnk: [i64; 3],
    thr: &'static str,
    a: &'static str,
    b: &'static str,
    c: &'static str,
}

const QUADPAIR: &str = "(4,2):(1,16)";
const SM70_8X4_ROW: &str = "(8,4):(1,8)";
const SM70_8X4_COL: &str = "((4,2),4):((8,4),1)";
const SM70_8X8_16B: &str = "(8,8):(1,8)";
const SM70_8X8_32B: &str = "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))";
const SM80_8X4: &str = "((4,8),1):((8,1),0)";
const SM80_8X8_ROW: &str = "((4,8),2):((16,1),8)";
const SM80_8X16_ROW: &str = "((4,8),4):((32,1),8)";
const SM80_16X8_ROW: &str = "((4,8),(2,2)):((32,1),(16,8))";
const W32: &str = "32:1";
const ONE: &str = "1:0";
const ONE_BY_ONE: &str = "(1,1):(0,0)";

macro_rules! rows {
    ($( $names:expr => ($m:literal,$nn:literal,$k:literal) $thr:expr, $a:expr, $b:expr, $c:expr; )*) => {
        &[ $( Row { names: &$names, mnk: [$m, $nn, $k], thr: $thr, a: $a, b: $b, c: $c }, )* ]
    };
}

/// The eight names of an integer `mma.sync` family (`PREFIX_S32{S,U}{S,U}S32_TN` and their
/// `_SATURATE` twins, in CUTLASS's order), `S`/`U` the signed and unsigned operand types.
macro_rules! int_family {
    ($p:literal, $s:literal, $u:literal) => {
        [
            concat!($p, "_S32", $s, $s, "S32_TN"),
            concat!($p, "_S32", $s, $s, "S32_TN_SATURATE"),
            concat!($p, "_S32", $s, $u, "S32_TN"),
            concat!($p, "_S32", $s, $u, "S32_TN_SATURATE"),
            concat!($p, "_S32", $u, $s, "S32_TN"),
            concat!($p, "_S32", $u, $s, "S32_TN_SATURATE"),
            concat!($p, "_S32", $u, $u, "S32_TN"),
            concat!($p, "_S32", $u, $u, "S32_TN_SATURATE"),
        ]
    };
}

static ROWS: &[Row] = rows! {
    ["SM61_DP4A"] => (1,1,4) ONE, "(1,4):(0,1)", "(1,4):(0,1)", ONE_BY_ONE;
    ["SM61_DP2A"] => (1,1,2) ONE, "(1,2):(0,1)", "(1,2):(0,1)", ONE_BY_ONE;
    ["SM70_8x8x4_F16F16F16F16_TN"] => (8,8,4) QUADPAIR, SM70_8X4_ROW, SM70_8X4_ROW, SM70_8X8_16B;
    ["SM70_8x8x4_F16F16F16F16_NT"] => (8,8,4) QUADPAIR, SM70_8X4_COL, SM70_8X4_COL, SM70_8X8_16B;
    ["SM70_8x8x4_F16F16F16F16_NN"] => (8,8,4) QUADPAIR, SM70_8X4_COL, SM70_8X4_ROW, SM70_8X8_16B;
    ["SM70_8x8x4_F16F16F16F16_TT"] => (8,8,4) QUADPAIR, SM70_8X4_ROW, SM70_8X4_COL, SM70_8X8_16B;
    ["SM70_8x8x4_F32F16F16F32_TN"] => (8,8,4) QUADPAIR, SM70_8X4_ROW, SM70_8X4_ROW, SM70_8X8_32B;
    ["SM70_8x8x4_F32F16F16F32_NT"] => (8,8,4) QUADPAIR, SM70_8X4_COL, SM70_8X4_COL, SM70_8X8_32B;
    ["SM70_8x8x4_F32F16F16F32_NN"] => (8,8,4) QUADPAIR, SM70_8X4_COL, SM70_8X4_ROW, SM70_8X8_32B;
    ["SM70_8x8x4_F32F16F16F32_TT"] => (8,8,4) QUADPAIR, SM70_8X4_ROW, SM70_8X4_COL, SM70_8X8_32B;
    ["SM75_16x8x8_F32F16F16F32_TN", "SM75_16x8x8_F16F16F16F16_TN"] => (16,8,8)
        W32, SM80_16X8_ROW, SM80_8X8_ROW, SM80_16X8_ROW;
    ["SM75_8x8x16_S32S8S8S32_TN"] => (8,8,16) W32, SM80_8X16_ROW, SM80_8X16_ROW, SM80_8X8_ROW;
    ["SM80_16x8x8_F16F16F16F16_TN", "SM80_16x8x8_F32F16F16F32_TN", "SM80_16x8x8_F32BF16BF16F32_TN"] => (16,8,8)
        W32, SM80_16X8_ROW, SM80_8X8_ROW, SM80_16X8_ROW;
    ["SM80_16x8x16_F16F16F16F16_TN", "SM80_16x8x16_F32F16F16F32_TN", "SM80_16x8x16_F32BF16BF16F32_TN"] => (16,8,16)
        W32, "((4,8),(2,2,2)):((32,1),(16,8,128))", "((4,8),(2,2)):((16,1),(8,64))", SM80_16X8_ROW;
    ["SM80_16x8x4_F32TF32TF32F32_TN"] => (16,8,4) W32, "((4,8),2):((16,1),8)", SM80_8X4, SM80_16X8_ROW;
    ["SM80_16x8x8_F32TF32TF32F32_TN"] => (16,8,8)
        W32, "((4,8),(2,2)):((16,1),(8,64))", "((4,8),2):((8,1),32)", SM80_16X8_ROW;
    ["SM80_8x8x4_F64F64F64F64_TN", "SM80_8x8x4_C64C64C64C64_TN", "SM80_8x8x4_GC64C64C64GC64_TN"] => (8,8,4)
        W32, SM80_8X4, SM80_8X4, SM80_8X8_ROW;
    int_family!("SM80_8x8x16", "S8", "U8") => (8,8,16)
        W32, SM80_8X16_ROW, SM80_8X16_ROW, SM80_8X8_ROW;
    int_family!("SM80_16x8x16", "S8", "U8") => (16,8,16)
        W32, "((4,8),(4,2)):((64,1),(16,8))", SM80_8X16_ROW, SM80_16X8_ROW;
    int_family!("SM80_16x8x32", "S8", "U8") => (16,8,32)
        W32, "((4,8),(4,2,2)):((64,1),(16,8,256))", "((4,8),(4,2)):((32,1),(8,128))", SM80_16X8_ROW;
    int_family!("SM80_8x8x32", "S4", "U4") => (8,8,32)
        W32, "((4,8),(8)):((64,1),(8))", "((4,8),(8)):((64,1),(8))", SM80_8X8_ROW;
    int_family!("SM80_16x8x32", "S4", "U4") => (16,8,32)
        W32, "((4,8),(8,2)):((128,1),(16,8))", "((4,8),(8)):((64,1),(8))", SM80_16X8_ROW;
    int_family!("SM80_16x8x64", "S4", "U4") => (16,8,64)
        W32, "((4,8),(8,2,2)):((128,1),(16,8,512))", "((4,8),(8,2)):((64,1),(8,256))", SM80_16X8_ROW;
    ["SM89_16x8x32_F32E4M3E4M3F32_TN", "SM89_16x8x32_F32E4M3E5M2F32_TN",
     "SM89_16x8x32_F32E5M2E4M3F32_TN", "SM89_16x8x32_F32E5M2E5M2F32_TN",
     "SM89_16x8x32_F16E4M3E4M3F16_TN", "SM89_16x8x32_F16E4M3E5M2F16_TN",
     "SM89_16x8x32_F16E5M2E4M3F16_TN", "SM89_16x8x32_F16E5M2E5M2F16_TN"] => (16,8,32)
        W32, "((4,8),(4,2,2)):((64,1),(16,8,256))", "((4,8),(4,2)):((32,1),(8,128))", SM80_16X8_ROW;
    ["SM90_16x8x4_F64F64F64F64_TN", "SM90_16x8x4_C64C64C64C64_TN"] => (16,8,4)
        W32, "((4,8),2):((16,1),8)", SM80_8X4, SM80_16X8_ROW;
    ["SM90_16x8x8_F64F64F64F64_TN", "SM90_16x8x8_C64C64C64C64_TN"] => (16,8,8)
        W32, "((4,8),(2,2)):((16,1),(8,64))", "((4,8),2):((8,1),32)", SM80_16X8_ROW;
    ["SM90_16x8x16_F64F64F64F64_TN", "SM90_16x8x16_C64C64C64C64_TN"] => (16,8,16)
        W32, "((4,8),(2,4)):((16,1),(8,64))", "((4,8),4):((8,1),32)", SM80_16X8_ROW;
    ["UniversalFMA_F16", "UniversalFMA_F32", "UniversalFMA_F64"] => (1,1,1)
        ONE, ONE_BY_ONE, ONE_BY_ONE, ONE_BY_ONE;
};

fn parse(s: &str) -> Result<Layout> {
    parse_layout(s).map_err(|e| Error::internal(format!("atom table entry {s}: {e}")))
}

/// The atom of a name in the table (not GMMA), `None` when the table has no such name.
pub(super) fn table_atom(name: &str) -> Result<Option<MmaAtom>> {
    for row in ROWS {
        if row.names.contains(&name) {
            return Ok(Some(MmaAtom {
                name: name.to_string(),
                shape_mnk: row.mnk,
                thr_id: parse(row.thr)?,
                a: parse(row.a)?,
                b: parse(row.b)?,
                c: parse(row.c)?,
                a_broadcast: false,
                b_broadcast: false,
            }));
        }
    }
    Ok(None)
}

/// Every name of the table, in order.
pub(super) fn table_names() -> impl Iterator<Item = &'static str> {
    ROWS.iter().flat_map(|r| r.names.iter().copied())
}
