//! Check files (`*.tess`) and `tessera check`.
//!
//! ```text
//! param M, N where M % 128 == 0, 128 <= M <= 65536, 1 <= N <= 4096
//! let Smem = Sw<3,3,3> o (8,64):(64,1)
//! let TV   = ((8,4),8):((1,64),8)    # thread t: row t%8, column block t/8
//! assert injective(Smem)
//! assert bank_conflict_free(Smem, TV, elem=2, access=16)
//! assert conflict_degree((8,64):(64,1), TV, elem=2, access=16) == 8
//! ```
//!
//! Each assertion ends as proved, refuted (with a re-checked counterexample), unknown (with
//! the reason) or bad input. Assertions run in parallel, each in a z3 context of its own. A
//! file that cannot be read or parsed is one bad-input result; the other files still run.

pub mod banks;
pub mod html;
pub mod names;
mod parse;
pub mod props;
pub mod report;
pub mod source;

pub use parse::{CheckError, CheckFile, load};

use crate::identity::{self, Term};
use crate::lang::Value;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tessera_codegen::kernel::{Kernel, kernel_verdict, prove_kernel};
use tessera_ir::sym::SymInt;
use tessera_verifier::{Engine, Int64Domain, Options, Property, Verdict, domain_in_int64, prove_in_int64};

/// One assertion of a check file.
#[derive(Clone, Debug)]
pub struct Assertion {
    /// The file it comes from.
    pub file: String,
    /// Its line (1-based).
    pub line: usize,
    /// The text after `assert`.
    pub text: String,
    /// The property to prove.
    pub property: Property,
    /// For `equal(X, Y)`: the two sides as expressions and values, for the provers that come
    /// before z3 ([`crate::identity`]).
    pub identity: Option<Identity>,
    /// For a kernel: the checked kernel, whose obligations (every access in bounds, each
    /// output injective) are proved together; `property` is then its first obligation.
    pub kernel: Option<Arc<Kernel>>,
}

/// The two sides of an `equal(X, Y)` assertion: their expressions, `let` names resolved, and
/// their values.
#[derive(Clone, Debug)]
pub struct Identity {
    /// `X` as a term.
    pub lhs: Term,
    /// `Y` as a term.
    pub rhs: Term,
    /// The value of `X`.
    pub lhs_value: Value<SymInt>,
    /// The value of `Y`.
    pub rhs_value: Value<SymInt>,
}

/// The prover that answered an assertion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prover {
    /// Rewriting of the expressions with the algebra's laws (egg).
    Egg,
    /// Identical coalesced values.
    NormalForm,
    /// z3 (or enumeration) on the values, pointwise.
    Z3,
    /// The F2 engine: linear algebra over GF(2) on the index bits (layouts in its
    /// fragment: powers of two, power-of-two strides, swizzles).
    F2,
    /// Every index (and parameter value) evaluated.
    Enumeration,
    /// Reasoning on a concrete layout's leaves: its extreme values, its strides.
    Structural,
}

impl Prover {
    /// The name the reports print.
    pub fn name(self) -> &'static str {
        match self {
            Prover::Egg => "egg",
            Prover::NormalForm => "normal form",
            Prover::Z3 => "z3",
            Prover::F2 => "F2",
            Prover::Enumeration => "enumeration",
            Prover::Structural => "structural",
        }
    }

    /// The prover of an engine's answer.
    pub fn of(e: Engine) -> Prover {
        match e {
            Engine::F2 => Prover::F2,
            Engine::Enumeration => Prover::Enumeration,
            Engine::Structural => Prover::Structural,
            Engine::Z3 | Engine::Auto => Prover::Z3,
        }
    }
}

/// Which provers answer the assertions (`tessera check --prover`, `--engine`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Provers {
    /// `equal` assertions: egg, then the normal form; then, for every assertion, the
    /// portfolio's engines ([`tessera_verifier::plan`]).
    #[default]
    All,
    /// z3 alone (no egg, no normal form, no other engine).
    Z3,
    /// One engine alone for every assertion (`--engine enum|f2|structural`): `unknown` where
    /// it does not decide.
    Only(Engine),
}

impl Provers {
    /// The choice of `--engine` (`auto`: [`Provers::All`]; `z3`: [`Provers::Z3`]).
    pub fn engine(e: Engine) -> Provers {
        match e {
            Engine::Auto => Provers::All,
            Engine::Z3 => Provers::Z3,
            e => Provers::Only(e),
        }
    }
}

/// Answers one assertion: an `equal` with its sides tries egg and the normal form before the
/// engines; returns the verdict, the prover that gave it (none for a kernel, whose
/// obligations may each have their own) and the assumption a proof over parameters needs
/// where offsets leave int64 at some admitted valuation ([`tessera_verifier::Int64Domain`]).
pub fn decide(a: &Assertion, opts: &Options, provers: Provers) -> (Verdict, Option<Prover>, Option<String>) {
    if let Some(k) = &a.kernel {
        return (kernel_verdict(k, &prove_kernel(k, opts)), None, None);
    }
    let by = |e: Engine| {
        let (v, used, d) = prove_in_int64(&a.property, opts, e);
        (v, Some(Prover::of(used)), assumption(d))
    };
    // Egg and the normal form prove equal functions; the int64 domain of their layouts is
    // asked as after any other proof.
    let rewritten = |p: Prover| match domain_in_int64(&a.property, opts) {
        Ok(d) => (Verdict::Proved, Some(p), assumption(d)),
        Err(v) => (v, Some(p), None),
    };
    match (&a.identity, provers) {
        (Some(id), Provers::All) => {
            if identity::by_rewriting(&id.lhs, &id.rhs, &identity::Limits::default()).closed {
                return rewritten(Prover::Egg);
            }
            if identity::by_normal_form(&id.lhs_value, &id.rhs_value) {
                return rewritten(Prover::NormalForm);
            }
            by(Engine::Auto)
        }
        (_, Provers::All) => by(Engine::Auto),
        (_, Provers::Z3) => by(Engine::Z3),
        (_, Provers::Only(e)) => by(e),
    }
}

