//! `tessera draw` and `tessera::draw`: every SVG is XML with one `<text class="cell">` per
//! cell showing what the evaluator says; golden SVGs of three small layouts; the bank
//! pictures' outlined words against the verifier on random questions; the size limit; PNG
//! and TikZ output; bad input is exit code 3, never a panic.

use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::Arc;
use tessera::draw::{self, Color, DrawError, Outline, Picture};
use tessera::lang::Session;
use tessera::verifier::{Bank, Func, analyze};

fn value(src: &str) -> tessera::lang::Value<tessera::ir::sym::SymInt> {
    Session::default()
        .value(src)
        .unwrap_or_else(|e| panic!("{src}: {e}"))
}

fn draw_layout(src: &str) -> Picture {
    draw::layout(&value(src), Color::Index).unwrap_or_else(|e| panic!("{src}: {e}"))
}

/// The texts of the `<text class="cell">` elements, in document order.
fn cell_texts(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("not XML: {e}\n{svg}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(root.tag_name().namespace(), Some("http://www.w3.org/2000/svg"));
    root.descendants()
        .filter(|n| n.has_tag_name("text") && n.attribute("class") == Some("cell"))
        .map(|n| n.text().unwrap_or_default().to_string())
        .collect()
}

/// Every cell of `src`'s picture against `tessera eval`'s answer for `(src)(i)`.
fn check_against_evaluator(src: &str, session: &Session) {
    let p = draw::layout(&session.value(src).unwrap(), Color::Index).unwrap();
    let texts = cell_texts(&p.svg());
    assert_eq!(texts.len(), p.rows * p.cols, "{src}: one text per cell");
    for r in 0..p.rows {
        for c in 0..p.cols {
            let i = r + p.rows * c;
            let want = session.eval(&format!("({src})({i})")).unwrap();
            assert_eq!(texts[r * p.cols + c], want, "{src}: cell ({r},{c}), index {i}");
            assert_eq!(p.cell(r, c).unwrap().text, want);
        }
    }
}

#[test]
fn every_cell_is_the_evaluators_value() {
    let s = Session::default();
    for src in [
        "(4,8):(8,1)",
        "((2,2),(2,4)):((1,8),(2,16))",
        "Sw<3,3,3> o (8,64):(64,1)",
        "Sw<2,0,3> o 5 o (4,16):(16,1)",
        "(2,3,4):(12,1,3)",
        "16:2",
        "(5):(3)",
        "(3,4):(1@1,1@0)",
        "(2,(2,2)):(1@0,(1@1,2@1))",
        "(4,8):(F2(1),F2(3))",
        "composition((6,2):(8,2), (4,3):(3,1))",
        "logical_divide((8,4):(1,8), (2:1,2:1))",
        "(16,16):(16,1)[2:10, 0:16:4]",
        "(8,8)",
    ] {
        check_against_evaluator(src, &s);
    }
    // Symbolic layouts draw at their bound values.
    let s = Session::new(&["M where M % 4 == 0", "N"], &["M=8", "N=3"]).unwrap();
    check_against_evaluator("(M,N):(1,M)", &s);
    check_against_evaluator("logical_divide((M,N):(1,M), (4:1,_))", &s);
}

#[test]
fn grid_folds_as_print_layout() {
    let p = draw_layout("(2,3,4):(12,1,3)");
    assert_eq!(
        (p.rows, p.cols),
        (2, 12),
        "rank 3 folds the last modes into the columns"
    );
    assert!(
        p.col_rules.iter().any(|r| r.at == 3),
        "the block of mode 1 is ruled"
    );
    // Rank 1 is one column, as CuTe's print_latex draws it: it appends the mode 1:0, so
    // 16:2 is drawn as (16,1):(2,0), rows labelled 0..15, one column labelled 0.
    let p = draw_layout("16:2");
    assert_eq!((p.rows, p.cols), (16, 1), "rank 1 is one column");
    assert_eq!(p.row_labels.len(), 16);
    assert_eq!(p.col_labels, ["0"]);
    let cells: Vec<&str> = p.cells.iter().map(|c| c.text.as_str()).collect();
    let want: Vec<String> = (0..16).map(|i| (2 * i).to_string()).collect();
    assert_eq!(cells, want);
    // And as the picture of the rank-2 layout CuTe appends to it.
    let q = draw_layout("(16,1):(2,0)");
    assert_eq!((q.rows, q.cols, q.cells.len()), (16, 1, 16));
    assert_eq!(q.cells.iter().map(|c| c.text.as_str()).collect::<Vec<_>>(), cells);
    let p = draw_layout("((2,4)):((1,8))");
    assert_eq!((p.rows, p.cols), (8, 1));
    assert_eq!(p.row_rules.iter().map(|r| r.at).collect::<Vec<_>>(), [2, 4, 6]);
    let p = draw_layout("((2,2),(2,4)):((1,8),(2,16))");
    assert_eq!((p.rows, p.cols), (4, 8));
    let rows: Vec<(usize, u8)> = p.row_rules.iter().map(|r| (r.at, r.weight)).collect();
    let cols: Vec<(usize, u8)> = p.col_rules.iter().map(|r| (r.at, r.weight)).collect();
    assert_eq!(rows, [(2, 1)]);
    assert_eq!(cols, [(2, 1), (4, 1), (6, 1)]);
    assert_eq!(p.row_labels, ["0", "1", "2", "3"]);
    assert_eq!(p.col_labels.len(), 8);
}

#[test]
fn colour_functors_key_on_the_offset() {
    let v = value("(4,8):(8,1)");
    let grey = draw::layout(&v, Color::Index).unwrap();
    let bank = draw::layout(&v, Color::Bank8).unwrap();
    for r in 0..4 {
        for c in 0..8 {
            let off = (8 * r + c) as i64;
            assert_eq!(
                grey.cell(r, c).unwrap().fill,
                Color::Index.of_offset(off).unwrap()
            );
            assert_eq!(
                bank.cell(r, c).unwrap().fill,
                Color::Bank8.of_offset(off).unwrap()
            );
        }
    }
    let e = draw::layout(&v, Color::Thread).unwrap_err();
    assert!(e.to_string().contains("thread-value"), "{e}");
}

#[test]
fn thread_value_pictures() {
    let (tv, tile) = (value("((8,4),8):((1,64),8)"), value("(8,64)"));
    let p = draw::tv(&tv, Some(&tile), Color::Thread).unwrap();
    assert_eq!((p.rows, p.cols), (8, 64));
    // Thread t = t0 + 8*t1 holds row t0, columns 8*t1 .. 8*t1+7 (offset t0 + 64*t1 + 8*v).
    for t in 0..32i64 {
        for v in 0..8i64 {
            let off = t % 8 + 64 * (t / 8) + 8 * v;
            let (r, c) = ((off % 8) as usize, (off / 8) as usize);
            let cell = p.cell(r, c).unwrap();
            assert_eq!(cell.text, format!("T{t}V{v}"));
            assert_eq!(cell.fill, Color::Thread.of_thread_value(t, v, off));
        }
    }
    assert_eq!(cell_texts(&p.svg()).len(), 256, "one text per reached cell");
    // Coordinate-valued: (m, n) directly, the tile from their bounding box.
    let p = draw::tv(&value("(4,2):(1@1,1@0)"), None, Color::Value).unwrap();
    assert_eq!((p.rows, p.cols), (2, 4));
    assert_eq!(p.cell(1, 3).unwrap().text, "T3V1");
    // Errors, not panics.
    let e = draw::tv(&tv, None, Color::Thread).unwrap_err();
    assert!(e.to_string().contains("--tile"), "{e}");
    let e = draw::tv(&tv, Some(&value("(8,8)")), Color::Thread).unwrap_err();
    assert!(e.to_string().contains("outside the 8 x 8 tile"), "{e}");
    let e = draw::tv(&tv, Some(&value("(8,64):(64,1)")), Color::Thread).unwrap_err();
    assert!(e.to_string().contains("not a layout"), "{e}");
    let e = draw::tv(&value("(4,2,2):(1,4,8)"), Some(&tile), Color::Thread).unwrap_err();
    assert!(e.to_string().contains("rank 2"), "{e}");
}

/// Golden SVGs of three small layouts, reviewed by eye once (rendered to PNG): a change to
/// the output fails here; review the new pictures, then rewrite them with `TESSERA_BLESS=1`.
#[test]
fn golden_svgs() {
    for (name, src) in [
        ("hierarchical", "((2,2),(2,4)):((1,8),(2,16))"),
        ("swizzled", "Sw<1,1,2> o (4,8):(8,1)"),
        ("coordinates", "(3,(2,2)):(1@0,(1@1,2@1))"),
    ] {
        let svg = draw_layout(src).svg();
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/draw/{name}.svg"));
        if std::env::var_os("TESSERA_BLESS").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &svg).unwrap();
        }
        let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if let Some((n, (g, w))) = svg
            .lines()
            .zip(want.lines())
            .enumerate()
            .find(|(_, (g, w))| g != w)
        {
            panic!("{name}: line {} differs:\n  drawn:  {g}\n  golden: {w}", n + 1);
        }
        assert_eq!(svg.lines().count(), want.lines().count(), "{name}: line count");
    }
}

