//! Hierarchical tuples: `12`, `(2,3)`, `((2,2),3)`.
//!
//! An [`HTuple`] stores its leaves flat, in order, next to a [`Profile`] that records the tree
//! structure in prefix order. Shapes, strides and coordinates are all `HTuple`s, and most of
//! the algebra works on the flat leaves, so a layout of a few modes lives inline without a
//! heap allocation.
//!
//! ```
//! use tessera_ir::HTuple;
//! let t = HTuple::from_modes([HTuple::from_modes([HTuple::leaf(2), HTuple::leaf(2)]), HTuple::leaf(3)]);
//! assert_eq!(t.to_string(), "((2,2),3)");
//! assert_eq!(t.rank(), 2);
//! assert_eq!(t.depth(), 2);
//! assert_eq!(t.leaves(), &[2, 2, 3]);
//! assert_eq!(t.mode(0).unwrap().to_string(), "(2,2)");
//! ```

use crate::error::{Error, Result};
use smallvec::{Array, SmallVec};
use std::fmt;
use std::ops::Range;

/// Empties `v`: an inline vector by writing a new one (`clear` on a `SmallVec` counts its
/// length down one element at a time, even for elements without a destructor); a spilled one
/// keeps its heap buffer.
///
/// @post `v.is_empty()`; a spilled `v` keeps its capacity.
///
/// Example: `empty(&mut toks)` before a scanner refills the tokens of a tuple in place.
#[inline(always)]
pub(crate) fn empty<A: Array>(v: &mut SmallVec<A>) {
    if v.spilled() {
        v.clear();
    } else {
        *v = SmallVec::new();
    }
}

/// The token of a leaf in a [`Profile`]; a tuple of `n` modes is the token `n + 1`.
const LEAF: u32 = 0;

/// The profile tokens of a tuple, inline for up to 16 tokens (any nesting of 8 leaves).
pub(crate) type Tokens = SmallVec<[u32; 16]>;

/// The leaves of a tuple, inline for up to 8 leaves, so that the algebra on layouts of up to
/// 8 leaves does not allocate.
pub type Leaves<T> = SmallVec<[T; 8]>;

/// The tree structure of a hierarchical tuple, without its leaf values.
///
/// Two tuples are *congruent* exactly when their profiles are equal.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Profile(Tokens);

impl fmt::Debug for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t: HTuple<char> = HTuple::unflatten_unchecked(vec!['_'; self.num_leaves()], self);
        write!(f, "Profile{t}")
    }
}

/// The token and leaf ranges of each top-level mode of a profile's prefix tokens, one at a
/// time (borrowed: a sub-profile is a slice of its parent's tokens, so the algebra walks nested
/// modes without copying or collecting them); [`ModeSpans::len`] of them. A leaf (or no token)
/// has itself as its only mode.
pub(crate) struct ModeSpans<'a> {
    toks: &'a [u32],
    /// Modes left to yield.
    left: usize,
    /// The next mode's first token and first leaf.
    pos: usize,
    leaf: usize,
}

/// The [`ModeSpans`] of the prefix tokens `toks`.
pub(crate) fn mode_spans_iter(toks: &[u32]) -> ModeSpans<'_> {
    let left = match toks.first() {
        None | Some(&LEAF) => 1,
        Some(&t) => (t - 1) as usize,
    };
    ModeSpans {
        toks,
        left,
        pos: 1,
        leaf: 0,
    }
}

impl ModeSpans<'_> {
    /// The number of spans still to come (the rank, before the first).
    pub(crate) fn len(&self) -> usize {
        self.left
    }
}

impl Iterator for ModeSpans<'_> {
    type Item = (Range<usize>, Range<usize>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        if self.toks.first().is_none_or(|&t| t == LEAF) {
            return Some((0..1, 0..1));
        }
        let (end, nl) = subtree(self.toks, self.pos);
        let span = (self.pos..end, self.leaf..self.leaf + nl);
        self.pos = end;
        self.leaf += nl;
        Some(span)
    }
}

/// Returns the end of the subtree starting at token `pos`, and its number of leaves.
#[inline]
fn subtree(toks: &[u32], mut pos: usize) -> (usize, usize) {
    let mut pending = 1usize;
    let mut leaves = 0usize;
    while pending > 0 {
        let t = toks[pos];
        pos += 1;
        pending -= 1;
        if t == LEAF {
            leaves += 1;
        } else {
            pending += (t - 1) as usize;
        }
    }
    (pos, leaves)
}

