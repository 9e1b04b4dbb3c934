//! The shared-memory bank model (design.md).
//!
//! 32 banks of 4 bytes: the word of byte address `a` is `a/4`, its bank `(a/4) % 32`. A warp
//! instruction in which each thread accesses `W` bytes runs in phases: one phase of 32 threads
//! for `W <= 4`, two of 16 for `W = 8`, four of 8 for `W = 16` (also `ldmatrix`'s eight-thread
//! phases of 16-byte rows). In a phase, threads reading the same word are served by broadcast;
//! distinct words in one bank serialize, so a phase costs the largest number of distinct words
//! in any bank. Conflict-free means one wavefront per phase.
//!
//! Thread `t`'s `k`-th access covers the values `v = k*W/e ... (k+1)*W/e - 1` of the
//! thread-value layout `TV` (mode 0: threads, mode 1: values; index `t + T*v`), which map
//! through the shared-memory layout to element offsets, scaled by the element size `e`. The
//! values of one access must be contiguous and the access aligned to `W`; a question that
//! breaks these rules is bad input ([`ProveError::Invalid`]).
//!
//! ```
//! use std::sync::Arc;
//! use tessera_verifier::{analyze, Bank, Func};
//! let facts = Arc::new(tessera_ir::sym::Facts::default());
//! let f = |src: &str| Func::parse(src, &facts).unwrap();
//! // A 32x32 tile of 4-byte words, row stride 32, read by columns: every thread hits bank 0.
//! let b = Bank { smem: f("(32,32):(32,1)"), tv: f("(32,32):(1,32)"), elem: 4, access: 4 };
//! assert_eq!(analyze(&b).unwrap().degree, 32);
//! let b = Bank { smem: f("Sw<5,0,5> o (32,32):(32,1)"), ..b };
//! assert_eq!(analyze(&b).unwrap().degree, 1);
//! ```

mod scan;
pub(crate) mod wavefront;

use crate::deadline::Deadline;
use crate::error::{PResult, ProveError};
use crate::func::{Concrete, Func};
use crate::query::{Outcome, Query, Scope, output_range};
use crate::verdict::{Counterexample, Verdict, Witness};
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use tessera_ir::sym::{Facts, Interval, SymInt};
use tessera_ir::{Codomain, Int};

/// Threads in one warp instruction.
pub const WARP: i64 = 32;

/// A bank-conflict question.
#[derive(Clone, Debug)]
pub struct Bank {
    /// The shared-memory layout (possibly swizzled): logical index to element offset.
    pub smem: Func,
    /// The thread-value layout: `(thread, value)` to logical index.
    pub tv: Func,
    /// Bytes per element.
    pub elem: i64,
    /// Bytes each thread accesses per instruction.
    pub access: i64,
}

/// A comparison in `conflict_degree(...) OP n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `==`
    Eq,
    /// `<=`
    Le,
    /// `<`
    Lt,
    /// `>=`
    Ge,
    /// `>`
    Gt,
}

impl Cmp {
    pub(crate) fn holds(self, a: i64, b: i64) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Le => a <= b,
            Cmp::Lt => a < b,
            Cmp::Ge => a >= b,
            Cmp::Gt => a > b,
        }
    }
    pub(crate) fn text(self) -> &'static str {
        match self {
            Cmp::Eq => "==",
            Cmp::Le => "<=",
            Cmp::Lt => "<",
            Cmp::Ge => ">=",
            Cmp::Gt => ">",
        }
    }
}

/// Two threads of one phase that reach distinct words of one bank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// The access number (value chunk) of the instruction.
    pub access: i64,
    /// First thread, and the first byte it reads in the bank's word.
    pub a: (i64, i64),
    /// Second thread, and the first byte it reads in the bank's word.
    pub b: (i64, i64),
    /// The bank both words fall in.
    pub bank: i64,
}

/// The result of the exact analysis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// Wavefronts of the worst phase (1 is conflict-free).
    pub degree: i64,
    /// Two conflicting threads of the worst phase, when `degree > 1`.
    pub conflict: Option<Conflict>,
}

