//! The signature, the comment block and the checks of the assumptions, the names, and the
//! errors of `emit`.

use std::collections::HashMap;
use tessera_codegen::{Assumption, EmitError, Lang, Signature, emit, sanitize};
use tessera_ir::index::{Builder, IndexExpr, NodeId, Var, lower_coords, lower_index};
use tessera_ir::parse_layout;
use tessera_ir::sym::Interval;

fn m() -> Var {
    Var::Param("M".into())
}

/// `offset = i % M + (i << 2) >> 1` with `i` and `M` as given.
fn expr() -> IndexExpr {
    let mut b = Builder::new();
    let i = b.var(Var::Index);
    let mv = b.var(m());
    let r = b.rem(i, mv);
    let two = b.konst(2);
    let one = b.konst(1);
    let s = b.shl(i, two);
    let t = b.shr(s, one);
    let o = b.add(r, t);
    b.finish(vec![("offset".into(), o)])
}

fn sig(
    e: &IndexExpr,
    i: (Option<i128>, Option<i128>),
    mm: (Option<i128>, Option<i128>),
    k: i64,
) -> Signature {
    let ranges = HashMap::from([
        (Var::Index, Interval::new(i.0, i.1)),
        (m(), Interval::new(mm.0, mm.1)),
    ]);
    Signature::for_expr(e, "idx", &ranges, &HashMap::from([(m(), k)])).unwrap()
}

#[test]
fn for_expr_orders_the_arguments_and_states_the_facts() {
    let e = expr();
    let s = sig(&e, (Some(0), Some(1023)), (Some(32), None), 32);
    assert_eq!(s.args, vec![Var::Index, m()]);
    assert_eq!(
        s.assumptions,
        vec![
            Assumption {
                var: Var::Index,
                lo: Some(0),
                hi: Some(1023),
                modulus: 1
            },
            Assumption {
                var: m(),
                lo: Some(32),
                hi: None,
                modulus: 32
            },
        ]
    );
    // Bounds beyond i64 are dropped; an argument without facts has no assumption.
    let s = sig(&e, (Some(-(1 << 70)), Some(5)), (None, None), 1);
    assert_eq!(
        s.assumptions,
        vec![Assumption {
            var: Var::Index,
            lo: None,
            hi: Some(5),
            modulus: 1
        }]
    );
    // Coordinates come first, then parameters by name.
    let l = parse_layout("(4,8):(8,1)").unwrap();
    let s = Signature::for_expr(&lower_coords(&l).unwrap(), "f", &HashMap::new(), &HashMap::new()).unwrap();
    assert_eq!(s.args, vec![Var::Coord(0), Var::Coord(1)]);
    assert!(s.assumptions.is_empty());
}

#[test]
fn the_comment_block_and_the_debug_checks_state_every_fact() {
    let e = expr();
    let mut s = sig(&e, (Some(0), Some(1023)), (Some(32), Some(256)), 32);
    s.notes = vec!["simplified and validated by z3".into()];
    let c = emit(&e, Lang::C, &s).unwrap();
    for want in [
        "//   0 <= i <= 1023\n",
        "//   32 <= M <= 256\n",
        "//   M % 32 == 0\n",
        "// simplified and validated by z3\n",
        "#include <assert.h>",
        "assert(0 <= i && i <= 1023);",
        "assert(32 <= M && M <= 256);",
        "assert(M % 32 == 0);",
        "static inline int64_t idx(int64_t i, int64_t M) {",
        // i >= 0 and M >= 32: C's operators are exact.
        "int64_t t2 = i % M;",
        "= i << 2;",
        "int64_t t6 = t5 >> 1;",
    ] {
        assert!(c.contains(want), "{want:?} missing from\n{c}");
    }
    assert!(!c.contains("tessera_floor"), "{c}");
    let r = emit(&e, Lang::Rust, &s).unwrap();
    for want in [
        "///   0 <= i <= 1023\n",
        "///   m % 32 == 0\n",
        "debug_assert!((0..=1023).contains(&i)",
        "debug_assert!((32..=256).contains(&m)",
        "debug_assert!(m % 32 == 0",
        "pub fn idx(i: i64, m: i64) -> i64 {",
        "let t2: i64 = i % m;",
    ] {
        assert!(r.contains(want), "{want:?} missing from\n{r}");
    }
    let cu = emit(&e, Lang::Cuda, &s).unwrap();
    assert!(
        cu.contains("#include <cstdint>") && cu.contains("__device__ __forceinline__ int64_t idx("),
        "{cu}"
    );
    let p = emit(&e, Lang::Ptx, &s).unwrap();
    for want in [
        ".version 8.0\n.target sm_80\n.address_size 64\n",
        "//   arg_M % 32 == 0\n",
        ".visible .func (.param .s64 ret_offset) idx(.param .s64 arg_i, .param .s64 arg_M)",
        "ld.param.s64 %t0, [arg_i];",
        "rem.s64 %t2, %t0, %t1;",
        "shl.b64 %t5, %t0, 2;",
        "shr.s64 %t6, %t5, 1;",
        "st.param.s64 [ret_offset], %t7;",
    ] {
        assert!(p.contains(want), "{want:?} missing from\n{p}");
    }
}

