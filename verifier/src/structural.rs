//! The structural engine: properties of a concrete layout decided from its leaves alone, in
//! time linear in its rank, without visiting its points. Every refutation names indices that
//! are re-checked by direct evaluation, as z3's are.
//!
//! A concrete layout with integer strides (optionally under a composed layout's offset, with
//! no swizzle) is `L(i) = o + Σ_k c_k·d_k` where `c_k < s_k` are the coordinates of `i` on
//! the leaves (colexicographic).
//!
//! * **Bounds** (`in_bounds`): the extreme values are `o + Σ (s_k-1)·max(d_k, 0)` and
//!   `o + Σ (s_k-1)·min(d_k, 0)`, reached at the coordinates `s_k-1` or `0`. Exact.
//! * **Contiguity** (`contiguous`): `L(i) = L(0) + i` for every `i` exactly when each leaf of
//!   extent > 1 has the stride `P_k`, the product of the extents before it: at the index
//!   `P_k` (coordinate 1 on leaf `k`, 0 elsewhere) `L = o + d_k`. Exact.
//! * **Injectivity** (`injective`, `bijective`): with the leaves of extent > 1 sorted by
//!   `|d_k|`, if each `|d_k|` exceeds `Σ_{j<k} (s_j-1)·|d_j|` (what the smaller leaves
//!   reach), the largest leaf on which two coordinates differ decides the sign of the
//!   difference: injective. A zero stride, or two leaves of one `|d|`, gives a collision
//!   (`0` and the unit index of the leaf; or the unit indices of the two leaves, or `0` and
//!   their sum when the signs differ). Anything else is not decided here.
//!
//! ```
//! use std::sync::Arc;
//! use tessera_verifier::{prove_by, Engine, Func, Options, Property, Verdict};
//! let facts = Arc::new(tessera_ir::sym::Facts::default());
//! let f = |src: &str| Func::parse(src, &facts).unwrap();
//! let o = Options::default();
//! let p = Property::Injective(f("(1000,999):(999,1)"));
//! assert_eq!(prove_by(&p, &o, Engine::Structural), (Verdict::Proved, Engine::Structural));
//! let p = Property::Contiguous(f("(8,3):(1,9)"));
//! assert!(matches!(prove_by(&p, &o, Engine::Structural).0, Verdict::Refuted(_)));
//! // (2,3):(3,2) is injective, but not by dominating strides: not decided here.
//! let p = Property::Injective(f("(2,3):(3,2)"));
//! assert!(matches!(prove_by(&p, &o, Engine::Structural).0, Verdict::Unknown(_)));
//! ```

use crate::checks::{recheck_contiguous, recheck_in_bounds, recheck_injective};
use crate::context::{Ctx, Vals, confirm};
use crate::error::PResult;
use crate::func::{Concrete, Func};
use crate::property::Property;
use crate::verdict::Verdict;
use std::collections::HashMap;
use tessera_ir::Int;
use tessera_ir::Stride;
use tessera_ir::sym::SymInt;

/// One leaf of extent > 1: its extent, its stride, and the index of coordinate 1 on it.
#[derive(Clone, Copy, Debug)]
struct Leaf {
    extent: i128,
    stride: i128,
    unit: i64,
}

/// A concrete layout with integer strides, as its leaves of extent > 1 and its offset.
struct Affine {
    leaves: Vec<Leaf>,
    offset: i128,
}

/// The function's leaves, when it is concrete, integer-strided and unswizzled.
fn affine(f: &Func) -> Result<Affine, String> {
    if let Func::Composed(c) = f
        && c.swizzle.is_some()
    {
        return Err("the layout is swizzled".into());
    }
    if f.partial() || !f.syms().iter().all(|s| s.as_const().is_some()) {
        return Err(format!("{f} is not a concrete integer-strided layout"));
    }
    let c = f.at(&HashMap::new()).map_err(|e| e.to_string())?;
    let (l, offset) = match &c {
        Concrete::Layout(l) => (l, 0),
        Concrete::Composed(cl) if cl.swizzle.is_none() => (&cl.inner, cl.offset),
        Concrete::Composed(_) => return Err(format!("{f} is swizzled")),
    };
    let mut leaves = Vec::new();
    let mut unit: i64 = 1;
    for (s, d) in l.flat_shape().iter().zip(l.flat_stride()) {
        let Stride::Int(d) = d else {
            return Err(format!("{f} has a stride that is not an integer"));
        };
        if *s > 1 {
            leaves.push(Leaf {
                extent: i128::from(*s),
                stride: i128::from(*d),
                unit,
            });
        }
        unit = unit
            .checked_mul(*s)
            .ok_or_else(|| format!("the size of {f} overflows"))?;
    }
    Ok(Affine {
        leaves,
        offset: i128::from(offset),
    })
}

/// The index of the coordinates `coord[k]` on the leaves (`None`: out of `i64`).
fn index_of(leaves: &[Leaf], coord: impl Fn(&Leaf) -> i128) -> Option<i64> {
    let mut x: i128 = 0;
    for l in leaves {
        x = x.checked_add(coord(l).checked_mul(i128::from(l.unit))?)?;
    }
    i64::try_from(x).ok()
}