#[test]
fn the_size_limit_refuses() {
    assert!(draw::layout(&value("(256,256):(256,1)"), Color::Index).is_ok());
    for src in [
        "(257,256):(256,1)",
        "(65536,65536):(1,65536)",
        "(4294967296,4294967296):(1,0)",
    ] {
        let t0 = std::time::Instant::now();
        let e = draw::layout(&value(src), Color::Index).unwrap_err();
        assert!(matches!(e, DrawError::TooLarge { .. }), "{src}: {e}");
        assert!(e.to_string().contains("L[0:64, :]"), "{e}");
        assert!(t0.elapsed().as_secs() < 2, "{src}: refused at once");
    }
    let e = draw::tv(
        &value("(2048,1024):(1,2048)"),
        Some(&value("(2048,1024)")),
        Color::Thread,
    )
    .unwrap_err();
    assert!(matches!(e, DrawError::TooLarge { .. }), "{e}");
    let facts = Arc::new(tessera::ir::sym::Facts::default());
    let f = |src: &str| Func::parse(src, &facts).unwrap();
    let b = Bank {
        smem: f("(512,512):(512,1)"),
        tv: f("(32,8192):(1,32)"),
        elem: 4,
        access: 4,
    };
    let e = draw::banks(&b, &[]).unwrap_err();
    assert!(matches!(e, DrawError::TooLarge { .. }), "{e}");
}

