//! A PTX interpreter for the kernels the PTX backend emits: `.entry` and `.func` bodies with
//! typed registers (kept as bit patterns), predicates and guards, branches, `call.uni` through
//! `.param` slots, global loads and stores checked against the buffers, shared memory per
//! CTA, `bar.sync` (every thread of the CTA runs to the barrier before any goes on, and threads
//! that disagree on the barriers are a failure), and the integer, float and conversion
//! instructions the backend writes. A grid runs CTA by CTA. An instruction it does not know, a
//! register read before it is written, an access outside a buffer, a misaligned vector access,
//! a read of unwritten shared memory, threads that disagree on a barrier, or more than
//! [`MAX_STEPS`] instructions in one thread is an error ([`SimError`]), never a panic.
//!
//! It measures the shared-memory wavefronts of each warp instruction (the bank model of the
//! design: 4-byte banks, 32 of them, phases of 32, 16 or 8 threads by access width), grouping a
//! thread's access with the other threads' by the instruction and the iterations of the loops
//! around it, so that a thread predicated off at one point takes no other point's place.

use std::collections::HashMap;

/// The most instructions one thread runs between barriers before the run is an error.
pub const MAX_STEPS: u64 = 50_000_000;

/// Why the interpreter stopped: the PTX, the entry and what failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("PTX interpreter: {0}")]
pub struct SimError(pub String);

type R<T> = Result<T, SimError>;

macro_rules! fail {
    ($($t:tt)*) => { return Err(SimError(format!($($t)*))) };
}

mod arith;
mod kernel;
use arith::{arith, cmp, convert};
pub use kernel::{EntryRun, run_kernel};

/// One instruction: an optional guard `(predicate, negated)`, the opcode, the operands.
#[derive(Clone, Debug)]
enum Line {
    Label,
    Ins(Option<(String, bool)>, String, Vec<String>),
}

/// A function or entry.
#[derive(Clone, Debug)]
struct Body {
    /// `.shared` arrays: name and bytes.
    shared: Vec<(String, usize)>,
    params: Vec<String>,
    rets: Vec<String>,
    lines: Vec<Line>,
    labels: HashMap<String, usize>,
}

/// A parsed module.
pub struct Module {
    funcs: HashMap<String, Body>,
}

/// Names in a `(.param .s64 a, .param .u64 b)` list.
fn names(list: &str) -> Vec<String> {
    list.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| p.rsplit(' ').next().unwrap_or(p).to_string())
        .collect()
}

