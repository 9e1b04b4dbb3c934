//! `tessera simplify`: the index arithmetic of a layout (or of an index expression) before and
//! after the e-graph simplifier, with the costs, and the validation that makes the result
//! usable: z3 proves it equal to the input on the whole domain, or the input is kept.

use crate::lang::Session;
use crate::lower::{Lowered, lower_value};
use std::fmt::Write;
use std::sync::Arc;
use std::time::Duration;
use tessera_ir::Result;
use tessera_ir::index::Cost;
use tessera_ir::simplify::{Limits, Stop};
use tessera_verifier::{Engine, Options, Validated, Verdict, simplify_validated};

/// What `tessera simplify` was asked.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// Lower at the flat coordinates instead of the linear index.
    pub coords: bool,
    /// `NAME=LO..HI` ranges of an index expression's inputs.
    pub ranges: Vec<String>,
    /// Skip the validation (benchmarks only: the result is then unproved).
    pub no_validate: bool,
    /// The validation's time limit in milliseconds (default: the verifier's).
    pub timeout_ms: Option<u64>,
}

/// Lowers `src`, simplifies and validates it.
pub fn simplify_value(session: &Session, src: &str, req: &Request) -> Result<(Lowered, Validated)> {
    let l = lower_value(session, src, req.coords, &req.ranges)?;
    // Validated under divisibility only: the emitted code states its assumptions as bounds
    // and divisors (a congruence `N % 4 == 1` is not among them), so the proof must cover
    // every value those admit.
    let facts = Arc::new(session.facts().divisibility_only());
    let opts = Options {
        timeout_ms: req.timeout_ms,
    };
    let v = simplify_validated(
        &l.expr,
        &l.domain,
        &facts,
        &Limits::default(),
        &opts,
        !req.no_validate,
    )?;
    Ok((l, v))
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn costs(c: &Cost) -> String {
    format!(
        "{} operations, {} div/mod, weighted cost {}",
        c.ops, c.div_mod, c.weighted
    )
}

/// One line on the validation: proved, skipped, or why the input is kept; with its time when
/// `timed` (the `simplify` report), without it in emitted code, whose text must not depend on
/// the machine.
pub fn validation_line(v: &Validated, timed: bool) -> String {
    let took = if timed {
        format!(" ({})", ms(v.validate_time))
    } else {
        String::new()
    };
    match &v.validation {
        None if v.candidate == v.expr && v.before == v.after => "nothing to validate: no cheaper form".into(),
        None => "NOT VALIDATED (--no-validate): do not use this result".into(),
        Some(Verdict::Proved) if v.engine == Some(Engine::Enumeration) => {
            format!("validated: equal at every point of the domain, by enumeration{took}")
        }
        Some(Verdict::Proved) => format!("validated: z3 proved it equal on the whole domain{took}"),
        Some(other) => format!("validation {other}; the unsimplified expression is kept"),
    }
}

/// The report of `tessera simplify`.
///
/// ```
/// use tessera::lang::Session;
/// use tessera::simplify::{simplify_text, Request};
/// let s = Session::new(&[], &[]).unwrap();
/// let out = simplify_text(&s, "(4,8):(8,1)", &Request::default()).unwrap();
/// assert!(out.contains("# after: 4 operations, 0 div/mod"), "{out}");
/// assert!(out.contains("validated: equal at every point"), "{out}");
/// ```
pub fn simplify_text(session: &Session, src: &str, req: &Request) -> Result<String> {
    let (l, v) = simplify_value(session, src, req)?;
    let stop = match v.stop {
        Stop::Saturated => "saturated",
        Stop::NodeLimit => "node limit",
        Stop::IterationLimit => "iteration limit",
    };
    let mut out = String::new();
    let _ = writeln!(out, "# {}", l.what);
    let _ = writeln!(out, "# before: {}", costs(&v.before));
    let _ = write!(out, "{}", l.expr);
    let _ = writeln!(
        out,
        "# after: {} (egg: {stop}, {})",
        costs(&v.after),
        ms(v.simplify_time)
    );
    let _ = writeln!(out, "# {}", validation_line(&v, true));
    let _ = write!(out, "{}", v.expr);
    Ok(out)
}
