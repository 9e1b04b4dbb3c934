//! `tessera emit`: the command in each language, its domain (index, coordinates, symbolic
//! sizes, parameters' facts), its errors and exit codes, and a compiled C function that agrees
//! with the layout at every index.

use std::path::PathBuf;
use std::process::Command;
use tessera::ir::index::Var;
use tessera::ir::sym::Interval;
use tessera::lang::Session;

#[path = "support/cli.rs"]
mod cli;
use cli::{ok, tessera};

const SWIZZLED: &str = "Sw<3,3,3> o (8,64):(64,1)";

#[test]
fn every_language() {
    let c = ok(&["emit", "--lang", "c", SWIZZLED]);
    for want in [
        "//   0 <= i <= 511\n",
        "// Simplified by egg: 7 -> 6 operations, 2 -> 0 div/mod, weighted cost 21 -> 6.\n",
        "// Validated: equal at every point of the domain, by enumeration",
        "static inline int64_t index_fn(int64_t i) {",
        "int64_t t9 = t7 ^ t8;",
        "return t9;",
    ] {
        assert!(c.contains(want), "{want:?}\n{c}");
    }
    let naive = ok(&["emit", "--lang", "c", "--no-simplify", SWIZZLED]);
    for want in [
        "int64_t t13 = t8 ^ t12;",
        "return t13;",
        "// Not simplified: 7 operations, 2 div/mod",
    ] {
        assert!(naive.contains(want), "{want:?}\n{naive}");
    }
    let r = ok(&["emit", "--lang", "rust", "--name", "SwizzledOffset", SWIZZLED]);
    assert!(r.contains("pub fn swizzled_offset(i: i64) -> i64 {"), "{r}");
    let cu = ok(&["emit", "--lang", "cuda", SWIZZLED]);
    assert!(
        cu.contains("__device__ __forceinline__ int64_t index_fn(int64_t i) {"),
        "{cu}"
    );
    let p = ok(&["emit", "--lang", "ptx", "--name", "sw", SWIZZLED]);
    assert!(
        p.contains(".visible .func (.param .s64 ret_offset) sw(.param .s64 arg_i)"),
        "{p}"
    );
    assert!(p.contains("xor.b64 %t9, %t7, %t8;"), "{p}");
    let p = ok(&["emit", "--lang", "ptx", "--no-simplify", "--name", "sw", SWIZZLED]);
    assert!(p.contains("xor.b64 %t13, %t8, %t12;"), "{p}");
}

#[test]
fn the_domain_comes_from_the_layout_and_the_facts() {
    let s = Session::new(&["M where M % 32 == 0, M <= 256"], &[]).unwrap();
    let l = tessera::emit::lowered(&s, "(M,4):(1,M)", false).unwrap();
    assert_eq!(l.ranges[&Var::Index], Interval::new(Some(0), Some(1023)));
    assert_eq!(l.moduli[&Var::Param("M".into())], 32);
    assert!(l.notes.iter().any(|n| n.contains("i < 4*M")), "{:?}", l.notes);
    let l = tessera::emit::lowered(&s, "(4,M):(M,1)", true).unwrap();
    assert_eq!(l.ranges[&Var::Coord(1)], Interval::new(Some(0), Some(255)));
    assert_eq!(l.ranges[&Var::Coord(0)], Interval::new(Some(0), Some(3)));
    let c = ok(&[
        "emit",
        "--lang",
        "c",
        "--param",
        "M where M % 32 == 0, M <= 256",
        "(M,4):(4,1)",
    ]);
    for want in [
        "assert(32 <= M && M <= 256);",
        "assert(M % 32 == 0);",
        "int64_t i, int64_t M",
    ] {
        assert!(c.contains(want), "{want:?}\n{c}");
    }
    // A bound parameter is a constant.
    let c = ok(&[
        "emit",
        "--lang",
        "c",
        "--param",
        "M",
        "--bind",
        "M=8",
        "(M,4):(1,M)",
    ]);
    assert!(
        c.contains("static inline int64_t index_fn(int64_t i) {") && c.contains("0 <= i <= 31"),
        "{c}"
    );
    // Coordinates with a coordinate codomain: several outputs.
    let c = ok(&["emit", "--lang", "c", "--coords", "(4,8):(1@0,1@1)"]);
    assert!(c.contains("int64_t *out_coord_0, int64_t *out_coord_1"), "{c}");
    // An expression that starts with '-'.
    let c = ok(&["emit", "--lang", "c", "-(2+3)"]);
    assert!(
        c.contains("static inline int64_t index_fn(void) {") && c.contains("return -5;"),
        "{c}"
    );
}

#[test]
fn errors_are_bad_input() {
    for args in [
        &["emit", "--lang", "fortran", "4:1"][..],
        &["emit", "4:1"],
        &["emit", "--lang", "c", "--name", "int", "4:1"],
        &["emit", "--lang", "rust", "--name", "fn", "4:1"],
        &["emit", "--lang", "c", "(4,8"],
        &["emit", "--lang", "c", "--param", "M where M % 0 == 0", "M"],
    ] {
        let o = tessera(args);
        assert_eq!(o.status.code(), Some(3), "{args:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("error"), "{args:?}");
    }
}

#[test]
fn compiled_c_agrees_with_the_layout_at_every_index() {
    let src = "Sw<2,1,3> o 4 o ((2,4),(4,2)):((1,16),(2,64))";
    let c = ok(&["emit", "--lang", "c", "--name", "f", src]);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_emit");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("f.c");
    let main = "#include <stdio.h>\nint main(void) {\n    for (int64_t i = 0; i < 64; i++) printf(\"%lld\\n\", (long long)f(i));\n    return 0;\n}\n";
    std::fs::write(&file, format!("{c}{main}")).unwrap();
    let exe = dir.join("f");
    let cc = Command::new("cc")
        .args(["-std=c11", "-Wall", "-Werror", "-O2"])
        .arg(&file)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(cc.status.success(), "{}", String::from_utf8_lossy(&cc.stderr));
    let out = Command::new(&exe).output().unwrap();
    let got: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let want: Vec<String> = (0..64)
        .map(|i| tessera::lang::eval_str(&format!("({src})({i})")).unwrap())
        .collect();
    assert_eq!(got, want);
}
