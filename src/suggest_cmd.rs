//! `tessera suggest`: the swizzle (or row padding) of a plain shared-memory layout that
//! serves a set of access patterns with the fewest bank conflicts, found by
//! [`tessera_verifier::suggest`], the best ones proved, with the check-file lines that assert
//! it.
//!
//! ```text
//! tessera suggest PlainA --file examples/sm80_gemm_smem.tess \
//!     --access CopyA elem=2 access=16 --access LdsmA elem=2 access=16
//! tessera suggest '(32,32):(32,1)' --access '(32,32):(32,1)' elem=4 \
//!     --access '(32,32):(1,32)' elem=4 --json
//! ```
//!
//! The layouts and the `elem=`/`access=` words are read as the check file's
//! `bank_conflict_free(SMEM, TV, elem=E, access=W)` reads them: each `--access` becomes that
//! assertion, appended to the `--file` (whose `let` names it may use) or alone, and loaded by
//! [`crate::check::load`].

use crate::check::{self, Assertion};
use crate::exit;
use serde_json::{Value as Json, json};
use std::time::Instant;
use tessera_verifier::{
    Candidate, Change, Engine, Options, Pattern, Property, ProveError, Suggestions, Verdict,
};

/// The most suggestions `--top` prints.
pub const MAX_TOP: usize = 100;

/// Help of `tessera suggest` after its options.
pub const SUGGEST_HELP: &str = "\
EXAMPLES
  tessera suggest PlainA --file examples/sm80_gemm_smem.tess \\
      --access CopyA elem=2 access=16 --access LdsmA elem=2 access=16
  tessera suggest '(8,128):(128,1)' --access '((8,4),16):((1,128),8)' elem=1 access=16
  tessera suggest '(32,32):(32,1)' --access '(32,32):(32,1)' elem=4 \\
      --access '(32,32):(1,32)' elem=4 --json
  tessera suggest '(128,32):(32,1)' \\
      --copy 'make_tiled_copy(copy_atom(SM80_CP_ASYNC_CACHEALWAYS_128, 16), (32,4):(4,1), (1,8))' \\
      --copy 'make_tiled_copy_A(copy_atom(SM75_U32x4_LDSM_N, 16), make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (2,2,1)))'

  SMEM is the plain (unswizzled) shared-memory layout; each --access TV [elem=E] [access=W]
  is an access pattern as in bank_conflict_free(SMEM, TV, elem=E, access=W) (TV: mode 0
  threads, mode 1 values; elem= and access= are required, in bytes: 4 and 4 for fp32, 2 and
  16 for fp16 128-bit accesses); each --copy TILED_COPY is the accesses of a tiled copy, its
  element size and width from its copy atom. With --file, the let names of that check file
  may be used.
  Searched: SMEM itself; every Sw<B,M,S> o SMEM (B >= 1, M >= 0, S >= B, M+S+B <= t where
  2^t is the largest power of two dividing cosize(SMEM): no memory added); every row padding
  of p = 1..16 elements (the strides outside the mode of stride 1 grow by p per row:
  (32,32):(32,1) becomes (32,32):(33,1)). A candidate counts when every access is contiguous
  and aligned on it. Ranked by the wavefronts of all accesses (every warp instruction's, as
  the hardware counts them; see wavefronts(...) in check files), the worst degree, the sum of
  the degrees, the padding in bytes, then simplicity (B, M, S). The --top best are proved (prove_by, the engine named) and
  printed with the check-file lines that assert them.
  Exit code: 0 every proof proved, 2 one unknown, 3 bad input (an expression, a layout with
  parameters or coordinates, elem/access, a thread-value layout not of rank 2, a search too
  large), 4 a suggestion the prover does not confirm (a bug).
";

