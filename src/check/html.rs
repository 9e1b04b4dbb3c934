//! The HTML report of `tessera check --html FILE`: one self-contained page (inline CSS and a
//! small inline script, nothing fetched: a Content-Security-Policy of `default-src 'none'`
//! forbids every request), each file a collapsed `<details>` with its counts, each assertion
//! a row with its verdict, time and prover, and below a refutation its counterexample.
//!
//! Every text that comes from the input (file names, assertion texts, counterexamples,
//! reasons) goes through [`escape`]; the page's attributes hold only fixed class names and
//! numbers. The filter (refuted, unknown, anything not proved) is the script's: without
//! script, the controls stay hidden and the page shows every file collapsed with its counts.

use super::Outcome;
use super::report::{Counts, counts};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::Duration;
use tessera_verifier::{Bank, Counterexample, Property, Verdict};

/// Escapes text for HTML content and quoted attribute values: `&`, `<`, `>`, `"` and `'`.
///
/// ```
/// assert_eq!(tessera::check::html::escape("<a href='x'>&\"</a>"),
///            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;");
/// ```
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The class of a verdict: one of a fixed set, never input text.
fn class(v: &Verdict) -> &'static str {
    match v {
        Verdict::Proved => "proved",
        Verdict::Refuted(_) => "refuted",
        Verdict::Unknown(_) => "unknown",
        Verdict::Internal(_) => "internal",
        Verdict::Invalid(_) => "invalid",
    }
}

