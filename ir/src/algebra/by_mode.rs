//! Tilers applied mode by mode, and the regrouping of their results: the common part of
//! `composition`, the divides and the products with a tuple tiler.

use super::tiler::Tiler;
use crate::error::{Error, Result};
use crate::int::Int;
use crate::layout::{Layout, Parts};
use crate::stride::Stride;

/// Applies `f` mode by mode; modes of `a` past the tiler are kept.
pub(crate) fn by_mode<I: Int>(
    op: &'static str,
    a: &Layout<I>,
    ts: &[Tiler<I>],
    f: fn(&Layout<I>, &Tiler<I>) -> Result<Layout<I>>,
) -> Result<Layout<I>> {
    if a.rank() < ts.len() {
        return Err(Error::cond(
            op,
            format!("tiler has {} modes but {a} has rank {}", ts.len(), a.rank()),
        ));
    }
    let mut out = crate::layout::LayoutBuilder::new();
    out.toks.push(a.rank() as u32 + 1);
    let whole = Parts::of(a);
    for (k, (toks, leaves)) in a.shape().profile().mode_spans().into_iter().enumerate() {
        let m = Parts {
            toks: &whole.toks[toks],
            s: &whole.s[leaves.clone()],
            d: &whole.d[leaves],
        };
        match ts.get(k) {
            Some(t) => out.push_layout(f(&m.to_layout(), t)?),
            None => out.push_parts(m),
        }
    }
    if a.shape().is_leaf() {
        // A leaf layout is its own single mode: the result is a rank-1 tuple.
        out.toks[0] = 2;
    }
    Ok(out.finish())
}

/// Gathers the by-mode results `((t0,r0),(t1,r1),...)` into `((t0,t1,...),(r0,r1,...))`.
///
/// Modes of `A` past the tiler go to the rest; a `_` entry puts the whole mode in the tile
/// and `1:0` in the rest. A nested tuple entry is gathered the same way, recursively (CuTe's
/// `zip2_by`), so that its tile and its rest stay grouped: `zipped_divide(((4,6),8):((1,4),24),
/// ((2,3),4))` is `(((2,3),4),((2,2),2)):(((1,4),24),((2,12),96))`.
pub(crate) fn unzip<I: Int>(op: &'static str, by_mode: &Layout<I>, ts: &[Tiler<I>]) -> Result<Layout<I>> {
    let (tile, rest) = unzip_modes(op, by_mode, ts)?;
    Ok(Layout::concat([tile, rest]))
}

/// The `(tile, rest)` pair of a by-mode result for the tuple tiler `ts`.
fn unzip_modes<I: Int>(
    op: &'static str,
    by_mode: &Layout<I>,
    ts: &[Tiler<I>],
) -> Result<(Layout<I>, Layout<I>)> {
    let mut tiles = Vec::new();
    let mut rests = Vec::new();
    for (k, m) in by_mode.modes().into_iter().enumerate() {
        match ts.get(k) {
            Some(Tiler::Keep) => {
                tiles.push(m);
                rests.push(Layout::leaf(I::one(), Stride::zero()));
            }
            // Before, a nested tuple was taken for a (tile, rest) pair: silently wrong when
            // it had two modes, an error otherwise.
            Some(Tiler::Tuple(sub)) => {
                let (t, r) = unzip_modes(op, &m, sub)?;
                tiles.push(t);
                rests.push(r);
            }
            Some(Tiler::Layout(_)) => {
                let (t, r) = (m.mode(0), m.mode(1));
                match (t, r, m.rank()) {
                    (Some(t), Some(r), 2) => {
                        tiles.push(t);
                        rests.push(r);
                    }
                    _ => {
                        return Err(Error::cond(
                            op,
                            format!("mode {k} ({m}) is not a (tile, rest) pair"),
                        ));
                    }
                }
            }
            None => rests.push(m),
        }
    }
    Ok((Layout::concat(tiles), Layout::concat(rests)))
}

/// Splices the modes of mode 1 (and of mode 0 when `both`) into the top level.
pub(crate) fn unpack<I: Int>(z: &Layout<I>, both: bool) -> Layout<I> {
    let modes = z.modes();
    let mut out = Vec::new();
    for (k, m) in modes.into_iter().enumerate() {
        if k == 1 || (both && k == 0) {
            if m.shape().is_tuple() {
                out.extend(m.modes());
            } else {
                out.push(m);
            }
        } else {
            out.push(m);
        }
    }
    Layout::concat(out)
}
