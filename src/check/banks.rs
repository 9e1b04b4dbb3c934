//! The bank figures a report shows beside a bank assertion: the worst phase's degree and the
//! worst warp instruction's wavefronts with their ideal, so a proof can be held against a
//! profile (`l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld/st` and
//! `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld/st`, per instruction).

use tessera_verifier::{Bank, Property, analyze, wavefronts};

/// The most accesses a report counts figures for (a few milliseconds of the exact analysis).
pub const FIGURE_ACCESSES: i64 = 1 << 20;

/// The bank figures of a concrete bank question.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Figures {
    /// The worst phase's wavefronts (`conflict_degree`).
    pub degree: i64,
    /// The most wavefronts of one warp instruction (`wavefronts`).
    pub wavefronts: i64,
    /// That instruction's wavefronts without bank conflicts.
    pub ideal: i64,
    /// Every warp instruction's wavefronts together.
    pub total: i64,
    /// Their ideal together.
    pub total_ideal: i64,
}

/// The figures of `p` when it is a bank question on concrete layouts of at most
/// [`FIGURE_ACCESSES`] accesses, well-formed; `None` otherwise.
///
/// @post `degree <= wavefronts` and `ideal <= wavefronts` when `Some`.
///
/// ```
/// use std::sync::Arc;
/// use tessera::check::banks::figures;
/// use tessera_verifier::{Bank, Func, Property};
/// let facts = Arc::new(tessera_ir::sym::Facts::default());
/// let f = |s: &str| Func::parse(s, &facts).unwrap();
/// let b = Bank { smem: f("(8,64):(64,1)"), tv: f("((8,4),8):((1,64),8)"), elem: 2, access: 16 };
/// let x = figures(&Property::BankConflictFree(b)).unwrap();
/// assert_eq!((x.degree, x.wavefronts, x.ideal), (8, 32, 4));
/// ```
pub fn figures(p: &Property) -> Option<Figures> {
    let b: &Bank = match p {
        Property::BankConflictFree(b) | Property::ConflictDegree(b, ..) | Property::Wavefronts(b, ..) => b,
        _ => return None,
    };
    let size = b.tv.size().ok()?;
    let size = tessera_ir::Int::as_const(&size)?;
    if size > FIGURE_ACCESSES || !tessera_verifier::params(p).is_empty() {
        return None;
    }
    let (a, w) = (analyze(b).ok()?, wavefronts(b).ok()?);
    Some(Figures {
        degree: a.degree,
        wavefronts: w.worst,
        ideal: w.worst_ideal,
        total: w.total,
        total_ideal: w.ideal,
    })
}

/// `degree 2, wavefronts 5 (ideal 4) per warp instruction at worst, 5 in all (ideal 4)`.
///
/// @post one line, no newline.
///
/// ```
/// use tessera::check::banks::{line, Figures};
/// let f = Figures { degree: 2, wavefronts: 5, ideal: 4, total: 5, total_ideal: 4 };
/// assert_eq!(line(&f), "degree 2, wavefronts 5 (ideal 4) in the worst warp instruction, 5 in all (ideal 4)");
/// ```
pub fn line(f: &Figures) -> String {
    format!(
        "degree {}, wavefronts {} (ideal {}) in the worst warp instruction, {} in all (ideal {})",
        f.degree, f.wavefronts, f.ideal, f.total, f.total_ideal
    )
}
