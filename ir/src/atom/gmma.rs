//! SM90 GMMA (`wgmma`) atoms from their formulas in `mma_traits_sm90_gmma.hpp`.
//!
//! `ThrID = 128:1`; `_SS`: `ALayout = ABLayout<64,K>`, `_RS`: `ALayout = ALayout_64xK`;
//! `BLayout = ABLayout<N,K>`; `CLayout = CLayout_64xN`, with
//!
//! * `ABLayout<M,K> = (128,(M,K)):(0,(1,M))` (every thread names the whole tile: the
//!   operand is read through a shared-memory descriptor);
//! * `CLayout_64xN = ((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512))`;
//! * `ALayout_64x8 = ((4,8,4),(2,2)):((64,1,16),(8,256))`,
//!   `ALayout_64x16 = ((4,8,4),(2,2,2)):((128,1,16),(64,8,512))`,
//!   `ALayout_64x32 = ((4,8,4),(4,2,2)):((256,1,16),(64,8,1024))`.
//!
//! Names: the C++ alias with the `Major` template arguments as a BLAS suffix, A first:
//! `_TN` = `<K,K>`, `_NT` = `<MN,MN>`, `_NN` = `<MN,K>`, `_TT` = `<K,MN>`; TF32, FP8 and
//! integer atoms are K-major only and their C++ names already end in `_TN`.

use super::mma::MmaAtom;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::text::parse_layout;

/// The N extents of the 16-bit, TF32 and FP8 atoms (every multiple of 8 up to 256).
fn n_dense() -> impl Iterator<Item = i64> {
    (1..=32).map(|k| 8 * k)
}

/// The N extents of the integer atoms.
const N_INT: &[i64] = &[
    8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256,
];

/// A family: the type string, K, whether both majors are allowed (else `_TN` is part of the
/// C++ name), and whether an `_SATURATE` variant exists.
struct Family {
    types: &'static str,
    k: i64,
    majors: bool,
    int: bool,
}

const FAMILIES: &[Family] = &[
    Family {
        types: "F16F16F16",
        k: 16,
        majors: true,
        int: false,
    },
    Family {
        types: "F32F16F16",
        k: 16,
        majors: true,
        int: false,
    },
    Family {
        types: "F32BF16BF16",
        k: 16,
        majors: true,
        int: false,
    },
    Family {
        types: "F32TF32TF32",
        k: 8,
        majors: false,
        int: false,
    },
    Family {
        types: "F16E4M3E4M3",
        k: 32,
        majors: false,
        int: false,
    },
    Family {
        types: "F16E4M3E5M2",
        k: 32,
        majors: false,
        int: false,
    },
    Family {
        types: "F16E5M2E4M3",
        k: 32,
        majors: false,
        int: false,
    },
    Family {
        types: "F16E5M2E5M2",
        k: 32,
        majors: false,
        int: false,
    },
    Family {
        types: "F32E4M3E4M3",
        k: 32,
        majors: false,
        int: false,
    },
    Family {
        types: "F32E4M3E5M2",
        k: 32,
        majors: false,
        int: false,
    },
    Family {
        types: "F32E5M2E4M3",
        k: 32,
        majors: false,
        int: false,
    },
    Family {
        types: "F32E5M2E5M2",
        k: 32,
        majors: false,
        int: false,
    },
    Family {
        types: "S32S8S8",
        k: 32,
        majors: false,
        int: true,
    },
    Family {
        types: "S32S8U8",
        k: 32,
        majors: false,
        int: true,
    },
    Family {
        types: "S32U8S8",
        k: 32,
        majors: false,
        int: true,
    },
    Family {
        types: "S32U8U8",
        k: 32,
        majors: false,
        int: true,
    },
];

const MAJORS: [&str; 4] = ["TN", "NT", "NN", "TT"];

