//! The exact bank analysis by table lookups: the thread-value layout's logical indices and the
//! shared-memory layout's offsets computed once each by the odometer
//! ([`Concrete::offsets`](crate::Concrete::offsets)), then every access is two array reads,
//! and every phase is counted in 32 small per-bank lists reused from phase to phase. It gives
//! the same [`PhaseCost`]s, in the same order, as [`super::phase_cost`] evaluated access
//! by access (a test compares them); an access that is not contiguous or aligned is handed to
//! [`Geometry::address`] for its error, word for word the same.

use super::{Bank, Geometry, PhaseCost, PhaseWords};
use crate::deadline::Deadline;
use crate::error::{PResult, ProveError};

/// The offset tables of a question, when both layouts have integer strides.
struct Tables {
    /// Logical index of every thread-value index.
    tv: Vec<i64>,
    /// Element offset of every logical index below the shared layout's size.
    smem: Vec<i64>,
}

impl Tables {
    /// The tables of `g`, checked to cover every thread-value index.
    fn new(g: &Geometry, tv: Vec<i64>, smem: Vec<i64>) -> PResult<Tables> {
        let n = g.threads.checked_mul(g.chunks * g.vpa).unwrap_or(i64::MAX);
        if tv.len() as i64 != n {
            return Err(ProveError::internal(format!(
                "the thread-value layout has {} indices, not {n}",
                tv.len()
            )));
        }
        Ok(Tables { tv, smem })
    }

    /// The element offset of thread-value index `i` (the shared layout evaluated directly
    /// past its table).
    fn element(&self, g: &Geometry, i: i64) -> PResult<i64> {
        let li = self.tv[i as usize];
        match usize::try_from(li).ok().and_then(|k| self.smem.get(k)) {
            Some(&e) => Ok(e),
            None => Ok(g.smem.offset(li)?),
        }
    }

    /// The byte address of thread `t`'s access `c`: [`Geometry::address`], by lookups.
    fn address(&self, b: &Bank, g: &Geometry, t: i64, c: i64) -> PResult<i64> {
        let v0 = c * g.vpa;
        let e0 = self.element(g, t + g.threads * v0)?;
        for k in 1..g.vpa {
            if Some(self.element(g, t + g.threads * (v0 + k))?) != e0.checked_add(k) {
                return g.address(b, t, c);
            }
        }
        // The access width is a power of two (1 to 16 bytes): alignment is a mask.
        match e0.checked_mul(b.elem) {
            Some(a) if a & (b.access - 1) == 0 => Ok(a),
            _ => g.address(b, t, c),
        }
    }
}

/// The most entries a table is built with (thread-value indices, shared-memory indices): past it (a table of 128 MiB,
/// built without looking at the clock) the accesses are evaluated one by one, which polls
/// the deadline.
const MAX_TABLE: i64 = 1 << 24;

/// The two offset tables of `g`, when both layouts have integer strides and the question
/// has at most [`MAX_TABLE`] accesses.
fn tables(g: &Geometry, deadline: &Deadline) -> PResult<Option<(Vec<i64>, Vec<i64>)>> {
    let n = g.threads.saturating_mul(g.chunks.saturating_mul(g.vpa));
    if n > MAX_TABLE || g.smem.size()? > MAX_TABLE {
        return Ok(None);
    }
    let Some(tv) = g.tv.offsets()? else {
        return Ok(None);
    };
    deadline.check()?;
    Ok(g.smem.offsets()?.map(|smem| (tv, smem)))
}

/// Visits every phase of every access like [`crate::bank`]'s enumeration; `false` (nothing
/// visited) when a layout has no offset table (coordinate or `F2` strides).
pub(crate) fn each_phase(
    b: &Bank,
    g: &Geometry,
    deadline: &Deadline,
    mut visit: impl FnMut(PhaseCost),
) -> PResult<bool> {
    let Some((tv, smem)) = tables(g, deadline)? else {
        return Ok(false);
    };
    let tables = Tables::new(g, tv, smem)?;
    let mut words = PhaseWords::new();
    let mut step = 0u64;
    for c in 0..g.chunks {
        let mut start = 0;
        while start < g.threads {
            let end = (start + g.phase).min(g.threads);
            words.clear();
            for t in start..end {
                step += 1;
                deadline.poll(step)?;
                words.add(t, tables.address(b, g, t, c)?, g.words);
            }
            visit(words.cost(c, (start, end)));
            start = end;
        }
    }
    Ok(true)
}

