//! A JIT-compiled single-precision matrix product on arbitrary layouts:
//! `C[i, j] += sum_k A[i, k] * B[j, k]` for `i < m`, `j < n`, `k < K`, each operand's offsets
//! given by an index expression (strided, hierarchical, swizzled: anything the index IR
//! expresses and the interval analysis bounds).
//!
//! The structure is BLIS's: the loops over blocks run in Rust (`jc` over `NC` columns of C,
//! `pc` over `KC` steps of `k`, `ic` over `MC` rows, then `jr`, `ir` over the register tiles).
//! The packing of a block of A into panels of `MR` rows and of a block of B into panels of `NR`
//! columns is compiled by Cranelift through the operands' offset expressions (zero-padded at
//! the edges); so is the update of C through C's offset expression, only inside `m x n`. The
//! micro-kernel, which keeps an `MR x NR` tile of sums in registers and multiplies-adds one `k`
//! at a time (fused: one rounding), works on the packed panels only, whose layout the packing
//! fixes; it is one of ([`GemmMicro`]):
//! * a Rust function compiled for 512-bit (AVX-512F, a 32 x 12 tile) or 256-bit vectors (AVX2
//!   and FMA, 16 x 6), picked at run time where the CPU has them (`wide`), which leaves its
//!   tile in a scratch buffer for the compiled update (`update`) to add to C;
//! * or Cranelift's (`micro`, 128-bit vectors: Cranelift 0.135 has no wider ones; a 4 x 12
//!   tile, each B value packed four times, a broadcast ready for one vector load), which adds
//!   its registers to C itself; the fallback, and selectable to compare.
//!
//! Every micro-kernel computes each sum in the same order with the same operations, so they
//! give the same bits. The packing buffers are allocated once per run and thread.
//!
//! Every offset expression is checked total on its domain and its interval proved inside
//! `[0, len)` before anything is compiled; [`GemmKernel::run`] checks the buffers against those
//! lengths. Threads split the rows of C (in whole tiles), so they write disjoint elements of C
//! when C's layout is injective.
//!
//! **Rounding.** The order of the sums is not the naive loop's: each `KC` block of `k` is
//! accumulated from 0 with fused multiply-adds in increasing `k`, then added to C (`KC` is the
//! same on every micro-kernel); so the result differs from `c + sum_k a * b` evaluated left to
//! right by rounding, within `O(K * eps * sum_k |a| |b| + eps * |c|)`.
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
mod update;
mod wide;

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
use update::UpdateEntry;
use wide::{Wide, WideFn};

/// The register tile and the block sizes (see the module documentation).
#[derive(Clone, Copy, Debug)]
struct Blocking {
    /// Rows of the register tile (a multiple of 4).
    mr: i64,
    /// Columns of the register tile.
    nr: i64,
    /// Steps of `k` per iteration of the Cranelift micro-kernel's main loop.
    unroll: i64,
    /// Steps of `k` per packed block: part of the rounding (each block's sums start from 0),
    /// so the same on every micro-kernel.
    kc: i64,
    /// Rows of A per packed block (a multiple of `mr`).
    mc: i64,
    /// Columns of B per packed block (a multiple of `nr`).
    nc: i64,
    /// How many times the packing writes each value of B (4 for the Cranelift kernel's
    /// vector loads of a broadcast, 1 for the wide kernels, which broadcast from memory).
    copies: i64,
}

/// Steps of `k` per packed block, on every micro-kernel (see [`Blocking::kc`]).
const KC: i64 = 512;

/// The blocking of the Cranelift micro-kernel, chosen by measurement (`benches/gemm.rs`,
/// 1024^3 on an x86-64 host with FMA): 4 x 12 accumulators (12 of the 16 xmm registers, the A
/// vector and a B broadcast beside them) ran at about 52-57 GFLOP/s, 8 x 6 and 8 x 4 at 49-53,
/// 12 x 4 at 31 (spills); unrolling `k` in the loop body did not help (45-54: Cranelift's
/// register moves on the loop's back edge stay); `KC` 512 beat 256 and 1024; `MC` between 48
/// and 192 made no difference; `NC` 768 (a packed B block of 6 MiB, four copies of each value)
/// ran as fast as 3072 and allocates less.
const CRANELIFT: Blocking = Blocking {
    mr: 4,
    nr: 12,
    unroll: 1,
    kc: KC,
    mc: 96,
    nc: 768,
    copies: 4,
};

