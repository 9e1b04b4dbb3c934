//! Swizzle synthesis: the shared-memory layouts, made from a plain one, that serve a set of
//! access patterns with the fewest bank conflicts.
//!
//! # The candidates
//!
//! Given the plain (unswizzled) shared-memory layout `L` and the access patterns (thread-value
//! layouts with their element size and access width, each a [`Bank`] question over `L`),
//! [`suggest`] scores:
//!
//! * `L` itself;
//! * every swizzle `Sw<B,M,S> o L` (CuTe's `Swizzle`: the offset bits `[M+S, M+S+B)` XORed
//!   into the bits `[M, M+B)`) with `B >= 1`, `M >= 0`, `S >= B` (CuTe requires
//!   `|S| >= B` so that the two groups of bits do not overlap; negative shifts, which move low
//!   bits into high ones, are not searched) and `M + S + B <= t`, where `2^t` is the largest
//!   power of two dividing `cosize(L)` (the bit width of the cosize when it is a power of
//!   two). Such a swizzle permutes each aligned block of `2^t` offsets within itself, so
//!   `Sw<B,M,S> o L` is injective exactly when `L` is, and its offsets stay below `cosize(L)`:
//!   it costs no memory;
//! * every row padding `pad(L, p)` for `1 <= p <` [`MAX_PAD`] + 1 elements (see below).
//!
//! **Row padding.** The *row* of `L` is its top-level mode that holds a leaf of stride 1 (the
//! contiguous mode); the row length `R` is that mode's cosize. Padding needs every leaf of
//! the other modes (of extent above 1) to have a positive stride that is a multiple of `R`;
//! then `pad(L, p)` keeps the row's strides and replaces each other stride `d` by
//! `d + p*(d/R)`: every row starts `p` elements after where it used to, the classic
//! `(32,32):(32,1)` to `(32,32):(33,1)` for `p = 1`. On offsets it is `o -> o + p*(o/R)`, a
//! strictly increasing map, so it keeps injectivity. Its cost is the growth of the cosize,
//! in bytes. [`MAX_PAD`] is 16 elements: at least one 16-byte vector for every element
//! size, so some padding keeps every access width aligned.
//!
//! # The score
//!
//! A candidate is *valid* when every pattern is a well-formed bank question on it (each
//! access contiguous and aligned: [`crate::analyze`] answers [`ProveError::Invalid`]
//! otherwise). Each pattern's degree comes from the F2 engine ([`crate::bank_degree`], a few
//! microseconds) where the layouts are in its fragment, else from the exact enumeration
//! ([`crate::analyze`]). Each pattern's wavefronts (every warp instruction's, as the hardware
//! counts them: [`crate::wavefronts`]) come from the degree where F2 gave it (in its
//! fragment every phase of a pattern is a translate of the first, so each takes the degree;
//! the wavefronts are the degree times the phases, unless the pattern's phases are served in
//! pairs, which depends on the thread-value layout alone for an injective candidate), else
//! from the exact count. Candidates are ranked by the wavefronts of all patterns together,
//! then the worst degree, then the sum of the degrees, then the padding in bytes, then
//! simplicity: the plain layout, then swizzles by `B`, `M`, `S`, then paddings by `p`.
//!
//! # Limits (bad input past them)
//!
//! [`MAX_PATTERNS`] access patterns; a plain layout of at most [`MAX_COSIZE`] offsets; at
//! most [`MAX_WORK`] thread-value points enumerated over all candidates the F2 engine does not
//! decide (checked before the search, from the fragment of the plain layout, and during it).
//!
//! ```
//! use std::sync::Arc;
//! use tessera_verifier::{suggest, Change, Func, Pattern};
//! let facts = Arc::new(tessera_ir::sym::Facts::default());
//! let f = |src: &str| Func::parse(src, &facts).unwrap();
//! // A 32x32 f32 tile written by rows and read by columns.
//! let write = Pattern { tv: f("(32,32):(32,1)"), elem: 4, access: 4 };
//! let read = Pattern { tv: f("(32,32):(1,32)"), elem: 4, access: 4 };
//! let s = suggest(&f("(32,32):(32,1)"), &[write, read]).unwrap();
//! let best = &s.ranked[0];
//! assert_eq!(best.degrees, vec![1, 1]);
//! assert_eq!(best.smem.to_string(), "Sw<5,0,5> o (32,32):(32,1)");
//! // The padding alternative: one element per row.
//! let pad = s.ranked.iter().find(|c| matches!(c.change, Change::Pad(_))).unwrap();
//! assert_eq!((pad.smem.to_string(), pad.degrees.clone()), ("(32,32):(33,1)".into(), vec![1, 1]));
//! ```
//!
//! @pre `plain` is a concrete, integer-valued layout with non-negative strides, injective,
//! of at most [`MAX_COSIZE`] offsets; every pattern is a well-formed bank question shape
//! (rank-2 thread-value layout, `access` in {1,2,4,8,16}, `elem` dividing it), all with one
//! element size.
//! @post `ranked` holds every valid candidate exactly once, best first; each one's `degrees`
//! are the exact wavefront counts of [`crate::analyze`] on `Bank { smem, tv, elem, access }`,
//! and its `smem` is injective.