#[test]
fn png_decodes() {
    let p = draw_layout("Sw<3,3,3> o (8,64):(64,1)");
    let png = p.png().unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(&png[12..16], b"IHDR");
    let be = |k: usize| u32::from_be_bytes(png[k..k + 4].try_into().unwrap());
    let doc_svg = p.svg();
    let doc = roxmltree::Document::parse(&doc_svg).unwrap();
    let dim = |a: &str| doc.root_element().attribute(a).unwrap().parse::<u32>().unwrap();
    // At 2x for high-DPI screens.
    assert_eq!((be(16), be(20)), (2 * dim("width"), 2 * dim("height")));
    // A 256 x 256 picture is scaled down to at most 16 Mpixel (four cells with text, so that
    // a debug build renders it quickly).
    let big = draw::tv(&value("(4,1):(1,0)"), Some(&value("(256,256)")), Color::Thread).unwrap();
    let big = big.png().unwrap();
    let (w, h) = (
        u32::from_be_bytes(big[16..20].try_into().unwrap()),
        u32::from_be_bytes(big[20..24].try_into().unwrap()),
    );
    assert!(
        f64::from(w) * f64::from(h) <= draw::MAX_PIXELS * 1.01 && w > 1000,
        "{w} x {h}"
    );
}

#[test]
fn html_embeds_the_svg() {
    let p = draw_layout("(4,8):(8,1)");
    let page = p.html();
    assert!(page.starts_with("<!DOCTYPE html>"));
    let svg = &page[page.find("<svg").unwrap()..page.find("</svg>").unwrap() + 6];
    assert_eq!(cell_texts(svg).len(), 32);
    assert!(
        !page.contains("<script") && !page.contains("href"),
        "self-contained"
    );
}