#[test]
fn without_facts_the_floor_and_shift_forms_are_portable() {
    let e = expr();
    let s = sig(&e, (Some(-100), Some(100)), (None, None), 1);
    let c = emit(&e, Lang::C, &s).unwrap();
    assert!(c.contains("int64_t t2 = tessera_floor_mod(i, M);"), "{c}");
    assert!(
        c.contains("#ifndef TESSERA_FLOOR_MOD_DEFINED") && !c.contains("tessera_floor_div"),
        "{c}"
    );
    assert!(
        c.contains("int64_t t5 = i * 4;"),
        "a left shift of a negative value is UB: {c}"
    );
    assert!(c.contains("int64_t t6 = t5 < 0 ? ~(~t5 >> 1) : t5 >> 1;"), "{c}");
    let r = emit(&e, Lang::Rust, &s).unwrap();
    assert!(
        r.contains("fn floor_mod(a: i64, b: i64) -> i64") && r.contains("floor_mod(i, m)"),
        "{r}"
    );
    let p = emit(&e, Lang::Ptx, &s).unwrap();
    assert!(p.contains("setp.lt.s64") && p.contains("selp.s64 %t2"), "{p}");
    assert!(c.contains(
        "Assumes (the arithmetic is exact for every value these admit):\n//   -100 <= i <= 100\n//"
    ));
    // No facts at all.
    let bare = Signature::for_expr(&e, "idx", &HashMap::new(), &HashMap::new()).unwrap();
    let c = emit(&e, Lang::C, &bare).unwrap();
    assert!(
        c.contains("// Assumes nothing about its arguments.") && !c.contains("    assert("),
        "{c}"
    );
}

#[test]
fn several_outputs_are_sanitized_and_written_through_pointers() {
    assert_eq!(sanitize("coord[0]"), "coord_0");
    assert_eq!(sanitize("a..b"), "a_b");
    assert_eq!(sanitize("]"), "_");
    let l = parse_layout("(4,8):(1@0,1@1)").unwrap();
    let e = lower_index(&l).unwrap();
    let ranges = HashMap::from([(Var::Index, Interval::new(Some(0), Some(31)))]);
    let s = Signature::for_expr(&e, "crd", &ranges, &HashMap::new()).unwrap();
    let c = emit(&e, Lang::C, &s).unwrap();
    assert!(
        c.contains("static inline void crd(int64_t i, int64_t *out_coord_0, int64_t *out_coord_1) {"),
        "{c}"
    );
    assert!(
        c.contains("*out_coord_0 = t2;")
            && c.contains("Writes coord[0], coord[1] through out_coord_0, out_coord_1."),
        "{c}"
    );
    let r = emit(&e, Lang::Rust, &s).unwrap();
    assert!(
        r.contains("pub fn crd(i: i64) -> (i64, i64) {") && r.contains("Returns (coord[0], coord[1])."),
        "{r}"
    );
    let p = emit(&e, Lang::Ptx, &s).unwrap();
    assert!(
        p.contains(".visible .func (.param .align 8 .b8 ret[16]) crd(.param .s64 arg_i)"),
        "{p}"
    );
    assert!(
        p.contains("st.param.s64 [ret], ") && p.contains("st.param.s64 [ret+8], "),
        "{p}"
    );
}

#[test]
fn rust_names_are_snake_case_and_unused_arguments_are_used() {
    let mut b = Builder::new();
    let i = b.var(Var::Index);
    let e = b.finish(vec![("offset".into(), i)]);
    let s = Signature {
        name: "TileOffset".into(),
        args: vec![Var::Index, Var::Param("BlockM".into())],
        assumptions: vec![],
        notes: vec![],
    };
    let r = emit(&e, Lang::Rust, &s).unwrap();
    assert!(
        r.contains("pub fn tile_offset(i: i64, block_m: i64) -> i64 {"),
        "{r}"
    );
    assert!(r.contains("let _ = block_m;"), "{r}");
    assert!(
        r.contains("/// Arguments: i, block_m (for BlockM). Returns offset."),
        "{r}"
    );
    let c = emit(&e, Lang::C, &s).unwrap();
    assert!(
        c.contains("static inline int64_t TileOffset(int64_t i, int64_t BlockM) {"),
        "{c}"
    );
}

fn err(e: &IndexExpr, lang: Lang, s: &Signature) -> EmitError {
    emit(e, lang, s).unwrap_err()
}

