//! Reports: text lines, JSON, and JUnit XML for CI systems.

use super::Outcome;
use serde_json::{Value, json};
use std::time::Duration;
use tessera_verifier::Verdict;

fn counts(o: &[Outcome]) -> (usize, usize, usize, usize) {
    let c = |f: fn(&Verdict) -> bool| o.iter().filter(|x| f(&x.verdict)).count();
    (
        c(|v| matches!(v, Verdict::Proved)),
        c(|v| matches!(v, Verdict::Refuted(_))),
        c(|v| matches!(v, Verdict::Unknown(_))),
        c(|v| matches!(v, Verdict::Internal(_))),
    )
}

fn detail(v: &Verdict) -> String {
    match v {
        Verdict::Proved => String::new(),
        Verdict::Refuted(c) => c.to_string(),
        Verdict::Unknown(r) | Verdict::Internal(r) => r.clone(),
    }
}

/// One line per assertion, then a summary.
pub fn text(outcomes: &[Outcome], wall: Duration, threads: usize) -> String {
    let mut s = String::new();
    for o in outcomes {
        s.push_str(&format!(
            "{}:{}: {:<8} {}  ({:.1} ms)\n",
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
    }
    let (p, r, u, i) = counts(outcomes);
    s.push_str(&format!(
        "{} assertion{}: {p} proved, {r} refuted, {u} unknown{} ({:.2} s on {threads} thread{})\n",
        outcomes.len(),
        if outcomes.len() == 1 { "" } else { "s" },
        if i > 0 {
            format!(", {i} internal errors")
        } else {
            String::new()
        },
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
                Verdict::Unknown(reason) | Verdict::Internal(reason) => r["reason"] = json!(reason),
                Verdict::Proved => {}
            }
            r
        })
        .collect();
    let (p, r, u, i) = counts(outcomes);
    json!({
        "results": results,
        "summary": {"assertions": outcomes.len(), "proved": p, "refuted": r, "unknown": u, "internal": i,
                    "wall_ms": wall.as_secs_f64() * 1e3, "threads": threads}
    })
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// JUnit XML: one test case per assertion; refuted is a failure, unknown an error.
pub fn junit(outcomes: &[Outcome], wall: Duration) -> String {
    let (_, r, u, i) = counts(outcomes);
    let mut s = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"tessera check\" tests=\"{}\" failures=\"{r}\" errors=\"{}\" time=\"{:.3}\">\n",
        outcomes.len(),
        u + i,
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
        match &o.verdict {
            Verdict::Proved => s.push_str("/>\n"),
            Verdict::Refuted(c) => s.push_str(&format!(
                ">\n      <failure message=\"refuted\">{}</failure>\n    </testcase>\n",
                xml(&c.to_string())
            )),
            Verdict::Unknown(m) => s.push_str(&format!(
                ">\n      <error message=\"unknown\">{}</error>\n    </testcase>\n",
                xml(m)
            )),
            Verdict::Internal(m) => s.push_str(&format!(
                ">\n      <error message=\"internal error\">{}</error>\n    </testcase>\n",
                xml(m)
            )),
        }
    }
    s.push_str("  </testsuite>\n</testsuites>\n");
    s
}