/// The assumption of a domain, as reports print it.
fn assumption(d: Int64Domain) -> Option<String> {
    match d {
        Int64Domain::Fits => None,
        Int64Domain::Assumed(a) => Some(a),
    }
}

/// The verdict on one assertion.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// File of the assertion.
    pub file: String,
    /// Line of the assertion.
    pub line: usize,
    /// The assertion's text.
    pub text: String,
    /// The answer.
    pub verdict: Verdict,
    /// Time spent proving it.
    pub elapsed: Duration,
    /// The prover that answered (none for a kernel or a file that could not be loaded).
    pub prover: Option<Prover>,
    /// The property checked, whose layouts the HTML report shows beside a refutation; none
    /// for a kernel (its counterexample may come from any of its obligations) and for a file
    /// that could not be loaded.
    pub property: Option<Box<Property>>,
    /// The assumption a proof holds under: `offsets fit in int64 (...)` with the admitted
    /// valuation past int64, where a layout over an unbounded parameter leaves int64 there.
    pub assumption: Option<String>,
}

/// Proves every assertion on `threads` worker threads; outcomes come back in input order.
pub fn run(assertions: &[Assertion], opts: &Options, threads: usize) -> Vec<Outcome> {
    run_with(assertions, opts, threads, Provers::All)
}

/// [`run`] with a choice of provers for `equal` assertions.
pub fn run_with(assertions: &[Assertion], opts: &Options, threads: usize, provers: Provers) -> Vec<Outcome> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Outcome>>> = Mutex::new(vec![None; assertions.len()]);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1).min(assertions.len().max(1)) {
            s.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(a) = assertions.get(k) else { break };
                    let t0 = Instant::now();
                    let (verdict, prover, assumption) =
                        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            decide(a, opts, provers)
                        })) {
                            Ok(v) => v,
                            Err(_) => (Verdict::Internal("the prover panicked".into()), None, None),
                        };
                    let o = Outcome {
                        file: a.file.clone(),
                        line: a.line,
                        text: a.text.clone(),
                        verdict,
                        elapsed: t0.elapsed(),
                        prover,
                        property: a.kernel.is_none().then(|| Box::new(a.property.clone())),
                        assumption,
                    };
                    if let Ok(mut r) = results.lock() {
                        r[k] = Some(o);
                    }
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}

/// A loaded check file, or the bad-input outcome of one that could not be loaded.
#[derive(Clone, Debug)]
pub enum Loaded {
    /// The file's assertions.
    File(CheckFile),
    /// Why the file could not be read or parsed.
    Bad(Outcome),
}

/// Loads every file. A file that cannot be read or parsed becomes one bad-input outcome,
/// and its error is printed on stderr (file:line:col and a caret).
pub fn load_all(files: &[String]) -> Vec<Loaded> {
    files
        .iter()
        .map(|f| {
            let bad = |line: usize, text: String, msg: String| {
                Loaded::Bad(Outcome {
                    file: f.clone(),
                    line,
                    text,
                    verdict: Verdict::Invalid(msg),
                    elapsed: Duration::ZERO,
                    prover: None,
                    property: None,
                    assumption: None,
                })
            };
            match source::read(f) {
                Err(e) => {
                    eprintln!("error: {f}: {e}");
                    bad(0, String::new(), format!("cannot read the file: {e}"))
                }
                Ok(src) => match load(f, &src) {
                    Ok(cf) => Loaded::File(cf),
                    Err(e) => {
                        eprintln!("error: {e}");
                        bad(
                            e.line,
                            e.text.trim().to_string(),
                            format!("column {}: {}", e.col, e.msg),
                        )
                    }
                },
            }
        })
        .collect()
}

/// Proves the assertions of every loaded file; outcomes in file order, a bad file's outcome
/// in its place.
pub fn run_all(loaded: &[Loaded], opts: &Options, threads: usize, provers: Provers) -> Vec<Outcome> {
    let assertions: Vec<Assertion> = loaded
        .iter()
        .filter_map(|l| match l {
            Loaded::File(cf) => Some(cf.assertions.iter().cloned()),
            Loaded::Bad(_) => None,
        })
        .flatten()
        .collect();
    let mut proved = run_with(&assertions, opts, threads, provers).into_iter();
    let mut out = Vec::new();
    for l in loaded {
        match l {
            Loaded::File(cf) => out.extend(proved.by_ref().take(cf.assertions.len())),
            Loaded::Bad(o) => out.push(o.clone()),
        }
    }
    out
}

/// The exit code of a set of outcomes, the worst verdict's (design.md): 4 an internal error,
/// else 3 bad input, else 1 something refuted, else 2 something unknown, else 0.
pub fn exit_code(outcomes: &[Outcome]) -> i32 {
    use crate::exit;
    if outcomes.iter().any(|o| matches!(o.verdict, Verdict::Internal(_))) {
        exit::INTERNAL
    } else if outcomes.iter().any(|o| matches!(o.verdict, Verdict::Invalid(_))) {
        exit::BAD_INPUT
    } else if outcomes.iter().any(|o| matches!(o.verdict, Verdict::Refuted(_))) {
        exit::REFUTED
    } else if outcomes.iter().any(|o| matches!(o.verdict, Verdict::Unknown(_))) {
        exit::UNKNOWN
    } else {
        exit::OK
    }
}