/// The concrete geometry of a bank question.
pub(crate) struct Geometry {
    /// The shared-memory layout.
    pub smem: Concrete,
    /// The thread-value layout.
    pub tv: Concrete,
    /// Threads (the size of the thread-value layout's mode 0).
    pub threads: i64,
    /// Accesses per thread.
    pub chunks: i64,
    /// Values per access.
    pub vpa: i64,
    /// Threads per phase.
    pub phase: i64,
    /// Words one access covers.
    pub words: i64,
}

/// Checks that a bank question is well-formed (bad input otherwise), without enumerating.
/// With parameters, what holds for every valuation (the widths, the kinds of layout, the
/// rank, a concrete thread count); the rest is checked per valuation
/// ([`crate::bank_symbolic`]).
pub fn validate(b: &Bank) -> PResult<()> {
    if is_symbolic(b) {
        check_static(b)?;
        threads_of(b).map(|_| ())
    } else {
        shape_of(b).map(|_| ())
    }
}

/// The parameters of a bank question.
pub(crate) fn params(b: &Bank) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for s in b.smem.syms().iter().chain(b.tv.syms().iter()) {
        crate::func::params_of(s, &mut out);
    }
    out
}

/// Whether a bank question has parameters.
pub(crate) fn is_symbolic(b: &Bank) -> bool {
    !params(b).is_empty()
}

/// The geometry of a question small enough to enumerate (at most 2^26 accesses).
fn geometry(b: &Bank) -> PResult<Geometry> {
    geometry_at(b, &HashMap::new())
}

/// [`geometry`] at parameter values.
pub(crate) fn geometry_at(b: &Bank, vals: &HashMap<String, i64>) -> PResult<Geometry> {
    let g = shape_at(b, vals)?;
    let values = g.chunks * g.vpa;
    if g.threads.saturating_mul(values) > 1 << 26 {
        return Err(ProveError::Unknown(format!(
            "the thread-value layout has {} accesses; the bank analysis handles up to 2^26",
            g.threads.saturating_mul(values)
        )));
    }
    Ok(g)
}

/// The geometry of a well-formed question, whatever its size (bad input otherwise).
pub(crate) fn shape_of(b: &Bank) -> PResult<Geometry> {
    shape_at(b, &HashMap::new())
}

/// The checks that hold for every parameter value: widths, kinds of layout, ranks.
fn check_static(b: &Bank) -> PResult<()> {
    let bad = |m: String| Err(ProveError::Invalid(format!("bank analysis: {m}")));
    if ![1, 2, 4, 8, 16].contains(&b.access) {
        return bad(format!(
            "access width {} bytes: must be 1, 2, 4, 8 or 16",
            b.access
        ));
    }
    if b.elem < 1 || b.access % b.elem != 0 {
        return bad(format!(
            "element size {} bytes must divide the access width {} bytes",
            b.elem, b.access
        ));
    }
    for (what, f) in [("shared-memory", &b.smem), ("thread-value", &b.tv)] {
        match f.codomain() {
            Ok(Codomain::Coord) => {
                return bad(format!("the {what} layout {f} is coordinate-valued, not offsets"));
            }
            Err(e) => return bad(e.to_string()),
            Ok(_) => {}
        }
    }
    let shape = b.tv.shape();
    if shape.rank() != 2 || shape.is_leaf() {
        return bad(format!(
            "the thread-value layout must have rank 2, a shape (threads, values), not the shape {shape}"
        ));
    }
    Ok(())
}

/// The size of mode `k` of the thread-value layout (symbolic).
pub(crate) fn mode_size(b: &Bank, k: usize) -> PResult<SymInt> {
    let shape = b.tv.shape();
    Ok(tessera_ir::shape::size(
        &shape.mode(k).unwrap_or_else(|| shape.clone()),
    )?)
}

/// The number of threads, which must be concrete (the threads of a warp instruction).
pub(crate) fn threads_of(b: &Bank) -> PResult<i64> {
    let t = mode_size(b, 0)?;
    t.as_const().ok_or_else(|| {
        ProveError::Invalid(format!(
            "bank analysis: the thread count {t} of the thread-value layout must be concrete \
             (the threads of a warp instruction): make mode 0's extents constants"
        ))
    })
}