/// Whether the structural engine answers this kind of property (on concrete integer-strided
/// layouts): the properties [`answer`] handles.
pub(crate) fn decides(p: &Property) -> bool {
    matches!(
        p,
        Property::Injective(_) | Property::Bijective(_) | Property::InBounds(..) | Property::Contiguous(_)
    )
}

/// The structural engine's verdict on `p`, or why it does not decide it.
pub(crate) fn answer(p: &Property, ctx: &Ctx) -> PResult<Result<Verdict, String>> {
    if !ctx.params.is_empty() {
        return Ok(Err("the property has parameters".into()));
    }
    let undecided = |why: &str| Ok(Err(why.to_string()));
    match p {
        Property::InBounds(f, n) => in_bounds(ctx, f, n),
        Property::Contiguous(f) => contiguous(ctx, f),
        Property::Injective(f) => injective(ctx, f),
        Property::Bijective(f) => match injective(ctx, f)? {
            Ok(Verdict::Proved) => in_bounds(ctx, f, &f.size()?),
            other => Ok(other),
        },
        _ => undecided(&format!("the structural engine does not decide {}", p.name())),
    }
}

fn in_bounds(ctx: &Ctx, f: &Func, n: &SymInt) -> PResult<Result<Verdict, String>> {
    let a = match affine(f) {
        Ok(a) => a,
        Err(e) => return Ok(Err(e)),
    };
    let Some(hi) = n.as_const() else {
        return Ok(Err(format!("the bound {n} is not concrete")));
    };
    let (mut lo_v, mut hi_v) = (Some(a.offset), Some(a.offset));
    for l in &a.leaves {
        let span = (l.extent - 1) * l.stride;
        if span > 0 {
            hi_v = hi_v.and_then(|h| h.checked_add(span));
        } else {
            lo_v = lo_v.and_then(|h| h.checked_add(span));
        }
    }
    let (Some(lo_v), Some(hi_v)) = (lo_v, hi_v) else {
        return Ok(Err("the extreme values overflow".into()));
    };
    let x = if hi_v >= i128::from(hi) {
        index_of(&a.leaves, |l| if l.stride > 0 { l.extent - 1 } else { 0 })
    } else if lo_v < 0 {
        index_of(&a.leaves, |l| if l.stride < 0 { l.extent - 1 } else { 0 })
    } else {
        return Ok(Ok(Verdict::Proved));
    };
    let Some(x) = x else {
        return Ok(Err("the extreme index overflows".into()));
    };
    let idx = Vals::from([("x".to_string(), x)]);
    Ok(Ok(confirm(ctx, Vals::new(), idx, |ps, idx| {
        recheck_in_bounds(f, n, ps, idx)
    })?))
}

fn contiguous(ctx: &Ctx, f: &Func) -> PResult<Result<Verdict, String>> {
    let a = match affine(f) {
        Ok(a) => a,
        Err(e) => return Ok(Err(e)),
    };
    let Some(bad) = a.leaves.iter().find(|l| l.stride != i128::from(l.unit)) else {
        return Ok(Ok(Verdict::Proved));
    };
    let idx = Vals::from([("i".to_string(), bad.unit)]);
    Ok(Ok(confirm(ctx, Vals::new(), idx, |ps, idx| {
        recheck_contiguous(f, ps, idx)
    })?))
}

fn injective(ctx: &Ctx, f: &Func) -> PResult<Result<Verdict, String>> {
    let a = match affine(f) {
        Ok(a) => a,
        Err(e) => return Ok(Err(e)),
    };
    let mut leaves = a.leaves.clone();
    leaves.sort_by_key(|l| l.stride.abs());
    let collide = |x: i64, y: i64| -> PResult<Result<Verdict, String>> {
        let idx = Vals::from([("x".to_string(), x.min(y)), ("y".to_string(), x.max(y))]);
        Ok(Ok(confirm(ctx, Vals::new(), idx, |ps, idx| {
            recheck_injective(f, ps, idx)
        })?))
    };
    if let Some(z) = leaves.first().filter(|l| l.stride == 0) {
        return collide(0, z.unit);
    }
    if let Some(w) = leaves.windows(2).find(|w| w[0].stride.abs() == w[1].stride.abs()) {
        let (u, v) = (w[0].unit, w[1].unit);
        return match w[0].stride == w[1].stride {
            true => collide(u, v),
            false => match u.checked_add(v) {
                Some(s) => collide(0, s),
                None => Ok(Err("the colliding index overflows".into())),
            },
        };
    }
    let mut reach: i128 = 0;
    for l in &leaves {
        if l.stride.abs() <= reach {
            return Ok(Err(format!(
                "the stride {} does not exceed {reach}, what the smaller strides reach",
                l.stride
            )));
        }
        let Some(r) = reach.checked_add((l.extent - 1) * l.stride.abs()) else {
            return Ok(Err("the reach of the strides overflows".into()));
        };
        reach = r;
    }
    Ok(Ok(Verdict::Proved))
}