use crate::bank::wavefront::{merges, wavefronts};
use crate::bank::{self, Bank};
use crate::engine::Engine;
use crate::error::{PResult, ProveError};
use crate::f2::{F2Layout, bank_degree};
use crate::func::{Concrete, Func};
use crate::prove::{Options, prove_by};
use crate::{Cmp, Property, Verdict};
use std::collections::HashMap;
use tessera_ir::sym::SymInt;
use tessera_ir::{ComposedLayout, Int, Layout, Stride, Swizzle};

/// The largest row padding searched, in elements.
pub const MAX_PAD: i64 = 16;
/// The most access patterns one search takes.
pub const MAX_PATTERNS: usize = 16;
/// The largest cosize (and size) of the plain layout, in elements.
pub const MAX_COSIZE: i64 = 1 << 24;
/// The most thread-value points the exact enumeration may visit over one search.
pub const MAX_WORK: u64 = 1 << 22;

/// An access pattern: a thread-value layout (mode 0 threads, mode 1 values) with its element
/// size and access width in bytes, as in `bank_conflict_free(Smem, TV, elem=E, access=W)`.
#[derive(Clone, Debug)]
pub struct Pattern {
    /// The thread-value layout: `(thread, value)` to logical index of the shared memory.
    pub tv: Func,
    /// Bytes per element.
    pub elem: i64,
    /// Bytes each thread accesses per instruction.
    pub access: i64,
}

impl Pattern {
    /// The bank question of this pattern on the shared-memory layout `smem`.
    pub fn bank(&self, smem: &Func) -> Bank {
        Bank {
            smem: smem.clone(),
            tv: self.tv.clone(),
            elem: self.elem,
            access: self.access,
        }
    }
}

/// How a candidate is made from the plain layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// The plain layout itself.
    None,
    /// `swizzle o plain`.
    Swizzle(Swizzle),
    /// The rows padded by this many elements (see the module documentation).
    Pad(i64),
}

impl Change {
    /// The tie-break of equal scores: the plain layout, then swizzles by `B`, `M`, `S`, then
    /// paddings by `p`.
    fn simplicity(self) -> (u8, i64, i64, i64) {
        match self {
            Change::None => (0, 0, 0, 0),
            Change::Swizzle(s) => (1, s.bits.into(), s.base.into(), s.shift.into()),
            Change::Pad(p) => (2, p, 0, 0),
        }
    }
}

/// A valid candidate with its score.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// How it is made from the plain layout.
    pub change: Change,
    /// The candidate shared-memory layout.
    pub smem: Func,
    /// The degree (wavefronts of the worst phase) of each pattern, in order.
    pub degrees: Vec<i64>,
    /// The engine that gave each degree: [`Engine::F2`] or [`Engine::Enumeration`].
    pub engines: Vec<Engine>,
    /// The wavefronts of each pattern, every warp instruction's together
    /// ([`crate::wavefronts`]'s `total`), in order.
    pub wavefronts: Vec<i64>,
    /// The same without bank conflicts (each pattern's phases).
    pub ideal: Vec<i64>,
    /// The memory it costs beyond the plain layout: the growth of the cosize, in bytes.
    pub extra_bytes: i64,
}

impl Candidate {
    /// The worst degree over the patterns.
    pub fn worst(&self) -> i64 {
        self.degrees.iter().copied().max().unwrap_or(1)
    }

    /// The ranking key: the wavefronts of all patterns together, worst degree, sum of
    /// degrees, bytes, simplicity.
    fn key(&self) -> (i64, i64, i64, i64, (u8, i64, i64, i64)) {
        (
            self.wavefronts.iter().sum(),
            self.worst(),
            self.degrees.iter().sum(),
            self.extra_bytes,
            self.change.simplicity(),
        )
    }