/// The geometry at parameter values `vals` (every parameter of the question bound), whatever
/// its size; bad input when the question is malformed there.
pub(crate) fn shape_at(b: &Bank, vals: &HashMap<String, i64>) -> PResult<Geometry> {
    let bad = |m: String| Err(ProveError::Invalid(format!("bank analysis: {m}")));
    check_static(b)?;
    let concrete = |f: &Func| {
        f.at(vals).map_err(|_| {
            ProveError::Invalid("bank analysis needs concrete layouts: bind the parameters".into())
        })
    };
    let (smem, tv) = (concrete(&b.smem)?, concrete(&b.tv)?);
    let threads = mode_size(b, 0)?.eval(vals)?;
    let values = mode_size(b, 1)?.eval(vals)?;
    let vpa = b.access / b.elem;
    if values % vpa != 0 {
        return bad(format!(
            "each thread has {values} values, not a multiple of the {vpa} values of one {}-byte access",
            b.access
        ));
    }
    let phase = match b.access {
        8 => 16,
        16 => 8,
        _ => 32,
    };
    Ok(Geometry {
        smem,
        tv,
        threads,
        chunks: values / vpa,
        vpa,
        phase,
        words: (b.access / 4).max(1),
    })
}

impl Geometry {
    /// The byte address of thread `t`'s access `c`, checking contiguity and alignment.
    pub(crate) fn address(&self, b: &Bank, t: i64, c: i64) -> PResult<i64> {
        let bad = |m: String| ProveError::Invalid(format!("bank analysis: {m}"));
        let v0 = c * self.vpa;
        let e0 = self.element(t, v0)?;
        for k in 1..self.vpa {
            let ek = self.element(t, v0 + k)?;
            if e0.checked_add(k) != Some(ek) {
                return Err(bad(format!(
                    "thread {t}'s access {c} is not contiguous: value {} is at element {ek}, not {}",
                    v0 + k,
                    i128::from(e0) + i128::from(k)
                )));
            }
        }
        let addr = e0.mul(&b.elem)?;
        if addr.rem_euclid(b.access) != 0 {
            return Err(bad(format!(
                "thread {t}'s access {c} at byte {addr} is not aligned to {} bytes",
                b.access
            )));
        }
        Ok(addr)
    }

    /// The element offset of thread `t`'s value `v`. The shared-memory layout read at an
    /// index where it has no value (a negative index of an `F2`-strided layout) is bad input
    /// naming the thread, the value and the index.
    pub(crate) fn element(&self, t: i64, v: i64) -> PResult<i64> {
        let li = self.tv.offset(t + self.threads * v)?;
        if !self.smem.has_index(li) {
            return Err(ProveError::Invalid(format!(
                "bank analysis: thread {t}'s value {v} reads the shared-memory layout at index \
                 {li}, where it has no value (an F2-strided layout is defined at indices >= 0 only)"
            )));
        }
        Ok(self.smem.offset(li)?)
    }

    /// Checks every access (contiguous and aligned), by the deadline.
    fn check_all(&self, b: &Bank, deadline: &Deadline) -> PResult<()> {
        let mut step = 0u64;
        for t in 0..self.threads {
            for c in 0..self.chunks {
                deadline.poll(step)?;
                step += 1;
                self.address(b, t, c)?;
            }
        }
        Ok(())
    }
}

/// The first byte of word `w` that an access starting at byte `a` reads.
pub(crate) fn byte_in_word(a: i64, w: i64) -> i64 {
    a.max(w.saturating_mul(4))
}

/// The cost of one phase of one access: the threads `first..end` of the access number
/// `access`, and the wavefronts they take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhaseCost {
    /// The access number (value chunk) of the instruction.
    pub access: i64,
    /// The first thread of the phase.
    pub first: i64,
    /// One past the last thread of the phase.
    pub end: i64,
    /// Wavefronts of the phase: the most distinct words any bank holds (1 is conflict-free).
    pub degree: i64,
    /// Two threads of the phase that reach distinct words of its worst bank, when
    /// `degree > 1`.
    pub conflict: Option<Conflict>,
}