/// Every GMMA name, family by family, N ascending, `_SS` before `_RS`.
pub(super) fn gmma_names() -> Vec<String> {
    let mut out = Vec::new();
    for f in FAMILIES {
        let ns: Vec<i64> = if f.int {
            N_INT.to_vec()
        } else {
            n_dense().collect()
        };
        for n in ns {
            for src in ["SS", "RS"] {
                let base = format!("SM90_64x{n}x{}_{}_{src}", f.k, f.types);
                if f.majors {
                    for m in MAJORS {
                        if src == "RS" && (m == "NT" || m == "NN") {
                            continue;
                        }
                        out.push(format!("{base}_{m}"));
                    }
                } else {
                    out.push(format!("{base}_TN"));
                    if f.int {
                        out.push(format!("{base}_TN_SATURATE"));
                    }
                }
            }
        }
    }
    out
}

fn parse(s: &str) -> Result<Layout> {
    parse_layout(s).map_err(|e| Error::internal(format!("GMMA layout {s}: {e}")))
}

/// The atom of a GMMA name, `None` when the name is not a GMMA name at all.
pub(super) fn gmma_atom(name: &str) -> Result<Option<MmaAtom>> {
    let Some(rest) = name.strip_prefix("SM90_64x") else {
        return Ok(None);
    };
    let parts: Vec<&str> = rest.split('_').collect();
    if parts.len() < 3 {
        return Ok(None);
    }
    let Some((n, k)) = parts[0].split_once('x') else {
        return Ok(None);
    };
    let (Ok(n), Ok(k)) = (n.parse::<i64>(), k.parse::<i64>()) else {
        return Ok(None);
    };
    let Some(f) = FAMILIES.iter().find(|f| f.types == parts[1] && f.k == k) else {
        return Ok(None);
    };
    let src = parts[2];
    if src != "SS" && src != "RS" {
        return Ok(None);
    }
    let suffix = &parts[3..];
    let major = match suffix {
        [m] if f.majors || *m == "TN" => *m,
        ["TN", "SATURATE"] if f.int => "TN",
        [] if f.majors => {
            return Err(Error::invalid(format!(
                "GMMA atom '{name}' needs its majors: append _TN (<K,K>), _NT (<MN,MN>), \
                 _NN (<MN,K>) or _TT (<K,MN>)"
            )));
        }
        _ => return Ok(None),
    };
    if !MAJORS.contains(&major) {
        return Ok(None);
    }
    let ns_ok = if f.int {
        N_INT.contains(&n)
    } else {
        n % 8 == 0 && (8..=256).contains(&n)
    };
    if !ns_ok {
        return Err(Error::invalid(format!(
            "GMMA atom '{name}': CuTe has no {}x{n}x{k} {} atom",
            64, f.types
        )));
    }
    if src == "RS" && (major == "NT" || major == "NN") {
        return Err(Error::invalid(format!(
            "GMMA atom '{name}': Register source operand A must have K major layout."
        )));
    }
    let a = if src == "SS" {
        format!("(128,(64,{k})):(0,(1,64))")
    } else {
        match k {
            8 => "((4,8,4),(2,2)):((64,1,16),(8,256))".to_string(),
            16 => "((4,8,4),(2,2,2)):((128,1,16),(64,8,512))".to_string(),
            32 => "((4,8,4),(4,2,2)):((256,1,16),(64,8,1024))".to_string(),
            _ => return Err(Error::internal(format!("GMMA K {k}"))),
        }
    };
    let b = format!("(128,({n},{k})):(0,(1,{n}))");
    let c = format!("((4,8,4),(2,2,{})):((128,1,16),(64,8,512))", n / 8);
    Ok(Some(MmaAtom {
        name: name.to_string(),
        shape_mnk: [64, n, k],
        thr_id: parse("128:1")?,
        a: parse(&a)?,
        b: parse(&b)?,
        c: parse(&c)?,
        a_broadcast: src == "SS",
        b_broadcast: true,
    }))
}