    /// The property that states this candidate's score for pattern `k`: `bank_conflict_free`
    /// for degree 1, else `conflict_degree(...) <= d`.
    pub fn property(&self, patterns: &[Pattern], k: usize) -> Option<Property> {
        let (p, d) = (patterns.get(k)?, *self.degrees.get(k)?);
        let b = p.bank(&self.smem);
        Some(match d {
            1 => Property::BankConflictFree(b),
            d => Property::ConflictDegree(b, Cmp::Le, d),
        })
    }

    /// Proves each pattern's [`Candidate::property`] with [`prove_by`] (`Engine::Auto`): the
    /// verdict and the engine that gave it, per pattern.
    pub fn prove(&self, patterns: &[Pattern], opts: &Options) -> Vec<(Verdict, Engine)> {
        (0..patterns.len())
            .filter_map(|k| self.property(patterns, k))
            .map(|p| prove_by(&p, opts, Engine::Auto))
            .collect()
    }
}

/// The result of a search.
#[derive(Clone, Debug)]
pub struct Suggestions {
    /// Every valid candidate, best first.
    pub ranked: Vec<Candidate>,
    /// Candidates scored (valid or not).
    pub searched: usize,
    /// Candidates rejected because a pattern is not a well-formed bank question on them.
    pub rejected: usize,
    /// Why no padding was searched, when none was.
    pub no_padding: Option<String>,
}

fn invalid(msg: String) -> ProveError {
    ProveError::Invalid(format!("suggest: {msg}"))
}

/// The row of a plain layout: the range of its leaves that form the contiguous mode, and the
/// row length `R`; or why it has no rows to pad.
fn rows(l: &Layout<i64>) -> Result<(std::ops::Range<usize>, i64), String> {
    let modes = l.modes();
    if modes.len() < 2 {
        return Err("the layout has one mode: no rows to pad".into());
    }
    let mut start = 0;
    let mut row = None;
    for m in &modes {
        let n = m.flat_shape().len();
        let unit = m
            .flat_shape()
            .iter()
            .zip(m.flat_stride())
            .any(|(&s, d)| s > 1 && d.as_int() == Some(&1));
        if unit && row.is_none() {
            row = Some((start..start + n, m.cosize().map_err(|e| e.to_string())?));
        }
        start += n;
    }
    let Some((range, r)) = row else {
        return Err("no mode has stride 1: no rows to pad".into());
    };
    for (k, (&s, d)) in l.flat_shape().iter().zip(l.flat_stride()).enumerate() {
        if range.contains(&k) || s <= 1 {
            continue;
        }
        match d.as_int() {
            Some(&d) if d > 0 && d % r == 0 => {}
            _ => {
                return Err(format!(
                    "the stride {d} is not a positive multiple of the row length {r}: no rows to pad"
                ));
            }
        }
    }
    Ok((range, r))
}

/// `pad(L, p)`: the strides outside the row grow by `p` elements per row.
fn padded(l: &Layout<i64>, row: &std::ops::Range<usize>, r: i64, p: i64) -> PResult<Layout<i64>> {
    let (shape, mut stride) = l.clone().into_parts();
    for (k, d) in stride.leaves_mut().iter_mut().enumerate() {
        if row.contains(&k) {
            continue;
        }
        if let Some(&v) = d.as_int() {
            let grown = (v / r)
                .checked_mul(p)
                .and_then(|x| x.checked_add(v))
                .ok_or_else(|| invalid(format!("padding {p}: the stride {v} overflows")))?;
            *d = Stride::Int(grown);
        }
    }
    Ok(Layout::new(shape, stride)?)
}

/// The concrete plain layout, checked against the preconditions.
fn plain_layout(plain: &Func) -> PResult<Layout<i64>> {
    let l = match plain.at(&HashMap::new()) {
        Ok(Concrete::Layout(l)) => l,
        Ok(Concrete::Composed(_)) => {
            return Err(invalid(format!(
                "{plain} is already swizzled or offset: give the plain layout"
            )));
        }
        Err(_) => {
            return Err(invalid(format!(
                "{plain} has parameters: the search needs a concrete layout"
            )));
        }
    };
    if !l.is_int_strided() {
        return Err(invalid(format!(
            "{plain} must have integer strides (offsets, not coordinates or F2 strides)"
        )));
    }
    if l.flat_stride().iter().any(|d| d.as_int().is_some_and(|&v| v < 0)) {
        return Err(invalid(format!("{plain} has a negative stride")));
    }
    let (size, cosize) = (l.size()?, l.cosize()?);
    if size > MAX_COSIZE || cosize > MAX_COSIZE {
        return Err(invalid(format!(
            "{plain} has {size} elements and cosize {cosize}: the search takes at most {MAX_COSIZE}"
        )));
    }
    let offsets = Concrete::Layout(l.clone())
        .offsets()?
        .ok_or_else(|| invalid(format!("{plain} is not integer-valued")))?;
    let mut seen = vec![false; cosize as usize];
    for o in offsets {
        let slot = &mut seen[o as usize];
        if *slot {
            return Err(invalid(format!(
                "{plain} is not injective (offset {o} is reached twice): no layout made from it is"
            )));
        }
        *slot = true;
    }
    Ok(l)
}

