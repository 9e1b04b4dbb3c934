//! `tessera draw --tv 'make_tiled_mma(...)'`: A, B and C in one picture, as CuTe's
//! `print_latex(tiled_mma)` lays them out (A left, B on top, C in the middle). Every cell
//! against `tv_layout_A/B/C` evaluated by the expression language, the first (thread, value)
//! in CuTe's loop order (threads outer); the cells CuTe's own picture of the SM80 16x8x16
//! atom shows; SVG, TikZ and PNG from the command line.

use std::collections::HashMap;
use std::process::Command;
use tessera::draw::{self, Color};
use tessera::lang::{Session, Value};

const MMA: &str = "make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (2,2,1))";

/// `(m, n) -> "T{t}V{v}"` of the first `(t, v)` (threads outer) of `tv_layout_X(MMA)` over a
/// tile with `rows` rows, as the language evaluates it.
fn expected(s: &Session, op: &str, rows: i64) -> HashMap<(i64, i64), String> {
    let tv = s.eval(&format!("tv_layout_{op}({MMA})")).unwrap();
    let n = |k: usize| {
        s.eval(&format!("size(get({tv}, {k}))"))
            .unwrap()
            .parse::<i64>()
            .unwrap()
    };
    let (threads, values) = (n(0), n(1));
    let mut out = HashMap::new();
    for t in 0..threads {
        for v in 0..values {
            let idx: i64 = s
                .eval(&format!("({tv})({})", t + threads * v))
                .unwrap()
                .parse()
                .unwrap();
            out.entry((idx % rows, idx / rows)).or_insert(format!("T{t}V{v}"));
        }
    }
    out
}

#[test]
fn the_mma_picture_shows_tv_layout_a_b_c_where_cute_draws_them() {
    let s = Session::default();
    let Value::Atom(a) = s.value(MMA).unwrap() else {
        panic!()
    };
    let tessera::lang::atom_value::AtomValue::Mma(t) = a.as_ref() else {
        panic!()
    };
    let p = draw::mma(t, Color::Thread).unwrap();
    // tile_size: 32 x 16 x 16; CuTe's coordinates shifted by K + 2 = 18.
    let (m, n, k) = (32i64, 16i64, 16i64);
    assert_eq!(s.eval(&format!("tile_size({MMA})")).unwrap(), "(32,16,16)");
    assert_eq!((p.rows, p.cols), ((k + 2 + m) as usize, (k + 2 + n) as usize));
    let text = |r: i64, c: i64| p.cell(r as usize, c as usize).unwrap().text.clone();
    let off = k + 2;
    let c = expected(&s, "C", m);
    let a = expected(&s, "A", m);
    let b = expected(&s, "B", n);
    assert_eq!((c.len(), a.len(), b.len()), (512, 512, 256), "every cell reached");
    for ((i, j), want) in &c {
        assert_eq!(&text(i + off, j + off), want, "C({i},{j})");
    }
    for ((i, j), want) in &a {
        assert_eq!(&text(i + off, j + 1), want, "A({i},{j})");
    }
    for ((i, j), want) in &b {
        // B's (n, k) at row k, column n.
        assert_eq!(&text(j + 1, i + off), want, "B(n={i},k={j})");
    }
    // CuTe's picture of the atom: C and A rows 0 and 8, B's column 0; the 2 x 2 atom layout
    // puts warp 1 below (M) and warp 2 to the right (N); A and B show the first warp that
    // reads them.
    let cute = [
        ((off, off), "T0V0"),
        ((off, off + 1), "T0V1"),
        ((off, off + 2), "T1V0"),
        ((off + 1, off), "T4V0"),
        ((off + 8, off), "T0V2"),
        ((off + 16, off), "T32V0"),
        ((off, off + 8), "T64V0"),
        ((off + 16, off + 8), "T96V0"),
        ((off, 1), "T0V0"),
        ((off, 2), "T0V1"),
        ((off, 3), "T1V0"),
        ((off + 8, 1), "T0V2"),
        ((off, 9), "T0V4"),
        ((off + 16, 1), "T32V0"),
        ((1, off), "T0V0"),
        ((2, off), "T0V1"),
        ((9, off), "T0V2"),
        ((1, off + 1), "T4V0"),
        ((1, off + 8), "T64V0"),
    ];
    for ((r, col), want) in cute {
        assert_eq!(text(r, col), want, "({r},{col})");
    }
    // Labels where CuTe prints them; the corner and the gaps are blank.
    assert_eq!((text(off, 0), text(off + 31, 0)), ("0".into(), "31".into()));
    assert_eq!((text(off - 1, 1), text(off - 1, 16)), ("0".into(), "15".into()));
    assert_eq!((text(0, off), text(0, off + 15)), ("0".into(), "15".into()));
    assert_eq!((text(1, off - 1), text(16, off - 1)), ("0".into(), "15".into()));
    assert!(p.cell(0, 0).unwrap().blank && p.cell(off as usize - 1, off as usize - 1).unwrap().blank);
    assert!(!p.cell(off as usize, 1).unwrap().blank);
    // The SVG draws a text per non-empty cell and no rectangle for blank ones.
    let svg = p.svg();
    let rects = svg.matches("<rect x=").count();
    let grids = (m * n + m * k + k * n) as usize;
    assert!(
        rects >= grids && rects < grids + 4,
        "{rects} rects for {grids} cells"
    );
    assert_eq!(
        svg.matches("<text class=\"cell\"").count(),
        grids + (m + k + k + n) as usize
    );
}

#[test]
fn the_command_line_draws_a_tiled_mma_in_every_format() {
    let dir = std::env::temp_dir().join(format!("tessera-draw-mma-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for ext in ["svg", "tex", "png"] {
        let out = dir.join(format!("mma.{ext}"));
        let o = Command::new(env!("CARGO_BIN_EXE_tessera"))
            .args(["draw", "--tv", MMA, "-o", out.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let bytes = std::fs::read(&out).unwrap();
        match ext {
            "png" => assert_eq!(&bytes[..4], b"\x89PNG"),
            _ => assert!(String::from_utf8_lossy(&bytes).contains("T96V0")),
        }
    }
    let o = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["draw", "--tv", MMA, "--tile", "(32,16)"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", String::from_utf8_lossy(&o.stderr));
}