impl Profile {
    /// The profile of a single leaf.
    pub fn leaf() -> Self {
        let mut v = SmallVec::new();
        v.push(LEAF);
        Profile(v)
    }

    /// A flat tuple of `n` leaves.
    pub fn flat(n: usize) -> Self {
        let mut v = SmallVec::with_capacity(n + 1);
        v.push(n as u32 + 1);
        v.extend(std::iter::repeat_n(LEAF, n));
        Profile(v)
    }

    /// The tuple whose modes have the given profiles.
    pub fn tuple<'a>(modes: impl IntoIterator<Item = &'a Profile>) -> Self {
        let mut v: Tokens = SmallVec::new();
        v.push(1);
        let mut n = 0u32;
        for m in modes {
            v.extend_from_slice(&m.0);
            n += 1;
        }
        v[0] = n + 1;
        Profile(v)
    }

    /// `true` for a single leaf (not a tuple).
    #[inline]
    pub fn is_leaf(&self) -> bool {
        self.0[0] == LEAF
    }

    /// The number of top-level modes; 1 for a leaf.
    #[inline]
    pub fn rank(&self) -> usize {
        if self.is_leaf() {
            1
        } else {
            (self.0[0] - 1) as usize
        }
    }

    /// The number of leaves.
    pub fn num_leaves(&self) -> usize {
        self.0.iter().filter(|&&t| t == LEAF).count()
    }

    /// 0 for a leaf, else one more than the deepest mode.
    pub fn depth(&self) -> usize {
        // Walk with an explicit stack of pending-children counts.
        let mut stack: SmallVec<[u32; 8]> = SmallVec::new();
        let mut best = 0usize;
        for &t in &self.0 {
            if let Some(top) = stack.last_mut() {
                *top -= 1;
            }
            if t != LEAF {
                stack.push(t - 1);
                best = best.max(stack.len());
            }
            while let Some(&0) = stack.last() {
                stack.pop();
            }
        }
        best
    }

    /// Token and leaf ranges of each top-level mode. A leaf has itself as its only mode.
    pub fn mode_spans(&self) -> SmallVec<[(Range<usize>, Range<usize>); 8]> {
        mode_spans_iter(&self.0).collect()
    }

    /// The profile of mode `i`, with its leaf range.
    pub fn mode(&self, i: usize) -> Option<(Profile, Range<usize>)> {
        if self.is_leaf() {
            return (i == 0).then(|| (self.clone(), 0..1));
        }
        if i >= self.rank() {
            return None;
        }
        let (mut pos, mut leaf) = (1usize, 0usize);
        for k in 0..=i {
            let (end, nl) = subtree(&self.0, pos);
            if k == i {
                return Some((Profile(self.0[pos..end].into()), leaf..leaf + nl));
            }
            pos = end;
            leaf += nl;
        }
        None
    }

    /// The profile of the sub-tuple at `path`, and the range of its leaves.
    pub fn path_range(&self, path: &[usize]) -> Option<(Profile, Range<usize>)> {
        let mut prof = self.clone();
        let mut start = 0usize;
        let mut len = self.num_leaves();
        for &i in path {
            if prof.is_leaf() {
                return None;
            }
            let (p, r) = prof.mode(i)?;
            start += r.start;
            len = r.len();
            prof = p;
        }
        Some((prof, start..start + len))
    }

    /// `true` when `self` is weakly congruent to `other`: every leaf of `self` sits where
    /// `other` has a leaf or a whole sub-tuple, and the tuples above match rank for rank.
    pub fn weakly_congruent(&self, other: &Profile) -> bool {
        if self.is_leaf() {
            return true;
        }
        if other.is_leaf() || self.rank() != other.rank() {
            return false;
        }
        self.mode_spans()
            .iter()
            .zip(other.mode_spans().iter())
            .all(|((a, _), (b, _))| {
                Profile(self.0[a.clone()].into()).weakly_congruent(&Profile(other.0[b.clone()].into()))
            })
    }

    /// The raw prefix-order tokens (a leaf is 0, a tuple of `n` modes is `n + 1`).
    pub fn tokens(&self) -> &[u32] {
        &self.0
    }
}

/// A hierarchical tuple with leaves of type `T`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct HTuple<T> {
    prof: Profile,
    leaves: Leaves<T>,
}

impl<T: Clone> HTuple<T> {
    /// A single leaf.
    pub fn leaf(v: T) -> Self {
        let mut leaves = SmallVec::new();
        leaves.push(v);
        HTuple {
            prof: Profile::leaf(),
            leaves,
        }
    }