#[test]
fn errors() {
    let e = expr();
    let good = sig(&e, (Some(0), Some(9)), (Some(1), None), 1);
    let with = |f: &dyn Fn(&mut Signature)| {
        let mut s = good.clone();
        f(&mut s);
        s
    };
    let s = with(&|s| s.name = "int".into());
    assert!(matches!(err(&e, Lang::C, &s), EmitError::InvalidName { .. }));
    assert!(emit(&e, Lang::Rust, &s).is_ok(), "int is no keyword in Rust");
    let s = with(&|s| s.name = "fn".into());
    assert!(matches!(err(&e, Lang::Rust, &s), EmitError::InvalidName { .. }));
    for bad in ["1f", "", "a-b", "t12", "out_x", "tessera_f"] {
        let s = with(&|s| s.name = bad.into());
        assert!(
            matches!(err(&e, Lang::C, &s), EmitError::InvalidName { .. }),
            "{bad}"
        );
    }
    let s = with(&|s| s.args = vec![Var::Index]);
    assert_eq!(err(&e, Lang::C, &s), EmitError::MissingArgument(m()));
    let s = with(&|s| s.args = vec![Var::Index, m(), Var::Index]);
    assert_eq!(err(&e, Lang::C, &s), EmitError::DuplicateArgument(Var::Index));
    let s = with(&|s| s.args.push(Var::Param("m".into())));
    assert!(
        matches!(err(&e, Lang::Rust, &s), EmitError::NameClash(..)),
        "M and m are both m in Rust"
    );
    assert!(emit(&e, Lang::C, &s).is_ok());
    let s = with(&|s| s.args.push(Var::Param("double".into())));
    assert!(matches!(err(&e, Lang::Cuda, &s), EmitError::InvalidName { .. }));
    let s = with(&|s| s.assumptions[0].modulus = 0);
    assert!(matches!(
        err(&e, Lang::C, &s),
        EmitError::BadModulus { modulus: 0, .. }
    ));
    let s = with(&|s| {
        s.assumptions.push(Assumption {
            var: Var::Index,
            lo: Some(3),
            hi: Some(5),
            modulus: 4,
        })
    });
    assert!(
        emit(&e, Lang::C, &s).is_ok(),
        "0 <= i <= 9 and 3 <= i <= 5 with i % 4 == 0: i = 4"
    );
    let s = with(&|s| {
        s.assumptions.push(Assumption {
            var: Var::Index,
            lo: Some(5),
            hi: Some(7),
            modulus: 4,
        })
    });
    assert!(matches!(err(&e, Lang::C, &s), EmitError::EmptyRange { .. }));
    let s = with(&|s| {
        s.assumptions.push(Assumption {
            var: Var::Coord(3),
            lo: None,
            hi: None,
            modulus: 2,
        })
    });
    assert_eq!(
        err(&e, Lang::C, &s),
        EmitError::AssumptionOnNonArgument(Var::Coord(3))
    );
    let empty = Builder::new().finish(vec![]);
    assert_eq!(err(&empty, Lang::Ptx, &good), EmitError::NoOutputs);
    // Outputs that collide once sanitized.
    let mut b = Builder::new();
    let i = b.var(Var::Index);
    let clash = b.finish(vec![("a[0]".into(), i), ("a_0".into(), i)]);
    assert!(matches!(err(&clash, Lang::C, &good), EmitError::NameClash(..)));
    // A shift by a variable, or by 63.
    let shift = |by: &dyn Fn(&mut Builder) -> NodeId| {
        let mut b = Builder::new();
        let i = b.var(Var::Index);
        let k = by(&mut b);
        let s = b.shl(i, k);
        b.finish(vec![("offset".into(), s)])
    };
    let e1 = shift(&|b| b.var(m()));
    assert!(matches!(err(&e1, Lang::C, &good), EmitError::ShiftAmount { .. }));
    let e2 = shift(&|b| b.konst(63));
    assert!(matches!(
        err(&e2, Lang::Rust, &good),
        EmitError::ShiftAmount { .. }
    ));
    assert_eq!("f90".parse::<Lang>(), Err(EmitError::UnknownLang("f90".into())));
    // The messages say what is wrong.
    assert_eq!(
        EmitError::MissingArgument(m()).to_string(),
        "the expression reads M, which is not an argument of the signature"
    );
    let msg = err(&e, Lang::C, &with(&|s| s.name = "int".into())).to_string();
    assert_eq!(msg, "'int' cannot be used as a name: a reserved word in c");
}

#[test]
fn for_expr_rejects_impossible_facts() {
    let e = expr();
    let ranges = HashMap::from([(Var::Index, Interval::new(Some(1), Some(3)))]);
    let r = Signature::for_expr(&e, "f", &ranges, &HashMap::from([(Var::Index, 4)]));
    assert!(
        matches!(r, Err(EmitError::EmptyRange { lo: 4, hi: 0, .. })),
        "{r:?}"
    );
    let r = Signature::for_expr(&e, "f", &HashMap::new(), &HashMap::from([(m(), -2)]));
    assert!(
        matches!(r, Err(EmitError::BadModulus { modulus: -2, .. })),
        "{r:?}"
    );
}