/// The cost of the phase of threads `start..end` in access `c`, by direct evaluation.
pub(crate) fn phase_cost(
    b: &Bank,
    g: &Geometry,
    c: i64,
    (start, end): (i64, i64),
    deadline: &Deadline,
    step: &mut u64,
) -> PResult<PhaseCost> {
    let mut words = PhaseWords::new();
    for t in start..end {
        deadline.poll(*step)?;
        *step += 1;
        words.add(t, g.address(b, t, c)?, g.words);
    }
    Ok(words.cost(c, (start, end)))
}

/// The distinct words one phase reaches, per bank, in order of arrival, with the thread and
/// first byte that brought each: what a phase's cost is counted from.
pub(crate) struct PhaseWords {
    /// Bank `k`'s `(word, thread, first byte)`s.
    banks: Vec<Vec<(i64, i64, i64)>>,
}

impl PhaseWords {
    /// No words yet.
    pub(crate) fn new() -> PhaseWords {
        PhaseWords {
            banks: vec![Vec::new(); 32],
        }
    }

    /// Forgets the words, keeping the lists' room for the next phase.
    pub(crate) fn clear(&mut self) {
        self.banks.iter_mut().for_each(Vec::clear);
    }

    /// Thread `t`'s access of `words` words from byte address `a`.
    pub(crate) fn add(&mut self, t: i64, a: i64, words: i64) {
        for j in 0..words {
            let w = a.div_euclid(4) + j;
            let list = &mut self.banks[w.rem_euclid(32) as usize];
            if !list.iter().any(|x| x.0 == w) {
                list.push((w, t, byte_in_word(a, w)));
            }
        }
    }

    /// The most words in one bank (at least 1): the phase's wavefronts.
    pub(crate) fn degree(&self) -> i64 {
        self.banks
            .iter()
            .map(|l| l.len() as i64)
            .max()
            .unwrap_or(0)
            .max(1)
    }

    /// The phase's cost: the most words in one bank, and the first two threads of the lowest
    /// bank that holds that many (banks in order, so the pair never depends on hashing).
    pub(crate) fn cost(&self, access: i64, (first, end): (i64, i64)) -> PhaseCost {
        let mut cost = PhaseCost {
            access,
            first,
            end,
            degree: 1,
            conflict: None,
        };
        for (bank, list) in self.banks.iter().enumerate() {
            let d = list.len() as i64;
            if d > cost.degree {
                cost.degree = d;
                cost.conflict = Some(Conflict {
                    access,
                    a: (list[0].1, list[0].2),
                    b: (list[1].1, list[1].2),
                    bank: bank as i64,
                });
            }
        }
        cost
    }
}

/// Visits every phase of every access in order (access by access, threads ascending),
/// computing its cost by enumeration.
fn each_phase(b: &Bank, deadline: &Deadline, visit: impl FnMut(PhaseCost)) -> PResult<()> {
    each_phase_at(b, &HashMap::new(), deadline, visit)
}

/// [`each_phase`] at parameter values.
fn each_phase_at(
    b: &Bank,
    vals: &HashMap<String, i64>,
    deadline: &Deadline,
    mut visit: impl FnMut(PhaseCost),
) -> PResult<()> {
    let g = geometry_at(b, vals)?;
    if scan::each_phase(b, &g, deadline, &mut visit)? {
        return Ok(());
    }
    let mut step = 0u64;
    for c in 0..g.chunks {
        let mut start = 0;
        while start < g.threads {
            let end = (start + g.phase).min(g.threads);
            visit(phase_cost(b, &g, c, (start, end), deadline, &mut step)?);
            start = end;
        }
    }
    Ok(())
}