/// The blocking of the AVX-512 micro-kernel (the variants measured: docs/src/figures/kernels.md,
/// "GEMM with a wide micro-kernel").
const AVX512: Blocking = Blocking {
    mr: 32,
    nr: 12,
    unroll: 1,
    kc: KC,
    mc: 192,
    nc: 1536,
    copies: 1,
};

/// The blocking of the AVX2 micro-kernel.
const AVX2: Blocking = Blocking {
    mr: 16,
    nr: 6,
    unroll: 1,
    kc: KC,
    mc: 192,
    nc: 1536,
    copies: 1,
};

/// Which micro-kernel a [`GemmKernel`] multiplies its packed panels with. The packing and the
/// update of C are compiled by Cranelift on every choice (they go through the operands' offset
/// expressions); the micro-kernel works on the packed panels only. Every choice gives the same
/// bits: each sum is accumulated in the same order with the same fused multiply-adds.
///
/// ```
/// use tessera_codegen::{GemmKernel, GemmMicro, GemmSpec};
/// use tessera_ir::{index::lower_modes, parse_layout};
/// let l = |s: &str| lower_modes(&parse_layout(s).unwrap()).unwrap();
/// let spec = GemmSpec { a: l("(5,3):(3,1)"), b: l("(7,3):(3,1)"), c: l("(5,7):(1,5)"), m: 5, n: 7, k: 3 };
/// let narrow = GemmKernel::compile_with(&spec, GemmMicro::Cranelift).unwrap();
/// assert_eq!(narrow.micro(), GemmMicro::Cranelift);
/// let wide = GemmKernel::compile(&spec).unwrap(); // the widest this CPU runs
/// let a: Vec<f32> = (0..15).map(|x| x as f32 / 7.0).collect();
/// let b: Vec<f32> = (0..21).map(|x| 1.0 / (x as f32 + 1.0)).collect();
/// let (mut c1, mut c2) = (vec![0.5f32; 35], vec![0.5f32; 35]);
/// narrow.run(&a, &b, &mut c1, 1).unwrap();
/// wide.run(&a, &b, &mut c2, 1).unwrap();
/// assert!(c1.iter().zip(&c2).all(|(x, y)| x.to_bits() == y.to_bits()));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GemmMicro {
    /// The widest kernel this CPU runs: [`GemmMicro::Avx512`], else [`GemmMicro::Avx2`], else
    /// [`GemmMicro::Cranelift`] (the default).
    #[default]
    Auto,
    /// A Rust kernel for AVX-512F (a 32 x 12 tile of 512-bit vectors), where the CPU has it;
    /// the Cranelift kernel elsewhere.
    Avx512,
    /// A Rust kernel for AVX2 and FMA (a 16 x 6 tile of 256-bit vectors), where the CPU has
    /// them; the Cranelift kernel elsewhere.
    Avx2,
    /// The Cranelift-compiled kernel (a 4 x 12 tile of 128-bit vectors), on every CPU.
    Cranelift,
}

impl GemmMicro {
    /// The kernel that runs on this CPU when `self` is asked for (never
    /// [`GemmMicro::Auto`]).
    ///
    /// @pre none. @post `Avx512` only where the CPU has AVX-512F, `Avx2` only where it has
    /// AVX2 and FMA; the same answer on every call in a process.
    ///
    /// ```
    /// use tessera_codegen::GemmMicro;
    /// assert_eq!(GemmMicro::Cranelift.resolve(), GemmMicro::Cranelift);
    /// assert_ne!(GemmMicro::Auto.resolve(), GemmMicro::Auto);
    /// ```
    pub fn resolve(self) -> GemmMicro {
        let has = |w: Wide| w.available();
        match self {
            GemmMicro::Auto if has(Wide::Avx512) => GemmMicro::Avx512,
            GemmMicro::Auto if has(Wide::Avx2) => GemmMicro::Avx2,
            GemmMicro::Avx512 if has(Wide::Avx512) => GemmMicro::Avx512,
            GemmMicro::Avx2 if has(Wide::Avx2) => GemmMicro::Avx2,
            _ => GemmMicro::Cranelift,
        }
    }

