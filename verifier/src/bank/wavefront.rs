//! Wavefronts: what the hardware (and Nsight Compute's
//! `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld/st`) counts per warp instruction, where
//! the bank degree ([`super::analyze`]) counts the worst phase only.
//!
//! The model (its sources are in the book: docs/src/how-it-works/bank-model.md):
//!
//! 1. Shared memory has 32 banks of 4-byte words; byte `a` is in word `a/4`, bank `(a/4) % 32`.
//! 2. One wavefront carries at most one word of each bank (128 bytes); threads that read the
//!    same word share it (broadcast).
//! 3. A warp instruction of `W`-byte accesses is served in phases of `128/W` threads for
//!    `W >= 8` (16 threads for 8 bytes, 8 for 16 bytes), one phase of 32 threads for
//!    `W <= 4`. A phase takes as many wavefronts as the most distinct words in one bank.
//! 4. Two consecutive phases are served together (one phase of `2·128/W` threads) when every
//!    pair of threads `t, t^1` of the instruction, or every pair `t, t^2`, has the same
//!    address: the instruction returns half as many distinct bytes, so two phases fit one
//!    128-byte wavefront. With 16-byte accesses read all alike, 4 wavefronts become 2.
//!
//! The instruction's wavefronts are the sum over its phases; its ideal is the number of its
//! phases (one wavefront each): `wavefronts - ideal` is the instruction's bank conflicts as
//! Nsight Compute counts them (`l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld/st`). A
//! warp instruction is one access number of 32 consecutive threads of the thread-value layout.
//!
//! ```
//! use std::sync::Arc;
//! use tessera_verifier::{wavefronts, Bank, Func};
//! let facts = Arc::new(tessera_ir::sym::Facts::default());
//! let f = |src: &str| Func::parse(src, &facts).unwrap();
//! // 16-byte accesses: four phases of 8 threads, at least four wavefronts.
//! let b = Bank { smem: f("(8,64):(64,1)"), tv: f("((8,4),8):((64,1),8)"), elem: 2, access: 16 };
//! let w = wavefronts(&b).unwrap();
//! assert_eq!((w.worst, w.worst_ideal), (4, 4));
//! ```

use super::{Bank, PhaseWords, geometry_at, scan};
use crate::deadline::Deadline;
use crate::error::PResult;
use std::collections::HashMap;

pub use super::WARP;

/// The wavefronts of a bank question's warp instructions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wavefronts {
    /// The most wavefronts one warp instruction takes.
    pub worst: i64,
    /// The wavefronts that instruction takes without bank conflicts (its phases).
    pub worst_ideal: i64,
    /// That instruction: its access number.
    pub access: i64,
    /// That instruction: its first thread (a multiple of 32).
    pub warp: i64,
    /// The wavefronts of all warp instructions together.
    pub total: i64,
    /// The ideal of all warp instructions together.
    pub ideal: i64,
    /// The number of warp instructions (accesses times warps).
    pub instructions: i64,
}

/// The cost of one warp instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InstructionCost {
    /// Wavefronts taken.
    pub wavefronts: i64,
    /// Wavefronts without bank conflicts: the phases.
    pub ideal: i64,
    /// Whether consecutive phases were served together (rule 4).
    pub merged: bool,
}

/// Threads per phase of `access`-byte accesses (rule 3).
pub fn phase_threads(access: i64) -> i64 {
    match access {
        8 => 16,
        16 => 8,
        _ => 32,
    }
}

/// Whether every pair of threads `t, t ^ m` of the instruction has the same address.
fn pairs_share(addrs: &[i64], m: usize) -> bool {
    (0..addrs.len()).all(|t| addrs.get(t ^ m).is_none_or(|a| *a == addrs[t]))
}