/// Splits operands at top-level commas (a call's `(a, b)` groups stay whole).
fn operands(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut cur) = (0, String::new());
    for ch in s.chars() {
        match ch {
            '(' | '{' => {
                depth += 1;
                cur.push(ch);
            }
            ')' | '}' => {
                depth -= 1;
                cur.push(ch);
            }
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
            }
            _ => cur.push(ch),
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

impl Module {
    /// Parses the module text (as the PTX backend writes it).
    ///
    /// ```
    /// use tessera_codegen::ptx_sim::Module;
    /// assert!(Module::parse(".visible .entry k(\n)\n{\n\tret;\n}\n").is_ok());
    /// ```
    pub fn parse(text: &str) -> R<Module> {
        let mut funcs = HashMap::new();
        let mut lines = text.lines().peekable();
        while let Some(l) = lines.next() {
            let l = l.trim();
            let (name, params, rets) = if let Some(rest) = l.strip_prefix(".visible .func (") {
                let bad = || SimError(format!("cannot read the function header '{l}'"));
                let (rets, rest) = rest.split_once(") ").ok_or_else(bad)?;
                let (name, params) = rest.split_once('(').ok_or_else(bad)?;
                (
                    name.to_string(),
                    names(params.strip_suffix(')').ok_or_else(bad)?),
                    names(rets),
                )
            } else if let Some(rest) = l.strip_prefix(".visible .entry ") {
                let name = rest.trim_end_matches('(').to_string();
                let mut ps = String::new();
                for p in lines.by_ref() {
                    if p.trim() == ")" {
                        break;
                    }
                    ps.push_str(p);
                }
                (name, names(&ps), Vec::new())
            } else {
                continue;
            };
            let mut body = Body {
                shared: Vec::new(),
                params,
                rets,
                lines: Vec::new(),
                labels: HashMap::new(),
            };
            let mut depth = 0;
            for l in lines.by_ref() {
                let l = l.trim();
                if l.is_empty() || l.starts_with("//") {
                    continue;
                }
                if l == "{" {
                    depth += 1;
                    continue;
                }
                if l == "}" {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                    continue;
                }
                if let Some(rest) = l.strip_prefix(".shared .align 16 .b8 ") {
                    let bad = || SimError(format!("cannot read the shared array '{l}'"));
                    let (name, n) = rest.trim_end_matches("];").split_once('[').ok_or_else(bad)?;
                    body.shared
                        .push((name.to_string(), n.parse().map_err(|_| bad())?));
                    continue;
                }
                if l.starts_with(".reg") || l.starts_with(".param") {
                    continue;
                }
                if let Some(label) = l.strip_suffix(':') {
                    body.labels.insert(label.to_string(), body.lines.len());
                    body.lines.push(Line::Label);
                    continue;
                }
                let Some(l) = l.strip_suffix(';') else {
                    fail!("no ';' in {l}")
                };
                let (guard, l) = match l.strip_prefix('@') {
                    Some(rest) => {
                        let Some((g, rest)) = rest.split_once(' ') else {
                            fail!("a guard without an instruction: {l}")
                        };
                        let neg = g.starts_with('!');
                        (Some((g.trim_start_matches('!').to_string(), neg)), rest.trim())
                    }
                    None => (None, l),
                };
                let (op, args) = l.split_once(' ').unwrap_or((l, ""));
                body.lines.push(Line::Ins(guard, op.to_string(), operands(args)));
            }
            funcs.insert(name, body);
        }
        Ok(Module { funcs })
    }
}

/// Global memory: buffers at distinct base addresses.
pub struct Memory {
    /// Each buffer's base address and bytes.
    pub buffers: Vec<(u64, Vec<u8>)>,
}

impl Memory {
    /// Buffers at bases 2^32 apart.
    ///
    /// ```
    /// use tessera_codegen::ptx_sim::Memory;
    /// assert_eq!(Memory::new(vec![vec![0; 4]]).buffers[0].0, 1 << 32);
    /// ```
    pub fn new(bufs: Vec<Vec<u8>>) -> Memory {
        Memory {
            buffers: bufs
                .into_iter()
                .enumerate()
                .map(|(k, b)| (((k as u64) + 1) << 32, b))
                .collect(),
        }
    }

    fn at(&mut self, addr: u64, n: usize) -> R<&mut [u8]> {
        for (base, b) in &mut self.buffers {
            if addr >= *base && addr < *base + (1 << 32) {
                let off = (addr - *base) as usize;
                let len = b.len();
                if off + n > len {
                    fail!("access of {n} bytes at offset {off} of a buffer of {len}");
                }
                return Ok(&mut b[off..off + n]);
            }
        }
        fail!("address {addr:#x} is in no buffer")
    }
}

/// A thread's state.
struct Thread {
    regs: HashMap<String, u64>,
    params: HashMap<String, u64>,
    special: HashMap<&'static str, u64>,
    /// The shared arrays' addresses.
    symbols: HashMap<String, u64>,
    /// Shared accesses so far in this barrier round.
    seq: usize,
    /// The iteration of each loop (by its head's line) the thread is in: reset when the loop
    /// is entered, counted on each back edge.
    iters: HashMap<usize, usize>,
    /// The warp instruction of the thread's current shared access: the instruction's line and
    /// the iterations of the loops around it.
    here: WarpIns,
}

/// A warp instruction: an instruction's line and the iterations of its enclosing loops.
type WarpIns = (usize, Vec<usize>);

/// A CTA's shared memory, and the log of its accesses.
pub struct Shared {
    bytes: Vec<u8>,
    /// Which bytes a store has written (a load of any other is a failure).
    written: Vec<bool>,
    /// Each access: (store?, barrier round, the warp instruction (its line and the
    /// iterations of its enclosing loops), thread, byte address, bytes).
    log: Vec<(bool, usize, WarpIns, u64, u64, usize)>,
    round: usize,
}

impl Shared {
    fn at(&mut self, addr: u64, n: usize) -> R<&mut [u8]> {
        let a = addr as usize;
        if a.checked_add(n).is_none_or(|e| e > self.bytes.len()) {
            fail!("shared access of {n} bytes at {a} of {}", self.bytes.len());
        }
        Ok(&mut self.bytes[a..a + n])
    }

    /// Thread `t`'s access of `n` bytes at `addr` (a store, or a load of bytes every one of
    /// which was written before), logged for the wavefront count under its warp instruction:
    /// the instruction and the iterations of its loops, so that a thread predicated off at
    /// one point (past a partial tile's extent) takes no other point's place.
    fn access(&mut self, t: &mut Thread, store: bool, addr: u64, n: usize) -> R<&mut [u8]> {
        self.log
            .push((store, self.round, t.here.clone(), t.special["tid.x"], addr, n));
        t.seq += 1;
        let a = addr as usize;
        let bytes = self.at(addr, n)?.len();
        let written = &mut self.written[a..a + bytes];
        if store {
            written.iter_mut().for_each(|w| *w = true);
        } else if !written.iter().all(|w| *w) {
            fail!("read of uninitialised shared memory: {n} bytes at {a}");
        }
        self.at(addr, n)
    }

    /// The largest number of distinct 4-byte words in one of the 32 banks over the phases of
    /// the warp instructions of the log: the wavefronts of the worst load and of the worst
    /// store.
    fn wavefronts(&self) -> (usize, usize) {
        let mut groups: HashMap<(bool, usize, &WarpIns, u64), Vec<u64>> = HashMap::new();
        for (store, round, seq, tid, addr, n) in &self.log {
            // The design's bank model: W-byte accesses in phases of 32 threads (W <= 4), 16
            // (W = 8) or 8 (W = 16); each phase's words.
            let phase_threads = match n {
                8 => 16,
                16 => 8,
                _ => 32,
            };
            let words = groups
                .entry((*store, *round, seq, tid / phase_threads))
                .or_default();
            words.extend(addr / 4..(addr + *n as u64).div_ceil(4));
        }
        let (mut load, mut store) = (0, 0);
        for ((st, ..), words) in groups {
            let mut banks: HashMap<u64, std::collections::BTreeSet<u64>> = HashMap::new();
            for w in words {
                banks.entry(w % 32).or_default().insert(w);
            }
            let d = banks.values().map(|b| b.len()).max().unwrap_or(0);
            if st {
                store = store.max(d);
            } else {
                load = load.max(d);
            }
        }
        (load, store)
    }
}

/// What a launch measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// The wavefronts of the worst warp-wide shared load (1: conflict-free; 0: none).
    pub load_wavefronts: usize,
    /// The same for stores.
    pub store_wavefronts: usize,
}

