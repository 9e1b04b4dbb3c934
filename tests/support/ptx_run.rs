//! Running emitted PTX in the tests: `ptxas` (found, and run on a module with its errors shown
//! at their lines), and the PTX interpreter over a kernel's whole grid compared with the
//! reference interpreter.

#![allow(dead_code)]

use crate::{kernel_gen, ptx_vm};
use half::{bf16, f16};
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use tessera_codegen::kernel::{Buffer, ElemType, Proved, run_with_magnitudes};
use tessera_codegen::{Arch, emit_kernel};

/// `ptxas`: `$TESSERA_PTXAS`, else the one `scripts/setup.sh` installs, else on the `PATH`.
pub fn ptxas() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("TESSERA_PTXAS") {
        return Some(PathBuf::from(p));
    }
    let local = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".deps/nvcc/nvidia/cuda_nvcc/bin/ptxas");
    if local.exists() {
        return Some(local);
    }
    Command::new("ptxas")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|_| PathBuf::from("ptxas"))
}

/// Assembles `text` for `arch`; a failure shows ptxas's message and the PTX lines it names.
pub fn assemble(text: &str, arch: Arch, what: &str) {
    let Some(ptxas) = ptxas() else {
        if std::env::var("TESSERA_REQUIRE_PTXAS").is_ok_and(|v| v == "1") {
            panic!("ptxas not found and TESSERA_REQUIRE_PTXAS=1: run scripts/setup.sh");
        }
        eprintln!("skipped: ptxas not found (run scripts/setup.sh, or set TESSERA_PTXAS)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("tessera-kernel-ptx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{what}.ptx"));
    std::fs::write(&file, text).unwrap();
    let o = Command::new(&ptxas)
        .args(["--gpu-name", arch.name(), "-o"])
        .arg(dir.join(format!("{what}.cubin")))
        .arg(&file)
        .output()
        .unwrap();
    if !o.status.success() {
        let err = String::from_utf8_lossy(&o.stderr);
        let lines: Vec<&str> = text.lines().collect();
        let shown: Vec<String> = err
            .lines()
            .filter_map(|l| {
                let n: usize = l
                    .split(", line ")
                    .nth(1)?
                    .split(';')
                    .next()?
                    .trim()
                    .parse()
                    .ok()?;
                Some(format!("{n}: {}", lines.get(n - 1)?))
            })
            .collect();
        panic!(
            "{what} ({}): ptxas failed:\n{err}\n{}",
            arch.name(),
            shown.join("\n")
        );
    }
}

/// Emits `p`'s kernel, runs every entry in the PTX interpreter over its grid from the seeded
/// buffers, and compares every byte with the reference interpreter's result.
pub fn ptx_equals_interpreter(
    p: &Proved,
    b: &HashMap<String, i64>,
    seed: u64,
) -> Result<ptx_vm::Stats, String> {
    ptx_against_interpreter(p, b, seed, None)
}

/// A float element of `bytes` as f64 (an integer compares exactly).
pub fn element(elem: ElemType, bytes: &[u8]) -> f64 {
    match elem {
        ElemType::F32 => f64::from(f32::from_le_bytes(bytes.try_into().unwrap())),
        ElemType::F64 => f64::from_le_bytes(bytes.try_into().unwrap()),
        ElemType::F16 => f16::from_bits(u16::from_le_bytes(bytes.try_into().unwrap())).to_f64(),
        ElemType::BF16 => bf16::from_bits(u16::from_le_bytes(bytes.try_into().unwrap())).to_f64(),
        ElemType::I32 => f64::from(i32::from_le_bytes(bytes.try_into().unwrap())),
        ElemType::I64 => i64::from_le_bytes(bytes.try_into().unwrap()) as f64,
    }
}

/// As [`ptx_equals_interpreter`]; with `tol`, float elements may differ by `tol * max(1, m)`
/// (fused sums), where `m` is the magnitude the reference interpreter summed the element from
/// ([`run_with_magnitudes`]: a sum that cancels to nearly zero still carries rounding errors of
/// the size of its terms); integers still not at all.
pub fn ptx_against_interpreter(
    p: &Proved,
    b: &HashMap<String, i64>,
    seed: u64,
    tol: Option<f64>,
) -> Result<ptx_vm::Stats, String> {
    let k = p.kernel();
    let m = emit_kernel(k, Arch::Sm80).map_err(|e| e.to_string())?;
    let start: Vec<Buffer> = k
        .tensors
        .iter()
        .enumerate()
        .map(|(i, t)| kernel_gen::buffer(t.elem, t.cosize.eval(b).unwrap() as usize, seed + i as u64))
        .collect();
    let mut want = start.clone();
    let mags = run_with_magnitudes(p, b, &mut want).map_err(|e| format!("interpreter: {e}"))?;
    let module = ptx_vm::Module::parse(&m.text);
    let mut mem = ptx_vm::Memory::new(start.iter().map(Buffer::to_le_bytes).collect());
    let extent = |name: &str| {
        let x = k.indices.iter().find(|x| x.name == name).unwrap();
        x.extent.eval(b).unwrap()
    };
    let mut stats = ptx_vm::Stats::default();
    for e in &m.entries {
        let args: Vec<u64> = e
            .params
            .iter()
            .map(|(kind, n)| match kind.as_str() {
                "t" => mem.buffers[k.tensors.iter().position(|t| &t.name == n).unwrap()].0,
                "p" => b[n] as u64,
                _ => extent(n) as u64,
            })
            .collect();
        let grid: i64 = e.tiles.iter().map(|(x, t)| (extent(x) + t - 1) / t).product();
        let s = ptx_vm::launch(&module, &e.name, grid as u64, e.block as u64, &args, &mut mem);
        stats.load_wavefronts = stats.load_wavefronts.max(s.load_wavefronts);
        stats.store_wavefronts = stats.store_wavefronts.max(s.store_wavefronts);
    }
    for (t, w) in want.iter().enumerate() {
        let (got, w) = (&mem.buffers[t].1, w.to_le_bytes());
        let elem = k.tensors[t].elem;
        if let Some(tol) = tol.filter(|_| elem.is_float()) {
            let n = elem.bytes();
            for (e, (g, w)) in got.chunks(n).zip(w.chunks(n)).enumerate() {
                let (g, w) = (element(elem, g), element(elem, w));
                let m = mags[t].get(e).copied().filter(|m| m.is_finite()).unwrap_or(0.0);
                if !(g == w || (g - w).abs() <= tol * w.abs().max(m).max(1.0) || g.is_nan() && w.is_nan()) {
                    return Err(format!(
                        "tensor {} element {e}: PTX {g}, interpreter {w} (summed from magnitude {m})",
                        k.tensors[t].name
                    ));
                }
            }
            continue;
        }
        if let Some(i) = (0..w.len()).find(|&i| got[i] != w[i]) {
            return Err(format!(
                "tensor {} byte {i}: PTX {:#x}, interpreter {:#x}\n{}",
                k.tensors[t].name, got[i], w[i], m.text
            ));
        }
    }
    Ok(stats)
}