/// The cost of one warp instruction whose threads (in order, at most 32) access `access`
/// bytes each from the byte addresses `addrs`.
///
/// @pre `access` is 1, 2, 4, 8 or 16 and each address is aligned to it; `addrs.len() <= 32`.
/// @post `ideal <= wavefronts`; `ideal` is the number of phases.
///
/// ```
/// use tessera_verifier::instruction_cost;
/// // 32 threads reading consecutive 16-byte vectors: four phases, no conflict.
/// let a: Vec<i64> = (0..32).map(|t| 16 * t).collect();
/// assert_eq!(instruction_cost(&a, 16).wavefronts, 4);
/// // Thread 1 reads bank 0 to 3 as thread 0 does, another word: a 2-way phase, five in all.
/// let mut b = a.clone();
/// b[1] = 128;
/// assert_eq!(instruction_cost(&b, 16).wavefronts, 5);
/// // Every thread reading the same vector: pairs share, two wavefronts.
/// assert_eq!(instruction_cost(&[0; 32], 16).wavefronts, 2);
/// ```
pub fn instruction_cost(addrs: &[i64], access: i64) -> InstructionCost {
    let phase = phase_threads(access) as usize;
    let merged = access >= 8 && addrs.len() > phase && (pairs_share(addrs, 1) || pairs_share(addrs, 2));
    let size = if merged { 2 * phase } else { phase };
    let words = (access / 4).max(1);
    let mut pw = PhaseWords::new();
    let (mut wavefronts, mut ideal) = (0, 0);
    for (k, chunk) in addrs.chunks(size).enumerate() {
        pw.clear();
        for (i, a) in chunk.iter().enumerate() {
            pw.add((k * size + i) as i64, *a, words);
        }
        wavefronts += pw.degree();
        ideal += 1;
    }
    InstructionCost {
        wavefronts,
        ideal,
        merged,
    }
}

/// The wavefronts of every warp instruction of a concrete bank question.
///
/// @pre the question is well-formed (else bad input) and has no parameters.
/// @post `worst_ideal <= worst`, `ideal <= total`.
///
/// See the module's example.
pub fn wavefronts(b: &Bank) -> PResult<Wavefronts> {
    wavefronts_by(b, &Deadline::none())
}

/// [`wavefronts`] within a deadline.
pub fn wavefronts_by(b: &Bank, deadline: &Deadline) -> PResult<Wavefronts> {
    wavefronts_at(b, &HashMap::new(), deadline)
}

/// Whether some warp instruction of `b` has its phases served in pairs (rule 4).
pub(crate) fn merges(b: &Bank) -> PResult<bool> {
    let g = geometry_at(b, &HashMap::new())?;
    let mut any = false;
    let mut visit = |_: i64, _: i64, addrs: &[i64]| any |= instruction_cost(addrs, b.access).merged;
    if !scan::each_instruction(b, &g, &Deadline::none(), &mut visit)? {
        // No offset table: merging needs equal addresses of two threads, which a
        // question without tables (F2 strides) is scored on directly by its caller.
        return Ok(true);
    }
    Ok(any)
}

/// [`wavefronts_by`] at parameter values (every parameter of the question bound).
pub(crate) fn wavefronts_at(
    b: &Bank,
    vals: &HashMap<String, i64>,
    deadline: &Deadline,
) -> PResult<Wavefronts> {
    let g = geometry_at(b, vals)?;
    let mut out = Wavefronts {
        worst: 0,
        worst_ideal: 0,
        access: 0,
        warp: 0,
        total: 0,
        ideal: 0,
        instructions: 0,
    };
    let mut visit = |c: i64, warp: i64, addrs: &[i64]| {
        let cost = instruction_cost(addrs, b.access);
        if cost.wavefronts > out.worst {
            (out.worst, out.worst_ideal, out.access, out.warp) = (cost.wavefronts, cost.ideal, c, warp);
        }
        out.total = out.total.saturating_add(cost.wavefronts);
        out.ideal = out.ideal.saturating_add(cost.ideal);
        out.instructions += 1;
    };
    if !scan::each_instruction(b, &g, deadline, &mut visit)? {
        let mut addrs = Vec::with_capacity(WARP as usize);
        let mut step = 0u64;
        for c in 0..g.chunks {
            let mut warp = 0;
            while warp < g.threads {
                addrs.clear();
                for t in warp..(warp + WARP).min(g.threads) {
                    deadline.poll(step)?;
                    step += 1;
                    addrs.push(g.address(b, t, c)?);
                }
                visit(c, warp, &addrs);
                warp += WARP;
            }
        }
    }
    Ok(out)
}