/// Why execution stopped.
enum Stop {
    Ret,
    Barrier,
}

impl Thread {
    fn value(&self, s: &str) -> R<u64> {
        if let Some(sp) = s.strip_prefix('%').and_then(|x| self.special.get(x)) {
            return Ok(*sp);
        }
        if s.starts_with('%') {
            return self
                .regs
                .get(s)
                .copied()
                .ok_or_else(|| SimError(format!("{s} read before written")));
        }
        if let Some(a) = self.symbols.get(s) {
            return Ok(*a);
        }
        let bad = || SimError(format!("bad operand {s}"));
        if let Some(h) = s.strip_prefix("0f") {
            return u32::from_str_radix(h, 16).map(u64::from).map_err(|_| bad());
        }
        if let Some(h) = s.strip_prefix("0d").or_else(|| s.strip_prefix("0x")) {
            return u64::from_str_radix(h, 16).map_err(|_| bad());
        }
        s.parse::<i64>()
            .map(|v| v as u64)
            .or_else(|_| s.parse::<u64>())
            .map_err(|_| bad())
    }

    fn pred(&self, s: &str) -> R<bool> {
        Ok(self.value(s)? != 0)
    }

    fn param(&self, s: &str) -> R<u64> {
        self.params
            .get(s)
            .copied()
            .ok_or_else(|| SimError(format!("parameter {s} read before written")))
    }
}