    /// The wide instruction set and the blocking of a resolved choice.
    fn plan(self) -> (Option<Wide>, Blocking) {
        match self {
            GemmMicro::Avx512 => (Some(Wide::Avx512), AVX512),
            GemmMicro::Avx2 => (Some(Wide::Avx2), AVX2),
            GemmMicro::Auto | GemmMicro::Cranelift => (None, CRANELIFT),
        }
    }
}

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

/// The micro-kernel of a compiled product.
#[derive(Clone, Copy)]
enum Micro {
    /// Cranelift's, which adds its tile to C itself.
    Cranelift(MicroEntry),
    /// A wide Rust kernel, whose tile of sums the compiled update adds to C (the CPU has the
    /// kernel's features).
    Wide(WideFn, UpdateEntry),
}

/// The entries of the compiled functions (their modules kept by the kernel).
#[derive(Clone, Copy)]
struct Code {
    pack_a: PackEntry,
    pack_b: PackEntry,
    micro: Micro,
}

/// A compiled matrix product (see the module documentation).
pub struct GemmKernel {
    blocking: Blocking,
    /// The micro-kernel used (resolved: never `Auto`).
    micro: GemmMicro,
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
        GemmKernel::compile_with(spec, GemmMicro::Auto)
    }

    /// Compiles the product of `spec` with the micro-kernel `micro` asks for (resolved on this
    /// CPU: [`GemmMicro::resolve`]).
    ///
    /// @pre none: as [`GemmKernel::compile`].
    /// @post as [`GemmKernel::compile`], with the same bits on every `micro`;
    /// [`GemmKernel::micro`] is `micro.resolve()`.
    pub fn compile_with(spec: &GemmSpec, micro: GemmMicro) -> Result<GemmKernel, JitError> {
        let start = Instant::now();
        let (m, n, k) = (spec.m, spec.n, spec.k);
        if m < 0 || n < 0 || k < 0 {
            return Err(JitError::Gemm(format!(
                "extents m = {m}, n = {n}, k = {k} must be >= 0"
            )));
        }
        // A wide kernel where this CPU runs one and one is compiled for its tile; else
        // Cranelift's, with its own blocking.
        let (micro, kernel, bl) = match micro.resolve().plan() {
            (Some(w), bl) => match w.kernel(bl.mr, bl.nr) {
                Some(f) => (micro.resolve(), Some(f), bl),
                None => (GemmMicro::Cranelift, None, CRANELIFT),
            },
            (None, bl) => (GemmMicro::Cranelift, None, bl),
        };
        let mut g = GemmKernel {
            blocking: bl,
            micro,
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
        let (mb, cb) = pack::compile(&pb, n, k, bl.nr, bl.copies)?;
        let (mm, cm) = match kernel {
            Some(_) => update::compile(&pc, m, n, bl.mr, bl.nr)?,
            None => {
                let tile = Tile {
                    mr: bl.mr,
                    nr: bl.nr,
                    unroll: bl.unroll,
                };
                micro::compile(&pc, m, n, tile)?
            }
        };
        // SAFETY: `ca` and `cb` are functions just defined by `pack::compile` with the signature
        // `(pointer, pointer, i64, i64, i64, i64) -> ()` in the platform's C calling convention,
        // which `PackEntry` is, and `cm` one defined by `micro::compile` with the signature of
        // `MicroEntry` or by `update::compile` with that of `UpdateEntry`; each stays mapped
        // while its module lives, as long as `self`.
        let (pack_a, pack_b, micro) = unsafe {
            (
                std::mem::transmute::<*const u8, PackEntry>(ca),
                std::mem::transmute::<*const u8, PackEntry>(cb),
                match kernel {
                    Some(f) => Micro::Wide(f, std::mem::transmute::<*const u8, UpdateEntry>(cm)),
                    None => Micro::Cranelift(std::mem::transmute::<*const u8, MicroEntry>(cm)),
                },
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

    /// The micro-kernel this product runs (see [`GemmMicro`]; never `Auto`).
    pub fn micro(&self) -> GemmMicro {
        self.micro
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

/// 64 bytes of floats, the unit of the packing buffers (so that panels start on cache lines).
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([f32; 16]);

/// A zeroed buffer of at least `floats` floats, 64-byte aligned.
fn lines(floats: i64) -> Vec<Line> {
    vec![Line([0.0; 16]); (floats.max(0) as usize).div_ceil(16)]
}

/// The product for the rows `lo..hi` of C: the loops over blocks, the packing buffers
/// allocated once.
///
/// @pre `code` is the kernel's, of extents `m, n, k` (`[n, k]` given) and blocking `bl`; the
/// addresses are those of buffers of `a_len`, `b_len`, `c_len` floats; `0 <= lo <= hi <= m`;
/// no other thread writes rows `lo..hi` of C.
fn part(code: Code, bl: Blocking, [n, k]: [i64; 2], (a, b, c): (usize, usize, usize), (lo, hi): (i64, i64)) {
    let Blocking {
        mr,
        nr,
        kc: kc_max,
        mc: mc_max,
        nc: nc_max,
        copies,
        ..
    } = bl;
    let mut a_buf = lines(mc_max * kc_max);
    let mut b_buf = lines(copies * nc_max.min((n + nr - 1) / nr * nr) * kc_max);
    // The wide kernels' tile of sums, column after column.
    let mut tile_buf = lines(mr * nr);
    // The buffers live to the end of the function; only these pointers use them.
    let (ap, bp, tile) = (
        a_buf.as_mut_ptr().cast::<f32>(),
        b_buf.as_mut_ptr().cast::<f32>(),
        tile_buf.as_mut_ptr().cast::<f32>(),
    );
    let (a, b, c) = (a as *const f32, b as *const f32, c as *mut f32);
    for jc in (0..n).step_by(nc_max as usize) {
        let nc = nc_max.min(n - jc);
        for pc in (0..k).step_by(kc_max as usize) {
            let kc = kc_max.min(k - pc);
            // SAFETY (every call below): the functions read A, B and write C only at offsets
            // of their domains (the packing clamps its rows and `k` to the compiled extents,
            // the micro-kernel and the update write only `i < min(i1, m)`, `j < min(j1, n)`),
            // proved in `[0, a_len)`, `[0, b_len)`, `[0, c_len)`, and the buffers are that
            // long (the precondition, checked by `run`). The packing of B writes
            // `copies * ceil(nc / nr) * nr * kc` floats, at most the length of `bp` (`nc <=
            // nc_max`, a multiple of `nr`, and `nc <= n`), that of A `ceil(mc / mr) * mr * kc`,
            // at most that of `ap` (`mc <= mc_max`, a multiple of `mr`). The micro-kernel reads
            // `kc * mr` floats of the A panel `ir / mr`, starting at `ir * kc` (so ending at
            // most at `ceil(mc / mr) * mr * kc`), and `copies * kc * nr` of the B panel
            // `jr / nr`, starting at `copies * jr * kc` (ending at most at
            // `copies * ceil(nc / nr) * nr * kc`). A wide kernel writes the `mr * nr` floats of
            // `tile` (a distinct buffer), and runs only where the CPU has its features
            // (`Wide::kernel` after `GemmMicro::resolve`). The micro-kernel or the update
            // writes C only in rows `ic + ir .. min(hi, m)`, rows of this thread alone, so
            // threads never write the same element (C injective).
            unsafe { (code.pack_b)(b, bp, jc, jc + nc, pc, pc + kc) };
            for ic in (lo..hi).step_by(mc_max as usize) {
                let mc = mc_max.min(hi - ic);
                // SAFETY: as above.
                unsafe { (code.pack_a)(a, ap, ic, ic + mc, pc, pc + kc) };
                for jr in (0..nc).step_by(nr as usize) {
                    // SAFETY: `copies * jr * kc < copies * ceil(nc / nr) * nr * kc`, inside `bp`.
                    let bpanel = unsafe { bp.add((copies * jr * kc) as usize) };
                    for ir in (0..mc).step_by(mr as usize) {
                        // SAFETY: `ir * kc < ceil(mc / mr) * mr * kc`, inside `ap`; the calls
                        // as above.
                        unsafe {
                            let apanel = ap.add((ir * kc) as usize);
                            let (i0, j0) = (ic + ir, jc + jr);
                            match code.micro {
                                Micro::Cranelift(f) => f(apanel, bpanel, c, kc, i0, j0, hi, jc + nc),
                                Micro::Wide(f, update) => {
                                    f(kc as usize, apanel, bpanel, tile);
                                    update(tile, c, i0, j0, hi, jc + nc);
                                }
                            }
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