/// Visits every warp instruction (access number, first thread, the byte address of each of
/// its threads in order), access by access, like the wavefront count's evaluation; `false`
/// (nothing visited) when a layout has no offset table.
pub(crate) fn each_instruction(
    b: &Bank,
    g: &Geometry,
    deadline: &Deadline,
    mut visit: impl FnMut(i64, i64, &[i64]),
) -> PResult<bool> {
    let Some((tv, smem)) = tables(g, deadline)? else {
        return Ok(false);
    };
    let tables = Tables::new(g, tv, smem)?;
    let mut addrs = Vec::with_capacity(super::WARP as usize);
    let mut step = 0u64;
    for c in 0..g.chunks {
        let mut warp = 0;
        while warp < g.threads {
            addrs.clear();
            for t in warp..(warp + super::WARP).min(g.threads) {
                step += 1;
                deadline.poll(step)?;
                addrs.push(tables.address(b, g, t, c)?);
            }
            visit(c, warp, &addrs);
            warp += super::WARP;
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bank::{phase_cost, shape_of};
    use crate::func::Func;
    use std::sync::Arc;

    /// The costs access by access through [`phase_cost`], the reference.
    fn slow(b: &Bank) -> PResult<Vec<PhaseCost>> {
        let g = shape_of(b)?;
        let (mut out, mut step) = (Vec::new(), 0u64);
        for c in 0..g.chunks {
            let mut start = 0;
            while start < g.threads {
                let end = (start + g.phase).min(g.threads);
                out.push(phase_cost(b, &g, c, (start, end), &Deadline::none(), &mut step)?);
                start = end;
            }
        }
        Ok(out)
    }

    fn fast(b: &Bank) -> PResult<Vec<PhaseCost>> {
        let g = shape_of(b)?;
        let mut out = Vec::new();
        assert!(each_phase(b, &g, &Deadline::none(), |c| out.push(c))?);
        Ok(out)
    }

    /// Swizzled, padded, negative-stride, broadcast and misaligned questions: the same costs
    /// and conflicts, or the same error.
    #[test]
    fn lookups_match_the_access_by_access_analysis() {
        let facts = Arc::new(tessera_ir::sym::Facts::default());
        let f = |s: &str| Func::parse(s, &facts).unwrap();
        let smems = [
            "(32,32):(32,1)",
            "(32,32):(33,1)",
            "Sw<5,0,5> o (32,32):(32,1)",
            "Sw<3,1,3> o 16 o (32,32):(32,1)",
            "(32,32):(-32,-1)",
            "(32,32):(0,1)",
            "(32,32):(36,1)",
            "(32,32):(40,1)",
        ];
        let tvs = [
            ("(32,32):(1,32)", 4, 4),
            ("(32,32):(32,1)", 4, 4),
            ("(32,32):(32,1)", 2, 2),
            ("(32,32):(32,1)", 1, 1),
            ("(8,128):(128,1)", 4, 16),
            ("(16,64):(64,1)", 4, 8),
            ("((4,8),32):((8,256),1)", 4, 16),
            ("(32,32):(1,32)", 8, 8),
        ];
        let mut compared = 0;
        for s in smems {
            for (tv, elem, access) in tvs {
                let b = Bank {
                    smem: f(s),
                    tv: f(tv),
                    elem,
                    access,
                };
                match (slow(&b), fast(&b)) {
                    (Ok(x), Ok(y)) => {
                        assert_eq!(x, y, "{s} {tv} {elem} {access}");
                        compared += 1;
                    }
                    (Err(x), Err(y)) => assert_eq!(x.to_string(), y.to_string(), "{s} {tv}"),
                    (x, y) => panic!("{s} {tv} {elem} {access}: {x:?} vs {y:?}"),
                }
            }
        }
        assert!(compared > 30, "{compared}");
    }
}