const STYLE: &str = r#"
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1b1f24;background:#fff}
h1{font-size:1.4em;margin:0 0 .3em}
code,pre,td.text,td.num{font-family:ui-monospace,monospace}
.totals span,.counts span{display:inline-block;padding:0 .5em;margin-right:.3em;border-radius:.6em;font-size:.9em}
.proved{--c:#1a7f37}.refuted{--c:#cf222e}.unknown{--c:#9a6700}.internal{--c:#8250df}.invalid{--c:#6e7781}
.totals span,.counts span{background:color-mix(in srgb,var(--c) 15%,#fff);color:var(--c)}
.totals span.zero,.counts span.zero{display:none}
#filter{margin:.8em 0;border:1px solid #d0d7de;padding:.3em .8em}
#filter label{margin-right:1em}
details.file{border:1px solid #d0d7de;border-radius:4px;margin:.4em 0}
details.file>summary{cursor:pointer;padding:.3em .6em;background:#f6f8fa}
details.file>summary .name{font-weight:600;margin-right:1em}
table.assertions{border-collapse:collapse;width:100%}
.assertions>tbody>tr>td{border-top:1px solid #eaeef2;padding:.2em .6em;vertical-align:top}
td.verdict{font-weight:600;color:var(--c);white-space:nowrap}
td.ms,td.line{text-align:right;white-space:nowrap;color:#57606a}
td.prover{white-space:nowrap;color:#57606a}
.assertions>tbody>tr.detail>td{border-top:none}
.cex table{border-collapse:collapse;margin:.3em 0}
.cex th,.cex td{border:1px solid #d0d7de;padding:.1em .5em;text-align:left}
.cex td.thread{background:#ffebe9;font-weight:600}
figure.picture{margin:.3em 0;overflow:auto;max-height:36em;max-width:calc(100vw - 8em);border:1px solid #eaeef2}
p.whole{color:#57606a;font-size:.9em;margin:.2em 0}
td.text{overflow-wrap:anywhere}
.cex table.banks td{min-width:1.5em;padding:0 .1em;text-align:center;font-size:.75em}
.cex table.banks td.hit{background:#cf222e;color:#fff}
.reason{color:#57606a}
body.only-refuted tr:not(.refuted),body.only-unknown tr:not(.unknown),body.only-np tr:not(.np){display:none}
body.only-refuted details.file:not(.has-refuted),body.only-unknown details.file:not(.has-unknown),body.only-np details.file:not(.has-np){display:none}
"#;

/// Shows the filter (hidden without script) and applies it: a class on `<body>` hides the
/// other rows and the files without a match, and the files with one open.
const SCRIPT: &str = r#"
(function(){
var f=document.getElementById('filter');f.hidden=false;
f.addEventListener('change',function(e){
var v=e.target.value;document.body.className=v==='all'?'':'only-'+v;
document.querySelectorAll('details.file').forEach(function(d){d.open=v!=='all'&&d.classList.contains('has-'+v);});
});
document.getElementById('open-all').addEventListener('click',function(){document.querySelectorAll('details.file').forEach(function(d){d.open=true;});});
document.getElementById('close-all').addEventListener('click',function(){document.querySelectorAll('details.file').forEach(function(d){d.open=false;});});
})();
"#;

/// The counts as badges, each with its verdict's class (a zero count hidden).
fn badges(c: &Counts) -> String {
    let mut s = String::new();
    for (n, cls, word) in [
        (c.proved, "proved", "proved"),
        (c.refuted, "refuted", "refuted"),
        (c.unknown, "unknown", "unknown"),
        (c.internal, "internal", "internal errors"),
        (c.invalid, "invalid", "bad input"),
    ] {
        let zero = if n == 0 { " zero" } else { "" };
        let _ = write!(s, "<span class=\"{cls}{zero}\">{n} {word}</span>");
    }
    s
}

/// The whole report: the totals, the filter, then each file (in the order of the outcomes)
/// with its assertions.
pub fn html(outcomes: &[Outcome], wall: Duration, threads: usize) -> String {
    let mut files: Vec<(&str, Vec<&Outcome>)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for o in outcomes {
        let k = *index.entry(&o.file).or_insert_with(|| {
            files.push((&o.file, Vec::new()));
            files.len() - 1
        });
        files[k].1.push(o);
    }
    let c = counts(outcomes);
    let mut s = String::with_capacity(512 + outcomes.len() * 400);
    s.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    s.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n",
    );
    s.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    s.push_str("<title>tessera check</title>\n<style>");
    s.push_str(STYLE);
    s.push_str("</style>\n</head>\n<body>\n<h1>tessera check</h1>\n");
    let _ = writeln!(
        s,
        "<p class=\"totals\">{} assertion{} in {} file{} ({:.2} s on {threads} thread{}): {}</p>",
        outcomes.len(),
        if outcomes.len() == 1 { "" } else { "s" },
        files.len(),
        if files.len() == 1 { "" } else { "s" },
        wall.as_secs_f64(),
        if threads == 1 { "" } else { "s" },
        badges(&c)
    );
    s.push_str(
        "<form id=\"filter\" hidden>show: \
         <label><input type=\"radio\" name=\"show\" value=\"all\" checked> everything</label>\
         <label><input type=\"radio\" name=\"show\" value=\"refuted\"> refuted</label>\
         <label><input type=\"radio\" name=\"show\" value=\"unknown\"> unknown</label>\
         <label><input type=\"radio\" name=\"show\" value=\"np\"> not proved</label>\
         <button type=\"button\" id=\"open-all\">open all</button> \
         <button type=\"button\" id=\"close-all\">close all</button></form>\n<main>\n",
    );
    for (file, list) in &files {
        file_section(&mut s, file, list);
    }
    s.push_str("</main>\n<script>");
    s.push_str(SCRIPT);
    s.push_str("</script>\n</body>\n</html>\n");
    s
}

/// One file: a collapsed `<details>` whose summary holds its name and counts, and whose
/// classes say which verdicts it has (for the filter).
fn file_section(s: &mut String, file: &str, list: &[&Outcome]) {
    let c = counts(list.iter().copied());
    let mut has = String::new();
    for (n, cls) in [(c.refuted, "refuted"), (c.unknown, "unknown")] {
        if n > 0 {
            has.push_str(" has-");
            has.push_str(cls);
        }
    }
    if c.refuted + c.unknown + c.internal + c.invalid > 0 {
        has.push_str(" has-np");
    }
    let _ = write!(
        s,
        "<details class=\"file{has}\">\n<summary><span class=\"name\">{}</span><span class=\"counts\">{}</span></summary>\n<table class=\"assertions\">\n",
        escape(file),
        badges(&c)
    );
    for o in list {
        row(s, o);
    }
    s.push_str("</table>\n</details>\n");
}

/// One assertion: line, verdict, text, time and prover; then, unless proved, a row with the
/// counterexample or the reason.
fn row(s: &mut String, o: &Outcome) {
    let cls = class(&o.verdict);
    let np = if matches!(o.verdict, Verdict::Proved) {
        ""
    } else {
        " np"
    };
    let prover = o.prover.map_or("", |p| p.name());
    let _ = writeln!(
        s,
        "<tr class=\"a {cls}{np}\"><td class=\"line\">{}</td><td class=\"verdict\">{}</td><td class=\"text\">{}</td><td class=\"ms\">{:.1} ms</td><td class=\"prover\">{}</td></tr>",
        o.line,
        o.verdict.word(),
        escape(&o.text),
        o.elapsed.as_secs_f64() * 1e3,
        prover
    );
    // A concrete bank assertion's degree and wavefronts, whatever its verdict.
    let banks = o
        .property
        .as_deref()
        .and_then(super::banks::figures)
        .map(|f| format!("<p class=\"banks\">{}</p>", escape(&super::banks::line(&f))))
        .unwrap_or_default();
    let assumed = o
        .assumption
        .as_deref()
        .map(|a| format!("<p class=\"reason\">assuming {}</p>", escape(a)))
        .unwrap_or_default();
    let detail = match &o.verdict {
        Verdict::Proved if banks.is_empty() && assumed.is_empty() => return,
        Verdict::Proved => assumed,
        Verdict::Refuted(c) => counterexample_block(o.property.as_deref(), c),
        Verdict::Unknown(r) => format!("<p class=\"reason\">unknown: {}</p>", escape(r)),
        Verdict::Internal(r) => format!("<p class=\"reason\">internal error: {}</p>", escape(r)),
        Verdict::Invalid(r) => format!("<p class=\"reason\">bad input: {}</p>", escape(r)),
    };
    let _ = writeln!(
        s,
        "<tr class=\"detail {cls}{np}\"><td></td><td colspan=\"4\">{detail}{banks}</td></tr>"
    );
}

/// The layouts a property talks about, each with its role (`Smem`, `TV`, `X`, ...), and the
/// bank access's sizes.
fn subjects(p: &Property) -> Vec<(&'static str, String)> {
    let f = |name: &'static str, x: &dyn std::fmt::Display| (name, x.to_string());
    let bank = |b: &Bank| {
        vec![
            f("Smem", &b.smem),
            f("TV", &b.tv),
            ("elem, access", format!("{} B, {} B", b.elem, b.access)),
        ]
    };
    match p {
        Property::Injective(l) | Property::Bijective(l) | Property::Contiguous(l) => vec![f("L", l)],
        Property::Surjective(l, n) => {
            let mut v = vec![f("L", l)];
            v.extend(n.as_ref().map(|n| f("n", n)));
            v
        }
        Property::InBounds(l, n) => vec![f("L", l), f("n", n)],
        Property::Vectorizable(l, w) => vec![f("L", l), f("v", w)],
        Property::Equal(x, y) => vec![f("X", x), f("Y", y)],
        Property::Compatible(a, b) => vec![f("A", a), f("B", b)],
        Property::LeftInverseValid(l, r) | Property::RightInverseValid(l, r) => {
            vec![f("L", l), f("R", r)]
        }
        Property::ComplementValid(a, c, n) => {
            let mut v = vec![f("A", a), f("C", c)];
            v.extend(n.as_ref().map(|n| f("n", n)));
            v
        }
        Property::CompositionValid(a, b, r) => vec![f("A", a), f("B", b), f("R", r)],
        Property::BankConflictFree(b) => bank(b),
        Property::ConflictDegree(b, _, _) | Property::Wavefronts(b, _, _) => bank(b),
    }
}

/// The bank (of 32, 4 bytes wide) of a bank-conflict witness's `byte N` value.
fn bank_of(value: &str) -> Option<i64> {
    let byte: i64 = value.strip_prefix("byte ")?.parse().ok()?;
    Some(byte.div_euclid(4).rem_euclid(32))
}

/// A refutation: the summary, the parameters' values, the layouts involved, the points
/// (for a bank conflict: the two threads, their access, byte and bank), then the picture of
/// [`counterexample_picture`] where there is one.
fn counterexample_block(property: Option<&Property>, c: &Counterexample) -> String {
    let mut s = format!(
        "<div class=\"cex\"><p class=\"summary\">{}</p>",
        escape(&c.summary)
    );
    if !c.params.is_empty() {
        let p: Vec<String> = c
            .params
            .iter()
            .map(|(n, v)| format!("{}={v}", escape(n)))
            .collect();
        let _ = write!(s, "<p class=\"params\">at {}</p>", p.join(", "));
    }
    if let Some(p) = property {
        s.push_str("<table class=\"layouts\">");
        for (role, text) in subjects(p) {
            let _ = write!(
                s,
                "<tr><th>{role}</th><td><code>{}</code></td></tr>",
                escape(&text)
            );
        }
        s.push_str("</table>");
    }
    let banked = !c.witnesses.is_empty()
        && c.witnesses.iter().all(|w| {
            bank_of(&w.value).is_some() && w.name.starts_with("thread ") && w.coord.starts_with("access ")
        });
    if banked {
        // A bank conflict's witnesses: the thread, its access, the byte, its bank and word.
        s.push_str(
            "<table class=\"witnesses\"><tr><th>thread</th><th>access</th><th>byte</th><th>bank</th><th>word</th></tr>",
        );
        for w in &c.witnesses {
            let byte = w.value.trim_start_matches("byte ");
            let word = byte
                .parse::<i64>()
                .map_or(String::new(), |b| b.div_euclid(4).to_string());
            let _ = write!(
                s,
                "<tr><td class=\"thread\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num bank\">{}</td><td class=\"num\">{word}</td></tr>",
                escape(w.name.trim_start_matches("thread ")),
                escape(w.coord.trim_start_matches("access ")),
                escape(byte),
                bank_of(&w.value).unwrap_or_default(),
            );
        }
        s.push_str("</table>");
    } else if !c.witnesses.is_empty() {
        s.push_str(
            "<table class=\"witnesses\"><tr><th>point</th><th>index</th><th>coordinate</th><th>value</th></tr>",
        );
        for w in &c.witnesses {
            let _ = write!(
                s,
                "<tr><td class=\"point\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                escape(&w.name),
                w.index,
                escape(&w.coord),
                escape(&w.value)
            );
        }
        s.push_str("</table>");
    }
    if let Some(p) = property
        && let Some(picture) = counterexample_picture(p, c)
    {
        s.push_str("<figure class=\"picture\">");
        s.push_str(&picture);
        s.push_str("</figure>");
        if let Some(cmd) = draw_command(p, c) {
            let _ = write!(
                s,
                "<p class=\"whole\">the whole picture: <code>{}</code></p>",
                escape(&cmd)
            );
        }
    }
    s.push_str("</div>");
    s
}

/// The picture of a refutation, inline in the report (inside `<figure class="picture">`,
/// below the counterexample's tables), or none.
///
/// This is the one place a drawing of a counterexample goes: it receives the property (its
/// layouts: [`Bank::smem`] and [`Bank::tv`] with the element and access sizes for bank
/// properties, the `Func`s of the others) and the re-checked counterexample (the parameters'
/// values, the witnesses: for a bank conflict `thread T` with `access A` and `byte B`, for
/// the others the indices, their coordinates and values). For a bank property it draws the
/// shared-memory tile coloured by bank ([`crate::draw::banks`]: each phase's conflicting
/// words outlined, the two threads of the counterexample highlighted, the degree per phase in
/// the legend), inline SVG, then the 32 banks as a table row with the conflicting bank marked
/// by its threads. A property of one layout at its indices (injective, bijective, in
/// bounds, contiguous, vectorizable; the first layout of `equal`) draws that layout at the
/// counterexample's parameters ([`crate::draw::layout`]), the counterexample's indices
/// outlined. The others have no picture.
pub fn counterexample_picture(property: &Property, cex: &Counterexample) -> Option<String> {
    let (Property::BankConflictFree(bank) | Property::ConflictDegree(bank, ..)) = property else {
        return layout_picture(property, cex);
    };
    let threads: Vec<i64> = cex
        .witnesses
        .iter()
        .filter_map(|w| w.name.strip_prefix("thread ")?.trim().parse().ok())
        .collect();
    // A symbolic question is drawn at the counterexample's parameter values.
    let params: HashMap<String, i64> = cex.params.iter().cloned().collect();
    let bound = |f: &tessera_verifier::Func| -> Option<tessera_verifier::Func> {
        let lift = |l: &tessera_ir::Layout<i64>| l.lift::<tessera_ir::sym::SymInt>().ok();
        Some(match f.at(&params).ok()? {
            tessera_verifier::Concrete::Layout(l) => tessera_verifier::Func::Layout(lift(&l)?),
            tessera_verifier::Concrete::Composed(c) => {
                tessera_verifier::Func::Composed(tessera_ir::ComposedLayout {
                    swizzle: c.swizzle,
                    offset: tessera_ir::Int::lit(c.offset),
                    inner: lift(&c.inner)?,
                })
            }
        })
    };
    let at_values = match params.is_empty() {
        true => Some(bank.clone()),
        false => bound(&bank.smem).zip(bound(&bank.tv)).map(|(smem, tv)| Bank {
            smem,
            tv,
            ..bank.clone()
        }),
    };
    // Inline SVG needs no XML declaration nor namespace (and the page names no URL at all).
    let svg = at_values
        .and_then(|b| crate::draw::banks(&b, &threads).ok())
        .map(|p| capped(inline_svg(&around_highlights(&p))));
    let hits: Vec<(i64, &str)> = cex
        .witnesses
        .iter()
        .filter_map(|w| Some((bank_of(&w.value)?, w.name.as_str())))
        .collect();
    if hits.is_empty() {
        return None;
    }
    let mut s = String::from("<table class=\"banks\"><tr><th>bank</th>");
    for b in 0..32 {
        let _ = write!(s, "<td>{b}</td>");
    }
    s.push_str("</tr><tr><th>threads</th>");
    for b in 0..32 {
        let here: Vec<String> = hits
            .iter()
            .filter(|(h, _)| *h == b)
            .map(|(_, n)| escape(n.trim_start_matches("thread ")))
            .collect();
        if here.is_empty() {
            s.push_str("<td></td>");
        } else {
            let _ = write!(s, "<td class=\"hit\">{}</td>", here.join(" "));
        }
    }
    s.push_str("</tr></table>");
    Some(match svg {
        Some(svg) => format!("{svg}{s}"),
        None => s,
    })
}

/// A picture as inline SVG: no XML declaration nor namespace (the page names no URL at all).
fn inline_svg(p: &crate::draw::Picture) -> String {
    let svg = p.svg();
    let svg = svg.find("<svg").map_or(svg.as_str(), |i| &svg[i..]).to_string();
    svg.replacen(r#" xmlns="http://www.w3.org/2000/svg""#, "", 1)
}

/// The picture of a one-layout property's refutation: the layout at the counterexample's
/// parameters, the witnesses' indices outlined (cell `(i % rows, i / rows)`, as the picture
/// numbers its cells); none where the layout cannot be drawn (too large, say).
fn layout_picture(property: &Property, cex: &Counterexample) -> Option<String> {
    use crate::draw::{Color, Legend, Outline};
    use crate::lang::Value;
    let f = match property {
        Property::Injective(f)
        | Property::Bijective(f)
        | Property::InBounds(f, _)
        | Property::Contiguous(f)
        | Property::Vectorizable(f, _)
        | Property::Equal(f, _) => f,
        _ => return None,
    };
    let params: HashMap<String, i64> = cex.params.iter().cloned().collect();
    let v: Value<i64> = match f.at(&params).ok()? {
        tessera_verifier::Concrete::Layout(l) => Value::Layout(l),
        tessera_verifier::Concrete::Composed(c) => Value::Composed(c),
    };
    let mut pic = crate::draw::layout(&v, Color::Index).ok()?;
    let mut marked = Vec::new();
    for w in &cex.witnesses {
        let Ok(i) = usize::try_from(w.index) else { continue };
        let (r, c) = (i % pic.rows.max(1), i / pic.rows.max(1));
        if c < pic.cols {
            pic.cells[r * pic.cols + c].outline = Outline::Highlight;
            marked.push(i.to_string());
        }
    }
    pic.legend.push(Legend {
        swatch: None,
        outline: Outline::Highlight,
        text: format!(
            "heavy outline: the counterexample at index {}",
            marked.join(" and ")
        ),
    });
    // A window of WINDOW x WINDOW cells around the counterexample: the whole of a large
    // layout is a picture wider than any screen (`tessera draw` draws it).
    let marks: Vec<usize> = cex
        .witnesses
        .iter()
        .filter_map(|w| usize::try_from(w.index).ok())
        .filter(|&i| i / pic.rows.max(1) < pic.cols)
        .collect();
    let rows: Vec<usize> = marks.iter().map(|i| i % pic.rows.max(1)).collect();
    let cols: Vec<usize> = marks.iter().map(|i| i / pic.rows.max(1)).collect();
    let pic = pic.window(
        crate::draw::span(pic.rows, WINDOW, &rows),
        crate::draw::span(pic.cols, WINDOW, &cols),
    );
    Some(capped(inline_svg(&pic)))
}

/// A window of [`WINDOW`] x [`WINDOW`] cells of a bank picture around its highlighted cells
/// (the counterexample's threads).
fn around_highlights(p: &crate::draw::Picture) -> crate::draw::Picture {
    let cols = p.cols.max(1);
    let marks: Vec<(usize, usize)> = (p.cells.iter().enumerate())
        .filter(|(_, c)| c.outline == crate::draw::Outline::Highlight)
        .map(|(k, _)| (k / cols, k % cols))
        .collect();
    let rows: Vec<usize> = marks.iter().map(|m| m.0).collect();
    let cs: Vec<usize> = marks.iter().map(|m| m.1).collect();
    p.window(
        crate::draw::span(p.rows, WINDOW, &rows),
        crate::draw::span(p.cols, WINDOW, &cs),
    )
}

/// The most rows and columns of a layout drawn in the report.
pub const WINDOW: usize = 32;

/// The largest inline picture, in bytes; a larger one is left out (its `tessera draw`
/// command follows every picture).
pub const MAX_PICTURE_BYTES: usize = 256 << 10;

/// `svg`, or a note in its place when it is over [`MAX_PICTURE_BYTES`].
fn capped(svg: String) -> String {
    if svg.len() <= MAX_PICTURE_BYTES {
        return svg;
    }
    format!(
        "<p class=\"whole\">picture left out: {} KiB of SVG (at most {} KiB inline)</p>",
        svg.len() >> 10,
        MAX_PICTURE_BYTES >> 10
    )
}

/// The `tessera draw` command that draws the whole of a refutation's picture, at the
/// counterexample's parameter values; `None` for a property without a picture.
///
/// @post one line, the layouts single-quoted (their text has no quote).
fn draw_command(p: &Property, c: &Counterexample) -> Option<String> {
    let mut cmd = match p {
        Property::BankConflictFree(b) | Property::ConflictDegree(b, ..) => format!(
            "tessera draw --banks '{}' --tv '{}' elem={} access={}",
            b.smem, b.tv, b.elem, b.access
        ),
        Property::Injective(f)
        | Property::Bijective(f)
        | Property::InBounds(f, _)
        | Property::Contiguous(f)
        | Property::Vectorizable(f, _)
        | Property::Equal(f, _) => format!("tessera draw '{f}'"),
        _ => return None,
    };
    if !c.params.is_empty() {
        let names: Vec<&str> = c.params.iter().map(|(n, _)| n.as_str()).collect();
        let binds: Vec<String> = c.params.iter().map(|(n, v)| format!("{n}={v}")).collect();
        let _ = write!(cmd, " --param '{}' --bind {}", names.join(", "), binds.join(","));
    }
    Some(cmd + " -o whole.svg")
}
