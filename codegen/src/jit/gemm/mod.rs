//! A JIT-compiled single-precision matrix product on arbitrary layouts:
//! `C[i, j] += sum_k A[i, k] * B[j, k]` for `i < m`, `j < n`, `k < K`, each operand's offsets
//! given by an index expression (strided, hierarchical, swizzled: anything the index IR
//! expresses and the interval analysis bounds).
//!
//! The structure is BLIS's: the loops over blocks run in Rust (`jc` over `NC` columns of C,
//! `pc` over `KC` steps of `k`, `ic` over `MC` rows, then `jr`, `ir` over the register tiles);
//! three functions are compiled by Cranelift: the packing of a block of A into panels of `MR`
//! rows and of a block of B into panels of `NR` columns, each B value written four times (a
//! broadcast ready for one vector load) (through the operands' offset expressions, zero-padded
//! at the edges), and the micro-kernel, which keeps an `MR x NR` tile of C in registers of four
//! floats, multiplies-adds one `k` at a time (`fma`: fused, one rounding) and adds the tile to
//! C through C's offset expression, only inside `m x n`. The packing buffers are allocated once
//! per run and thread.
//!
//! Every offset expression is checked total on its domain and its interval proved inside
//! `[0, len)` before anything is compiled; [`GemmKernel::run`] checks the buffers against those
//! lengths. Threads split the rows of C (in whole tiles), so they write disjoint elements of C
//! when C's layout is injective.
//!
//! **Rounding.** The order of the sums is not the naive loop's: each `KC` block of `k` is
//! accumulated from 0 with fused multiply-adds in increasing `k`, then added to C; so the result
//! differs from `c + sum_k a * b` evaluated left to right by rounding, within
//! `O(K * eps * sum_k |a| |b| + eps * |c|)`.
//!
//! ```
//! use tessera_codegen::{GemmKernel, GemmSpec};
//! use tessera_ir::{index::lower_modes, parse_layout};
//! let l = |s: &str| lower_modes(&parse_layout(s).unwrap()).unwrap();
//! // A 2 x 3 row-major, B 2 x 3 row-major (so B[j, k]), C 2 x 2 column-major.
//! let spec = GemmSpec { a: l("(2,3):(3,1)"), b: l("(2,3):(3,1)"), c: l("(2,2):(1,2)"), m: 2, n: 2, k: 3 };
//! let g = GemmKernel::compile(&spec).unwrap();
//! let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
//! let b = [1.0, 0.0, 0.0, 0.0, 1.0, 1.0];
//! let mut c = [0.0f32; 4];
//! g.run(&a, &b, &mut c, 1).unwrap();
//! assert_eq!(c, [1.0, 4.0, 5.0, 11.0]); // C[0,0], C[1,0], C[0,1], C[1,1]
//! ```

mod micro;
mod pack;

use super::copy::needed;
use super::{JitError, check_total};
use crate::lang::Lang;
use crate::plan::Plan;
use crate::signature::Signature;
use cranelift_jit::JITModule;
use micro::{MicroEntry, Tile};
use pack::PackEntry;
use std::collections::HashMap;
use std::time::{Duration, Instant};
use tessera_ir::index::{IndexExpr, Var};
use tessera_ir::sym::Interval;

/// The register tile and the block sizes (see the module documentation).
#[derive(Clone, Copy, Debug)]
struct Blocking {
    /// Rows of the register tile (a multiple of 4).
    mr: i64,
    /// Columns of the register tile.
    nr: i64,
    /// Steps of `k` per iteration of the micro-kernel's main loop.
    unroll: i64,
    /// Steps of `k` per packed block.
    kc: i64,
    /// Rows of A per packed block (a multiple of `mr`).
    mc: i64,
    /// Columns of B per packed block (a multiple of `nr`).
    nc: i64,
}

/// The blocking used, chosen by measurement (`benches/gemm.rs`, 1024^3 on an x86-64 host with
/// FMA): 4 x 12 accumulators (12 of the 16 xmm registers, the A vector and a B broadcast
/// beside them) ran at about 52-57 GFLOP/s, 8 x 6 and 8 x 4 at 49-53, 12 x 4 at 31 (spills);
/// unrolling `k` in the loop body did not help (45-54: Cranelift's register moves on the loop's
/// back edge stay); `KC` 512 beat 256 and 1024; `MC` between 48 and 192 made no difference;
/// `NC` 768 (a packed B block of 6 MiB, four copies of each value) ran as fast as 3072 and
/// allocates less.
const BLOCKING: Blocking = Blocking {
    mr: 4,
    nr: 12,
    unroll: 1,
    kc: 512,
    mc: 96,
    nc: 768,
};