    /// The tuple of the given modes.
    pub fn from_modes(modes: impl IntoIterator<Item = HTuple<T>>) -> Self {
        let mut toks: Tokens = SmallVec::new();
        toks.push(1);
        let mut leaves = SmallVec::new();
        let mut n = 0u32;
        for m in modes {
            toks.extend_from_slice(&m.prof.0);
            leaves.extend(m.leaves);
            n += 1;
        }
        toks[0] = n + 1;
        HTuple {
            prof: Profile(toks),
            leaves,
        }
    }

    /// A flat tuple of the given leaves: `(a,b,c)`.
    pub fn flat(leaves: impl IntoIterator<Item = T>) -> Self {
        let leaves: Leaves<T> = leaves.into_iter().collect();
        HTuple {
            prof: Profile::flat(leaves.len()),
            leaves,
        }
    }

    /// Rebuilds a tuple of profile `prof` from its leaves in order.
    ///
    /// An error when the number of leaves does not match the profile.
    pub fn unflatten(leaves: impl IntoIterator<Item = T>, prof: &Profile) -> Result<Self> {
        let leaves: Leaves<T> = leaves.into_iter().collect();
        if leaves.len() != prof.num_leaves() {
            return Err(Error::invalid(format!(
                "unflatten: {} leaves do not fit a profile of {} leaves",
                leaves.len(),
                prof.num_leaves()
            )));
        }
        Ok(HTuple {
            prof: prof.clone(),
            leaves,
        })
    }

    /// A tuple from raw prefix tokens and leaves (callers guarantee they match).
    /// No tokens and no leaves: not a tuple until [`HTuple::raw_mut`] fills it.
    pub(crate) fn unfilled() -> Self {
        HTuple {
            prof: Profile(SmallVec::new()),
            leaves: SmallVec::new(),
        }
    }

    /// The tokens and the leaves, to be filled in place; the caller keeps them consistent
    /// (and empties them with [`empty`]).
    pub(crate) fn raw_mut(&mut self) -> (&mut Tokens, &mut Leaves<T>) {
        (&mut self.prof.0, &mut self.leaves)
    }

    pub(crate) fn from_raw(toks: Tokens, leaves: Leaves<T>) -> Self {
        let prof = Profile(toks);
        debug_assert_eq!(leaves.len(), prof.num_leaves());
        HTuple { prof, leaves }
    }

    /// Like [`HTuple::unflatten`], for callers that guarantee the leaf count.
    pub(crate) fn unflatten_unchecked(leaves: impl IntoIterator<Item = T>, prof: &Profile) -> Self {
        let leaves: Leaves<T> = leaves.into_iter().collect();
        debug_assert_eq!(leaves.len(), prof.num_leaves());
        HTuple {
            prof: prof.clone(),
            leaves,
        }
    }

    /// The tuple of profile `prof` with every leaf equal to `v` (`repeat_like`).
    pub fn repeat_like(v: T, prof: &Profile) -> Self {
        HTuple {
            prof: prof.clone(),
            leaves: std::iter::repeat_n(v, prof.num_leaves()).collect(),
        }
    }

    /// The structure of this tuple.
    #[inline]
    pub fn profile(&self) -> &Profile {
        &self.prof
    }

    /// `true` for a single leaf.
    #[inline]
    pub fn is_leaf(&self) -> bool {
        self.prof.is_leaf()
    }

    /// `true` for a tuple (`is_tuple`).
    #[inline]
    pub fn is_tuple(&self) -> bool {
        !self.prof.is_leaf()
    }

    /// The leaf value, for a single leaf.
    pub fn as_leaf(&self) -> Option<&T> {
        if self.is_leaf() { self.leaves.first() } else { None }
    }

    /// Number of top-level modes; 1 for a leaf.
    #[inline]
    pub fn rank(&self) -> usize {
        self.prof.rank()
    }

    /// 0 for a leaf.
    pub fn depth(&self) -> usize {
        self.prof.depth()
    }

    /// The leaves in order.
    #[inline]
    pub fn leaves(&self) -> &[T] {
        &self.leaves
    }

    /// The leaves, by value.
    pub fn into_leaves(self) -> Leaves<T> {
        self.leaves
    }

    /// Mutable access to the leaves (the structure stays fixed).
    #[inline]
    pub fn leaves_mut(&mut self) -> &mut [T] {
        &mut self.leaves
    }

