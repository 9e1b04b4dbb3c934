//! `tessera run`: proves a kernel of a check file, then runs it with the reference
//! interpreter on `.npy` buffers. The Cranelift JIT is not built yet.

use crate::check;
use crate::exit;
use crate::npy;
use half::{bf16, f16};
use std::collections::HashMap;
use tessera_codegen::kernel::{Buffer, ElemType, Proved, params_of, run};
use tessera_verifier::{Options, Verdict};

/// The long help of `tessera run`.
pub const RUN_HELP: &str = "\
The Cranelift JIT is not built yet; this runs the reference interpreter (layouts evaluated
directly, no compilation).

Before it runs, the kernel's accesses are proved inside their buffers and its outputs written
once, for every parameter value the facts admit, or else (a note says so) at the --bind values
of this run. A refuted proof refuses the kernel (exit 1,
with the counterexample); an unknown one refuses it (exit 2) unless --unchecked is given, and
then a WARNING on stderr says the kernel runs unproved (every offset is still checked as it is
used, and one outside its buffer stops the run with an error).

Buffers are .npy files holding the tensor's buffer: cosize elements, flat, little-endian, of
dtype <f4 (f32), <f8 (f64), <i4 (i32), <i8 (i64), <f2 (f16) or <u2 (the bits of a bf16).
A tensor without --input gets seeded random values (--seed): floats in [-1, 1), integers in
[-100, 100). --output writes a tensor's buffer after the run (any tensor of the kernel).

EXIT CODES
  0 ran, 1 refused (refuted), 2 refused (unknown), 3 bad input (file, kernel, binding, .npy),
  4 internal error
";

/// What `tessera run` was asked.
pub struct RunArgs<'a> {
    /// The check file.
    pub file: &'a str,
    /// The kernel's name.
    pub kernel: &'a str,
    /// `NAME=VALUE` bindings (each argument may hold several, comma-separated).
    pub binds: &'a [String],
    /// `NAME=FILE.npy` inputs.
    pub inputs: &'a [String],
    /// `NAME=FILE.npy` outputs.
    pub outputs: &'a [String],
    /// Run a kernel whose proof is unknown.
    pub unchecked: bool,
    /// The proof's time limit per obligation, in seconds.
    pub timeout: f64,
    /// The seed of the random inputs.
    pub seed: u64,
}

fn bad(msg: impl std::fmt::Display) -> i32 {
    eprintln!("error: {msg}");
    exit::BAD_INPUT
}

/// Splits `NAME=VALUE`.
fn pair<'s>(s: &'s str, what: &str) -> Result<(&'s str, &'s str), String> {
    s.split_once('=')
        .map(|(a, b)| (a.trim(), b.trim()))
        .filter(|(a, b)| !a.is_empty() && !b.is_empty())
        .ok_or_else(|| format!("{what}: expected NAME=VALUE, got '{s}'"))
}

/// Seeded random values for a buffer (xorshift64*).
fn random(elem: ElemType, len: usize, seed: u64) -> Buffer {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let mut unit = || (next() >> 40) as f64 / (1u64 << 23) as f64 - 1.0;
    match elem {
        ElemType::F32 => Buffer::F32((0..len).map(|_| unit() as f32).collect()),
        ElemType::F64 => Buffer::F64((0..len).map(|_| unit()).collect()),
        ElemType::I32 => Buffer::I32((0..len).map(|_| (unit() * 100.0).floor() as i32).collect()),
        ElemType::I64 => Buffer::I64((0..len).map(|_| (unit() * 100.0).floor() as i64).collect()),
        ElemType::F16 => Buffer::F16((0..len).map(|_| f16::from_f64(unit())).collect()),
        ElemType::BF16 => Buffer::BF16((0..len).map(|_| bf16::from_f64(unit())).collect()),
    }
}

