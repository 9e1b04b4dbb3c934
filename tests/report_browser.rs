//! The HTML report of the shipped examples in a real browser: headless Chromium renders
//! `tessera check --html` of `examples/` and `examples/broken/`; the screenshot must have the
//! window's size and not be blank, the DOM after the page's script must hold the refutations'
//! thread cells and counterexamples, and nothing outside the page may be requested.
//!
//! Nothing fetched, three ways: the page itself refers to nothing (no `src`, `href`, URL or
//! `url(` in it, before or after its script ran); its Content-Security-Policy
//! (`default-src 'none'`) makes the browser block any request, and Chromium logs each block on
//! the console, which `--enable-logging=stderr` prints and the test rejects; and the browser
//! resolves no host name (`--host-resolver-rules="MAP * ~NOTFOUND"`).
//!
//! Needs `chromium` (`scripts/setup.sh` installs it; `TESSERA_CHROMIUM` names another
//! binary); without it the test fails, unless `TESSERA_SKIP_BROWSER=1`.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

#[path = "support/cli.rs"]
mod cli;
#[path = "support/html.rs"]
mod support;
use cli::tessera;
use support::{balanced_tags, self_contained};

const WIDTH: u32 = 1200;
const HEIGHT: u32 = 900;

/// `chromium`, if it runs; else `None` when `TESSERA_SKIP_BROWSER=1`, and a failure saying
/// what to do otherwise.
fn chromium() -> Option<String> {
    let bin = std::env::var("TESSERA_CHROMIUM").unwrap_or_else(|_| "chromium".into());
    let runs = Command::new(&bin)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if runs {
        return Some(bin);
    }
    if std::env::var("TESSERA_SKIP_BROWSER").as_deref() == Ok("1") {
        eprintln!("report_browser: no {bin}; skipped (TESSERA_SKIP_BROWSER=1)");
        return None;
    }
    panic!(
        "{bin} is missing or does not run: run scripts/setup.sh (it installs Debian's chromium), \
         or set TESSERA_SKIP_BROWSER=1 to skip this test"
    );
}

/// Runs headless Chromium on `page` with `extra` flags, a fresh profile in `dir`, and a hard
/// limit of 20 s.
fn run_chromium(bin: &str, dir: &Path, page: &Path, extra: &[&str]) -> Output {
    let profile = tempdir(dir, "profile");
    let mut cmd = Command::new(bin);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--enable-logging=stderr",
        "--v=0",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .arg(format!("--window-size={WIDTH},{HEIGHT}"))
    .args(extra)
    .arg(format!("file://{}", page.display()))
    .stdin(Stdio::null());
    // Into files, not pipes: a page's DOM or its log can outgrow a pipe's buffer, and a
    // Chromium blocked on a full pipe would never exit.
    let (out_file, err_file) = (dir.join("chromium.stdout"), dir.join("chromium.stderr"));
    cmd.stdout(std::fs::File::create(&out_file).unwrap())
        .stderr(std::fs::File::create(&err_file).unwrap());
    let mut child = cmd.spawn().expect("start chromium");
    let t0 = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for chromium") {
            break status;
        }
        if t0.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("chromium ran past 20 s on {}", page.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let _ = std::fs::remove_dir_all(&profile);
    Output {
        status,
        stdout: std::fs::read(&out_file).unwrap(),
        stderr: std::fs::read(&err_file).unwrap(),
    }
}