    /// Mode `i`; a leaf is its own mode 0.
    pub fn mode(&self, i: usize) -> Option<HTuple<T>> {
        let (prof, r) = self.prof.mode(i)?;
        Some(HTuple {
            prof,
            leaves: self.leaves[r].into(),
        })
    }

    /// All top-level modes in order.
    pub fn modes(&self) -> SmallVec<[HTuple<T>; 4]> {
        if self.is_leaf() {
            let mut v = SmallVec::new();
            v.push(self.clone());
            return v;
        }
        self.prof
            .mode_spans()
            .into_iter()
            .map(|(t, l)| HTuple {
                prof: Profile(self.prof.0[t].into()),
                leaves: self.leaves[l].into(),
            })
            .collect()
    }

    /// The sub-tuple at a path of mode indices (`get`); the empty path is the whole tuple.
    pub fn get(&self, path: &[usize]) -> Option<HTuple<T>> {
        let mut cur = self.clone();
        for &i in path {
            if cur.is_leaf() {
                return None;
            }
            cur = cur.mode(i)?;
        }
        Some(cur)
    }

    /// Replaces mode `i` with `m`, keeping the other modes.
    pub fn with_mode(&self, i: usize, m: HTuple<T>) -> Option<HTuple<T>> {
        if self.is_leaf() {
            return (i == 0).then_some(m);
        }
        if i >= self.rank() {
            return None;
        }
        let mut modes = self.modes();
        modes[i] = m;
        Some(HTuple::from_modes(modes))
    }

    /// The flat tuple of all leaves; a leaf stays a leaf.
    pub fn flatten(&self) -> HTuple<T> {
        if self.is_leaf() {
            return self.clone();
        }
        HTuple::flat(self.leaves.iter().cloned())
    }

    /// The modes at the given indices, as a tuple (`select`).
    pub fn select(&self, idx: &[usize]) -> Result<HTuple<T>> {
        let modes = self.modes();
        let mut out = Vec::with_capacity(idx.len());
        for &i in idx {
            out.push(modes.get(i).cloned().ok_or_else(|| Error::Rank {
                op: "select",
                msg: format!("mode {i} out of range for rank {}", modes.len()),
            })?);
        }
        Ok(HTuple::from_modes(out))
    }

    /// The modes `begin..end`, as a tuple (`take`).
    pub fn take(&self, begin: usize, end: usize) -> Result<HTuple<T>> {
        if begin > end || end > self.rank() {
            return Err(Error::Rank {
                op: "take",
                msg: format!("range [{begin}, {end}) out of range for rank {}", self.rank()),
            });
        }
        Ok(HTuple::from_modes(
            self.modes().into_iter().skip(begin).take(end - begin),
        ))
    }

    /// Maps every leaf.
    pub fn map<U: Clone>(&self, f: impl FnMut(&T) -> U) -> HTuple<U> {
        HTuple {
            prof: self.prof.clone(),
            leaves: self.leaves.iter().map(f).collect(),
        }
    }

    /// Maps every leaf with a fallible function.
    pub fn try_map<U: Clone, E>(
        &self,
        f: impl FnMut(&T) -> std::result::Result<U, E>,
    ) -> std::result::Result<HTuple<U>, E> {
        Ok(HTuple {
            prof: self.prof.clone(),
            leaves: self.leaves.iter().map(f).collect::<std::result::Result<_, E>>()?,
        })
    }

    /// `true` when both tuples have the same structure.
    pub fn congruent<U>(&self, other: &HTuple<U>) -> bool {
        self.prof == other.prof
    }

    /// `true` when `self` is weakly congruent to `other` (see [`Profile::weakly_congruent`]).
    pub fn weakly_congruent<U>(&self, other: &HTuple<U>) -> bool {
        self.prof.weakly_congruent(&other.prof)
    }

    /// Wraps a leaf as a one-element tuple; tuples are unchanged (`wrap`).
    pub fn wrap(self) -> HTuple<T> {
        if self.is_leaf() {
            HTuple::from_modes([self])
        } else {
            self
        }
    }

    /// Removes one-element tuple wrappers recursively at the top (`unwrap`).
    pub fn unwrap_single(mut self) -> HTuple<T> {
        while self.is_tuple() && self.rank() == 1 {
            // mode(0) exists for rank 1.
            match self.mode(0) {
                Some(m) => self = m,
                None => break,
            }
        }
        self
    }