/// The arguments of `tessera suggest` (its command line).
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct SuggestArgs {
    /// The plain shared-memory layout, e.g. '(32,32):(32,1)', or a let name of --file.
    pub smem: String,
    /// An access pattern: a thread-value layout and the keywords elem=BYTES access=BYTES
    /// (repeat for each pattern); each keyword belongs to the layout before it.
    #[cfg_attr(feature = "cli", arg(long = "access", value_name = "TV [elem=E] [access=W]", num_args = 1..=3, required_unless_present = "copy"))]
    pub access: Vec<String>,
    /// A tiled copy (`make_tiled_copy_A(copy_atom(SM75_U32x4_LDSM_N, 16), T)`...) whose atom
    /// gives its accesses, as in bank_conflict_free(SMEM, TILED_COPY) (repeatable).
    #[cfg_attr(feature = "cli", arg(long = "copy", value_name = "TILED_COPY"))]
    pub copy: Vec<String>,
    /// A check file whose let names SMEM and TV may use.
    #[cfg_attr(feature = "cli", arg(long, value_name = "FILE"))]
    pub file: Option<String>,
    /// Print the result as JSON.
    #[cfg_attr(feature = "cli", arg(long))]
    pub json: bool,
    /// How many of the best candidates to print and prove (1 to 100).
    #[cfg_attr(feature = "cli", arg(long, value_name = "K", default_value_t = 5))]
    pub top: usize,
    /// Time limit of each proof (500ms, 2s, 1m; a bare number is seconds); past it the proof
    /// is unknown.
    #[cfg_attr(feature = "cli", arg(long, value_name = "DURATION", default_value = "60", value_parser = crate::duration::parse_seconds))]
    pub timeout: f64,
}

/// An error with its exit code.
type Fail = (i32, String);

fn bad(msg: impl Into<String>) -> Fail {
    (exit::BAD_INPUT, msg.into())
}

