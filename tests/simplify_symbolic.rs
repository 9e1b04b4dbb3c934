//! The simplifier on random symbolic layouts (a parameter in shapes and strides, nested modes,
//! swizzles over concrete layouts, coordinates), lowered, simplified and validated: the
//! validation never refutes, and the result equals the lowering at random points and random
//! admitted parameter values. Also: tiny e-graph limits end in a validated result, never a hang.

use proptest::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;
use tessera::lang::Session;
use tessera::lower::lower_value;
use tessera::verifier::{Options, Verdict, simplify_validated};
use tessera_ir::index::Var;
use tessera_ir::simplify::Limits;

const DECL: &str = "M where M % 4 == 0, 4 <= M <= 64";

/// A symbolic layout: leaves and strides from small constants and `M`-terms.
fn symbolic_layout() -> impl Strategy<Value = (String, bool)> {
    let leaf = prop_oneof![
        (1i64..=6).prop_map(|v| v.to_string()),
        Just("M".to_string()),
        Just("M/4".to_string()),
    ];
    let stride = prop_oneof![
        (0i64..=9).prop_map(|v| v.to_string()),
        Just("M".to_string()),
        Just("2*M".to_string()),
        Just("M+1".to_string()),
    ];
    (
        prop::collection::vec((leaf, stride), 1..=4),
        any::<bool>(),
        0usize..3,
    )
        .prop_map(|(modes, coords, nest)| {
            let (mut sh, mut st): (Vec<String>, Vec<String>) = modes.into_iter().unzip();
            if sh.len() >= 3 && nest < sh.len() - 1 {
                let (a, b) = (sh.remove(nest + 1), st.remove(nest + 1));
                sh[nest] = format!("({},{a})", sh[nest]);
                st[nest] = format!("({},{b})", st[nest]);
            }
            (format!("({}):({})", sh.join(","), st.join(",")), coords)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn symbolic_layouts_simplify_to_equal_validated_code(
        (src, coords) in symbolic_layout(),
        picks in prop::collection::vec((1i64..=16, 0i64..1_000_000), 8),
    ) {
        let s = Session::new(&[DECL], &[]).unwrap();
        let Ok(l) = lower_value(&s, &src, coords, &[]) else { return Ok(()) };
        let facts = Arc::new(s.facts().clone());
        let opts = Options { timeout_ms: Some(3_000) };
        let v = simplify_validated(&l.expr, &l.domain, &facts, &Limits::default(), &opts, true).unwrap();
        prop_assert!(!matches!(v.validation, Some(Verdict::Refuted(_)) | Some(Verdict::Internal(_))),
            "{}: {:?}\n{}", src, v.validation, v.candidate);
        // The candidate itself (validated or not) equals the lowering at random points.
        let inputs = l.expr.inputs();
        for (m4, r) in &picks {
            let m = 4 * m4;
            let mut at: HashMap<Var, i64> = HashMap::new();
            at.insert(Var::Param("M".into()), m);
            let session = Session::new(&[DECL], &[&format!("M={m}")]).unwrap();
            let Ok(concrete) = lower_value(&session, &src, coords, &[]) else { continue };
            for v in &inputs {
                if matches!(v, Var::Param(_)) {
                    continue;
                }
                // The concrete domain at this M.
                let Some(range) = concrete.domain.ranges().get(v) else { continue };
                let (lo, hi) = (range.lo().unwrap() as i64, range.hi().unwrap() as i64);
                if hi < lo {
                    continue;
                }
                at.insert(v.clone(), lo + r % (hi - lo + 1));
            }
            if let Ok(want) = l.expr.eval_vars(&at) {
                prop_assert_eq!(v.candidate.eval_vars(&at).ok(), Some(want), "{} at {:?}\n{}", src, at, v.candidate);
            }
        }
    }
}

#[test]
fn tiny_limits_end_in_a_validated_result() {
    let s = Session::new(&[], &[]).unwrap();
    let l = lower_value(&s, "Sw<3,3,3> o ((8,16),64):((64,512),1)", false, &[]).unwrap();
    let facts = Arc::new(s.facts().clone());
    for limits in [
        Limits {
            nodes: 10,
            ..Limits::default()
        },
        Limits {
            iterations: 1,
            ..Limits::default()
        },
    ] {
        let v = simplify_validated(&l.expr, &l.domain, &facts, &limits, &Options::default(), true).unwrap();
        assert!(v.after.weighted <= v.before.weighted);
        assert!(
            matches!(v.validation, None | Some(Verdict::Proved)),
            "{:?}",
            v.validation
        );
        assert_ne!(v.stop, tessera_ir::simplify::Stop::Saturated, "{limits:?}");
    }
}

/// The time limit is a safety limit: reaching it fails the simplification (an error the user
/// sees), it never hands back a different, less simplified expression.
#[test]
fn the_time_limit_fails_rather_than_changing_the_result() {
    let s = Session::new(&[], &[]).unwrap();
    let l = lower_value(&s, "Sw<3,3,3> o ((8,16),64):((64,512),1)", false, &[]).unwrap();
    let facts = Arc::new(s.facts().clone());
    let limits = Limits {
        time: std::time::Duration::from_nanos(1),
        ..Limits::default()
    };
    let e = simplify_validated(&l.expr, &l.domain, &facts, &limits, &Options::default(), true).unwrap_err();
    assert!(e.to_string().contains("safety time limit"), "{e}");
}
