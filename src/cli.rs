//! The `check` and `prove` commands.

use crate::check::{self, Assertion, report};
use crate::exit;
use std::path::Path;
use std::time::{Duration, Instant};
use tessera_verifier::Options;

/// The check-file syntax part of `tessera check --help`.
const CHECK_SYNTAX: &str = "\
CHECK FILES (*.tess)
  param M, N where M % 128 == 0, 128 <= M <= 65536, 1 <= N <= 4096
  let Smem = Sw<3,3,3> o (8,64):(64,1)
  let TV   = ((8,4),8):((1,64),8)    # thread t: row t%8, column block t/8
  let A    = (M,N):(1,M)             # an M x N column-major tile
  let B    = (128,M/128):(1,128)
  let C    = (M/128,128):(128,1)
  assert injective(Smem)
  assert bank_conflict_free(Smem, TV, elem=2, access=16)
  assert conflict_degree((8,64):(64,1), TV, elem=2, access=16) == 8
  assert equal(composition(A, composition(B, C)), composition(composition(A, B), C))
  tensor src : f32[(M,N):(1,M)]
  tensor dst : f32[(M,N):(N,1)]
  kernel transpose tile i:32, j:32 { dst[i,j] = src[i,j] }
  let S = Sw<5,0,5> o (32,32):(32,1)
  kernel staged tile i:32, j:32 threads j:32, i:8 {
    stage src in S
    dst[i,j] = src[i,j]
  }
  assert bank_conflict_free(kernel staged)

  Each line is param, let, assert or tensor (then spaces or tabs), or blank, or a kernel block
  (which may span lines up to its '}'); # starts a comment. A tensor is TYPE[LAYOUT] (f32 f64
  i32 i64 f16 bf16); a kernel's statements are T[i,j] = EXPR or T[i,j] += EXPR (einsum: indices
  only on the right are summed) over + - * /, max min abs neg fma, casts f32(x) ..., literals.
  Each kernel is one line of the report: its accesses proved in bounds, its outputs injective.
  GPU clauses (ignored on the CPU): threads i:T, ... (the CTA's threads over a tile, the first
  listed fastest), stage X in L (X's tile copied through the shared-memory layout L first),
  vector 4 (128-bit accesses where contiguity and alignment are proved).
  assert bank_conflict_free(kernel K) checks every staged access of K (the staging copy's
  stores, the compute phase's loads): one line each, refuted with the two conflicting threads.
  A directory stands for the *.tess files directly in it (subdirectories are not searched).
";

/// The output and exit-code part of `tessera check --help`.
const CHECK_OUTPUT: &str = "\
OUTPUT
  one line per assertion: proved / refuted (with a re-checked counterexample) /
  unknown (with the reason) / bad input, and its time. A file that cannot be read or
  parsed is one bad-input result; the other files still run. --json, --junit FILE,
  --html FILE (a self-contained page: files collapsed with their counts, counterexamples,
  a filter for refuted and unknown assertions).
  --timeout 2s (or 500ms, 1m; a bare number is seconds) bounds each assertion (z3,
  enumeration, re-checks): past it, unknown.
  Each line names the prover that answered it: for equal(X, Y), egg (the expressions
  rewritten with the algebra's laws) or normal form (identical coalesced values); then the
  engine the portfolio chose by cost: F2 (linear algebra over GF(2) on the index bits, for
  layouts of powers of two, power-of-two strides, swizzles), structural (a layout's extreme
  values and strides), enumeration (every index) or z3. --engine enum|f2|z3|structural
  forces one engine for every assertion (unknown where it does not decide); --prover z3 is
  --engine z3.

EXIT CODES (the worst verdict's)
  4 internal error, else 3 bad input (file:line:col and a caret, or a usage error such as
  --timeout abc or -j 0), else 1 something refuted, else 2 something unknown, else 0 all proved
";

/// Help text of `tessera check`: the syntax, the properties (from
/// [`check::props::PROPERTIES`]), the output and the exit codes.
pub fn check_help() -> String {
    let mut props = String::from("PROPERTIES\n");
    let mut line = String::from(" ");
    for p in check::props::PROPERTIES {
        let item = format!(" {}({})", p.name, p.args);
        if line.len() + item.len() > 90 {
            props.push_str(&line);
            props.push('\n');
            line = String::from(" ");
        }
        line.push_str(&item);
    }
    props.push_str(&line);
    format!("{CHECK_SYNTAX}\n{props}\n\n{CHECK_OUTPUT}")
}

fn collect(paths: &[String]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for p in paths {
        let path = Path::new(p);
        if path.is_dir() {
            let mut found: Vec<String> = std::fs::read_dir(path)
                .map_err(|e| format!("{p}: {e}"))?
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|x| x.extension().is_some_and(|e| e == "tess"))
                .map(|x| x.to_string_lossy().into_owned())
                .collect();
            found.sort();
            out.extend(found);
        } else {
            out.push(p.clone());
        }
    }
    if out.is_empty() {
        return Err("no check files found".into());
    }
    Ok(out)
}

/// The options of `--timeout SECONDS`: the time limit of each assertion, a positive number
/// of seconds (at least one millisecond once rounded); anything else is bad input.
fn options(timeout: f64) -> Result<Options, String> {
    if !(timeout.is_finite() && timeout > 0.0 && timeout <= 1e9) {
        return Err(format!(
            "--timeout must be a positive number of seconds (at most 1e9), not {timeout}"
        ));
    }
    Ok(Options {
        timeout_ms: Some(((timeout * 1000.0).round() as u64).max(1)),
    })
}

/// The reports `tessera check` writes besides its text (or JSON) on stdout.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reports<'a> {
    /// JSON on stdout instead of text lines (`--json`).
    pub json: bool,
    /// A JUnit XML file (`--junit FILE`).
    pub junit: Option<&'a str>,
    /// A self-contained HTML file (`--html FILE`).
    pub html: Option<&'a str>,
}

/// `tessera check`.
pub fn check(
    paths: &[String],
    reports: Reports<'_>,
    timeout: f64,
    jobs: Option<usize>,
    provers: check::Provers,
) -> i32 {
    let (files, opts) = match collect(paths).and_then(|f| Ok((f, options(timeout)?))) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::BAD_INPUT;
        }
    };
    // A bad file is one bad-input result; the others still run.
    let loaded = check::load_all(&files);
    let threads = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let t0 = Instant::now();
    let outcomes = check::run_all(&loaded, &opts, threads, provers);
    let wall = t0.elapsed();
    emit(&outcomes, wall, threads, reports)
}

