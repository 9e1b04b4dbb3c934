//! `tessera build FILE.tess --target ptx`: proves every kernel of a check file (each access in
//! its buffer, each output written once, for every parameter value the facts admit), prints
//! the proofs per kernel, and writes the kernels as one PTX module.

use crate::check;
use crate::exit;
use tessera_codegen::kernel::{ObligationKind, kernel_verdict, prove_kernel};
use tessera_codegen::{Arch, emit_module};
use tessera_verifier::{Options, Verdict};

/// The long help of `tessera build`.
pub const BUILD_HELP: &str = "\
Every kernel of the file (or only --kernel NAME) is proved first: each tensor's accesses
inside a buffer of its cosize, and each output written once, for every parameter value the
facts admit. One line per obligation says who proved it. A refuted kernel stops the build
(exit 1); an unknown one too (exit 2). Then each kernel becomes a PTX module (.version 8.0,
.target sm_70, sm_80 or sm_90, .address_size 64; an instruction the --arch lacks, such as
bf16 rounding on sm_70, is an error): one .entry per statement; the tensors' pointers,
the layouts' parameters and every index's extent as .param values; each tensor's offsets as a
.func (the layout lowered, simplified with egg, validated). Grid: one CTA per tile of the
statement's outer indices (declared tiles; else 256 along the last outer index); up to 256
threads per CTA, each taking points tid, tid + ntid, ...; points past the extents are
predicated off. All kernels go to one module: to FILE with -o FILE, else to stdout.

With `threads`, a CTA has those threads (CuTe's local_partition); each `stage X in L` is copied
into shared memory first (then bar.sync), and the build prints the bank-conflict degree of the
staging stores and of the compute loads. `vector W` asks for .vW accesses, granted where
contiguity and alignment are proved (else the build fails naming the fact).

Not built yet: the shared-memory GEMM and mma.sync.

EXIT CODES
  0 built, 1 a kernel refuted, 2 a proof unknown, 3 bad input
";

/// What `tessera build` was asked.
pub struct BuildArgs<'a> {
    /// The check file.
    pub file: &'a str,
    /// Only this kernel.
    pub kernel: Option<&'a str>,
    /// The target (only `ptx`).
    pub target: &'a str,
    /// `sm_80` or `sm_90`.
    pub arch: &'a str,
    /// Where to write the PTX (stdout when `None`).
    pub output: Option<&'a str>,
    /// The proofs' time limit, in seconds.
    pub timeout: f64,
}

/// Runs `tessera build`; the exit code.
pub fn build(a: &BuildArgs<'_>) -> i32 {
    let bad = |m: String| {
        eprintln!("error: {m}");
        exit::BAD_INPUT
    };
    if a.target != "ptx" {
        return bad(format!("--target {}: the only target is ptx", a.target));
    }
    let Some(arch) = Arch::from_name(a.arch) else {
        return bad(format!("--arch {}: expected sm_70, sm_80 or sm_90", a.arch));
    };
    if !(a.timeout.is_finite() && a.timeout > 0.0) {
        return bad("--timeout must be a positive number of seconds".into());
    }
    let src = match std::fs::read_to_string(a.file) {
        Ok(s) => s,
        Err(e) => return bad(format!("{}: {e}", a.file)),
    };
    let cf = match check::load(a.file, &src) {
        Ok(cf) => cf,
        Err(e) => return bad(e.to_string()),
    };
    let kernels: Vec<_> = cf
        .kernels
        .iter()
        .filter(|k| a.kernel.is_none_or(|n| n == k.name))
        .collect();
    if kernels.is_empty() {
        return bad(match a.kernel {
            Some(n) => format!("{}: no kernel '{n}'", a.file),
            None => format!("{}: no kernel", a.file),
        });
    }
    let opts = Options {
        timeout_ms: Some((a.timeout * 1000.0).ceil() as u64),
    };
    for k in &kernels {
        let obligations = prove_kernel(k, &opts);
        println!("kernel {}:", k.name);
        for o in &obligations {
            let what = match o.kind {
                ObligationKind::InBounds => "accesses in bounds of its cosize",
                ObligationKind::Injective => "written once (injective)",
            };
            let verdict = match &o.verdict {
                Verdict::Proved => "proved".to_string(),
                v => v.to_string(),
            };
            println!(
                "  {}: {what}: {verdict} ({:?})",
                k.tensors[o.tensor.index()].name,
                o.method
            );
        }
        match kernel_verdict(k, &obligations) {
            Verdict::Proved => {}
            v => {
                eprintln!("error: kernel {} refused: {v}", k.name);
                return match v {
                    Verdict::Refuted(_) => exit::REFUTED,
                    _ => exit::UNKNOWN,
                };
            }
        }
    }
    let module = match emit_module(&kernels.iter().map(|k| (*k).clone()).collect::<Vec<_>>(), arch) {
        Ok(m) => m,
        Err(e) => return bad(e.to_string()),
    };
    for e in &module.entries {
        let tiles: Vec<String> = e.tiles.iter().map(|(x, t)| format!("{x}:{t}")).collect();
        println!(
            ".entry {}: grid = the tiles {}, {} threads per CTA",
            e.name,
            tiles.join(", "),
            e.block
        );
        for st in &e.stages {
            let deg = |d: Option<i64>| d.map_or("not analysed".to_string(), |d| format!("{d}-way"));
            println!(
                "  stage {} in {} ({} bytes of shared memory): staging stores {}, compute loads {} (bank-conflict degree, proved exactly)",
                st.tensor,
                st.layout,
                st.bytes,
                deg(st.store_degree),
                deg(st.load_degree)
            );
        }
    }
    let text = module.text;
    match a.output {
        Some(f) => {
            if let Err(e) = std::fs::write(f, &text) {
                return bad(format!("{f}: {e}"));
            }
            println!("wrote {f} ({})", a.arch);
        }
        None => print!("{text}"),
    }
    exit::OK
}