/// The cost of every phase of every access, in order (access by access, threads ascending):
/// the figures [`analyze`] takes the worst of.
///
/// ```
/// use std::sync::Arc;
/// use tessera_verifier::{phases, Bank, Func};
/// let facts = Arc::new(tessera_ir::sym::Facts::default());
/// let f = |src: &str| Func::parse(src, &facts).unwrap();
/// // 16-byte accesses run in four phases of 8 threads.
/// let b = Bank { smem: f("(8,64):(64,1)"), tv: f("((8,4),8):((1,64),8)"), elem: 2, access: 16 };
/// let p = phases(&b).unwrap();
/// assert_eq!(p.len(), 4);
/// assert!(p.iter().all(|c| c.end - c.first == 8 && c.degree == 8));
/// ```
pub fn phases(b: &Bank) -> PResult<Vec<PhaseCost>> {
    phases_by(b, &Deadline::none())
}

/// [`phases`] within a deadline.
pub fn phases_by(b: &Bank, deadline: &Deadline) -> PResult<Vec<PhaseCost>> {
    let mut out = Vec::new();
    each_phase(b, deadline, |c| out.push(c))?;
    Ok(out)
}

/// The exact wavefront count, by enumerating every thread and access.
pub fn analyze(b: &Bank) -> PResult<Analysis> {
    analyze_by(b, &Deadline::none())
}

/// [`analyze`] within a deadline: the worst of [`phases_by`] (the first phase of the largest
/// degree names the conflict).
pub fn analyze_by(b: &Bank, deadline: &Deadline) -> PResult<Analysis> {
    analyze_at(b, &HashMap::new(), deadline)
}

/// [`analyze_by`] at parameter values (every parameter of the question bound).
pub(crate) fn analyze_at(b: &Bank, vals: &HashMap<String, i64>, deadline: &Deadline) -> PResult<Analysis> {
    let mut worst = Analysis {
        degree: 1,
        conflict: None,
    };
    each_phase_at(b, vals, deadline, |p| {
        if p.degree > worst.degree {
            worst = Analysis {
                degree: p.degree,
                conflict: p.conflict,
            };
        }
    })?;
    Ok(worst)
}

pub(crate) fn describe(c: &Conflict, degree: Option<i64>) -> String {
    let d = degree.map(|d| format!("{d}-way conflict: ")).unwrap_or_default();
    format!(
        "{d}threads {} and {} (access {}) reach bank {} at bytes {} and {}",
        c.a.0, c.b.0, c.access, c.bank, c.a.1, c.b.1
    )
}

pub(crate) fn conflict_witnesses(c: &Conflict) -> Vec<Witness> {
    vec![
        Witness {
            name: format!("thread {}", c.a.0),
            index: c.a.0,
            coord: format!("access {}", c.access),
            value: format!("byte {}", c.a.1),
        },
        Witness {
            name: format!("thread {}", c.b.0),
            index: c.b.0,
            coord: format!("access {}", c.access),
            value: format!("byte {}", c.b.1),
        },
    ]
}

/// `conflict_degree(...) OP n`, by exact analysis.
pub fn degree_verdict(b: &Bank, cmp: Cmp, n: i64, deadline: &Deadline) -> PResult<Verdict> {
    Ok(degree_outcome(&analyze_by(b, deadline)?, cmp, n))
}

/// The verdict on `conflict_degree(...) OP n` given the analysis.
pub(crate) fn degree_outcome(a: &Analysis, cmp: Cmp, n: i64) -> Verdict {
    if cmp.holds(a.degree, n) {
        return Verdict::Proved;
    }
    let detail = a
        .conflict
        .as_ref()
        .map(|c| format!(": {}", describe(c, None)))
        .unwrap_or_default();
    Verdict::Refuted(Counterexample {
        params: vec![],
        witnesses: a.conflict.as_ref().map(conflict_witnesses).unwrap_or_default(),
        summary: format!("the degree is {}, not {} {n}{detail}", a.degree, cmp.text()),
    })
}

