//! Reports: text lines, JSON, and JUnit XML for CI systems.

use super::Outcome;
use serde_json::{Value, json};
use std::time::Duration;
use tessera_verifier::Verdict;

/// How many outcomes are proved, refuted, unknown, internal errors and bad input.
#[derive(Default)]
pub(crate) struct Counts {
    pub(crate) proved: usize,
    pub(crate) refuted: usize,
    pub(crate) unknown: usize,
    pub(crate) internal: usize,
    pub(crate) invalid: usize,
}

pub(crate) fn counts<'a>(o: impl IntoIterator<Item = &'a Outcome>) -> Counts {
    let mut c = Counts::default();
    for x in o {
        *match x.verdict {
            Verdict::Proved => &mut c.proved,
            Verdict::Refuted(_) => &mut c.refuted,
            Verdict::Unknown(_) => &mut c.unknown,
            Verdict::Internal(_) => &mut c.internal,
            Verdict::Invalid(_) => &mut c.invalid,
        } += 1;
    }
    c
}

fn detail(v: &Verdict) -> String {
    match v {
        Verdict::Proved => String::new(),
        Verdict::Refuted(c) => c.to_string(),
        Verdict::Unknown(r) | Verdict::Internal(r) | Verdict::Invalid(r) => r.clone(),
    }
}

/// One line per assertion, then a summary.
pub fn text(outcomes: &[Outcome], wall: Duration, threads: usize) -> String {
    let mut s = String::new();
    for o in outcomes {
        let by = o.prover.map(|p| format!("{}, ", p.name())).unwrap_or_default();
        s.push_str(&format!(
            "{}:{}: {:<8} {}  ({by}{:.1} ms)\n",
            o.file,
            o.line,
            o.verdict.word(),
            o.text,
            o.elapsed.as_secs_f64() * 1e3
        ));
        let d = detail(&o.verdict);
        if !d.is_empty() {
            s.push_str(&format!("    {d}\n"));
        }
        if let Some(a) = &o.assumption {
            s.push_str(&format!("    assuming {a}\n"));
        }
        if let Some(f) = o.property.as_deref().and_then(super::banks::figures) {
            s.push_str(&format!("    {}\n", super::banks::line(&f)));
        }
    }
    let c = counts(outcomes);
    let mut extra = String::new();
    if c.invalid > 0 {
        extra.push_str(&format!(", {} bad input", c.invalid));
    }
    if c.internal > 0 {
        extra.push_str(&format!(", {} internal errors", c.internal));
    }
    s.push_str(&format!(
        "{} assertion{}: {} proved, {} refuted, {} unknown{extra} ({:.2} s on {threads} thread{})\n",
        outcomes.len(),
        if outcomes.len() == 1 { "" } else { "s" },
        c.proved,
        c.refuted,
        c.unknown,
        wall.as_secs_f64(),
        if threads == 1 { "" } else { "s" }
    ));
    s
}

/// A JSON document with every result and the summary.
pub fn json(outcomes: &[Outcome], wall: Duration, threads: usize) -> Value {
    let results: Vec<Value> = outcomes
        .iter()
        .map(|o| {
            let mut r = json!({
                "file": o.file,
                "line": o.line,
                "assertion": o.text,
                "verdict": o.verdict.word(),
                "ms": o.elapsed.as_secs_f64() * 1e3,
            });
            if let Some(p) = o.prover {
                r["prover"] = json!(p.name());
            }
            if let Some(a) = &o.assumption {
                r["assumption"] = json!(a);
            }
            if let Some(f) = o.property.as_deref().and_then(super::banks::figures) {
                r["banks"] = json!({
                    "degree": f.degree, "wavefronts": f.wavefronts, "ideal": f.ideal,
                    "total_wavefronts": f.total, "total_ideal": f.total_ideal,
                });
            }
            match &o.verdict {
                Verdict::Refuted(c) => {
                    r["counterexample"] = json!({
                        "summary": c.summary,
                        "params": c.params.iter().map(|(k, v)| (k.clone(), json!(v))).collect::<serde_json::Map<_, _>>(),
                        "witnesses": c.witnesses.iter().map(|w| json!({
                            "name": w.name, "index": w.index, "coord": w.coord, "value": w.value
                        })).collect::<Vec<_>>(),
                    });
                }
                Verdict::Unknown(reason) | Verdict::Internal(reason) | Verdict::Invalid(reason) => {
                    r["reason"] = json!(reason)
                }
                Verdict::Proved => {}
            }
            r
        })
        .collect();
    let c = counts(outcomes);
    json!({
        "results": results,
        "summary": {"assertions": outcomes.len(), "proved": c.proved, "refuted": c.refuted,
                    "unknown": c.unknown, "internal": c.internal, "bad_input": c.invalid,
                    "wall_ms": wall.as_secs_f64() * 1e3, "threads": threads}
    })
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// JUnit XML: one test case per assertion; refuted is a failure, unknown, bad input and
/// internal errors are errors.
pub fn junit(outcomes: &[Outcome], wall: Duration) -> String {
    let c = counts(outcomes);
    let mut s = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"tessera check\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{:.3}\">\n",
        outcomes.len(),
        c.refuted,
        c.unknown + c.internal + c.invalid,
        wall.as_secs_f64()
    );
    for o in outcomes {
        s.push_str(&format!(
            "    <testcase classname=\"{}\" name=\"line {}: {}\" time=\"{:.3}\"",
            xml(&o.file),
            o.line,
            xml(&o.text),
            o.elapsed.as_secs_f64()
        ));
        // The prover and a proof's assumption are properties of its test case.
        let mut list = String::new();
        if let Some(p) = o.prover {
            list.push_str(&format!("<property name=\"prover\" value=\"{}\"/>", p.name()));
        }
        if let Some(a) = &o.assumption {
            list.push_str(&format!("<property name=\"assumption\" value=\"{}\"/>", xml(a)));
        }
        let props = if list.is_empty() {
            String::new()
        } else {
            format!("\n      <properties>{list}</properties>")
        };
        if !props.is_empty() {
            s.push('>');
            s.push_str(&props);
        }
        let open = if props.is_empty() { ">" } else { "" };
        match &o.verdict {
            Verdict::Proved if props.is_empty() => s.push_str("/>\n"),
            Verdict::Proved => s.push_str("\n    </testcase>\n"),
            Verdict::Refuted(c) => s.push_str(&format!(
                "{open}\n      <failure message=\"refuted\">{}</failure>\n    </testcase>\n",
                xml(&c.to_string())
            )),
            Verdict::Unknown(m) => s.push_str(&format!(
                "{open}\n      <error message=\"unknown\">{}</error>\n    </testcase>\n",
                xml(m)
            )),
            Verdict::Internal(m) => s.push_str(&format!(
                "{open}\n      <error message=\"internal error\">{}</error>\n    </testcase>\n",
                xml(m)
            )),
            Verdict::Invalid(m) => s.push_str(&format!(
                "{open}\n      <error message=\"bad input\">{}</error>\n    </testcase>\n",
                xml(m)
            )),
        }
    }
    s.push_str("  </testsuite>\n</testsuites>\n");
    s
}