#[test]
fn tex_compiles_with_pdflatex() {
    let p = draw_layout("Sw<1,1,2> o ((2,2),8):((8,1),2)");
    let tex = p.tex();
    assert!(tex.contains("\\begin{tikzpicture}") && tex.ends_with("\\end{document}\n"));
    assert_eq!(tex.matches("\\node at (").count(), 32, "one node per cell");
    if Command::new("pdflatex").arg("--version").output().is_err() {
        println!("skipped: pdflatex is not on PATH, the TikZ output was not compiled");
        return;
    }
    let dir = std::env::temp_dir().join(format!("tessera-draw-tex-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("l.tex"), &tex).unwrap();
    let out = Command::new("pdflatex")
        .args(["-interaction=nonstopmode", "-halt-on-error", "l.tex"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(dir.join("l.pdf").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Words per bank per phase, counted from the picture's cells alone.
fn degrees_from_cells(p: &Picture) -> BTreeMap<usize, i64> {
    let mut words: BTreeMap<(usize, i64), BTreeSet<i64>> = BTreeMap::new();
    for c in &p.cells {
        let b = c.bank.as_ref().expect("a bank cell");
        for r in &b.reads {
            for w in b.words.clone() {
                words.entry((r.phase, w.rem_euclid(32))).or_default().insert(w);
            }
        }
    }
    let mut out: BTreeMap<usize, i64> = BTreeMap::new();
    for ((phase, _), ws) in words {
        let d = out.entry(phase).or_insert(1);
        *d = (*d).max(ws.len() as i64);
    }
    out
}

/// A shared-memory layout: rows x cols, row- or column-major, maybe padded, maybe swizzled.
fn smem() -> impl Strategy<Value = (String, i64)> {
    (
        1u32..4,
        2u32..7,
        any::<bool>(),
        0i64..3,
        prop::option::of((1u32..4, 0u32..4, 2u32..6)),
    )
        .prop_map(|(lr, lc, row_major, pad, sw)| {
            let (r, c) = (1i64 << lr, 1i64 << lc);
            let l = if row_major {
                format!("({r},{c}):({},1)", c + pad)
            } else {
                format!("({r},{c}):(1,{})", r + pad)
            };
            let text = match sw {
                Some((b, m, s)) if s >= b => format!("Sw<{b},{m},{s}> o {l}"),
                _ => l,
            };
            (text, r * c)
        })
}

/// A thread-value layout onto `0..n` (`n` a power of two): the leaves of `n`'s factors in a
/// random order of strides, the first `k` leaves the threads.
fn tv_onto(n: i64) -> impl Strategy<Value = String> {
    let bits = n.trailing_zeros() as usize;
    (
        Just(bits),
        prop::collection::vec(1usize..3, 1..6),
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
    )
        .prop_map(move |(bits, parts, perm, split)| {
            // Factors 2^p of n, p from `parts`, the last taking what is left.
            let mut left = bits;
            let mut exps = Vec::new();
            for p in parts {
                if left == 0 {
                    break;
                }
                let p = p.min(left);
                exps.push(p);
                left -= p;
            }
            if left > 0 {
                exps.push(left);
            }
            let sizes: Vec<i64> = exps.iter().map(|&e| 1i64 << e).collect();
            // Strides: compact in a rotated order of the leaves.
            let k = sizes.len();
            let rot = perm.index(k);
            let mut strides = vec![0i64; k];
            let mut acc = 1;
            for j in 0..k {
                let leaf = (j + rot) % k;
                strides[leaf] = acc;
                acc *= sizes[leaf];
            }
            let cut = 1 + split.index(k);
            let group = |r: std::ops::Range<usize>| {
                if r.is_empty() {
                    return ("1".to_string(), "0".to_string());
                }
                let s: Vec<String> = r.clone().map(|j| sizes[j].to_string()).collect();
                let d: Vec<String> = r.map(|j| strides[j].to_string()).collect();
                (format!("({})", s.join(",")), format!("({})", d.join(",")))
            };
            let (ts, td) = group(0..cut);
            let (vs, vd) = group(cut..k);
            format!("({ts},{vs}):({td},{vd})")
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// The bank picture's data gives the verifier's degrees: per phase, the distinct words per
    /// bank counted from the cells equal `phases`, their worst equals `analyze`, and a cell is
    /// outlined exactly when a bank of its phase holds several words.
    #[test]
    fn bank_pictures_agree_with_the_verifier(
        (s, tv) in smem().prop_flat_map(|(s, n)| (Just(s), tv_onto(n))),
        elem_pow in 0u32..5,
        wide in any::<bool>(),
    ) {
        let elem = 1i64 << elem_pow;
        let access = if wide { (elem * 4).min(16) } else { elem };
        let facts = Arc::new(tessera::ir::sym::Facts::default());
        let f = |src: &str| Func::parse(src, &facts).unwrap();
        let b = Bank { smem: f(&s), tv: f(&tv), elem, access };
        let p = match draw::banks(&b, &[]) {
            Ok(p) => p,
            // An access that is not contiguous or aligned is the verifier's bad input.
            Err(DrawError::Bank(tessera::verifier::ProveError::Invalid(m))) => {
                prop_assert!(access > elem, "{s} {tv} elem={elem} access={access}: {m}");
                return Ok(());
            }
            Err(e) => panic!("{s} {tv}: {e}"),
        };
        let counted = degrees_from_cells(&p);
        prop_assert_eq!(counted.len(), p.phases.len());
        for (k, cost) in p.phases.iter().enumerate() {
            prop_assert_eq!(counted[&k], cost.degree, "phase {}", k);
        }
        let worst = analyze(&b).unwrap().degree;
        prop_assert_eq!(counted.values().copied().max().unwrap_or(1), worst);
        // Outlines: exactly the cells in a bank holding several words in a phase reading them.
        let mut words: BTreeMap<(usize, i64), BTreeSet<i64>> = BTreeMap::new();
        for c in &p.cells {
            let bc = c.bank.as_ref().unwrap();
            for r in &bc.reads {
                for w in bc.words.clone() {
                    words.entry((r.phase, w.rem_euclid(32))).or_default().insert(w);
                }
            }
        }
        let hot = |c: &draw::Cell| {
            let bc = c.bank.as_ref().unwrap();
            bc.reads.iter().any(|r| bc.words.clone().any(|w| words[&(r.phase, w.rem_euclid(32))].len() > 1))
        };
        // When every word read conflicts, no cell is outlined and the legend says so.
        let read: Vec<_> = p.cells.iter().filter(|c| !c.bank.as_ref().unwrap().reads.is_empty()).collect();
        let all_hot = read.len() > 1 && read.iter().all(|c| hot(c));
        for c in &p.cells {
            prop_assert_eq!(c.outline == Outline::Conflict, hot(c) && !all_hot);
        }
        if all_hot {
            prop_assert!(p.legend[1].text.contains("every word read is in a bank"));
        }
        prop_assert!(cell_texts(&p.svg()).len() <= p.cells.len());
    }
}

#[test]
fn highlighted_threads_get_heavy_outlines() {
    let facts = Arc::new(tessera::ir::sym::Facts::default());
    let f = |src: &str| Func::parse(src, &facts).unwrap();
    let b = Bank {
        smem: f("(8,64):(64,1)"),
        tv: f("((8,4),8):((1,64),8)"),
        elem: 2,
        access: 16,
    };
    let c = analyze(&b).unwrap().conflict.unwrap();
    let p = draw::banks(&b, &[c.a.0, c.b.0]).unwrap();
    let heavy: BTreeSet<i64> = p
        .cells
        .iter()
        .filter(|x| x.outline == Outline::Highlight)
        .flat_map(|x| x.bank.as_ref().unwrap().reads.iter().map(|r| r.thread))
        .collect();
    assert_eq!(heavy, BTreeSet::from([c.a.0, c.b.0]));
    assert!(p.legend.iter().any(|l| l.text.contains("8-way")));
    // The wavefronts beside the degree: eight 8-way phases of one warp instruction.
    assert!(
        p.legend.iter().any(|l| l
            .text
            .starts_with("wavefronts: 32 (ideal 4) in the worst warp instruction")),
        "{:?}",
        p.legend
    );
    let svg = p.svg();
    assert!(svg.contains(r##"stroke="#000000" stroke-width="4""##));
    // Swizzled: conflict-free, nothing outlined.
    let b = Bank {
        smem: f("Sw<3,3,3> o (8,64):(64,1)"),
        ..b
    };
    let p = draw::banks(&b, &[]).unwrap();
    assert!(p.cells.iter().all(|x| x.outline == Outline::None));
    assert!(p.phases.iter().all(|x| x.degree == 1));
}

fn tessera(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn cli_writes_each_format() {
    let dir = std::env::temp_dir().join(format!("tessera-draw-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for ext in ["svg", "tex", "png", "html"] {
        let path = dir.join(format!("l.{ext}"));
        let out = tessera(&["draw", "Sw<3,3,3> o (8,64):(64,1)", "-o", path.to_str().unwrap()]);
        assert!(
            out.status.success(),
            "{ext}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bytes = std::fs::read(&path).unwrap();
        match ext {
            "png" => assert_eq!(&bytes[..4], b"\x89PNG"),
            "tex" => assert!(bytes.starts_with(b"\\documentclass")),
            "html" => assert!(bytes.starts_with(b"<!DOCTYPE html>")),
            _ => assert_eq!(cell_texts(&String::from_utf8(bytes).unwrap()).len(), 512),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    let out = tessera(&[
        "draw",
        "(M,4):(1,M)",
        "--param",
        "M",
        "--bind",
        "M=2",
        "--format",
        "svg",
    ]);
    assert!(out.status.success());
    assert_eq!(
        cell_texts(&String::from_utf8(out.stdout).unwrap()),
        ["0", "2", "4", "6", "1", "3", "5", "7"]
    );
    let out = tessera(&[
        "draw",
        "--banks",
        "(8,64):(64,1)",
        "--tv",
        "((8,4),8):((1,64),8)",
        "elem=2",
        "access=16",
        "--highlight",
        "0,1",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let svg = String::from_utf8(out.stdout).unwrap();
    assert!(svg.contains("8-way conflict"));
    let out = tessera(&[
        "draw",
        "--tv",
        "((8,4),8):((1,64),8)",
        "--tile",
        "(8,64)",
        "--color",
        "warp",
    ]);
    assert!(out.status.success());
}

#[test]
fn cli_bad_input_is_exit_3() {
    let tv = "((8,4),8):((1,64),8)";
    for args in [
        vec!["draw"],
        vec!["draw", "(4,8):(8,1)", "(2,2)"],
        vec!["draw", "(4,8):(8,1)", "--color", "red"],
        vec!["draw", "(4,8):(8,1)", "--color", "thread"],
        vec!["draw", "(4,8):(8,1)", "--format", "gif"],
        vec!["draw", "(512,512):(1,512)"],
        vec!["draw", "(M,8):(1,M)", "--param", "M"],
        vec!["draw", "(M,8):(1,M)", "--bind", "M=3"],
        vec!["draw", "Sw<3,3,3>"],
        vec!["draw", "(4,8):(8,1"],
        vec!["draw", "(4,8):(8,1)", "elem=2"],
        vec!["draw", "(4,8):(8,1)", "--tile", "(4,8)"],
        vec!["draw", "(4,8):(8,1)", "--highlight", "1"],
        vec!["draw", "--tv", tv],
        vec!["draw", "--tv", tv, "--tile", "(8,8)"],
        vec!["draw", "--tv", tv, "--tile", "(8,8,8)"],
        vec!["draw", "--banks", "(8,64):(64,1)"],
        vec![
            "draw",
            "--banks",
            "(8,64):(64,1)",
            "--tv",
            tv,
            "elem=3",
            "access=16",
        ],
        vec![
            "draw",
            "--banks",
            "(8,64):(64,1)",
            "--tv",
            "(32,8):(1,32)",
            "elem=2",
            "access=16",
        ],
        vec!["draw", "--banks", "(8,64):(64,1)", "--tv", tv, "size=2"],
        vec!["draw", "--banks", "(8,64):(64,1)", "--tv", tv, "--color", "bank"],
        vec!["draw", "(4,8):(8,1)", "-o", "/nonexistent-dir/x.svg"],
    ] {
        let out = tessera(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {err}");
        assert!(
            err.starts_with("error") && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
}
