//! Copy operations and copy atoms, as data.
//!
//! A [`CopyOp`] is one `Copy_Traits<Op>` of CUTLASS (`include/cute/atom/copy_traits*.hpp`):
//! `ThrID` and the `(tid,vid) -> bit` layouts `SrcLayout`, `DstLayout`, `RefLayout`. A
//! [`CopyAtom`] is `Copy_Atom<Op, T>` for an element of `elem_bits` bits: the same layouts
//! recast from bits to elements (`recast_layout<uint1_t, T>`), with CuTe's checks.

use super::cute::recast_bits;
use crate::error::{Error, Result};
use crate::int::Int;
use crate::layout::Layout;
use crate::text::parse_layout;
use std::fmt;

/// One copy operation: `Copy_Traits<Op>`, layouts in bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopyOp {
    /// The name: the C++ struct name, a type template argument as its bit width
    /// (`UniversalCopy_128`, `SM80_CP_ASYNC_CACHEALWAYS_64`).
    pub name: String,
    /// `ThrID`.
    pub thr_id: Layout,
    /// `SrcLayout`: `(tid,vid) -> bit`.
    pub src: Layout,
    /// `DstLayout`: `(tid,vid) -> bit`.
    pub dst: Layout,
    /// `RefLayout`: `(tid,vid) -> bit`.
    pub ref_: Layout,
}

/// The memory an operation's source and destination are in, for bank questions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// Registers.
    Reg,
    /// Shared memory.
    Smem,
    /// Global memory.
    Gmem,
    /// Any (a universal copy).
    Any,
}

impl CopyOp {
    /// Where the source and the destination are: `ldmatrix` reads shared memory into
    /// registers, `stmatrix` the reverse, `cp.async` global into shared memory.
    pub fn spaces(&self) -> (Space, Space) {
        if self.name.contains("LDSM") {
            (Space::Smem, Space::Reg)
        } else if self.name.contains("STSM") {
            (Space::Reg, Space::Smem)
        } else if self.name.starts_with("SM80_CP_ASYNC") {
            (Space::Gmem, Space::Smem)
        } else {
            (Space::Any, Space::Any)
        }
    }
}

const LDSM_N: [(&str, &str, &str); 3] = [
    ("U32x1", "((8,4),128):((128,0),1)", "(32,32):(32,1)"),
    ("U32x2", "((16,2),128):((128,0),1)", "(32,(32,2)):(32,(1,1024))"),
    ("U32x4", "(32,128):(128,1)", "(32,(32,4)):(32,(1,1024))"),
];
const LDSM_T: [(&str, &str, &str); 3] = [
    (
        "U16x2",
        "((8,4),128):((128,0),1)",
        "((4,8),(16,2)):((256,16),(1,128))",
    ),
    (
        "U16x4",
        "((16,2),128):((128,0),1)",
        "((4,8),(16,2,2)):((256,16),(1,128,1024))",
    ),
    (
        "U16x8",
        "(32,128):(128,1)",
        "((4,8),(16,2,4)):((256,16),(1,128,1024))",
    ),
];

fn parse(s: &str) -> Result<Layout> {
    parse_layout(s).map_err(|e| Error::internal(format!("copy table entry {s}: {e}")))
}

fn op(name: &str, thr: &str, src: &str, dst: &str, ref_is_src: bool) -> Result<CopyOp> {
    let (src, dst) = (parse(src)?, parse(dst)?);
    Ok(CopyOp {
        name: name.to_string(),
        thr_id: parse(thr)?,
        ref_: if ref_is_src { src.clone() } else { dst.clone() },
        src,
        dst,
    })
}

/// The copy operation of a name.
///
/// # Pre-conditions
/// The name is one of [`copy_op_names`].
/// # Post-conditions
/// The layouts are CUTLASS's, in bits.
///
/// ```
/// use tessera_ir::atom::copy_op;
/// let o = copy_op("SM75_U32x4_LDSM_N").unwrap();
/// assert_eq!(o.src.to_string(), "(32,128):(128,1)");
/// assert_eq!(o.ref_, o.dst);
/// let s = copy_op("SM90_U32x4_STSM_N").unwrap();
/// assert_eq!(s.dst.to_string(), "(32,128):(128,1)");
/// assert_eq!(copy_op("UniversalCopy_64").unwrap().src.to_string(), "(1,64):(0,1)");
/// assert!(copy_op("SM80_CP_ASYNC_CACHEGLOBAL_64").is_err());
/// ```
pub fn copy_op(name: &str) -> Result<CopyOp> {
    for (v, s, d) in LDSM_N {
        if name == format!("SM75_{v}_LDSM_N") {
            return op(name, "32:1", s, d, false);
        }
        if name == format!("SM90_{v}_STSM_N") {
            return op(name, "32:1", d, s, true);
        }
    }
    for (v, s, d) in LDSM_T {
        if name == format!("SM75_{v}_LDSM_T") {
            return op(name, "32:1", s, d, false);
        }
        if name == format!("SM90_{v}_STSM_T") {
            return op(name, "32:1", d, s, true);
        }
    }
    let bits = |prefix: &str| -> Option<i64> { name.strip_prefix(prefix)?.parse().ok() };
    let unit = |b: i64| format!("(1,{b}):(0,1)");
    if let Some(b) = bits("UniversalCopy_") {
        if [8, 16, 32, 64, 128].contains(&b) {
            return op(name, "1:0", &unit(b), &unit(b), true);
        }
        return Err(Error::invalid(format!(
            "unknown copy operation '{name}': UniversalCopy takes 8, 16, 32, 64 or 128 bits"
        )));
    }
    if let Some(b) = bits("SM80_CP_ASYNC_CACHEALWAYS_") {
        if [32, 64, 128].contains(&b) {
            return op(name, "1:0", &unit(b), &unit(b), true);
        }
        return Err(Error::invalid(format!(
            "{name}: cp.async sizeof(TS) is not supported (4, 8 or 16 bytes)"
        )));
    }
    if let Some(b) = bits("SM80_CP_ASYNC_CACHEGLOBAL_") {
        if b == 128 {
            return op(name, "1:0", &unit(b), &unit(b), true);
        }
        return Err(Error::invalid(format!(
            "{name}: cp.async sizeof(TS) is not supported (CACHEGLOBAL: 16 bytes)"
        )));
    }
    Err(Error::invalid(format!(
        "unknown copy operation '{name}': expected e.g. UniversalCopy_128, SM75_U32x4_LDSM_N, \
         SM75_U16x8_LDSM_T, SM90_U32x4_STSM_N, SM80_CP_ASYNC_CACHEALWAYS_128"
    )))
}