fn bracket(s: &str) -> &str {
    s.trim_start_matches('[').trim_end_matches(']')
}

/// Runs `name` (a `.func`) with the parameter values `args`; the return parameters' values.
fn call(
    m: &Module,
    name: &str,
    args: &[u64],
    mem: &mut Memory,
    sh: &mut Shared,
    special: &HashMap<&'static str, u64>,
) -> R<Vec<u64>> {
    let Some(f) = m.funcs.get(name) else {
        fail!("no function {name}")
    };
    let mut t = Thread {
        regs: HashMap::new(),
        params: f.params.iter().cloned().zip(args.iter().copied()).collect(),
        special: special.clone(),
        symbols: HashMap::new(),
        seq: 0,
        iters: HashMap::new(),
        here: (0, Vec::new()),
    };
    let mut pc = 0;
    match exec(m, name, f, &mut t, &mut pc, mem, sh)? {
        Stop::Ret => f.rets.iter().map(|r| t.param(r)).collect(),
        Stop::Barrier => fail!("{name}: a barrier inside a function"),
    }
}

/// The bytes of a load or store of type `ty`.
fn width(ty: &str) -> usize {
    match ty {
        "b16" => 2,
        "f32" | "s32" | "b32" => 4,
        _ => 8,
    }
}

/// Runs `f` from `pc` until it returns or reaches a barrier (then `pc` is after it).
fn exec(
    m: &Module,
    name: &str,
    f: &Body,
    t: &mut Thread,
    pc: &mut usize,
    mem: &mut Memory,
    sh: &mut Shared,
) -> R<Stop> {
    // The loops: (head, back edge) for every branch to an earlier line.
    let loops: Vec<(usize, usize)> = f
        .lines
        .iter()
        .enumerate()
        .filter_map(|(k, l)| match l {
            Line::Ins(_, op, a) if op.starts_with("bra") => a
                .first()
                .and_then(|l| f.labels.get(l))
                .filter(|h| **h <= k)
                .map(|h| (*h, k)),
            _ => None,
        })
        .collect();
    let mut steps = 0u64;
    let mut jumped_back = false;
    while *pc < f.lines.len() {
        steps += 1;
        if steps >= MAX_STEPS {
            fail!("{name}: more than {MAX_STEPS} instructions in one thread");
        }
        if !jumped_back && loops.iter().any(|(h, _)| *h == *pc) {
            // Entered from above: its first iteration.
            t.iters.insert(*pc, 0);
        }
        jumped_back = false;
        let at = *pc;
        let Line::Ins(guard, op, a) = &f.lines[*pc] else {
            *pc += 1;
            continue;
        };
        *pc += 1;
        let mut around: Vec<(usize, usize)> = loops
            .iter()
            .copied()
            .filter(|(h, e)| *h <= at && at <= *e)
            .collect();
        around.sort_unstable();
        t.here = (
            at,
            around
                .iter()
                .map(|(h, _)| t.iters.get(h).copied().unwrap_or(0))
                .collect(),
        );
        if let Some((g, neg)) = guard
            && t.pred(g)? == *neg
        {
            continue;
        }
        let arg = |k: usize| -> R<&String> {
            a.get(k)
                .ok_or_else(|| SimError(format!("{name}: {op} has no operand {k}")))
        };
        let v = |k: usize, t: &Thread| t.value(arg(k)?);
        let parts: Vec<&str> = op.split('.').collect();
        let ty = parts.last().copied().unwrap_or("");
        let part = |k: usize| parts.get(k).copied().unwrap_or("");
        let out: u64 = match parts[0] {
            "ret" => return Ok(Stop::Ret),
            "bar" => return Ok(Stop::Barrier),
            "trap" => fail!("{name}: trap"),
            "bra" => {
                let Some(&to) = f.labels.get(arg(0)?) else {
                    fail!("{name}: no label {}", arg(0)?)
                };
                *pc = to;
                if *pc <= at {
                    *t.iters.entry(*pc).or_insert(0) += 1;
                    jumped_back = true;
                }
                continue;
            }
            "ld" if part(1) == "param" => t.param(bracket(arg(1)?))?,
            "st" if part(1) == "param" => {
                let x = v(1, t)?;
                t.params.insert(bracket(arg(0)?).to_string(), x);
                continue;
            }
            "ld" | "st" if parts.len() == 4 && parts[2].starts_with('v') => {
                // ld.global.v4.f32 {a, b, c, d}, [addr] / st.global.v4.f32 [addr], {a, b, c, d}
                let Ok(lanes) = parts[2][1..].parse::<usize>() else {
                    fail!("{name}: {op}")
                };
                let n = width(ty);
                let (regs, at) = if parts[0] == "ld" {
                    (arg(0)?, arg(1)?)
                } else {
                    (arg(1)?, arg(0)?)
                };
                let regs: Vec<String> = regs
                    .trim_matches(|c| c == '{' || c == '}')
                    .split(',')
                    .map(|r| r.trim().to_string())
                    .collect();
                if regs.len() != lanes {
                    fail!("{name}: {op} with {} registers", regs.len());
                }
                let addr = t.value(bracket(at))?;
                if !addr.is_multiple_of((lanes * n) as u64) {
                    fail!("{name}: misaligned {op} at {addr:#x}");
                }
                if parts[1] != "global" {
                    fail!("{name}: vector accesses are global ({op})");
                }
                for (l, r) in regs.iter().enumerate() {
                    let at = addr + (l * n) as u64;
                    if parts[0] == "ld" {
                        let mut w = [0u8; 8];
                        w[..n].copy_from_slice(mem.at(at, n)?);
                        t.regs.insert(r.clone(), u64::from_le_bytes(w));
                    } else {
                        let x = t.value(r)?;
                        mem.at(at, n)?.copy_from_slice(&x.to_le_bytes()[..n]);
                    }
                }
                continue;
            }
            "ld" if part(1) == "global" || part(1) == "shared" => {
                let addr = t.value(bracket(arg(1)?))?;
                let n = width(ty);
                let bytes = if parts[1] == "global" {
                    mem.at(addr, n)?
                } else {
                    sh.access(t, false, addr, n)?
                };
                let mut w = [0u8; 8];
                w[..n].copy_from_slice(bytes);
                u64::from_le_bytes(w)
            }
            "st" if part(1) == "global" || part(1) == "shared" => {
                let addr = t.value(bracket(arg(0)?))?;
                let x = v(1, t)?;
                let n = width(ty);
                let bytes = if parts[1] == "global" {
                    mem.at(addr, n)?
                } else {
                    sh.access(t, true, addr, n)?
                };
                bytes.copy_from_slice(&x.to_le_bytes()[..n]);
                continue;
            }
            "call" => {
                // call.uni (ret), name, (a, b)
                let rets = names(arg(0)?.trim_matches(|c| c == '(' || c == ')'));
                let callee = arg(1)?.clone();
                let ins: Vec<u64> = names(arg(2)?.trim_matches(|c| c == '(' || c == ')'))
                    .iter()
                    .map(|p| t.param(p))
                    .collect::<R<_>>()?;
                let special = t.special.clone();
                let r = call(m, &callee, &ins, mem, sh, &special)?;
                for (n, x) in rets.iter().zip(r) {
                    t.params.insert(n.clone(), x);
                }
                continue;
            }
            "cvta" | "mov" => v(1, t)?,
            "setp" => {
                let (x, y) = (v(1, t)?, v(2, t)?);
                let b = match (ty, part(1)) {
                    ("s64", c) => cmp(c, x as i64, y as i64)?,
                    ("s32", c) => cmp(c, x as u32 as i32, y as u32 as i32)?,
                    ("f32", "nan") => f32::from_bits(x as u32).is_nan() || f32::from_bits(y as u32).is_nan(),
                    ("f64", "nan") => f64::from_bits(x).is_nan() || f64::from_bits(y).is_nan(),
                    (other, c) => fail!("setp.{c}.{other}"),
                };
                u64::from(b)
            }
            "and" if ty == "pred" => u64::from(t.pred(arg(1)?)? && t.pred(arg(2)?)?),
            "selp" => {
                if t.pred(arg(3)?)? {
                    v(1, t)?
                } else {
                    v(2, t)?
                }
            }
            "cvt" => convert(&parts[1..], v(1, t)?)?,
            _ => arith(
                &parts,
                &a.iter().skip(1).map(|s| t.value(s)).collect::<R<Vec<_>>>()?,
                name,
            )?,
        };
        t.regs.insert(arg(0)?.clone(), out);
    }
    Ok(Stop::Ret)
}