/// Candidates as the change and the layout under the swizzle (the padded one for a padding).
type Made = Vec<(Change, Layout<i64>)>;

/// The candidates: the plain layout, the swizzles, the paddings (with why there are none).
fn candidates(l: &Layout<i64>) -> PResult<(Made, Option<String>)> {
    let mut out = vec![(Change::None, l.clone())];
    let t = l.cosize()?.trailing_zeros() as i64;
    for b in 1..=t {
        for s in b..=t - b {
            for m in 0..=t - b - s {
                out.push((Change::Swizzle(Swizzle::new(b, m, s)?), l.clone()));
            }
        }
    }
    let no_padding = match rows(l) {
        Ok((row, r)) => {
            for p in 1..=MAX_PAD {
                out.push((Change::Pad(p), padded(l, &row, r, p)?));
            }
            None
        }
        Err(why) => Some(why),
    };
    Ok((out, no_padding))
}

/// The function of a candidate.
fn func_of(change: Change, l: &Layout<i64>) -> PResult<Func> {
    let inner: Layout<SymInt> = l.lift()?;
    Ok(match change {
        Change::Swizzle(sw) => Func::Composed(ComposedLayout::new(sw, SymInt::lit(0), inner)),
        _ => Func::Layout(inner),
    })
}

/// What is known of a pattern before the search: its thread-value points, and, when its
/// phases are never served in pairs, the number of its phases (the wavefronts of one
/// wavefront per phase).
struct Known {
    points: u64,
    phases: Option<i64>,
}

/// The score of one pattern on one candidate.
struct Score {
    degree: i64,
    engine: Engine,
    wavefronts: i64,
    ideal: i64,
}

/// Counts `points` more enumerated points against [`MAX_WORK`].
fn spend(work: &mut u64, points: u64) -> PResult<()> {
    *work = work.saturating_add(points);
    if *work > MAX_WORK {
        return Err(invalid(format!(
            "the search space is too large: more than {MAX_WORK} thread-value points to enumerate outside the F2 fragment"
        )));
    }
    Ok(())
}