/// What to multiply: the offsets of the three operands and the extents.
#[derive(Clone, Debug)]
pub struct GemmSpec {
    /// Offset of `A[i, k]` in A's buffer, over `Var::Coord(0) = i`, `Var::Coord(1) = k` (one
    /// output).
    pub a: IndexExpr,
    /// Offset of `B[j, k]`, over `Var::Coord(0) = j`, `Var::Coord(1) = k`.
    pub b: IndexExpr,
    /// Offset of `C[i, j]`, over `Var::Coord(0) = i`, `Var::Coord(1) = j`.
    pub c: IndexExpr,
    /// Rows of A and C.
    pub m: i64,
    /// Rows of B, columns of C.
    pub n: i64,
    /// The reduced extent: columns of A and B.
    pub k: i64,
}

/// The entries of the compiled functions (their modules kept by the kernel).
#[derive(Clone, Copy)]
struct Code {
    pack_a: PackEntry,
    pack_b: PackEntry,
    micro: MicroEntry,
}

/// A compiled matrix product (see the module documentation).
pub struct GemmKernel {
    blocking: Blocking,
    /// The modules owning the code (none when an extent is 0).
    modules: Vec<JITModule>,
    code: Option<Code>,
    m: i64,
    n: i64,
    k: i64,
    /// Elements A's buffer must hold (the largest offset read, plus one; 0 if nothing is read).
    pub a_len: usize,
    /// Elements B's buffer must hold.
    pub b_len: usize,
    /// Elements C's buffer must hold.
    pub c_len: usize,
    compile_time: Duration,
}

/// The signature of an offset function of `c0 < n0`, `c1 < n1`.
fn signature(n0: i64, n1: i64) -> Signature {
    super::coords_signature(&[n0, n1])
}

/// The buffer length that `e`'s offsets over `c0 < n0`, `c1 < n1` need, proved.
fn length(e: &IndexExpr, n0: i64, n1: i64, which: &str) -> Result<usize, JitError> {
    let ranges = HashMap::from([
        (Var::Coord(0), Interval::new(Some(0), Some(i128::from(n0) - 1))),
        (Var::Coord(1), Interval::new(Some(0), Some(i128::from(n1) - 1))),
    ]);
    needed(e, &ranges, which).map_err(JitError::Gemm)
}

impl GemmKernel {
    /// Compiles the product of `spec`.
    ///
    /// @pre none: negative extents, an offset expression that is not total on its domain or
    /// not proved inside `[0, len)` there, are errors.
    /// @post [`GemmKernel::run`] adds `sum_k A[i, k] * B[j, k]` to `C[i, j]` for every `i < m`,
    /// `j < n` (rounding: see the module documentation), reading A and B and writing C only at
    /// the offsets of their domains, inside `a_len`, `b_len`, `c_len` elements. With an extent
    /// 0 nothing is compiled or touched and the lengths are 0.
    pub fn compile(spec: &GemmSpec) -> Result<GemmKernel, JitError> {
        let start = Instant::now();
        let (m, n, k) = (spec.m, spec.n, spec.k);
        if m < 0 || n < 0 || k < 0 {
            return Err(JitError::Gemm(format!(
                "extents m = {m}, n = {n}, k = {k} must be >= 0"
            )));
        }
        let bl = BLOCKING;
        let mut g = GemmKernel {
            blocking: bl,
            modules: Vec::new(),
            code: None,
            m,
            n,
            k,
            a_len: 0,
            b_len: 0,
            c_len: 0,
            compile_time: Duration::ZERO,
        };
        if m == 0 || n == 0 || k == 0 {
            g.compile_time = start.elapsed();
            return Ok(g);
        }
        g.a_len = length(&spec.a, m, k, "A")?;
        g.b_len = length(&spec.b, n, k, "B")?;
        g.c_len = length(&spec.c, m, n, "C")?;
        let (sa, sb, sc) = (signature(m, k), signature(n, k), signature(m, n));
        let pa = Plan::new(&spec.a, &sa, Lang::C)?;
        let pb = Plan::new(&spec.b, &sb, Lang::C)?;
        let pc = Plan::new(&spec.c, &sc, Lang::C)?;
        check_total(&pa)?;
        check_total(&pb)?;
        check_total(&pc)?;
        let (ma, ca) = pack::compile(&pa, m, k, bl.mr, 1)?;
        let (mb, cb) = pack::compile(&pb, n, k, bl.nr, 4)?;
        let tile = Tile {
            mr: bl.mr,
            nr: bl.nr,
            unroll: bl.unroll,
        };
        let (mm, cm) = micro::compile(&pc, m, n, tile)?;
        // SAFETY: `ca` and `cb` are functions just defined by `pack::compile` with the signature
        // `(pointer, pointer, i64, i64, i64, i64) -> ()` in the platform's C calling convention,
        // which `PackEntry` is, and `cm` one defined by `micro::compile` with the signature of
        // `MicroEntry`; each stays mapped while its module lives, as long as `self`.
        let (pack_a, pack_b, micro) = unsafe {
            (
                std::mem::transmute::<*const u8, PackEntry>(ca),
                std::mem::transmute::<*const u8, PackEntry>(cb),
                std::mem::transmute::<*const u8, MicroEntry>(cm),
            )
        };
        g.modules = vec![ma, mb, mm];
        g.code = Some(Code {
            pack_a,
            pack_b,
            micro,
        });
        g.compile_time = start.elapsed();
        Ok(g)
    }

