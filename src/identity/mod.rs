//! Layout identities: `equal(X, Y)` closed by rewriting the expressions (egg), by comparing
//! normal forms, or left to z3.
//!
//! * [`by_rewriting`] puts `fun(X)` and `fun(Y)` in an e-graph and runs the algebra's laws
//!   ([`laws`]); when the two meet in one e-class, `X` and `Y` are the same function. The
//!   e-graph is bounded (nodes, iterations, time): a bound hit means "not closed".
//! * [`by_normal_form`] compares the coalesced values: a layout and its coalesced layout are
//!   the same function, so identical coalesced layouts (polynomial normal forms included)
//!   mean equal functions.
//!
//! ```
//! use tessera::identity::{Limits, Term, by_rewriting};
//! use tessera::lang::Session;
//! let s = Session::new(&[], &[]).unwrap();
//! let leaf = |t: &str| Term::leaf(s.value(t).unwrap());
//! let (a, b, c) = (leaf("(4,8):(8,1)"), leaf("(8,4):(1,8)"), leaf("(2,4):(4,1)"));
//! let x = Term::op("composition", vec![a.clone(), Term::op("composition", vec![b.clone(), c.clone()])]);
//! let y = Term::op("composition", vec![Term::op("composition", vec![a, b]), c]);
//! assert!(by_rewriting(&x, &y, &Limits::default()).closed);
//! ```

mod analysis;
mod lang;
pub mod laws;

pub use analysis::{Graph, Values};
pub use lang::{Layouts, Term};

use crate::lang::Value;
use egg::{Id, Runner, StopReason, Symbol};
use lang::{call, leaf_key};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use tessera_ir::sym::SymInt;

/// Bounds of one e-graph run; hitting one ends the run without closing the goal.
#[derive(Clone, Debug)]
pub struct Limits {
    /// The most e-nodes.
    pub nodes: usize,
    /// The most iterations.
    pub iterations: usize,
    /// The longest run.
    pub time: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            nodes: 10_000,
            iterations: 30,
            // A safety limit only: the node and iteration limits decide whether the run closes
            // the goal, the same on an idle and on a loaded machine.
            time: Duration::from_secs(10),
        }
    }
}

/// What one e-graph run did.
#[derive(Clone, Debug)]
pub struct Rewriting {
    /// Whether `X` and `Y` ended in one e-class.
    pub closed: bool,
    /// Iterations run.
    pub iterations: usize,
    /// E-nodes at the end.
    pub nodes: usize,
    /// Why it stopped.
    pub stop: String,
    /// Time spent.
    pub elapsed: Duration,
}

fn rules() -> &'static [egg::Rewrite<Layouts, Values>] {
    static RULES: OnceLock<Vec<egg::Rewrite<Layouts, Values>>> = OnceLock::new();
    RULES.get_or_init(|| laws::all().iter().flat_map(laws::Law::rewrites).collect())
}

/// Adds a term to the e-graph; leaves are named by their values.
fn add(g: &mut Graph, t: &Term) -> Id {
    match t {
        Term::Leaf(v) => {
            let sym = Symbol::from(leaf_key(v));
            g.analysis.leaves.entry(sym).or_insert_with(|| (**v).clone());
            g.add(Layouts::Leaf(sym))
        }
        Term::Text(s) => g.add(Layouts::Leaf(Symbol::from(format!("text#{s}")))),
        Term::Op(name, args) => {
            let ids: Vec<Id> = args.iter().map(|a| add(g, a)).collect();
            match <Layouts as egg::FromOp>::from_op(name, ids) {
                Ok(n) => g.add(n),
                // Unreachable: terms only hold the built-ins the language declares; a leaf
                // of its own keeps the run sound if it ever happens.
                Err(_) => g.add(Layouts::Leaf(Symbol::from(format!("bad#{t}")))),
            }
        }
    }
}

/// Tries to show that `x` and `y` are the same function by equality saturation.
pub fn by_rewriting(x: &Term, y: &Term, limits: &Limits) -> Rewriting {
    run(x, y, limits, rules())
}

/// [`by_rewriting`] with only the given laws, and without the check of concrete values
/// unless `check_concrete` (the tests check each law alone, by itself).
pub fn by_rewriting_with(
    x: &Term,
    y: &Term,
    limits: &Limits,
    laws: &[laws::Law],
    check_concrete: bool,
) -> Rewriting {
    let rules: Vec<egg::Rewrite<Layouts, Values>> = laws
        .iter()
        .flat_map(|l| l.rewrites_checked(check_concrete))
        .collect();
    run(x, y, limits, &rules)
}

fn run(x: &Term, y: &Term, limits: &Limits, rules: &[egg::Rewrite<Layouts, Values>]) -> Rewriting {
    let t0 = Instant::now();
    let mut g = Graph::new(Values::default());
    let (ex, ey) = (add(&mut g, x), add(&mut g, y));
    let fx = g.add(Layouts::Fun([ex]));
    let fy = g.add(Layouts::Fun([ey]));
    g.rebuild();
    let runner = Runner::default()
        .with_egraph(g)
        .with_node_limit(limits.nodes)
        .with_iter_limit(limits.iterations)
        .with_time_limit(limits.time)
        .with_hook(move |r| {
            if r.egraph.find(fx) == r.egraph.find(fy) {
                Err("closed".into())
            } else {
                Ok(())
            }
        })
        .run(rules);
    let closed = runner.egraph.find(fx) == runner.egraph.find(fy);
    let stop = match &runner.stop_reason {
        Some(StopReason::Saturated) => "saturated".to_string(),
        Some(StopReason::IterationLimit(n)) => format!("iteration limit {n}"),
        Some(StopReason::NodeLimit(n)) => format!("node limit {n}"),
        Some(StopReason::TimeLimit(s)) => format!("time limit {s} s"),
        Some(StopReason::Other(s)) => s.clone(),
        None => "not run".to_string(),
    };
    Rewriting {
        closed,
        iterations: runner.iterations.len(),
        nodes: runner.egraph.total_number_of_nodes(),
        stop,
        elapsed: t0.elapsed(),
    }
}

/// Whether `x` and `y` are layouts whose coalesced values are identical (then they are the
/// same function: coalescing keeps the size and the value at every index).
///
/// ```
/// use tessera::identity::by_normal_form;
/// use tessera::lang::Session;
/// let s = Session::new(&["M where M % 4 == 0"], &[]).unwrap();
/// let v = |t: &str| s.value(t).unwrap();
/// assert!(by_normal_form(&v("(M,4):(1,M)"), &v("(M*4):1")));
/// assert!(!by_normal_form(&v("(M,4):(4,1)"), &v("(M*4):1")));
/// ```
pub fn by_normal_form(x: &Value<SymInt>, y: &Value<SymInt>) -> bool {
    if !matches!(x, Value::Layout(_)) || !matches!(y, Value::Layout(_)) {
        return false;
    }
    match (call("coalesce", &[x]), call("coalesce", &[y])) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}