fn tempdir(under: &Path, name: &str) -> PathBuf {
    let d = under.join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// No console message of a blocked request (a Content-Security-Policy violation) or a failed
/// load.
fn nothing_blocked(stderr: &[u8]) {
    let log = String::from_utf8_lossy(stderr);
    for line in log.lines() {
        let l = line.to_ascii_lowercase();
        assert!(
            !(l.contains("content security policy") || l.contains("refused to") || l.contains("net::err_")),
            "the browser tried to load something: {line}"
        );
    }
}

/// The screenshot's size and the variance of its pixels' luminance.
fn decode(png_path: &Path) -> (u32, u32, f64, usize) {
    let file = std::fs::File::open(png_path).expect("the screenshot exists");
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let channels = info.color_type.samples();
    let px = &buf[..info.buffer_size()];
    let lum: Vec<f64> = px
        .chunks(channels)
        .map(|p| match p {
            [g] | [g, _] => *g as f64,
            [r, g, b, ..] => 0.299 * *r as f64 + 0.587 * *g as f64 + 0.114 * *b as f64,
            [] => 0.0,
        })
        .collect();
    let mean = lum.iter().sum::<f64>() / lum.len() as f64;
    let var = lum.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / lum.len() as f64;
    let mut colours: Vec<&[u8]> = px.chunks(channels).collect();
    colours.sort_unstable();
    colours.dedup();
    (info.width, info.height, var, colours.len())
}

#[test]
fn chromium_renders_the_report_of_the_examples() {
    let Some(bin) = chromium() else { return };
    let t0 = Instant::now();
    let dir = std::env::temp_dir().join(format!("tessera-report-browser-{}", std::process::id()));
    let dir = tempdir(&dir, "run");
    let page = dir.join("report.html");
    let out = tessera(&[
        "check",
        "--json",
        "--html",
        page.to_str().unwrap(),
        "examples/",
        "examples/broken/",
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the broken examples are refuted: {out:?}"
    );
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    let html = std::fs::read_to_string(&page).unwrap();
    self_contained(&html);

    // The screenshot: the window's size, and not blank (text, badges and borders on white).
    let shot = dir.join("report.png");
    let o = run_chromium(&bin, &dir, &page, &[&format!("--screenshot={}", shot.display())]);
    assert!(
        o.status.success(),
        "chromium --screenshot: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    nothing_blocked(&o.stderr);
    let (w, h, var, colours) = decode(&shot);
    assert_eq!((w, h), (WIDTH, HEIGHT));
    assert!(
        var > 100.0,
        "the screenshot is blank: luminance variance {var:.1}"
    );
    assert!(colours > 16, "the screenshot has {colours} colours only");

    // The DOM after the script ran: the filter shown, every refutation's threads and summary.
    let o = run_chromium(&bin, &dir, &page, &["--dump-dom"]);
    assert!(
        o.status.success(),
        "chromium --dump-dom: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    nothing_blocked(&o.stderr);
    let dom = String::from_utf8(o.stdout).expect("the DOM is UTF-8");
    assert!(
        dom.contains("<form id=\"filter\">"),
        "the page's script did not run"
    );
    assert!(dom.contains("Content-Security-Policy"));
    let refuted: Vec<&Value> = j["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["verdict"] == "refuted")
        .collect();
    // The three broken examples' bank conflicts, and the broken twins of the CUTLASS
    // configurations: three more bank conflicts, layouts that differ, a copy with a hole.
    assert_eq!(refuted.len(), 11);
    let banks = refuted
        .iter()
        .filter(|r| {
            r["counterexample"]["summary"]
                .as_str()
                .unwrap()
                .contains("conflict: threads")
        })
        .count();
    assert_eq!(banks, 6);
    for r in refuted {
        let c = &r["counterexample"];
        let summary = c["summary"].as_str().unwrap();
        assert!(dom.contains(summary), "{summary}");
        for w in c["witnesses"].as_array().unwrap() {
            let name = w["name"].as_str().unwrap();
            let cell = match name.strip_prefix("thread ") {
                Some(t) => format!("<td class=\"thread\">{t}</td>"),
                None => format!("<td class=\"point\">{name}</td>"),
            };
            assert!(dom.contains(&cell), "{cell}");
        }
    }
    assert_eq!(dom.matches("<td class=\"hit\">").count(), 6);
    // Each bank refutation drawn: the bank picture, inline, its counterexample's threads
    // outlined (the symbolic one at the counterexample's parameter values); and the twins'
    // differing layouts and holes.
    assert_eq!(dom.matches("<figure class=\"picture\"><svg").count(), 9);
    assert!(dom.matches(r##"stroke="#000000" stroke-width="4""##).count() >= 4);
    // Still nothing that refers outside the page once the script ran (the browser's DOM
    // serialisation may differ from the page's text, so only the tags' attributes count).
    for tag in balanced_tags(&dom[dom.find("<html").unwrap()..]) {
        for bad in [" src=", " href=", "http:", "https:"] {
            assert!(!tag.text.contains(bad), "<{}>", tag.text);
        }
    }
    // The filter in the browser: choosing "refuted" (as a click would) marks the body, which
    // hides the other rows and files, and opens exactly the five files with a refutation.
    let click = html.replace(
        "</body>",
        "<script>var r=document.querySelector('input[value=refuted]');r.checked=true;\
         r.dispatchEvent(new Event('change',{bubbles:true}));</script></body>",
    );
    let filtered = dir.join("filtered.html");
    std::fs::write(&filtered, click).unwrap();
    let o = run_chromium(&bin, &dir, &filtered, &["--dump-dom"]);
    nothing_blocked(&o.stderr);
    let dom = String::from_utf8(o.stdout).expect("the DOM is UTF-8");
    assert!(
        dom.contains("<body class=\"only-refuted\">"),
        "the filter did not apply"
    );
    assert_eq!(
        dom.matches("<details class=\"file has-refuted has-np\" open=\"\">")
            .count(),
        5
    );
    assert_eq!(dom.matches(" open=\"\"").count(), 5);
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
    eprintln!(
        "report_browser: {:.1} s; screenshot luminance variance {var:.0}, {colours} colours",
        t0.elapsed().as_secs_f64()
    );
}

/// At 1280 px the time and prover columns stay on screen (the pictures scroll inside their own
/// box), and the page of `examples/` and `examples/broken/` weighs under 1 MB.
#[test]
fn columns_stay_visible_at_1280_px_and_the_page_is_light() {
    let Some(bin) = chromium() else { return };
    let dir = std::env::temp_dir().join(format!("tessera-report-width-{}", std::process::id()));
    let dir = tempdir(&dir, "run");
    for (name, args) in [
        ("examples", vec!["examples/"]),
        ("broken", vec!["examples/broken/"]),
    ] {
        let page = dir.join(format!("{name}.html"));
        let mut argv = vec!["check", "--html", page.to_str().unwrap()];
        argv.extend(args);
        tessera(&argv);
        let html = std::fs::read_to_string(&page).unwrap();
        assert!(html.len() < 1 << 20, "{name}: {} bytes", html.len());
        // Every file open; the rightmost edge of the time and prover cells, and of the body.
        let probe = html.replace(
            "</body>",
            "<script>document.querySelectorAll('details').forEach(function(d){d.open=true;});\
             var r=0;document.querySelectorAll('td.ms,td.prover').forEach(function(e){\
             r=Math.max(r,e.getBoundingClientRect().right);});\
             document.body.setAttribute('data-right',Math.ceil(r));\
             document.body.setAttribute('data-scroll',document.documentElement.scrollWidth);\
             </script></body>",
        );
        let probed = dir.join(format!("{name}-probe.html"));
        std::fs::write(&probed, probe).unwrap();
        let o = run_chromium(&bin, &dir, &probed, &["--window-size=1280,900", "--dump-dom"]);
        nothing_blocked(&o.stderr);
        let dom = String::from_utf8(o.stdout).expect("the DOM is UTF-8");
        let attr = |a: &str| -> i64 {
            let k = dom
                .find(&format!("{a}=\""))
                .unwrap_or_else(|| panic!("{name}: no {a}"));
            let v = &dom[k + a.len() + 2..];
            v[..v.find('"').unwrap()].parse().unwrap()
        };
        let (right, scroll) = (attr("data-right"), attr("data-scroll"));
        assert!(
            right > 0 && right <= 1280,
            "{name}: the columns end at {right} px"
        );
        assert!(scroll <= 1280, "{name}: the page scrolls sideways to {scroll} px");
    }
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}