/// The degree and wavefronts of one pattern on one candidate: `Ok(None)` when the pattern is
/// not a well-formed bank question on it. `work` counts the points enumerated.
fn score(b: &Bank, known: &Known, work: &mut u64) -> PResult<Option<Score>> {
    let outcome = match bank_degree(b) {
        Ok(Ok(f)) => match known.phases {
            // Every phase a translate of the first: each takes the degree.
            Some(p) => {
                return Ok(Some(Score {
                    degree: f.degree,
                    engine: Engine::F2,
                    wavefronts: f.degree.saturating_mul(p),
                    ideal: p,
                }));
            }
            None => {
                spend(work, known.points)?;
                wavefronts(b).map(|w| (f.degree, Engine::F2, w))
            }
        },
        Ok(Err(_)) => {
            spend(work, known.points)?;
            bank::analyze(b).and_then(|a| Ok((a.degree, Engine::Enumeration, wavefronts(b)?)))
        }
        Err(e) => Err(e),
    };
    match outcome {
        Ok((degree, engine, w)) => Ok(Some(Score {
            degree,
            engine,
            wavefronts: w.total,
            ideal: w.ideal,
        })),
        Err(ProveError::Invalid(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Searches the swizzles and paddings of `plain` for the fewest bank conflicts of
/// `patterns` (see the module documentation: candidates, score, limits).
pub fn suggest(plain: &Func, patterns: &[Pattern]) -> PResult<Suggestions> {
    if patterns.is_empty() {
        return Err(invalid("give at least one access pattern".into()));
    }
    if patterns.len() > MAX_PATTERNS {
        return Err(invalid(format!(
            "{} access patterns: the search takes at most {MAX_PATTERNS}",
            patterns.len()
        )));
    }
    let elem = patterns[0].elem;
    if let Some(p) = patterns.iter().find(|p| p.elem != elem) {
        return Err(invalid(format!(
            "every access must use the element size of the shared-memory layout: elem={elem} and elem={}",
            p.elem
        )));
    }
    let l = plain_layout(plain)?;
    let mut points = Vec::with_capacity(patterns.len());
    let mut known = Vec::with_capacity(patterns.len());
    for (k, p) in patterns.iter().enumerate() {
        bank::validate(&p.bank(plain)).map_err(|e| invalid(format!("access pattern {}: {e}", k + 1)))?;
        let n = u64::try_from(p.tv.at(&HashMap::new())?.size()?).unwrap_or(u64::MAX);
        points.push(n);
        // Candidates are injective, so two threads share an address exactly when they share a
        // logical index: whether phases pair up is the plain layout's answer for all of them.
        let phases = match (merges(&p.bank(plain)), wavefronts(&p.bank(plain))) {
            (Ok(false), Ok(w)) => Some(w.ideal),
            _ => None,
        };
        known.push(Known { points: n, phases });
    }
    let (cands, no_padding) = candidates(&l)?;
    // Before searching: the points the enumeration would visit, where F2 cannot answer.
    let f2_plain = F2Layout::from_concrete(&Concrete::Layout(l.clone())).is_ok();
    let mut estimate = 0u64;
    for (change, _) in &cands {
        for (p, &n) in patterns.iter().zip(&points) {
            let f2_tv = F2Layout::from_func(&p.tv).is_ok();
            if !(f2_plain && f2_tv && !matches!(change, Change::Pad(_))) {
                estimate = estimate.saturating_add(n);
            }
        }
    }
    if estimate > MAX_WORK {
        return Err(invalid(format!(
            "the search space is too large: {} candidates would enumerate {estimate} thread-value points outside the F2 fragment, more than {MAX_WORK}",
            cands.len()
        )));
    }
    let mut work = 0u64;
    let mut ranked = Vec::new();
    let searched = cands.len();
    for (change, layout) in cands {
        let smem = func_of(change, &layout)?;
        let mut degrees = Vec::with_capacity(patterns.len());
        let mut engines = Vec::with_capacity(patterns.len());
        let (mut fronts, mut ideal) = (Vec::new(), Vec::new());
        for (p, k) in patterns.iter().zip(&known) {
            match score(&p.bank(&smem), k, &mut work)? {
                Some(s) => {
                    degrees.push(s.degree);
                    engines.push(s.engine);
                    fronts.push(s.wavefronts);
                    ideal.push(s.ideal);
                }
                None => break,
            }
        }
        if degrees.len() < patterns.len() {
            continue;
        }
        let extra = layout
            .cosize()?
            .checked_sub(l.cosize()?)
            .and_then(|x| x.checked_mul(elem))
            .ok_or_else(|| invalid("the padded cosize overflows".into()))?;
        ranked.push(Candidate {
            change,
            smem,
            degrees,
            engines,
            wavefronts: fronts,
            ideal,
            extra_bytes: extra.max(0),
        });
    }
    ranked.sort_by_key(Candidate::key);
    Ok(Suggestions {
        rejected: searched - ranked.len(),
        ranked,
        searched,
        no_padding,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_ir::parse_layout;

    /// `pad(L, p)` is `o -> o + p*floor(o/R)` on every offset, the definition of the module.
    #[test]
    fn padding_is_the_row_map_on_offsets() {
        for (src, r) in [
            ("((8,16),64):((64,512),1)", 64),
            ("(32,32):(32,1)", 32),
            ("(32,(4,8)):(1,(32,128))", 32),
        ] {
            let l = parse_layout(src).unwrap();
            let (row, len) = rows(&l).unwrap();
            assert_eq!(len, r, "{src}");
            for p in 1..=MAX_PAD {
                let q = padded(&l, &row, len, p).unwrap();
                for i in 0..l.size().unwrap() {
                    let o = l.eval_index(&i).unwrap().as_int().copied().unwrap();
                    let want = o + p * (o / r);
                    assert_eq!(
                        q.eval_index(&i).unwrap().as_int().copied(),
                        Some(want),
                        "{src} p={p}"
                    );
                }
            }
        }
        let l = parse_layout("(32,32):(32,1)").unwrap();
        let (row, r) = rows(&l).unwrap();
        assert_eq!(padded(&l, &row, r, 1).unwrap().to_string(), "(32,32):(33,1)");
    }

    #[test]
    fn no_rows_no_padding() {
        for (src, why) in [
            ("1024:1", "one mode"),
            ("(32,32):(2,64)", "no mode has stride 1"),
            ("(4,6):(5,1)", "not a positive multiple"),
        ] {
            let e = rows(&parse_layout(src).unwrap()).unwrap_err();
            assert!(e.contains(why), "{src}: {e}");
        }
    }
}
