//! The central oracle of the symbolic algebra: for random symbolic layouts and random
//! parameter values that satisfy the assumptions, the symbolic result instantiated at those
//! values equals the concrete algebra's result on the instantiated inputs, at every index.
//!
//! A symbolic result that is an error naming a missing assumption is allowed (it is never a
//! guess); the test checks that enough cases are decided for the comparison to mean something.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use tessera::ir::sym::SymInt;
use tessera::ir::{Error, Layout, parse_layout};
use tessera::lang::eval_str;
use tessera::lang::{Session, Value};

const PARAMS: [&str; 2] = [
    "M where M % 16 == 0, 32 <= M <= 256",
    "N where N % 8 == 0, 16 <= N <= 64",
];

fn extent() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (1i64..=8).prop_map(|c| c.to_string()),
        2 => Just("M".to_string()),
        2 => Just("N".to_string()),
        1 => Just("M/16".to_string()),
        1 => Just("N/8".to_string()),
        1 => Just("2*N".to_string()),
    ]
}

/// A random layout text over M and N: compact in a random order, with gaps, or with zeros.
fn layout() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(extent(), 1..=3),
        0u8..4,
        any::<u64>(),
        any::<bool>(),
    )
        .prop_map(|(ext, kind, seed, nest)| {
            let n = ext.len();
            let mut order: Vec<usize> = (0..n).collect();
            let mut s = seed;
            for k in (1..n).rev() {
                let j = (s % (k as u64 + 1)) as usize;
                order.swap(k, j);
                s /= 7;
            }
            let mut strides = vec![String::new(); n];
            let mut acc = "1".to_string();
            for &k in &order {
                strides[k] = match kind {
                    3 if s % 3 == 0 => "0".to_string(),
                    _ => acc.clone(),
                };
                s /= 3;
                let gap = if kind == 2 { "*2" } else { "" };
                acc = format!("{acc}*{}{gap}", ext[k]);
            }
            if nest && n == 3 {
                format!(
                    "(({},{}),{}):(({},{}),{})",
                    ext[0], ext[1], ext[2], strides[0], strides[1], strides[2]
                )
            } else if n == 1 {
                format!("{}:{}", ext[0], strides[0])
            } else {
                format!("({}):({})", ext.join(","), strides.join(","))
            }
        })
}

/// A small concrete tile.
fn tile() -> impl Strategy<Value = String> {
    prop_oneof![
        (
            prop::sample::select(vec![2i64, 4, 8, 16]),
            prop::sample::select(vec![1i64, 2])
        )
            .prop_map(|(n, d)| format!("{n}:{d}")),
        (
            prop::sample::select(vec![2i64, 4]),
            prop::sample::select(vec![2i64, 4])
        )
            .prop_map(|(a, b)| format!("({a},{b}):(1,{a})")),
    ]
}

fn op_expr() -> impl Strategy<Value = String> {
    (layout(), tile(), layout(), 0u8..12).prop_map(|(a, t, b, op)| match op {
        0 => format!("coalesce({a})"),
        1 => format!("composition({a}, {t})"),
        2 => format!("complement({a})"),
        3 => format!("complement({a}, 4096)"),
        4 => format!("logical_divide({a}, {t})"),
        5 => format!("logical_product({t}, {a})"),
        6 => format!("right_inverse({a})"),
        7 => format!("left_inverse({a})"),
        8 => format!("nullspace({a})"),
        9 => format!("filter({a})"),
        10 => format!("composition({a}, {b})"),
        _ => format!("zipped_divide({a}, ({t}))"),
    })
}

fn instantiate(l: &Layout<SymInt>, vals: &HashMap<String, i64>) -> Result<Layout<i64>, Error> {
    l.instantiate(vals)
}

fn substitute(expr: &str, m: i64, n: i64) -> String {
    expr.replace('M', &m.to_string()).replace('N', &n.to_string())
}

static DECIDED: AtomicUsize = AtomicUsize::new(0);
static TOTAL: AtomicUsize = AtomicUsize::new(0);

fn check(expr: &str, session: &Session) -> Result<(), TestCaseError> {
    TOTAL.fetch_add(1, Ordering::Relaxed);
    let sym = session.value(expr);
    let sym = match sym {
        Ok(Value::Layout(l)) => l,
        Ok(other) => return Err(TestCaseError::fail(format!("{expr}: unexpected {other}"))),
        Err(Error::Undecided { .. }) => return Ok(()),
        Err(e) => {
            // A definite error must hold for every admitted valuation.
            for (m, n) in [(32, 16), (64, 24), (256, 64)] {
                let c = eval_str(&substitute(expr, m, n));
                prop_assert!(
                    c.is_err(),
                    "{expr}: symbolic error '{e}' but M={m},N={n} gives {c:?}"
                );
            }
            return Ok(());
        }
    };
    DECIDED.fetch_add(1, Ordering::Relaxed);
    for (m, n) in [(32, 16), (48, 40), (64, 24), (128, 8 * 3), (256, 64)] {
        let vals: HashMap<String, i64> = [("M".to_string(), m), ("N".to_string(), n)].into_iter().collect();
        let r_sym = instantiate(&sym, &vals)
            .map_err(|e| TestCaseError::fail(format!("{expr}: instantiate {sym}: {e}")))?;
        let text = substitute(expr, m, n);
        let r_con = eval_str(&text).map_err(|e| {
            TestCaseError::fail(format!("{expr} = {sym} symbolically, but {text} fails: {e}"))
        })?;
        let r_con = parse_layout(&r_con).map_err(|e| TestCaseError::fail(format!("{r_con}: {e}")))?;
        let (ns, nc) = (r_sym.size().unwrap_or(-1), r_con.size().unwrap_or(-2));
        prop_assert_eq!(
            ns,
            nc,
            "{} at M={},N={}: symbolic {} vs concrete {}",
            expr,
            m,
            n,
            r_sym,
            r_con
        );
        for i in 0..ns.min(4096) {
            prop_assert_eq!(
                r_sym.eval_index(&i).ok(),
                r_con.eval_index(&i).ok(),
                "{} at M={},N={}, index {}: symbolic {} vs concrete {}",
                expr,
                m,
                n,
                i,
                r_sym,
                r_con
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]
    #[test]
    fn symbolic_equals_concrete_pointwise(expr in op_expr()) {
        let session = Session::new(&PARAMS, &[]).unwrap();
        check(&expr, &session)?;
    }
}

#[test]
fn enough_cases_are_decided() {
    // Run a fixed sample so that this test does not depend on the order tests run in.
    let session = Session::new(&PARAMS, &[]).unwrap();
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut decided = 0;
    let n = 300;
    for _ in 0..n {
        let expr = op_expr().new_tree(&mut runner).unwrap().current();
        if let Ok(Value::Layout(_)) = session.value(&expr) {
            decided += 1;
        }
        check(&expr, &session).unwrap();
    }
    assert!(
        decided * 2 > n,
        "only {decided} of {n} symbolic cases were decided"
    );
}
