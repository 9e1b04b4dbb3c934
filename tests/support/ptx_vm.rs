//! A PTX interpreter for the kernels the PTX backend emits: `.entry` and `.func` bodies with
//! typed registers (kept as bit patterns), predicates and guards, branches, `call.uni` through
//! `.param` slots, global loads and stores checked against the buffers, shared memory per
//! CTA, `bar.sync` (every thread of the CTA runs to the barrier before any goes on, and threads
//! that disagree on the barriers are a failure), and the integer, float and conversion
//! instructions the backend writes. A grid runs CTA by CTA. An instruction it does not know, a register read
//! before it is written, or an access outside a buffer is a panic: a failed test.

#![allow(dead_code)]

use std::collections::HashMap;
use tessera_codegen::kernel::{bf16_to_f32, f16_to_f32, f32_to_bf16, f32_to_f16};

/// One instruction: an optional guard `(predicate, negated)`, the opcode, the operands.
#[derive(Clone, Debug)]
enum Line {
    Label(String),
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
        .map(|p| p.rsplit(' ').next().unwrap().to_string())
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
    /// Parses the module text.
    pub fn parse(text: &str) -> Module {
        let mut funcs = HashMap::new();
        let mut lines = text.lines().peekable();
        while let Some(l) = lines.next() {
            let l = l.trim();
            let (name, params, rets) = if let Some(rest) = l.strip_prefix(".visible .func (") {
                let (rets, rest) = rest.split_once(") ").unwrap();
                let (name, params) = rest.split_once('(').unwrap();
                (
                    name.to_string(),
                    names(params.strip_suffix(')').unwrap()),
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
                    let (name, n) = rest.trim_end_matches("];").split_once('[').unwrap();
                    body.shared.push((name.to_string(), n.parse().unwrap()));
                    continue;
                }
                if l.starts_with(".reg") || l.starts_with(".param") {
                    continue;
                }
                if let Some(label) = l.strip_suffix(':') {
                    body.labels.insert(label.to_string(), body.lines.len());
                    body.lines.push(Line::Label(label.to_string()));
                    continue;
                }
                let l = l.strip_suffix(';').unwrap_or_else(|| panic!("no ';' in {l}"));
                let (guard, l) = match l.strip_prefix('@') {
                    Some(rest) => {
                        let (g, rest) = rest.split_once(' ').unwrap();
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
        Module { funcs }
    }
}

/// Global memory: buffers at distinct base addresses.
pub struct Memory {
    /// Each buffer's base address and bytes.
    pub buffers: Vec<(u64, Vec<u8>)>,
}

impl Memory {
    /// Buffers at bases 2^32 apart.
    pub fn new(bufs: Vec<Vec<u8>>) -> Memory {
        Memory {
            buffers: bufs
                .into_iter()
                .enumerate()
                .map(|(k, b)| (((k as u64) + 1) << 32, b))
                .collect(),
        }
    }

    fn at(&mut self, addr: u64, n: usize) -> &mut [u8] {
        for (base, b) in &mut self.buffers {
            if addr >= *base && addr < *base + (1 << 32) {
                let off = (addr - *base) as usize;
                let len = b.len();
                assert!(
                    off + n <= len,
                    "access of {n} bytes at offset {off} of a buffer of {len}"
                );
                return &mut b[off..off + n];
            }
        }
        panic!("address {addr:#x} is in no buffer");
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
}

/// A CTA's shared memory, and the log of its accesses.
pub struct Shared {
    bytes: Vec<u8>,
    /// Which bytes a store has written (a load of any other is a failure).
    written: Vec<bool>,
    /// Each access: (store?, barrier round, the thread's how-many-th shared access of the
    /// round, thread, byte address, bytes).
    log: Vec<(bool, usize, usize, u64, u64, usize)>,
    round: usize,
}

impl Shared {
    fn at(&mut self, addr: u64, n: usize) -> &mut [u8] {
        let a = addr as usize;
        assert!(
            a + n <= self.bytes.len(),
            "shared access of {n} bytes at {a} of {}",
            self.bytes.len()
        );
        &mut self.bytes[a..a + n]
    }

    /// Thread `t`'s access of `n` bytes at `addr` (a store, or a load of bytes every one of
    /// which was written before), logged for the wavefront count as the thread's next shared
    /// access of the round.
    fn access(&mut self, t: &mut Thread, store: bool, addr: u64, n: usize) -> &mut [u8] {
        self.log
            .push((store, self.round, t.seq, t.special["tid.x"], addr, n));
        t.seq += 1;
        let a = addr as usize;
        let bytes = self.at(addr, n).len();
        let written = &mut self.written[a..a + bytes];
        if store {
            written.iter_mut().for_each(|w| *w = true);
        } else {
            assert!(
                written.iter().all(|w| *w),
                "read of uninitialised shared memory: {n} bytes at {a}"
            );
        }
        self.at(addr, n)
    }

    /// The largest number of distinct 4-byte words in one of the 32 banks over the phases of
    /// the warp instructions of the log: the wavefronts of the worst load and of the worst
    /// store.
    fn wavefronts(&self) -> (usize, usize) {
        let mut groups: HashMap<(bool, usize, usize, u64), Vec<u64>> = HashMap::new();
        for (store, round, seq, tid, addr, n) in &self.log {
            // The design's bank model: W-byte accesses in phases of 32 threads (W <= 4), 16
            // (W = 8) or 8 (W = 16); each phase's words.
            let phase_threads = match n {
                8 => 16,
                16 => 8,
                _ => 32,
            };
            let words = groups
                .entry((*store, *round, *seq, tid / phase_threads))
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

fn f32v(x: u64) -> f32 {
    f32::from_bits(x as u32)
}

fn f64v(x: u64) -> f64 {
    f64::from_bits(x)
}

/// IEEE maximumNumber / minimumNumber (PTX `max`/`min` on floats: a NaN operand ignored).
fn fmax(a: f64, b: f64, max: bool) -> f64 {
    if a.is_nan() {
        return b;
    }
    if b.is_nan() {
        return a;
    }
    if a == b {
        return if (a.is_sign_negative() && !b.is_sign_negative()) == max {
            b
        } else {
            a
        };
    }
    if (a > b) == max { a } else { b }
}

impl Thread {
    fn value(&self, s: &str) -> u64 {
        if let Some(sp) = s.strip_prefix('%').and_then(|x| self.special.get(x)) {
            return *sp;
        }
        if s.starts_with('%') {
            return *self
                .regs
                .get(s)
                .unwrap_or_else(|| panic!("{s} read before written"));
        }
        if let Some(a) = self.symbols.get(s) {
            return *a;
        }
        if let Some(h) = s.strip_prefix("0f") {
            return u64::from(u32::from_str_radix(h, 16).unwrap());
        }
        if let Some(h) = s.strip_prefix("0d") {
            return u64::from_str_radix(h, 16).unwrap();
        }
        if let Some(h) = s.strip_prefix("0x") {
            return u64::from_str_radix(h, 16).unwrap();
        }
        s.parse::<i64>()
            .map(|v| v as u64)
            .unwrap_or_else(|_| s.parse::<u64>().unwrap_or_else(|_| panic!("bad operand {s}")))
    }

    fn pred(&self, s: &str) -> bool {
        self.value(s) != 0
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
) -> Vec<u64> {
    let f = m.funcs.get(name).unwrap_or_else(|| panic!("no function {name}"));
    let mut t = Thread {
        regs: HashMap::new(),
        params: f.params.iter().cloned().zip(args.iter().copied()).collect(),
        special: special.clone(),
        symbols: HashMap::new(),
        seq: 0,
    };
    let mut pc = 0;
    match exec(m, name, f, &mut t, &mut pc, mem, sh) {
        Stop::Ret => f.rets.iter().map(|r| t.params[r]).collect(),
        Stop::Barrier => panic!("{name}: a barrier inside a function"),
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
) -> Stop {
    let mut steps = 0u64;
    while *pc < f.lines.len() {
        steps += 1;
        assert!(steps < 50_000_000, "{name}: too many steps");
        let Line::Ins(guard, op, a) = &f.lines[*pc] else {
            *pc += 1;
            continue;
        };
        *pc += 1;
        if let Some((g, neg)) = guard
            && t.pred(g) == *neg
        {
            continue;
        }
        let v = |k: usize, t: &Thread| t.value(&a[k]);
        let parts: Vec<&str> = op.split('.').collect();
        let ty = *parts.last().unwrap();
        let out: u64 = match parts[0] {
            "ret" => return Stop::Ret,
            "bar" => return Stop::Barrier,
            "trap" => panic!("{name}: trap"),
            "bra" => {
                *pc = f.labels[&a[0]];
                continue;
            }
            "ld" if parts[1] == "param" => t.params[bracket(&a[1])],
            "st" if parts[1] == "param" => {
                let x = v(1, t);
                t.params.insert(bracket(&a[0]).to_string(), x);
                continue;
            }
            "ld" | "st" if parts.len() == 4 && parts[2].starts_with('v') => {
                // ld.global.v4.f32 {a, b, c, d}, [addr] / st.global.v4.f32 [addr], {a, b, c, d}
                let lanes: usize = parts[2][1..].parse().unwrap();
                let n = width(ty);
                let (regs, at) = if parts[0] == "ld" {
                    (&a[0], &a[1])
                } else {
                    (&a[1], &a[0])
                };
                let regs: Vec<String> = regs
                    .trim_matches(|c| c == '{' || c == '}')
                    .split(',')
                    .map(|r| r.trim().to_string())
                    .collect();
                assert_eq!(regs.len(), lanes, "{name}: {op}");
                let addr = t.value(bracket(at));
                assert!(
                    addr.is_multiple_of((lanes * n) as u64),
                    "{name}: misaligned {op} at {addr:#x}"
                );
                assert_eq!(parts[1], "global", "{name}: vector accesses are global");
                for (l, r) in regs.iter().enumerate() {
                    let at = addr + (l * n) as u64;
                    if parts[0] == "ld" {
                        let mut w = [0u8; 8];
                        w[..n].copy_from_slice(mem.at(at, n));
                        t.regs.insert(r.clone(), u64::from_le_bytes(w));
                    } else {
                        let x = t.value(r);
                        mem.at(at, n).copy_from_slice(&x.to_le_bytes()[..n]);
                    }
                }
                continue;
            }
            "ld" if parts[1] == "global" || parts[1] == "shared" => {
                let addr = t.value(bracket(&a[1]));
                let n = width(ty);
                let bytes = if parts[1] == "global" {
                    mem.at(addr, n)
                } else {
                    sh.access(t, false, addr, n)
                };
                let mut w = [0u8; 8];
                w[..n].copy_from_slice(bytes);
                u64::from_le_bytes(w)
            }
            "st" if parts[1] == "global" || parts[1] == "shared" => {
                let addr = t.value(bracket(&a[0]));
                let x = v(1, t);
                let n = width(ty);
                let bytes = if parts[1] == "global" {
                    mem.at(addr, n)
                } else {
                    sh.access(t, true, addr, n)
                };
                bytes.copy_from_slice(&x.to_le_bytes()[..n]);
                continue;
            }
            "call" => {
                // call.uni (ret), name, (a, b)
                let rets = names(a[0].trim_matches(|c| c == '(' || c == ')'));
                let callee = a[1].clone();
                let ins: Vec<u64> = names(a[2].trim_matches(|c| c == '(' || c == ')'))
                    .iter()
                    .map(|p| t.params[p])
                    .collect();
                let special = t.special.clone();
                let r = call(m, &callee, &ins, mem, sh, &special);
                for (n, x) in rets.iter().zip(r) {
                    t.params.insert(n.clone(), x);
                }
                continue;
            }
            "cvta" | "mov" => v(1, t),
            "setp" => {
                let (x, y) = (v(1, t), v(2, t));
                let b = match ty {
                    "s64" => cmp(parts[1], x as i64, y as i64),
                    "s32" => cmp(parts[1], x as u32 as i32, y as u32 as i32),
                    other => panic!("setp.{other}"),
                };
                u64::from(b)
            }
            "and" if ty == "pred" => u64::from(t.pred(&a[1]) && t.pred(&a[2])),
            "selp" => {
                if t.pred(&a[3]) {
                    v(1, t)
                } else {
                    v(2, t)
                }
            }
            "cvt" => convert(&parts[1..], v(1, t)),
            _ => arith(
                &parts,
                &a[1..].iter().map(|s| t.value(s)).collect::<Vec<_>>(),
                name,
            ),
        };
        t.regs.insert(a[0].clone(), out);
    }
    Stop::Ret
}

fn cmp<T: PartialOrd>(c: &str, x: T, y: T) -> bool {
    match c {
        "eq" => x == y,
        "ne" => x != y,
        "lt" => x < y,
        "le" => x <= y,
        "gt" => x > y,
        "ge" => x >= y,
        other => panic!("setp.{other}"),
    }
}

/// `cvt` with its modifiers (`rn`, `rzi`) and the destination and source types.
fn convert(p: &[&str], x: u64) -> u64 {
    let (to, from) = (p[p.len() - 2], p[p.len() - 1]);
    let f = |v: f64| v;
    match (to, from) {
        ("u64", "u32") => x & 0xffff_ffff,
        ("u32", "u16") => x & 0xffff,
        ("f32", "f16") => u64::from(f16_to_f32(x as u16).to_bits()),
        ("f16", "f32") => u64::from(f32_to_f16(f32v(x))),
        ("bf16", "f32") => u64::from(f32_to_bf16(f32v(x))),
        ("f32", "bf16") => u64::from(bf16_to_f32(x as u16).to_bits()),
        ("s32", "f32") => (f32v(x) as i32) as u32 as u64,
        ("s64", "f32") => (f32v(x) as i64) as u64,
        ("s32", "f64") => (f64v(x) as i32) as u32 as u64,
        ("s64", "f64") => (f64v(x) as i64) as u64,
        ("f32", "s32") => u64::from((x as u32 as i32 as f32).to_bits()),
        ("f32", "s64") => u64::from((x as i64 as f32).to_bits()),
        ("f64", "s32") => f(f64::from(x as u32 as i32)).to_bits(),
        ("f64", "s64") => (x as i64 as f64).to_bits(),
        ("f32", "f64") => u64::from((f64v(x) as f32).to_bits()),
        ("f64", "f32") => f64::from(f32v(x)).to_bits(),
        ("s32", "s64") => x & 0xffff_ffff,
        ("s64", "s32") => x as u32 as i32 as i64 as u64,
        other => panic!("cvt {other:?}"),
    }
}

/// One float instruction on operands of type `$t` (read from bits by `$from`).
macro_rules! float_arith {
    ($t:ty, $from:expr, $op:expr, $a:expr, $name:expr, $ty:expr) => {{
        let x: Vec<$t> = $a.iter().map(|v| $from(*v)).collect();
        match $op {
            "add" => x[0] + x[1],
            "sub" => x[0] - x[1],
            "mul" => x[0] * x[1],
            "div" => x[0] / x[1],
            "fma" => x[0].mul_add(x[1], x[2]),
            "neg" => -x[0],
            "abs" => x[0].abs(),
            "max" | "min" => fmax(f64::from(x[0]), f64::from(x[1]), $op == "max") as $t,
            other => panic!("{}: {other}.{}", $name, $ty),
        }
    }};
}

/// Integer and float arithmetic.
fn arith(p: &[&str], a: &[u64], name: &str) -> u64 {
    let ty = *p.last().unwrap();
    let op = p[0];
    match ty {
        "f32" => u64::from(float_arith!(f32, f32v, op, a, name, ty).to_bits()),
        "f64" => float_arith!(f64, f64v, op, a, name, ty).to_bits(),
        "s32" | "b32" | "u32" => {
            let x: Vec<i32> = a.iter().map(|v| *v as u32 as i32).collect();
            let r = match op {
                "add" => x[0].wrapping_add(x[1]),
                "sub" => x[0].wrapping_sub(x[1]),
                "mul" => x[0].wrapping_mul(x[1]),
                "mad" => x[0].wrapping_mul(x[1]).wrapping_add(x[2]),
                "div" => x[0].wrapping_div(x[1]),
                "rem" => x[0].wrapping_rem(x[1]),
                "neg" => x[0].wrapping_neg(),
                "abs" => x[0].wrapping_abs(),
                "max" => x[0].max(x[1]),
                "min" => x[0].min(x[1]),
                "shl" => x[0].wrapping_shl(x[1] as u32),
                other => panic!("{name}: {other}.{ty}"),
            };
            u64::from(r as u32)
        }
        _ => {
            let x: Vec<i64> = a.iter().map(|v| *v as i64).collect();
            let r = match op {
                "add" => x[0].wrapping_add(x[1]),
                "sub" => x[0].wrapping_sub(x[1]),
                "mul" if p[1] == "hi" => ((u128::from(x[0] as u64) * u128::from(x[1] as u64)) >> 64) as i64,
                "mul" => x[0].wrapping_mul(x[1]),
                "mad" => x[0].wrapping_mul(x[1]).wrapping_add(x[2]),
                "div" => x[0].wrapping_div(x[1]),
                "rem" => x[0].wrapping_rem(x[1]),
                "neg" => x[0].wrapping_neg(),
                "abs" => x[0].wrapping_abs(),
                "max" => x[0].max(x[1]),
                "min" => x[0].min(x[1]),
                "xor" => x[0] ^ x[1],
                "and" => x[0] & x[1],
                "or" => x[0] | x[1],
                "shl" => x[0].wrapping_shl(x[1] as u32),
                "shr" if ty == "u64" => ((x[0] as u64) >> x[1]) as i64,
                "shr" => x[0] >> x[1],
                other => panic!("{name}: {other}.{ty}"),
            };
            r as u64
        }
    }
}

/// Launches entry `name` over `grid` CTAs of `block` threads with the parameter values
/// `args`, on `mem`: each CTA's threads run to each barrier in turn.
pub fn launch(m: &Module, name: &str, grid: u64, block: u64, args: &[u64], mem: &mut Memory) -> Stats {
    let mut stats = Stats::default();
    let f = m.funcs.get(name).unwrap_or_else(|| panic!("no entry {name}"));
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
                };
                (t, 0usize, false)
            })
            .collect();
        while threads.iter().any(|(_, _, done)| !done) {
            let (mut barrier, mut ret) = (0, 0);
            for (t, pc, done) in threads.iter_mut().filter(|x| !x.2) {
                t.seq = 0;
                match exec(m, name, f, t, pc, mem, &mut sh) {
                    Stop::Ret => {
                        *done = true;
                        ret += 1;
                    }
                    Stop::Barrier => barrier += 1,
                }
            }
            assert!(
                barrier == 0 || ret == 0,
                "{name}: {barrier} threads wait at a barrier that {ret} never reach"
            );
            sh.round += 1;
        }
        let (load, store) = sh.wavefronts();
        stats.load_wavefronts = stats.load_wavefronts.max(load);
        stats.store_wavefronts = stats.store_wavefronts.max(store);
    }
    stats
}