/// Whether an argument is a `NAME=VALUE` keyword.
fn keyword(a: &str) -> bool {
    a.split_once('=')
        .is_some_and(|(k, _)| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// The words of the `--access` options as patterns: each thread-value layout with the
/// `NAME=VALUE` keywords that follow it.
fn patterns_of(words: &[String]) -> Result<Vec<(&String, Vec<&String>)>, Fail> {
    let mut out: Vec<(&String, Vec<&String>)> = Vec::new();
    for w in words {
        match (keyword(w), out.last_mut()) {
            (true, Some((_, kws))) => kws.push(w),
            (true, None) => {
                return Err(bad(format!(
                    "'{w}': --access starts with its thread-value layout: --access TV elem=E access=W"
                )));
            }
            (false, _) => out.push((w, Vec::new())),
        }
    }
    Ok(out)
}

/// The plain layout and the patterns, read as the check file's bank assertions.
pub fn read(a: &SuggestArgs) -> Result<(tessera_verifier::Func, Vec<Pattern>), Fail> {
    let one_line = |what: &str, s: &str| {
        if s.contains(['\n', '\r', '#']) {
            Err(bad(format!(
                "{what} '{}' must be one expression: no line break, no '#'",
                s.escape_debug()
            )))
        } else {
            Ok(())
        }
    };
    one_line("SMEM", &a.smem)?;
    let (path, mut src) = match &a.file {
        Some(f) => (
            f.clone(),
            check::source::read(f).map_err(|e| bad(format!("{f}: {e}")))?,
        ),
        None => ("<command line>".to_string(), String::new()),
    };
    if !src.is_empty() && !src.ends_with('\n') {
        src.push('\n');
    }
    let first = src.lines().count() + 1;
    let mut groups = patterns_of(&a.access)?;
    groups.extend(a.copy.iter().map(|c| (c, Vec::new())));
    for (tv, kws) in &groups {
        one_line("TV", tv)?;
        let mut call = format!("assert bank_conflict_free({}, {tv}", a.smem);
        for k in kws {
            one_line("keyword", k)?;
            call.push_str(", ");
            call.push_str(k);
        }
        call.push_str(")\n");
        src.push_str(&call);
    }
    let cf = check::load(&path, &src).map_err(|e| {
        if e.line >= first {
            bad(format!(
                "{}\n  {}\n  {}^",
                e.msg,
                e.text,
                " ".repeat(e.col.saturating_sub(1))
            ))
        } else {
            bad(e.to_string())
        }
    })?;
    let asked = &cf.assertions[cf.assertions.len().saturating_sub(groups.len())..];
    let mut smem = None;
    let mut patterns = Vec::new();
    for Assertion { property, .. } in asked {
        let Property::BankConflictFree(b) = property else {
            return Err(bad(
                "each --access must read as one bank_conflict_free(SMEM, TV, ...) question",
            ));
        };
        smem.get_or_insert_with(|| b.smem.clone());
        patterns.push(Pattern {
            tv: b.tv.clone(),
            elem: b.elem,
            access: b.access,
        });
    }
    let smem = smem.ok_or_else(|| bad("give at least one --access"))?;
    Ok((smem, patterns))
}

/// The check-file text of a candidate's property for pattern `k`, `Smem` naming the layout.
fn assertion(c: &Candidate, p: &Pattern, k: usize) -> String {
    let args = format!("Smem, {}, elem={}, access={}", p.tv, p.elem, p.access);
    match c.degrees[k] {
        1 => format!("assert bank_conflict_free({args})"),
        d => format!("assert conflict_degree({args}) <= {d}"),
    }
}

/// The check-file lines that assert a candidate's score.
pub fn check_lines(c: &Candidate, patterns: &[Pattern]) -> Vec<String> {
    let mut out = vec![format!("let Smem = {}", c.smem), "assert injective(Smem)".into()];
    out.extend(patterns.iter().enumerate().map(|(k, p)| assertion(c, p, k)));
    out
}

/// A proved suggestion: the candidate, its proofs (injectivity, then each pattern), the
/// check-file lines.
struct Proved<'a> {
    cand: &'a Candidate,
    proofs: Vec<(Verdict, Engine)>,
    lines: Vec<String>,
}

fn change_json(c: Change) -> Json {
    match c {
        Change::None => json!({"kind": "none"}),
        Change::Swizzle(s) => json!({"kind": "swizzle", "B": s.bits, "M": s.base, "S": s.shift}),
        Change::Pad(p) => json!({"kind": "pad", "elements": p}),
    }
}

fn text(
    s: &Suggestions,
    plain: &tessera_verifier::Func,
    patterns: &[Pattern],
    proved: &[Proved],
    us: u128,
) -> String {
    let mut out = format!(
        "suggest: {} access pattern{} over {plain} (elem={}): {} candidates, {} with an access not contiguous or aligned  ({:.2} ms)\n",
        patterns.len(),
        if patterns.len() == 1 { "" } else { "s" },
        patterns[0].elem,
        s.searched,
        s.rejected,
        us as f64 / 1000.0,
    );
    let degrees = |c: &Candidate| {
        c.degrees
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let fronts = |c: &Candidate| {
        c.wavefronts
            .iter()
            .zip(&c.ideal)
            .map(|(w, i)| format!("{w} (ideal {i})"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match s.ranked.iter().find(|c| c.change == Change::None) {
        Some(c) => out.push_str(&format!(
            "plain: degrees {}  wavefronts {}\n",
            degrees(c),
            fronts(c)
        )),
        None => out.push_str("plain: an access is not contiguous or aligned\n"),
    }
    if let Some(why) = &s.no_padding {
        out.push_str(&format!("no padding searched: {why}\n"));
    }
    for (rank, p) in proved.iter().enumerate() {
        let c = p.cand;
        out.push_str(&format!(
            "#{}  {}  degrees {}  wavefronts {}  padding {} bytes\n",
            rank + 1,
            c.smem,
            degrees(c),
            fronts(c),
            c.extra_bytes
        ));
        let mut proofs = Vec::new();
        for (k, (v, e)) in p.proofs.iter().enumerate() {
            let what = if k == 0 {
                "injective".to_string()
            } else {
                format!("access {k}")
            };
            proofs.push(format!("{what}: {v} ({})", e.name()));
        }
        out.push_str(&format!("    {}\n", proofs.join("; ")));
        for l in &p.lines {
            out.push_str(&format!("    {l}\n"));
        }
    }
    out
}

fn to_json(
    s: &Suggestions,
    plain: &tessera_verifier::Func,
    patterns: &[Pattern],
    proved: &[Proved],
    us: u128,
) -> Json {
    let suggestions: Vec<Json> = proved
        .iter()
        .enumerate()
        .map(|(rank, p)| {
            let c = p.cand;
            let proofs: Vec<Json> = p
                .proofs
                .iter()
                .zip(&p.lines[1..])
                .map(|((v, e), line)| {
                    json!({
                        "property": line.trim_start_matches("assert "),
                        "verdict": v.word(),
                        "detail": v.to_string(),
                        "engine": e.name(),
                    })
                })
                .collect();
            json!({
                "rank": rank + 1,
                "layout": c.smem.to_string(),
                "change": change_json(c.change),
                "degrees": c.degrees,
                "wavefronts": c.wavefronts,
                "ideal_wavefronts": c.ideal,
                "engines": c.engines.iter().map(|e| e.name()).collect::<Vec<_>>(),
                "padding_bytes": c.extra_bytes,
                "proofs": proofs,
                "check": p.lines,
            })
        })
        .collect();
    json!({
        "smem": plain.to_string(),
        "elem": patterns[0].elem,
        "accesses": patterns.iter().map(|p| json!({"tv": p.tv.to_string(), "elem": p.elem, "access": p.access})).collect::<Vec<_>>(),
        "searched": s.searched,
        "rejected": s.rejected,
        "search_us": us,
        "plain_degrees": s.ranked.iter().find(|c| c.change == Change::None).map(|c| c.degrees.clone()),
        "no_padding": s.no_padding,
        "suggestions": suggestions,
    })
}

/// The exit code of the proofs: 4 when one does not confirm the score (a bug), else 2 when
/// one is unknown, else 0.
fn proofs_code(proved: &[Proved]) -> i32 {
    let all = proved.iter().flat_map(|p| &p.proofs);
    let mut code = exit::OK;
    for (v, _) in all {
        match v {
            Verdict::Proved => {}
            Verdict::Unknown(_) => code = code.max(exit::UNKNOWN),
            _ => {
                eprintln!("internal error: a suggestion's proof says {v}");
                return exit::INTERNAL;
            }
        }
    }
    code
}

/// `tessera suggest`: prints the best candidates and returns the exit code.
pub fn suggest(a: &SuggestArgs) -> i32 {
    match run(a) {
        Ok(code) => code,
        Err((code, msg)) => {
            eprintln!("error: {msg}");
            code
        }
    }
}

fn run(a: &SuggestArgs) -> Result<i32, Fail> {
    if a.top == 0 || a.top > MAX_TOP {
        return Err(bad(format!("--top must be 1 to {MAX_TOP}, not {}", a.top)));
    }
    if !(a.timeout.is_finite() && a.timeout > 0.0 && a.timeout <= 1e9) {
        return Err(bad(format!(
            "--timeout must be a positive number of seconds (at most 1e9), not {}",
            a.timeout
        )));
    }
    let opts = Options {
        timeout_ms: Some(((a.timeout * 1000.0).round() as u64).max(1)),
    };
    let (plain, patterns) = read(a)?;
    let t0 = Instant::now();
    let s = tessera_verifier::suggest(&plain, &patterns).map_err(|e| match e {
        ProveError::Invalid(m) => bad(m),
        ProveError::Internal(m) => (exit::INTERNAL, format!("internal error: {m}")),
        e => (exit::UNKNOWN, e.to_string()),
    })?;
    let us = t0.elapsed().as_micros();
    if s.ranked.is_empty() {
        return Err(bad(format!(
            "no candidate makes every access contiguous and aligned ({} searched)",
            s.searched
        )));
    }
    let proved: Vec<Proved> = s
        .ranked
        .iter()
        .take(a.top)
        .map(|c| {
            let mut proofs = vec![tessera_verifier::prove_by(
                &Property::Injective(c.smem.clone()),
                &opts,
                Engine::Auto,
            )];
            proofs.extend(c.prove(&patterns, &opts));
            Proved {
                cand: c,
                proofs,
                lines: check_lines(c, &patterns),
            }
        })
        .collect();
    if a.json {
        let j = to_json(&s, &plain, &patterns, &proved, us);
        exit::print(&format!(
            "{}\n",
            serde_json::to_string_pretty(&j).unwrap_or_default()
        ));
    } else {
        exit::print(&text(&s, &plain, &patterns, &proved, us));
    }
    Ok(proofs_code(&proved))
}