    /// Time spent compiling: the interval checks, Cranelift and linking.
    pub fn compile_time(&self) -> Duration {
        self.compile_time
    }

    /// The extents `[m, n, k]`.
    pub fn extents(&self) -> [i64; 3] {
        [self.m, self.n, self.k]
    }

    /// `C[i, j] += sum_k A[i, k] * B[j, k]` for all `i < m`, `j < n`, on `threads` threads
    /// (the rows of C split in whole register tiles).
    ///
    /// @pre none: a buffer shorter than its proved length, or no thread, is an error.
    /// @post as [`GemmKernel::compile`] states. If C's layout maps two `(i, j)` to one offset,
    /// their sums are both added (on several threads, possibly racing on that element, which
    /// changes the value, never the memory touched).
    pub fn run(&self, a: &[f32], b: &[f32], c: &mut [f32], threads: usize) -> Result<(), JitError> {
        if a.len() < self.a_len || b.len() < self.b_len || c.len() < self.c_len {
            return Err(JitError::Gemm(format!(
                "buffers of {}, {} and {} elements, the product needs {}, {} and {}",
                a.len(),
                b.len(),
                c.len(),
                self.a_len,
                self.b_len,
                self.c_len
            )));
        }
        if threads == 0 {
            return Err(JitError::Gemm("no thread to run on".into()));
        }
        let Some(code) = self.code else {
            return Ok(());
        };
        let bl = self.blocking;
        let tiles = (self.m + bl.mr - 1) / bl.mr;
        let parts = (threads as i64).min(tiles);
        let (pa, pb, pc) = (a.as_ptr() as usize, b.as_ptr() as usize, c.as_mut_ptr() as usize);
        let rows = |t: i64| (tiles * t / parts * bl.mr).min(self.m);
        if parts == 1 {
            part(code, bl, [self.n, self.k], (pa, pb, pc), (0, self.m));
            return Ok(());
        }
        std::thread::scope(|scope| {
            for t in 0..parts {
                let (lo, hi) = (rows(t), rows(t + 1));
                let nk = [self.n, self.k];
                scope.spawn(move || part(code, bl, nk, (pa, pb, pc), (lo, hi)));
            }
        });
        Ok(())
    }
}