    /// Places `self` at `path` inside a tuple whose other modes are `pad` (`lift`).
    ///
    /// `lift(42, (0, 2, 3))` is `((0, 0, (0, 0, 0, 42)),)`.
    pub fn lift(self, path: &[usize], pad: &T) -> HTuple<T> {
        let mut cur = self;
        for &i in path.iter().rev() {
            let mut modes: Vec<HTuple<T>> = (0..i).map(|_| HTuple::leaf(pad.clone())).collect();
            modes.push(cur);
            cur = HTuple::from_modes(modes);
        }
        cur
    }
}

impl<T> HTuple<T> {
    /// Writes the tuple with `leaf` writing each leaf.
    pub(crate) fn write_with(
        &self,
        f: &mut fmt::Formatter<'_>,
        leaf: impl FnMut(&mut fmt::Formatter<'_>, &T) -> fmt::Result,
    ) -> fmt::Result {
        write_tree(f, &self.prof.0, &self.leaves, leaf)
    }
}

impl<T: fmt::Display> fmt::Display for HTuple<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_tree(f, &self.prof.0, &self.leaves, |f, x| fmt::Display::fmt(x, f))
    }
}

impl<T: fmt::Debug> fmt::Debug for HTuple<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_tree(f, &self.prof.0, &self.leaves, |f, x| write!(f, "{x:?}"))
    }
}

/// Writes a tree given by prefix tokens (a leaf is 0, a tuple of `n` modes is `n + 1`) into
/// `w`, printing leaves with `leaf`, without recursion (a layout built by the API may nest
/// deeper than a stack allows). `Display` writes through a formatter, the text path
/// (`text::push_layout`) into a `String`.
pub(crate) fn write_tree<W: fmt::Write + ?Sized, T>(
    w: &mut W,
    toks: &[u32],
    leaves: &[T],
    mut leaf: impl FnMut(&mut W, &T) -> fmt::Result,
) -> fmt::Result {
    // The modes still to be written of the innermost open tuple (`top`, kept out of the vector:
    // it changes with every element) and of the tuples around it (`outer`); `open` tuples.
    let mut outer: SmallVec<[u32; 16]> = SmallVec::new();
    let (mut top, mut open) = (0u32, 0usize);
    let mut leaves = leaves.iter();
    for &t in toks {
        if t > 1 {
            w.write_char('(')?;
            if open > 0 {
                outer.push(top);
            }
            (top, open) = (t - 1, open + 1);
            continue;
        }
        if t == LEAF {
            if let Some(x) = leaves.next() {
                leaf(w, x)?;
            }
        } else {
            w.write_str("()")?;
        }
        // An element is done: close the tuples it completes, or separate it from the next.
        while open > 0 {
            top -= 1;
            if top > 0 {
                w.write_char(',')?;
                break;
            }
            w.write_char(')')?;
            open -= 1;
            if open > 0 {
                top = outer.pop().unwrap_or(0);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_int_tuple;

    /// The iterator yields, in order, each mode's tokens and leaves (checked against the
    /// modes written out by hand), and knows their number; a leaf and no token are their own
    /// single mode.
    #[test]
    fn mode_spans_iter_walks_the_modes() {
        for (src, want) in [
            ("(3)", &["3"][..]),
            ("(2,3)", &["2", "3"]),
            ("((2,2),3)", &["(2,2)", "3"]),
            ("(1,(2,(3,4)),5,())", &["1", "(2,(3,4))", "5", "()"]),
            ("((((1))))", &["(((1)))"]),
            (
                "(((2,3),(4)),1,(5,(6,7,8)))",
                &["((2,3),(4))", "1", "(5,(6,7,8))"],
            ),
            ("()", &[]),
        ] {
            let t = parse_int_tuple(src).unwrap();
            let toks = t.profile().tokens();
            let it = mode_spans_iter(toks);
            assert_eq!(it.len(), want.len(), "{src}");
            let got: Vec<String> = it
                .map(|(ts, ls)| HTuple::from_raw(toks[ts].into(), t.leaves()[ls].into()).to_string())
                .collect();
            assert_eq!(got, want, "{src}");
        }
        let leaf = parse_int_tuple("7").unwrap();
        assert_eq!(
            mode_spans_iter(leaf.profile().tokens()).collect::<Vec<_>>(),
            vec![(0..1, 0..1)]
        );
        assert_eq!(mode_spans_iter(&[]).collect::<Vec<_>>(), vec![(0..1, 0..1)]);
    }
}
