//! Parameters whose stated ranges include zero and negative values: the stated bound is the
//! bound, and every decision of the symbolic integers (ordering, divisibility, division,
//! gcd) holds at every admitted valuation, compared with the same operation on `i64`.

use std::collections::HashMap;
use std::sync::Arc;
use tessera_ir::Int;
use tessera_ir::sym::{Facts, SymInt};

#[test]
fn stated_lower_bounds_are_the_bounds() {
    let mut f = Facts::default();
    f.declare("K where -4 <= K <= 4").unwrap();
    f.declare("S where 0 <= S <= 4").unwrap();
    f.declare("Z where Z == 0").unwrap();
    f.declare("N").unwrap();
    f.declare("P where P <= 9").unwrap();
    f.declare("T where T >= -3, T >= -7, T > -2").unwrap();
    let g = |n: &str| f.get(n).unwrap().clone();
    assert_eq!((g("K").lo, g("K").hi), (-4, Some(4)));
    assert!(g("K").admits(-1) && g("S").admits(0) && g("Z").admits(0));
    // No stated lower bound: at least 1.
    assert_eq!((g("N").lo, g("P").lo), (1, 1));
    assert!(!g("N").admits(0));
    // Several lower bounds: the tightest.
    assert_eq!(g("T").lo, -1);
    // An upper bound below the default lower bound, with no lower bound stated.
    let e = Facts::default()
        .declare("Q where Q <= 0")
        .unwrap_err()
        .to_string();
    assert!(e.contains("admit no value") && e.contains("Q >= 1"), "{e}");
    assert!(Facts::default().declare("Q where 0 <= Q <= 0").is_ok());
}

/// Every valuation of the parameters.
fn valuations() -> Vec<HashMap<String, i64>> {
    let mut out = Vec::new();
    for s in -2..=2 {
        for k in 0..=3 {
            for t in -3..=-1 {
                out.push(HashMap::from([("S".into(), s), ("K".into(), k), ("T".into(), t)]));
            }
        }
    }
    out
}

fn exprs() -> Vec<SymInt> {
    let mut f = Facts::default();
    f.declare("S where -2 <= S <= 2").unwrap();
    f.declare("K where 0 <= K <= 3").unwrap();
    f.declare("T where -3 <= T <= -1").unwrap();
    let f = Arc::new(f);
    let atoms: Vec<SymInt> = vec![
        SymInt::param("S", &f),
        SymInt::param("K", &f),
        SymInt::param("T", &f),
        SymInt::lit(0),
        SymInt::lit(1),
        SymInt::lit(-2),
        SymInt::lit(4),
    ];
    let mut out = atoms.clone();
    for a in &atoms {
        for b in &atoms {
            out.push(a.add(b).unwrap());
            out.push(a.mul(b).unwrap());
            out.push(a.sub(&b.mul(&SymInt::lit(2)).unwrap()).unwrap());
        }
    }
    out.sort_by_key(|x| x.to_string());
    out.dedup();
    out
}

type BoolOp = fn(&SymInt, &SymInt) -> tessera_ir::Result<bool>;
type ConBool = fn(i64, i64) -> Option<bool>;
type ValOp = fn(&SymInt, &SymInt) -> tessera_ir::Result<SymInt>;
type ConVal = fn(i64, i64) -> tessera_ir::Result<i64>;

#[test]
fn decisions_hold_at_every_valuation() {
    let (xs, vals) = (exprs(), valuations());
    let at = |x: &SymInt, v: &HashMap<String, i64>| x.eval(v).unwrap();
    let (mut decided, mut total) = (0usize, 0usize);
    for x in &xs {
        for y in &xs {
            let bool_ops: [(&str, BoolOp, ConBool); 4] = [
                ("<", |a, b| a.less(b), |a, b| Some(a < b)),
                ("<=", |a, b| a.less_eq(b), |a, b| Some(a <= b)),
                ("==", |a, b| a.eq_val(b), |a, b| Some(a == b)),
                ("divides", |a, b| a.divides(b), |a, b| a.divides(&b).ok()),
            ];
            for (name, sym, con) in bool_ops {
                total += 1;
                if let Ok(r) = sym(x, y) {
                    decided += 1;
                    for v in &vals {
                        let (a, b) = (at(x, v), at(y, v));
                        assert_eq!(Some(r), con(a, b), "{x} {name} {y} at {v:?} ({a}, {b})");
                    }
                }
            }
            let val_ops: [(&str, ValOp, ConVal); 4] = [
                ("floor_div", |a, b| a.floor_div(b), |a, b| a.floor_div(&b)),
                ("floor_mod", |a, b| a.floor_mod(b), |a, b| a.floor_mod(&b)),
                ("gcd", |a, b| a.gcd(b), |a, b| a.gcd(&b)),
                ("div_up", |a, b| a.div_up(b), |a, b| a.div_up(&b)),
            ];
            for (name, sym, con) in val_ops {
                total += 1;
                if let Ok(r) = sym(x, y) {
                    decided += 1;
                    for v in &vals {
                        let (a, b) = (at(x, v), at(y, v));
                        let want = con(a, b);
                        assert!(
                            want.is_ok(),
                            "{name}({x}, {y}) = {r} but at {v:?} {name}({a}, {b}) fails"
                        );
                        assert_eq!(r.eval(v).ok(), want.ok(), "{name}({x}, {y}) = {r} at {v:?}");
                    }
                }
            }
        }
    }
    // The comparison means something only if many cases are decided.
    assert!(decided * 3 > total, "{decided} of {total} decided");
}