fn emit(outcomes: &[check::Outcome], wall: Duration, threads: usize, reports: Reports<'_>) -> i32 {
    if reports.json {
        let j = serde_json::to_string_pretty(&report::json(outcomes, wall, threads)).unwrap_or_default();
        exit::print(&format!("{j}\n"));
    } else {
        exit::print(&report::text(outcomes, wall, threads));
    }
    if let Some(path) = reports.junit
        && let Err(e) = std::fs::write(path, report::junit(outcomes, wall))
    {
        eprintln!("error: writing {path}: {e}");
        return exit::BAD_INPUT;
    }
    if let Some(path) = reports.html
        && let Err(e) = std::fs::write(path, check::html::html(outcomes, wall, threads))
    {
        eprintln!("error: writing {path}: {e}");
        return exit::BAD_INPUT;
    }
    check::exit_code(outcomes)
}

/// `tessera prove PROPERTY ARGS...`.
pub fn prove(
    property: &str,
    args: &[String],
    params: &[String],
    timeout: f64,
    as_json: bool,
    provers: check::Provers,
) -> i32 {
    let opts = match options(timeout) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::BAD_INPUT;
        }
    };
    let mut src = String::new();
    for p in params {
        src.push_str(&format!("param {p}\n"));
    }
    let (call_args, comparison) = split_comparison(args);
    let call = format!("{property}({}){comparison}", call_args.join(", "));
    let degree_only = matches!(property, "conflict_degree" | "wavefronts") && comparison.is_empty();
    if degree_only {
        // Report the degree itself: the n of n-way.
        src.push_str(&format!("assert {call} >= 1\n"));
    } else {
        src.push_str(&format!("assert {call}\n"));
    }
    let cf = match check::load("<command line>", &src) {
        Ok(cf) => cf,
        Err(e) => {
            eprintln!("error: {}", e.msg);
            eprintln!("  {}\n  {}^", e.text, " ".repeat(e.col.saturating_sub(1)));
            return exit::BAD_INPUT;
        }
    };
    if degree_only
        && let Some(Assertion {
            property: tessera_verifier::Property::Wavefronts(b, ..),
            ..
        }) = cf.assertions.first()
    {
        let deadline = tessera_verifier::Deadline::after_ms(opts.timeout_ms);
        return match tessera_verifier::wavefronts_by(b, &deadline) {
            Ok(w) => {
                if as_json {
                    println!(
                        "{}",
                        serde_json::json!({
                            "wavefronts": w.worst, "ideal": w.worst_ideal,
                            "total": w.total, "total_ideal": w.ideal, "instructions": w.instructions,
                        })
                    );
                } else {
                    println!("{}", wavefront_line(&w));
                }
                exit::OK
            }
            Err(e) => analysis_error(e),
        };
    }
    if degree_only
        && let Some(Assertion {
            property: tessera_verifier::Property::ConflictDegree(b, ..),
            ..
        }) = cf.assertions.first()
    {
        let deadline = tessera_verifier::Deadline::after_ms(opts.timeout_ms);
        return match tessera_verifier::analyze_by(b, &deadline) {
            Ok(a) => {
                match (&a.conflict, as_json) {
                    (_, true) => println!("{}", serde_json::json!({"degree": a.degree})),
                    (Some(c), false) => println!(
                        "{}-way: threads {} and {} (access {}) reach bank {} at bytes {} and {}",
                        a.degree, c.a.0, c.b.0, c.access, c.bank, c.a.1, c.b.1
                    ),
                    (None, false) => println!("1-way: conflict-free"),
                }
                exit::OK
            }
            Err(e) => analysis_error(e),
        };
    }
    let t0 = Instant::now();
    let outcomes = check::run_with(&cf.assertions, &opts, 1, provers);
    let reports = Reports {
        json: as_json,
        ..Reports::default()
    };
    emit(&outcomes, t0.elapsed(), 1, reports)
}