/// Conflict-freedom with z3: is there an access and two threads of one phase that reach
/// distinct words of one bank? A counterexample is re-checked by direct evaluation.
pub fn prove_conflict_free(b: &Bank, deadline: &Deadline) -> PResult<Verdict> {
    let g = geometry(b)?;
    // Malformed accesses are bad input whatever z3 finds.
    g.check_all(b, deadline)?;
    let (es, et) = (b.smem.lower()?, b.tv.lower()?);
    let n_tv = g.threads * g.chunks * g.vpa;
    let tv_range = Interval::new(Some(0), Some(n_tv as i128 - 1));
    let none = Facts::default();
    let sr = output_range(&none, &et, tv_range)?;
    let er = output_range(&none, &es, sr)?;
    let top = er
        .magnitude()
        .unwrap_or(i128::MAX)
        .saturating_mul(b.elem as i128 + 1);
    let scope = Scope {
        apps: vec![(&et, tv_range), (&es, sr)],
        syms: vec![],
        extra: vec![n_tv as i128, top, 4096],
        quantified: false,
        prefer_int: false,
        exprs: Vec::new(),
    };
    let mut q = Query::new(Arc::new(Facts::default()), &scope, *deadline)?;
    let k = |v: i64| q.konst(v);
    let (zero, nthreads, nchunks, phase, four, banks, elem, vpa, t_count) = (
        k(0),
        k(g.threads),
        k(g.chunks),
        k(g.phase),
        k(4),
        k(32),
        k(b.elem),
        k(g.vpa),
        k(g.threads),
    );
    let words = k(g.words);
    let t1 = q.index("t1", &zero, &nthreads)?;
    let t2 = q.index("t2", &zero, &nthreads)?;
    let c = q.index("access", &zero, &nchunks)?;
    let j1 = q.index("j1", &zero, &words)?;
    let j2 = q.index("j2", &zero, &words)?;
    q.assert(&t1.lt(&t2)?);
    // Same phase: phases are aligned groups of `phase` threads.
    q.assert(
        &q.divmod(&t1, &phase, true)?
            .0
            .eq(&q.divmod(&t2, &phase, true)?.0)?,
    );
    let word =
        |q: &mut Query, t: &crate::encode::Term, j: &crate::encode::Term| -> PResult<crate::encode::Term> {
            let idx = t.add(&t_count.mul(&c.mul(&vpa)?)?)?;
            let li = q.apply_offset(&et, &idx, tv_range)?;
            let off = q.apply_offset(&es, &li, sr)?;
            let addr = off.mul(&elem)?;
            q.divmod(&addr, &four, false)?.0.add(j)
        };
    let w1 = word(&mut q, &t1, &j1)?;
    let w2 = word(&mut q, &t2, &j2)?;
    q.assert(&w1.eq(&w2)?.not());
    q.assert(
        &q.divmod(&w1, &banks, false)?
            .1
            .eq(&q.divmod(&w2, &banks, false)?.1)?,
    );
    match q.solve()? {
        Outcome::Unsat => Ok(Verdict::Proved),
        Outcome::Unknown(r) => Ok(Verdict::Unknown(format!("z3: {r}"))),
        Outcome::Sat(m) => {
            let idx: HashMap<String, i64> = q.model_indices(&m).into_iter().collect();
            let get = |n: &str| idx.get(n).copied().unwrap_or(-1);
            let (t1, t2, c) = (get("t1"), get("t2"), get("access"));
            let (a1, a2) = (g.address(b, t1, c)?, g.address(b, t2, c)?);
            let (w1, w2) = (a1.div_euclid(4) + get("j1"), a2.div_euclid(4) + get("j2"));
            let words = 0..g.words;
            if t1 / g.phase != t2 / g.phase
                || !words.contains(&get("j1"))
                || !words.contains(&get("j2"))
                || w1 == w2
                || w1.rem_euclid(32) != w2.rem_euclid(32)
            {
                return Err(ProveError::internal(format!(
                    "z3's bank conflict does not reproduce: {idx:?}"
                )));
            }
            let conflict = Conflict {
                access: c,
                a: (t1, byte_in_word(a1, w1)),
                b: (t2, byte_in_word(a2, w2)),
                bank: w1.rem_euclid(32),
            };
            let degree = analyze_by(b, deadline)?.degree;
            Ok(Verdict::Refuted(Counterexample {
                params: vec![],
                witnesses: conflict_witnesses(&conflict),
                summary: describe(&conflict, Some(degree)),
            }))
        }
    }
}
