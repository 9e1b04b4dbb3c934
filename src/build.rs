//! `tessera build FILE.tess --target ptx`: proves every kernel of a check file (each access in
//! its buffer, each output written once, for every parameter value the facts admit), prints
//! the proofs per kernel, and writes the kernels as one PTX module.

use crate::check;
use crate::exit;
use std::collections::HashMap;
use tessera_codegen::kernel::{
    ObligationKind, check_bindings, kernel_verdict, params_of, prove_kernel, specialize,
};
use tessera_codegen::{Arch, emit_module_within};
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
contiguity and alignment are proved (by structure from the facts' divisors, else by the
verifier within --timeout; else the build fails naming the fact). A `+=` contraction whose
operands are staged is the shared-memory GEMM (k-tiles copied in turn between barriers).
Not built yet: mma.sync.

Symbolic proofs come first from structure (offsets as polynomials of the parameters: bounds by
monotonicity, injectivity by sorted stride domination), then from the verifier. When an
obligation stays unknown the build names it and stops (exit 2); --bind M=..,N=.. then builds a
kernel specialised at those values (checked against the facts): its proofs, and the guarantee,
hold for exactly those values, and its PTX takes no parameter for them. (tessera run proves a
kernel at its --bind values the same way when the proof for every value is unknown, and says
so in a note: the run is proved for that launch only.)

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
    /// `NAME=VALUE` bindings: build kernels specialised at these values.
    pub binds: &'a [String],
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
    let bindings: HashMap<String, i64> =
        match crate::bindings::parse(a.binds, crate::lang::builtins::is_reserved) {
            Ok(b) => b.into_iter().collect(),
            Err(e) => return bad(e),
        };
    if let Some(n) = bindings
        .keys()
        .find(|n| !kernels.iter().any(|k| params_of(k).contains(*n)))
    {
        return bad(format!("--bind {n}: no kernel built here has a parameter {n}"));
    }
    let mut specialised = Vec::with_capacity(kernels.len());
    for k in &kernels {
        if bindings.is_empty() || params_of(k).is_empty() {
            specialised.push((*k).clone());
            continue;
        }
        if let Err(e) = check_bindings(k, &bindings) {
            return bad(format!("kernel {}: --bind: {e}", k.name));
        }
        match specialize(k, &bindings) {
            Ok(s) => specialised.push(s),
            Err(e) => return bad(format!("kernel {}: --bind: {e}", k.name)),
        }
    }
    let kernels = specialised;
    for k in &kernels {
        let obligations = prove_kernel(k, &opts);
        if bindings.is_empty() {
            println!("kernel {}:", k.name);
        } else {
            let mut b: Vec<String> = bindings.iter().map(|(n, v)| format!("{n}={v}")).collect();
            b.sort();
            println!(
                "kernel {} (specialised at {}: proved for these values only):",
                k.name,
                b.join(", ")
            );
        }
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
                    _ => {
                        let params: Vec<String> = params_of(k).into_iter().collect();
                        if !params.is_empty() {
                            let eg: Vec<String> = params.iter().map(|p| format!("{p}=..")).collect();
                            eprintln!(
                                "  the obligation above is unknown for every value the facts admit; \
                                 --bind {} builds a kernel specialised at those values (proved for them only)",
                                eg.join(",")
                            );
                        }
                        exit::UNKNOWN
                    }
                };
            }
        }
    }
    let module = match emit_module_within(&kernels, arch, opts.timeout_ms) {
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