/// Splits `prove`'s arguments where a comparison starts (an argument beginning with `==`,
/// `<=`, `>=`, `<` or `>`, alone or with its number): the call's arguments, and the
/// comparison's text (empty when there is none) as a check file writes it.
///
/// @post the two parts together are `args`, in order.
fn split_comparison(args: &[String]) -> (&[String], String) {
    let k = args
        .iter()
        .position(|a| a.trim_start().starts_with(['=', '<', '>']))
        .unwrap_or(args.len());
    let rest = args[k..].join(" ");
    let comparison = if rest.is_empty() { rest } else { format!(" {rest}") };
    (&args[..k], comparison)
}

/// `N wavefronts (ideal M) in the worst warp instruction ...`: what `prove wavefronts` prints.
fn wavefront_line(w: &tessera_verifier::Wavefronts) -> String {
    format!(
        "{} wavefronts (ideal {}) in the worst warp instruction (access {}, threads from {}); \
         {} in all {} instructions (ideal {}, bank conflicts {})",
        w.worst,
        w.worst_ideal,
        w.access,
        w.warp,
        w.total,
        w.instructions,
        w.ideal,
        w.total - w.ideal
    )
}

/// The exit code of a failed bank analysis, its error printed.
fn analysis_error(e: tessera_verifier::ProveError) -> i32 {
    eprintln!("error: {e}");
    match e {
        tessera_verifier::ProveError::Invalid(_) => exit::BAD_INPUT,
        tessera_verifier::ProveError::Internal(_) => exit::INTERNAL,
        _ => exit::UNKNOWN,
    }
}