/// Launches entry `name` over `grid` CTAs of `block` threads with the parameter values
/// `args`, on `mem`: each CTA's threads run to each barrier in turn.
///
/// @pre none: an unknown entry or any failure is an error.
/// @post the buffers of `mem` hold what the grid stored.
///
/// ```
/// use tessera_codegen::ptx_sim::{Memory, Module, launch};
/// let m = Module::parse(".visible .entry k(\n)\n{\n\tret;\n}\n").unwrap();
/// assert_eq!(launch(&m, "k", 2, 32, &[], &mut Memory::new(vec![])).unwrap().load_wavefronts, 0);
/// assert!(launch(&m, "nope", 1, 1, &[], &mut Memory::new(vec![])).is_err());
/// ```
pub fn launch(m: &Module, name: &str, grid: u64, block: u64, args: &[u64], mem: &mut Memory) -> R<Stats> {
    let mut stats = Stats::default();
    let Some(f) = m.funcs.get(name) else {
        fail!("no entry {name}")
    };
    let mut symbols = HashMap::new();
    let mut size = 16usize;
    for (s, n) in &f.shared {
        symbols.insert(s.clone(), size as u64);
        size += n.div_ceil(16) * 16;
    }
    for cta in 0..grid {
        let mut sh = Shared {
            bytes: vec![0u8; size],
            written: vec![false; size],
            log: Vec::new(),
            round: 0,
        };
        let mut threads: Vec<(Thread, usize, bool)> = (0..block)
            .map(|tid| {
                let t = Thread {
                    regs: HashMap::new(),
                    params: f.params.iter().cloned().zip(args.iter().copied()).collect(),
                    special: HashMap::from([("ctaid.x", cta), ("tid.x", tid), ("ntid.x", block)]),
                    symbols: symbols.clone(),
                    seq: 0,
                    iters: HashMap::new(),
                    here: (0, Vec::new()),
                };
                (t, 0usize, false)
            })
            .collect();
        while threads.iter().any(|(_, _, done)| !done) {
            let (mut barrier, mut ret) = (0, 0);
            for (t, pc, done) in threads.iter_mut().filter(|x| !x.2) {
                t.seq = 0;
                match exec(m, name, f, t, pc, mem, &mut sh)? {
                    Stop::Ret => {
                        *done = true;
                        ret += 1;
                    }
                    Stop::Barrier => barrier += 1,
                }
            }
            if barrier != 0 && ret != 0 {
                fail!("{name}: {barrier} threads wait at a barrier that {ret} never reach");
            }
            sh.round += 1;
        }
        let (load, store) = sh.wavefronts();
        stats.load_wavefronts = stats.load_wavefronts.max(load);
        stats.store_wavefronts = stats.store_wavefronts.max(store);
    }
    Ok(stats)
}