/// The product for the rows `lo..hi` of C: the loops over blocks, the packing buffers
/// allocated once.
///
/// @pre `code` is the kernel's, of extents `m, n, k` (`[n, k]` given); the addresses are those
/// of buffers of `a_len`, `b_len`, `c_len` floats; `0 <= lo <= hi <= m`; no other thread writes
/// rows `lo..hi` of C.
fn part(code: Code, bl: Blocking, [n, k]: [i64; 2], (a, b, c): (usize, usize, usize), (lo, hi): (i64, i64)) {
    let Blocking {
        mr,
        nr,
        kc: kc_max,
        mc: mc_max,
        nc: nc_max,
        ..
    } = bl;
    let mut ap = vec![0f32; (mc_max * kc_max) as usize];
    let mut bp = vec![0f32; (4 * nc_max.min((n + nr - 1) / nr * nr) * kc_max) as usize];
    let (a, b, c) = (a as *const f32, b as *const f32, c as *mut f32);
    for jc in (0..n).step_by(nc_max as usize) {
        let nc = nc_max.min(n - jc);
        for pc in (0..k).step_by(kc_max as usize) {
            let kc = kc_max.min(k - pc);
            // SAFETY (every call below): the functions read A, B and write C only at offsets
            // of their domains (the packing clamps its rows and `k` to the compiled extents,
            // the micro-kernel writes only `i < min(i1, m)`, `j < min(j1, n)`), proved in
            // `[0, a_len)`, `[0, b_len)`, `[0, c_len)`, and the buffers are that long (the
            // precondition, checked by `run`). The packing of B writes
            // `4 * ceil(nc / nr) * nr * kc` floats, at most `bp.len()` (`nc <= nc_max`, a
            // multiple of `nr`, and `nc <= n`), that of A `ceil(mc / mr) * mr * kc`, at most
            // `ap.len()` (`mc <= mc_max`, a multiple of `mr`). The micro-kernel reads
            // `kc * mr` floats of the A panel `ir / mr`, starting at `ir * kc` (so ending at
            // most at `ceil(mc / mr) * mr * kc`), and `4 * kc * nr` of the B panel `jr / nr`,
            // starting at `4 * jr * kc` (ending at most at `4 * ceil(nc / nr) * nr * kc`). It
            // writes C only in rows `ic + ir .. min(hi, m)`, rows of this thread alone, so
            // threads never write the same element (C injective).
            unsafe { (code.pack_b)(b, bp.as_mut_ptr(), jc, jc + nc, pc, pc + kc) };
            for ic in (lo..hi).step_by(mc_max as usize) {
                let mc = mc_max.min(hi - ic);
                // SAFETY: as above.
                unsafe { (code.pack_a)(a, ap.as_mut_ptr(), ic, ic + mc, pc, pc + kc) };
                for jr in (0..nc).step_by(nr as usize) {
                    // SAFETY: `4 * jr * kc < 4 * ceil(nc / nr) * nr * kc <= bp.len()`.
                    let bpanel = unsafe { bp.as_ptr().add((4 * jr * kc) as usize) };
                    for ir in (0..mc).step_by(mr as usize) {
                        // SAFETY: `ir * kc < ceil(mc / mr) * mr * kc <= ap.len()`; the calls as
                        // above.
                        unsafe {
                            let apanel = ap.as_ptr().add((ir * kc) as usize);
                            (code.micro)(apanel, bpanel, c, kc, ic + ir, jc + jr, hi, jc + nc);
                        }
                    }
                }
            }
        }
    }
}

impl std::fmt::Debug for GemmKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GemmKernel")
            .field("extents", &[self.m, self.n, self.k])
            .field("a_len", &self.a_len)
            .field("b_len", &self.b_len)
            .field("c_len", &self.c_len)
            .finish_non_exhaustive()
    }
}

impl Drop for GemmKernel {
    fn drop(&mut self) {
        self.code = None;
        for m in self.modules.drain(..) {
            // SAFETY: the only pointers into the modules' memory are the entries in `self.code`,
            // gone now (every thread that used them has joined: `run` is scoped).
            unsafe { m.free_memory() };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_ir::index::lower_modes;
    use tessera_ir::parse_layout;

    fn l(s: &str) -> IndexExpr {
        lower_modes(&parse_layout(s).unwrap()).unwrap()
    }

    #[test]
    fn small_product_matches_the_loop() {
        let (m, n, k) = (13i64, 11i64, 9i64);
        let spec = GemmSpec {
            a: l(&format!("({m},{k}):({k},1)")),
            b: l(&format!("({n},{k}):(1,{n})")),
            c: l(&format!("({m},{n}):(1,{m})")),
            m,
            n,
            k,
        };
        let g = GemmKernel::compile(&spec).unwrap();
        let (mu, nu, ku) = (m as usize, n as usize, k as usize);
        let a: Vec<f32> = (0..mu * ku).map(|x| (x % 7) as f32 - 3.0).collect();
        let b: Vec<f32> = (0..nu * ku).map(|x| (x % 5) as f32 - 2.0).collect();
        let mut c: Vec<f32> = (0..mu * nu).map(|x| x as f32).collect();
        let mut want = c.clone();
        for i in 0..mu {
            for j in 0..nu {
                for p in 0..ku {
                    want[i + j * mu] += a[i * ku + p] * b[j + p * nu];
                }
            }
        }
        for threads in [1, 2] {
            let mut got = c.clone();
            g.run(&a, &b, &mut got, threads).unwrap();
            assert_eq!(got, want); // small integers: exact
        }
        c.truncate(3);
        assert!(g.run(&a, &b, &mut c, 1).is_err());
    }

    #[test]
    fn zero_extents_and_no_thread() {
        let spec = GemmSpec {
            a: l("(1,1):(1,1)"),
            b: l("(1,1):(1,1)"),
            c: l("(1,1):(1,1)"),
            m: 1,
            n: 1,
            k: 0,
        };
        let g = GemmKernel::compile(&spec).unwrap();
        let mut c = [5.0f32];
        g.run(&[], &[], &mut c, 1).unwrap();
        assert_eq!(c, [5.0]);
        assert!(g.run(&[], &[], &mut c, 0).is_err());
        let bad = GemmSpec { m: -1, ..spec };
        assert!(GemmKernel::compile(&bad).is_err());
    }
}