/// Runs `tessera run`; the exit code.
pub fn run_kernel(a: &RunArgs<'_>) -> i32 {
    let src = match std::fs::read_to_string(a.file) {
        Ok(s) => s,
        Err(e) => return bad(format_args!("{}: {e}", a.file)),
    };
    let cf = match check::load(a.file, &src) {
        Ok(cf) => cf,
        Err(e) => return bad(e),
    };
    let Some(k) = cf.kernels.iter().find(|k| k.name == a.kernel) else {
        let names: Vec<&str> = cf.kernels.iter().map(|k| k.name.as_str()).collect();
        return bad(format_args!(
            "{}: no kernel '{}' (kernels: {})",
            a.file,
            a.kernel,
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        ));
    };
    let mut bindings: HashMap<String, i64> = HashMap::new();
    for b in a.binds.iter().flat_map(|b| b.split(',')) {
        let (n, v) = match pair(b, "--bind") {
            Ok(p) => p,
            Err(e) => return bad(e),
        };
        let Ok(v) = v.parse::<i64>() else {
            return bad(format_args!("--bind {n}: '{v}' is not an integer"));
        };
        if bindings.insert(n.to_string(), v).is_some() {
            return bad(format_args!("--bind {n}: bound twice"));
        }
    }
    if !(a.timeout.is_finite() && a.timeout > 0.0) {
        return bad("--timeout must be a positive number of seconds");
    }
    let opts = Options {
        timeout_ms: Some((a.timeout * 1000.0).ceil() as u64),
    };
    let proved = match Proved::check_at(k.clone(), &bindings, &opts, a.unchecked) {
        Ok(p) => p,
        Err(r) => {
            eprintln!("error: {r}");
            return match r.verdict {
                Verdict::Refuted(_) => exit::REFUTED,
                Verdict::Unknown(_) => {
                    eprintln!("  (--unchecked runs it anyway, unproved)");
                    exit::UNKNOWN
                }
                Verdict::Invalid(_) => exit::BAD_INPUT,
                _ => exit::INTERNAL,
            };
        }
    };
    if let Some(b) = proved.bound() {
        let v: Vec<String> = b.iter().map(|(n, x)| format!("{n}={x}")).collect();
        eprintln!(
            "note: kernel {} is proved at {} only (not for every value the facts admit)",
            k.name,
            v.join(", ")
        );
    }
    if let Some(why) = proved.unchecked() {
        eprintln!(
            "WARNING: kernel {} runs UNCHECKED: its proof is unknown ({why})",
            k.name
        );
    }
    let mut inputs: HashMap<&str, &str> = HashMap::new();
    for s in a.inputs {
        match pair(s, "--input") {
            Ok((n, f)) => {
                inputs.insert(n, f);
            }
            Err(e) => return bad(e),
        }
    }
    let mut outputs: Vec<(usize, &str)> = Vec::new();
    for s in a.outputs {
        let (n, f) = match pair(s, "--output") {
            Ok(p) => p,
            Err(e) => return bad(e),
        };
        match k.tensors.iter().position(|t| t.name == n) {
            Some(t) => outputs.push((t, f)),
            None => return bad(format_args!("--output {n}: kernel {} has no tensor {n}", k.name)),
        }
    }
    if let Some(n) = inputs.keys().find(|n| !k.tensors.iter().any(|t| t.name == **n)) {
        return bad(format_args!("--input {n}: kernel {} has no tensor {n}", k.name));
    }
    let m: Vec<String> = params_of(k)
        .into_iter()
        .filter(|n| !bindings.contains_key(n))
        .collect();
    if !m.is_empty() {
        return bad(format_args!(
            "kernel {}: bind {} (--bind {}=..)",
            k.name,
            m.join(", "),
            m[0]
        ));
    }
    let mut buffers = Vec::with_capacity(k.tensors.len());
    for (i, t) in k.tensors.iter().enumerate() {
        let len = match t.cosize.eval(&bindings) {
            Ok(c) if c >= 0 => c as usize,
            Ok(c) => return bad(format_args!("tensor {}: cosize {c} is negative", t.name)),
            Err(e) => return bad(format_args!("tensor {}: cosize {}: {e}", t.name, t.cosize)),
        };
        let b = match inputs.get(t.name.as_str()) {
            Some(f) => match std::fs::read(f)
                .map_err(|e| e.to_string())
                .and_then(|x| npy::read(&x, t.elem, len))
            {
                Ok(b) => b,
                Err(e) => return bad(format_args!("--input {}={f}: {e}", t.name)),
            },
            None => random(t.elem, len, a.seed.wrapping_add(i as u64)),
        };
        buffers.push(b);
    }
    if let Err(e) = run(&proved, &bindings, &mut buffers) {
        return bad(format_args!("kernel {}: {e}", k.name));
    }
    for (t, f) in outputs {
        let bytes = match npy::write(&buffers[t]) {
            Ok(b) => b,
            Err(e) => return bad(format_args!("--output {}: {e}", k.tensors[t].name)),
        };
        if let Err(e) = std::fs::write(f, bytes) {
            return bad(format_args!("--output {}={f}: {e}", k.tensors[t].name));
        }
    }
    let lens: Vec<String> = k
        .tensors
        .iter()
        .zip(&buffers)
        .map(|(t, b)| format!("{}:{}[{}]", t.name, t.elem.name(), b.len()))
        .collect();
    println!(
        "ran kernel {} with the reference interpreter ({})",
        k.name,
        lens.join(", ")
    );
    exit::OK
}