/// Every copy operation name [`copy_op`] knows.
///
/// # Post-conditions
/// Each name is accepted by [`copy_op`].
///
/// ```
/// assert_eq!(tessera_ir::atom::copy_op_names().len(), 21);
/// ```
pub fn copy_op_names() -> Vec<String> {
    let mut out = Vec::new();
    for b in [8, 16, 32, 64, 128] {
        out.push(format!("UniversalCopy_{b}"));
    }
    for (v, _, _) in LDSM_N {
        out.push(format!("SM75_{v}_LDSM_N"));
    }
    for (v, _, _) in LDSM_T {
        out.push(format!("SM75_{v}_LDSM_T"));
    }
    for (v, _, _) in LDSM_N {
        out.push(format!("SM90_{v}_STSM_N"));
    }
    for (v, _, _) in LDSM_T {
        out.push(format!("SM90_{v}_STSM_T"));
    }
    for b in [32, 64, 128] {
        out.push(format!("SM80_CP_ASYNC_CACHEALWAYS_{b}"));
    }
    out.push("SM80_CP_ASYNC_CACHEGLOBAL_128".to_string());
    out
}

/// `Copy_Atom<Op, T>`: a copy operation on elements of `elem_bits` bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopyAtom {
    /// The operation.
    pub op: CopyOp,
    /// The element width in bits.
    pub elem_bits: i64,
    /// `ValLayoutSrc`: `(tid,vid) -> element`.
    pub val_src: Layout,
    /// `ValLayoutDst`.
    pub val_dst: Layout,
    /// `ValLayoutRef`.
    pub val_ref: Layout,
}

impl fmt::Display for CopyAtom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "copy_atom({},{})", self.op.name, self.elem_bits)
    }
}

impl CopyAtom {
    /// `Copy_Atom<Op, T>` for `T` of `elem_bits` bits.
    ///
    /// # Pre-conditions
    /// `elem_bits` positive; the recast layouts keep `size(ThrID)` threads (CuTe's
    /// "CopyOperation is not valid for Src of ValType.").
    /// # Post-conditions
    /// `val_src`, `val_dst`, `val_ref` are the bit layouts recast to elements.
    ///
    /// ```
    /// use tessera_ir::atom::{copy_op, CopyAtom};
    /// let a = CopyAtom::new(copy_op("SM75_U32x4_LDSM_N").unwrap(), 16).unwrap();
    /// assert_eq!(a.val_src.to_string(), "(32,8):(8,1)");
    /// assert_eq!(a.val_dst.to_string(), "(32,(2,4)):(2,(1,64))");
    /// ```
    pub fn new(op: CopyOp, elem_bits: i64) -> Result<CopyAtom> {
        if elem_bits <= 0 || elem_bits > 1024 {
            return Err(Error::invalid(format!(
                "copy_atom: element width {elem_bits} bits is not in 1..=1024"
            )));
        }
        let recast = |l: &Layout| {
            recast_bits(l, 1, elem_bits)
                .map_err(|e| Error::invalid(format!("Copy_Atom<{}, {elem_bits}-bit>: {e}", op.name)))
        };
        let (val_src, val_dst, val_ref) = (recast(&op.src)?, recast(&op.dst)?, recast(&op.ref_)?);
        // CuTe rounds a value up (`upcast` divides with ceil_div): a 16-bit element through
        // an 8-bit copy would be one value of 16 bits where the instruction moves 8. Such an
        // atom breaks its own definition; it is an error here.
        for (l, b) in [(&val_src, &op.src), (&val_dst, &op.dst)] {
            if l.size()?.mul(&elem_bits)? != b.size()? {
                return Err(Error::invalid(format!(
                    "Copy_Atom<{}, {elem_bits}-bit>: the operation moves {} bits per thread, \
                     not a whole number of {elem_bits}-bit elements (CuTe rounds up)",
                    op.name,
                    b.mode(1).map(|m| m.size()).transpose()?.unwrap_or(1)
                )));
            }
        }
        let threads = op.thr_id.size()?;
        for (l, what) in [(&val_src, "Src"), (&val_dst, "Dst"), (&val_ref, "Ref")] {
            let t = l.mode(0).map(|m| m.size()).transpose()?.unwrap_or(1);
            if t != threads {
                return Err(Error::invalid(format!(
                    "Copy_Atom<{}, {elem_bits}-bit>: CopyOperation is not valid for {what} of ValType.",
                    op.name
                )));
            }
        }
        Ok(CopyAtom {
            op,
            elem_bits,
            val_src,
            val_dst,
            val_ref,
        })
    }

    /// The number of threads: `size(ThrID)`.
    pub fn num_threads(&self) -> Result<i64> {
        self.op.thr_id.size()
    }
}
