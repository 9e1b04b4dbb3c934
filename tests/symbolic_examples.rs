//! The examples of the symbolic-extents issue, and the error messages for missing assumptions.

use std::collections::HashMap;
use tessera::ir::{Layout, parse_layout};
use tessera::lang::eval_str;
use tessera::lang::{Session, Value};

fn session(params: &[&str]) -> Session {
    Session::new(params, &[]).unwrap()
}

/// Evaluates a symbolic layout result at concrete parameter values.
fn at(s: &Session, expr: &str, vals: &[(&str, i64)]) -> Layout<i64> {
    let binds: Vec<String> = vals.iter().map(|(n, v)| format!("{n}={v}")).collect();
    let b: Vec<&str> = binds.iter().map(String::as_str).collect();
    let names: Vec<&str> = vals.iter().map(|(n, _)| *n).collect();
    let sym = s.eval(expr).unwrap();
    let conc = Session::new(&names, &b).unwrap().eval(&sym).unwrap();
    parse_layout(&conc).unwrap()
}

fn same_function(a: &Layout<i64>, b: &Layout<i64>) {
    assert_eq!(a.size().unwrap(), b.size().unwrap(), "{a} vs {b}");
    for i in 0..a.size().unwrap() {
        assert_eq!(
            a.eval_index(&i).unwrap(),
            b.eval_index(&i).unwrap(),
            "{a} vs {b} at {i}"
        );
    }
}

#[test]
fn right_inverse_of_a_dynamic_tile() {
    let s = session(&["N"]);
    // CuTe's DSL refuses this with a dynamic N. As a function it is (16,N):(1,16); Tessera
    // coalesces it, as PyCuTe does for every right inverse.
    assert_eq!(s.eval("right_inverse((16,N):(1,16))").unwrap(), "16*N:1");
    for n in [1, 3, 8] {
        let r = at(&s, "right_inverse((16,N):(1,16))", &[("N", n)]);
        same_function(&r, &parse_layout(&format!("(16,{n}):(1,16)")).unwrap());
        let l = parse_layout(&format!("(16,{n}):(1,16)")).unwrap();
        for k in 0..r.size().unwrap() {
            let rk = *r.eval_index(&k).unwrap().as_int().unwrap();
            assert_eq!(l.eval_index(&rk).unwrap().as_int(), Some(&k));
        }
    }
}

#[test]
fn logical_divide_of_an_mn_tile() {
    let s = session(&["M where M % 128 == 0", "N where N % 64 == 0"]);
    assert_eq!(
        s.eval("logical_divide((M,N):(1,M), (128:1,64:1))").unwrap(),
        "((128,M/128),(64,N/64)):((1,128),(M,64*M))"
    );
}

#[test]
fn coalesce_complement_and_composition() {
    let s = session(&["M", "N"]);
    assert_eq!(s.eval("coalesce((M,N):(1,M))").unwrap(), "M*N:1");
    assert_eq!(s.eval("complement((4,M):(1,4))").unwrap(), "1:4*M");
    assert_eq!(s.eval("complement((4,M):(1,4), 4*M*N)").unwrap(), "N:4*M");
    assert_eq!(
        s.eval("composition((M,N):(1,M), (4,8):(1,M))").unwrap(),
        "(4,8):(1,M)"
    );
    let t = session(&["M where M % 16 == 0, M >= 64", "N"]);
    assert_eq!(
        t.eval("composition((M,N):(1,M), (16,4):(1,16))").unwrap(),
        "(16,4):(1,16)"
    );
    assert_eq!(
        t.eval("composition((M,N):(64,1), (4,N):(1,M))").unwrap(),
        "(4,N):(64,1)"
    );
}

#[test]
fn missing_assumptions_are_named() {
    let s = session(&["N where N >= 32"]);
    let e = s
        .eval("composition((16,8):(1,100), N:1)")
        .unwrap_err()
        .to_string();
    assert_eq!(e, "composition needs N % 16 == 0 (mode 0 of B)");
    let ok = session(&["N where N % 16 == 0, N <= 128"]);
    assert_eq!(
        ok.eval("composition((16,8):(1,100), N:1)").unwrap(),
        "(16,N/16):(1,100)"
    );

    let e = session(&["M"]).eval("(16,M/16):(1,16)").unwrap_err().to_string();
    assert_eq!(e, "exact division needs M % 16 == 0");

    let e = session(&["M"])
        .eval("composition((8,4):(1,100), M:1)")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "composition needs a fact deciding whether M <= 8 (mode 0 of B)"
    );
    assert_eq!(
        session(&["M where M <= 8"])
            .eval("composition((8,4):(1,100), M:1)")
            .unwrap(),
        "M:1"
    );

    // A definite failure is a condition error, not a request for facts.
    let e = session(&["M where M % 16 == 0"])
        .eval("composition((4,3):(0,1), (2,3):(2,1))")
        .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("composition: modes 0 and 1 of B overlap"),
        "{e}"
    );
}

#[test]
fn bind_substitutes_and_checks_values() {
    let s = Session::new(&["M where M % 128 == 0"], &["M=256"]).unwrap();
    assert!(!s.is_symbolic());
    assert_eq!(s.eval("logical_divide(M:1, 128:1)").unwrap(), "(128,2):(1,128)");
    let e = Session::new(&["M where M % 128 == 0"], &["M=100"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("violates"), "{e}");
    // Partially bound: N stays symbolic.
    let p = Session::new(&["M", "N"], &["M=4"]).unwrap();
    assert_eq!(p.eval("coalesce((M,N):(1,M))").unwrap(), "4*N:1");
}

#[test]
fn results_print_in_the_expression_language() {
    let s = session(&["M where M % 16 == 0"]);
    let text = s.eval("zipped_divide((M,8):(1,M), (16,4))").unwrap();
    assert_eq!(text, "((16,4),(M/16,2)):((1,M),(16,4*M))");
    // The printed form parses back under the same facts, to the same value.
    assert_eq!(s.eval(&text).unwrap(), text);
    match s.value("size((M,8))").unwrap() {
        Value::Int(v) => assert_eq!(v.eval(&HashMap::from([("M".to_string(), 32)])).unwrap(), 256),
        v => panic!("{v}"),
    }
}

#[test]
fn declarations_reject_bad_facts() {
    assert!(Session::new(&["M where M % 0 == 0"], &[]).is_err());
    assert!(Session::new(&["M where 10 <= M <= 5"], &[]).is_err());
    assert!(Session::new(&["size"], &[]).is_err());
    assert!(Session::new(&["M where M <"], &[]).is_err());
    assert!(
        eval_str("(M,4):(1,M)")
            .unwrap_err()
            .to_string()
            .contains("--param M")
    );
}
