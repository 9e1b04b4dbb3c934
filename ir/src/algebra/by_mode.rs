//! Tilers applied mode by mode, and the regrouping of their results: the common part of
//! `composition`, the divides and the products with a tuple tiler.

use super::tiler::{Tiler, TilerView};
use crate::error::{Error, Result};
use crate::htuple::mode_spans_iter;
use crate::int::Int;
use crate::layout::{Layout, LayoutBuilder, Parts};
use crate::stride::Stride;

/// What a layout entry of a tuple tiler makes of its mode of `A` (given as borrowed parts),
/// appended to the builder as the next mode.
pub(crate) type ModeFn<I> = fn(&mut LayoutBuilder<'_, I>, Parts<'_, I>, &Layout<I>) -> Result<()>;

/// One entry of a tuple tiler, as the by-mode walk reads it from a [`Tiler`] or a
/// [`TilerView`].
pub(crate) enum Entry<'a, I, T> {
    Keep,
    Layout(&'a Layout<I>),
    /// The layout `n:1`.
    Unit(&'a I),
    Tuple(&'a [T]),
}

/// A tiler whose entries the by-mode walk reads.
pub(crate) trait ModeTiler<I>: Sized {
    fn entry(&self) -> Entry<'_, I, Self>;
}

impl<I> ModeTiler<I> for Tiler<I> {
    fn entry(&self) -> Entry<'_, I, Self> {
        match self {
            Tiler::Keep => Entry::Keep,
            Tiler::Layout(l) => Entry::Layout(l),
            Tiler::Tuple(ts) => Entry::Tuple(ts),
        }
    }
}

impl<I> ModeTiler<I> for TilerView<'_, I> {
    fn entry(&self) -> Entry<'_, I, Self> {
        match self {
            TilerView::Keep => Entry::Keep,
            TilerView::Layout(l) => Entry::Layout(l),
            TilerView::Unit(n) => Entry::Unit(n),
            TilerView::Tuple(ts) => Entry::Tuple(ts),
        }
    }
}

/// Applies `f` mode by mode, all modes written into one builder; `_` entries and modes of `a`
/// past the tiler are kept.
pub(crate) fn by_mode<I: Int, T: ModeTiler<I>>(
    op: &'static str,
    a: &Layout<I>,
    ts: &[T],
    f: ModeFn<I>,
) -> Result<Layout<I>> {
    Layout::build(|out| by_mode_into(op, out, Parts::of(a), ts, f))
}

/// [`by_mode`] of the (sub-)mode `a`, appended to `out` as its next mode: the modes of `a` are
/// read as borrowed parts, a nested tuple entry recurses into its mode, and nothing is built
/// as a layout of its own. A leaf `a` is its own single mode: the result is a rank-1 tuple.
fn by_mode_into<I: Int, T: ModeTiler<I>>(
    op: &'static str,
    out: &mut LayoutBuilder<'_, I>,
    a: Parts<'_, I>,
    ts: &[T],
    f: ModeFn<I>,
) -> Result<()> {
    let spans = mode_spans_iter(a.toks);
    let rank = spans.len();
    if rank < ts.len() {
        return Err(Error::cond(
            op,
            format!(
                "tiler has {} modes but {} has rank {rank}",
                ts.len(),
                a.to_layout()
            ),
        ));
    }
    out.toks.push(rank as u32 + 1);
    for (k, (toks, leaves)) in spans.enumerate() {
        let m = Parts {
            toks: &a.toks[toks],
            s: &a.s[leaves.clone()],
            d: &a.d[leaves],
        };
        match ts.get(k).map(ModeTiler::entry) {
            None | Some(Entry::Keep) => out.push_parts(m),
            Some(Entry::Layout(b)) => f(out, m, b)?,
            Some(Entry::Unit(n)) => f(out, m, &Layout::leaf(n.clone(), I::one()))?,
            Some(Entry::Tuple(sub)) => by_mode_into(op, out, m, sub, f)?,
        }
    }
    Ok(())
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
