//! The by-mode algebra (`composition`, `logical_divide` and `logical_product` with a tuple
//! tiler) against a reference written as its definition: each top-level mode of `A` taken as a
//! layout of its own, the operation applied to it, the results concatenated. The algebra walks
//! the modes in place and writes one result (`by_mode.rs`); both must give the same layouts
//! and the same errors. And the tilers read in place (`TilerView`, which the Python binding
//! builds from its objects) against the owned `Tiler` they stand for.

mod common;

use common::*;
use proptest::prelude::*;
use tessera_ir::Layout;
use tessera_ir::algebra::*;

type L = Layout<i64>;

/// The reference by-mode application: `f` on each (sub-)mode, built and concatenated.
fn reference(
    op: &'static str,
    a: &L,
    t: &Tiler<i64>,
    f: &dyn Fn(&L, &L) -> tessera_ir::Result<L>,
) -> tessera_ir::Result<L> {
    match t {
        Tiler::Keep => Ok(a.clone()),
        Tiler::Layout(b) => f(a, b),
        Tiler::Tuple(ts) => {
            if a.rank() < ts.len() {
                return Err(tessera_ir::Error::cond(
                    op,
                    format!("tiler has {} modes but {a} has rank {}", ts.len(), a.rank()),
                ));
            }
            let mut out = Vec::new();
            for (k, m) in top_modes(a).iter().enumerate() {
                out.push(match ts.get(k) {
                    Some(t) => reference(op, m, t, f)?,
                    None => m.clone(),
                });
            }
            Ok(Layout::concat(out))
        }
    }
}

/// The view of an owned tiler: layouts borrowed, and every `n:1` leaf read as `Unit(n)` (the
/// binding's reading of an int), so that both forms of a view entry are exercised.
fn view(t: &Tiler<i64>) -> TilerView<'_, i64> {
    match t {
        Tiler::Keep => TilerView::Keep,
        Tiler::Layout(l) => match (l.shape().as_leaf(), l.flat_stride()) {
            (Some(&n), [d]) if d.as_int() == Some(&1) => TilerView::Unit(n),
            _ => TilerView::Layout(l),
        },
        Tiler::Tuple(ts) => TilerView::Tuple(ts.iter().map(view).collect()),
    }
}

/// A layout and a tiler for it; a tuple tiler sometimes has an entry past the rank of `A` (the
/// rank error), and sometimes an int-like entry `n:1`.
fn with_tiler() -> impl Strategy<Value = (L, Tiler<i64>)> {
    layout(Gen::ANY)
        .prop_flat_map(|a| (Just(a.clone()), tiler(&a), 0..8u8, 1..5i64))
        .prop_map(|(a, t, pick, n)| {
            let t = match (t, pick) {
                (Tiler::Tuple(mut ts), 0) => {
                    ts.extend(std::iter::repeat_n(
                        Tiler::Keep,
                        a.rank() + 1 - ts.len().min(a.rank()),
                    ));
                    Tiler::Tuple(ts)
                }
                (Tiler::Tuple(mut ts), 1) => {
                    ts[0] = Tiler::Layout(Layout::leaf(n, 1));
                    Tiler::Tuple(ts)
                }
                (t, _) => t,
            };
            (a, t)
        })
}

fn text(r: tessera_ir::Result<L>) -> Result<String, String> {
    r.map(|l| l.to_string()).map_err(|e| e.to_string())
}

proptest! {
    #![proptest_config(cfg(3000))]

    #[test]
    fn composition_by_mode_is_its_definition((a, t) in with_tiler()) {
        let got = text(composition_tiler(&a, &t));
        let want = text(reference("composition", &a, &t, &|x, y| composition(x, y)));
        prop_assert_eq!(&got, &want, "A = {}, T = {}", a, t);
        prop_assert_eq!(text(composition_view(&a, &view(&t))), got, "view: A = {}, T = {}", a, t);
    }

    #[test]
    fn logical_divide_by_mode_is_its_definition((a, t) in with_tiler()) {
        let got = text(logical_divide(&a, &t));
        let by_layout = |x: &L, y: &L| logical_divide(x, &Tiler::Layout(y.clone()));
        let want = text(reference("logical_divide", &a, &t, &by_layout));
        prop_assert_eq!(&got, &want, "A = {}, T = {}", a, t);
        prop_assert_eq!(text(logical_divide_view(&a, &view(&t))), got, "view: A = {}, T = {}", a, t);
    }

    #[test]
    fn logical_product_by_mode_is_its_definition((a, t) in with_tiler()) {
        let got = text(logical_product(&a, &t));
        let by_layout = |x: &L, y: &L| logical_product(x, &Tiler::Layout(y.clone()));
        let want = text(reference("logical_product", &a, &t, &by_layout));
        prop_assert_eq!(&got, &want, "A = {}, T = {}", a, t);
    }
}

/// The comparison is not vacuous: on fixed cases, each path answers, and the rank error and a
/// failed condition inside a mode come out the same.
#[test]
fn fixed_cases_answer_and_fail_alike() {
    let l = |s: &str| tessera_ir::parse_layout(s).unwrap();
    let a = l("((4,6),8):((1,4),24)");
    let t = Tiler::Tuple(vec![
        Tiler::Tuple(vec![Tiler::Layout(l("2:1")), Tiler::Keep]),
        Tiler::Layout(l("4:2")),
    ]);
    let got = composition_tiler(&a, &t).unwrap();
    assert_eq!(got.to_string(), "((2,6),4):((1,4),48)");
    assert_eq!(composition_view(&a, &view(&t)).unwrap(), got);
    let d = logical_divide(&a, &t).unwrap();
    assert_eq!(d.to_string(), "(((2,2),6),(4,2)):(((1,2),4),(48,24))");
    assert_eq!(logical_divide_view(&a, &view(&t)).unwrap(), d);
    let over = Tiler::Tuple(vec![Tiler::Keep, Tiler::Keep, Tiler::Keep]);
    let e = composition_view(&a, &view(&over)).unwrap_err().to_string();
    assert_eq!(
        e,
        "composition: tiler has 3 modes but ((4,6),8):((1,4),24) has rank 2"
    );
    // (2,2):(1,3) never reaches 2, 5, 8, 11: no grid of it covers mode 0, 12:1.
    let a = l("(12,8):(1,12)");
    let bad = Tiler::Tuple(vec![Tiler::Layout(l("(2,2):(1,3)")), Tiler::Keep]);
    let e = logical_divide_view(&a, &view(&bad)).unwrap_err().to_string();
    assert!(
        e.starts_with("logical_divide: (A, complement) cannot cover"),
        "{e}"
    );
    assert_eq!(logical_divide(&a, &bad).unwrap_err().to_string(), e);
}
