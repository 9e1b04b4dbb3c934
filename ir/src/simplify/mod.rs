//! Simplification of index expressions with an e-graph (egg).
//!
//! [`simplify`] puts an [`IndexExpr`] into an e-graph whose analysis knows, of every class, its
//! constant value, an interval over the domain and a known divisor ([`Domain`] gives the inputs'
//! ranges and divisors); applies the guarded rewrites of `rules` (each sound under the guard its
//! documentation states) within [`Limits`]; and extracts, for every output, the cheapest form
//! under the cost model of [`crate::index::op_weight`]. The result is never costlier than the
//! input: when extraction finds nothing cheaper the input is returned.
//!
//! The result is *not* trusted: the verifier proves it equal to the input on the domain
//! (translation validation) before anything prints or emits it. No solver is used here.
//!
//! ```
//! use tessera_ir::index::{lower_index, Var};
//! use tessera_ir::simplify::{simplify, Domain, Limits};
//! use tessera_ir::parse_layout;
//! let l = parse_layout("(4,8):(8,1)").unwrap();
//! let e = lower_index(&l).unwrap();
//! let mut d = Domain::default();
//! d.range(Var::Index, 0, 31);
//! let s = simplify(&e, &d, &Limits::default()).unwrap();
//! assert_eq!(s.before.div_mod, 2);
//! assert_eq!(s.after.div_mod, 0); // shifts and masks
//! for i in 0..32 {
//!     assert_eq!(s.expr.eval(&[("i", i)]).unwrap(), e.eval(&[("i", i)]).unwrap());
//! }
//! ```

mod analysis;
mod lang;
mod rules;

use crate::error::{Error, Result};
use crate::index::{Builder, Cost, IndexExpr, Node, NodeId, Op, Var, op_weight};
use crate::sym::Interval;
use analysis::{Analyzer, Graph};
use egg::{CostFunction, Extractor, Id, Language, RecExpr, Runner, StopReason, Symbol};
pub use lang::{Kind, Term};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// The ranges and known divisors of an expression's inputs: the index range, the coordinate
/// box, the parameters' facts.
#[derive(Clone, Debug, Default)]
pub struct Domain {
    ranges: HashMap<Var, Interval>,
    moduli: HashMap<Var, i64>,
}

impl Domain {
    /// `lo <= v <= hi`.
    pub fn range(&mut self, v: Var, lo: i64, hi: i64) -> &mut Self {
        self.ranges
            .insert(v, Interval::new(Some(lo.into()), Some(hi.into())));
        self
    }

    /// `v` lies in `r`.
    pub fn interval(&mut self, v: Var, r: Interval) -> &mut Self {
        self.ranges.insert(v, r);
        self
    }

    /// `v % m == 0`.
    pub fn modulus(&mut self, v: Var, m: i64) -> &mut Self {
        self.moduli.insert(v, m);
        self
    }

    /// The range of each input with one.
    pub fn ranges(&self) -> &HashMap<Var, Interval> {
        &self.ranges
    }

    /// The known divisor of each input with one.
    pub fn moduli(&self) -> &HashMap<Var, i64> {
        &self.moduli
    }
}

/// The bounds of one simplification. The counted ones, e-graph nodes and rewrite iterations,
/// decide the result: reaching one ends the rewriting and the best expression found so far is
/// extracted, the same on an idle and on a loaded machine. The time is an outer safety limit
/// only: reaching it is an error, never a different result.
#[derive(Clone, Debug)]
pub struct Limits {
    /// The most e-nodes.
    pub nodes: usize,
    /// The most iterations.
    pub iterations: usize,
    /// The most time (a safety limit: past it [`simplify`] fails).
    pub time: Duration,
    /// Extra unguarded rewrites `(lhs, rhs)` in egg's pattern syntax: only for the tests that
    /// inject a wrong rule and watch the validation reject its result.
    pub extra_rules: Vec<(String, String)>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            nodes: 4_000,
            iterations: 12,
            time: Duration::from_secs(SAFETY_SECONDS),
            extra_rules: Vec::new(),
        }
    }
}

/// The default outer time limit of one simplification, in seconds: far past what the node and
/// iteration limits allow (a few hundred milliseconds in a debug build on a loaded machine).
pub const SAFETY_SECONDS: u64 = 30;

/// Why the rewriting stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// No rewrite adds anything more.
    Saturated,
    /// [`Limits::nodes`] was reached.
    NodeLimit,
    /// [`Limits::iterations`] was reached.
    IterationLimit,
}

/// A simplified expression with its figures.
#[derive(Clone, Debug)]
pub struct Simplified {
    /// The simplified expression (the input itself when nothing cheaper was found).
    pub expr: IndexExpr,
    /// The input's cost.
    pub before: Cost,
    /// The result's cost.
    pub after: Cost,
    /// Why the rewriting stopped.
    pub stop: Stop,
    /// E-nodes at the end.
    pub egraph_nodes: usize,
    /// Time spent.
    pub time: Duration,
}

/// The live part of `e` as an egg expression (operands before users), with the node of each
/// output by name. Inputs become symbols named as [`Var`] prints (`i`, `c0`, `M`).
///
/// ```
/// use tessera_ir::index::parse_index;
/// use tessera_ir::simplify::{from_rec_expr, to_rec_expr};
/// let e = parse_index("(i % 4) * M + c0; i / 4").unwrap();
/// let (rec, outs) = to_rec_expr(&e);
/// assert_eq!(outs.len(), 2);
/// let back = from_rec_expr(&rec, &outs).unwrap();
/// assert_eq!(back.inputs(), e.inputs());
/// let at = [("i", 9), ("M", 5), ("c0", 2)];
/// assert_eq!(back.eval(&at).unwrap(), e.eval(&at).unwrap());
/// ```
pub fn to_rec_expr(e: &IndexExpr) -> (RecExpr<Term>, Vec<(String, Id)>) {
    let live = e.live();
    let mut rec = RecExpr::default();
    let mut ids: Vec<Option<Id>> = vec![None; e.nodes().len()];
    for (k, n) in e.nodes().iter().enumerate() {
        if !live[k] {
            continue;
        }
        let term = match n {
            Node::Const(v) => Term::Num(*v),
            Node::Var(v) => Term::Input(Symbol::from(v.to_string())),
            Node::Op(op, args) => {
                let a: Vec<Id> = args.iter().filter_map(|c| ids[c.index()]).collect();
                Term::op(*op, &a)
            }
        };
        ids[k] = Some(rec.add(term));
    }
    let outs = e
        .outputs()
        .iter()
        .filter_map(|(name, o)| Some((name.clone(), ids[o.index()]?)))
        .collect();
    (rec, outs)
}

/// The index expression of an egg expression, with the outputs named by `outputs`.
pub fn from_rec_expr(rec: &RecExpr<Term>, outputs: &[(String, Id)]) -> Result<IndexExpr> {
    let mut b = Builder::new();
    let mut ids: Vec<NodeId> = Vec::with_capacity(rec.len());
    for n in rec.as_ref() {
        let id = match n {
            Term::Num(v) => b.konst(*v),
            Term::Input(s) => b.var(Var::named(s.as_str())),
            Term::Op(op, args) => {
                let a: Vec<NodeId> = args[..op.arity()].iter().map(|c| ids[usize::from(*c)]).collect();
                b.op(*op, &a)
            }
        };
        ids.push(id);
    }
    let mut outs = Vec::with_capacity(outputs.len());
    for (name, o) in outputs {
        let id = ids
            .get(usize::from(*o))
            .ok_or_else(|| Error::invalid(format!("output {name} names no node")))?;
        outs.push((name.clone(), *id));
    }
    Ok(b.finish(outs))
}

/// The tree cost of extraction: the weights of [`op_weight`], with a division's divisor
/// constant when its class is.
struct Weights<'a>(&'a Graph);

impl CostFunction<Term> for Weights<'_> {
    type Cost = u64;

    fn cost<C: FnMut(Id) -> u64>(&mut self, enode: &Term, mut costs: C) -> u64 {
        let Term::Op(op, args) = enode else { return 0 };
        let divisor = self.0[args[1]].data.konst;
        let own = op_weight(*op, divisor);
        enode
            .children()
            .iter()
            .fold(own, |acc, c| acc.saturating_add(costs(*c)))
    }
}

/// Simplifies `e` on `domain` within `limits` (see the module documentation). The result
/// depends on the node and iteration limits only; past the time limit the call fails.
///
/// @pre the inputs of `e` take values inside `domain` wherever the result is used; `e` is
/// defined on the whole domain (checked: [`IndexExpr::check_defined`], else an error).
/// @post the result evaluates to the same outputs as `e` at every point of the domain where `e`
/// is defined (the verifier's validation checks exactly this), and costs no more.
pub fn simplify(e: &IndexExpr, domain: &Domain, limits: &Limits) -> Result<Simplified> {
    let start = Instant::now();
    // The analysis takes a failing operation to have no value; that is sound only for an
    // expression defined on its whole domain.
    e.check_defined(&domain.ranges)?;
    let before = e.cost();
    let mut analyzer = Analyzer::default();
    let mut inputs: HashMap<Symbol, Var> = HashMap::new();
    for v in e.inputs() {
        let s = Symbol::from(v.to_string());
        if let Some(r) = domain.ranges.get(&v) {
            analyzer.ranges.insert(s, *r);
        }
        if let Some(m) = domain.moduli.get(&v) {
            analyzer.moduli.insert(s, *m);
        }
        inputs.insert(s, v);
    }
    let mut g = Graph::new(analyzer);
    let (rec, outs) = to_rec_expr(e);
    let mut ids: Vec<Id> = Vec::with_capacity(rec.len());
    for n in rec.as_ref() {
        let id = g.add(n.clone().map_children(|c| ids[usize::from(c)]));
        ids.push(id);
    }
    let roots: Vec<Id> = outs.iter().map(|(_, o)| ids[usize::from(*o)]).collect();
    let mut rules = rules::rules();
    for (k, (l, r)) in limits.extra_rules.iter().enumerate() {
        rules.push(rules::unguarded(&format!("extra-{k}"), l, r).map_err(Error::invalid)?);
    }
    let runner = Runner::default()
        .with_egraph(g)
        .with_node_limit(limits.nodes)
        .with_iter_limit(limits.iterations)
        .with_time_limit(limits.time)
        .run(&rules);
    let stop = match runner.stop_reason {
        Some(StopReason::Saturated) | None => Stop::Saturated,
        Some(StopReason::NodeLimit(_)) => Stop::NodeLimit,
        Some(StopReason::IterationLimit(_)) => Stop::IterationLimit,
        Some(StopReason::TimeLimit(_)) | Some(StopReason::Other(_)) => {
            return Err(Error::invalid(format!(
                "the simplifier ran past its safety time limit of {:?} (the node and iteration limits decide its result; this one only stops a run that would not end)",
                limits.time
            )));
        }
    };
    let g = &runner.egraph;
    let ex = Extractor::new(g, Weights(g));
    let mut b = Builder::new();
    let mut memo: HashMap<Id, NodeId> = HashMap::new();
    let mut outputs = Vec::new();
    for ((name, _), root) in e.outputs().iter().zip(&roots) {
        let id = rebuild(&ex, g, g.find(*root), &inputs, &mut b, &mut memo)?;
        outputs.push((name.clone(), id));
    }
    let (simplified, after) = share_quotients(b.finish(outputs));
    let (expr, after) = if after.weighted < before.weighted {
        (simplified, after)
    } else {
        (e.clone(), before)
    };
    Ok(Simplified {
        expr,
        before,
        after,
        stop,
        egraph_nodes: g.total_number_of_nodes(),
        time: start.elapsed(),
    })
}

/// `x % c` rewritten as `x - (x / c) * c` where `x / c` is computed anyway (a shared quotient
/// makes the remainder a multiply and a subtract). Tree extraction cannot see the sharing, so
/// this runs on the extracted DAG; the identity holds for every `c != 0`. Returns the cheaper of
/// the two forms with its cost.
fn share_quotients(e: IndexExpr) -> (IndexExpr, Cost) {
    let live = e.live();
    let quotients: std::collections::HashSet<(NodeId, NodeId)> = e
        .nodes()
        .iter()
        .enumerate()
        .filter(|(k, n)| live[*k] && n.op() == Some(Op::Div))
        .map(|(_, n)| (n.children()[0], n.children()[1]))
        .collect();
    let mut b = Builder::new();
    let mut ids: Vec<NodeId> = Vec::with_capacity(e.nodes().len());
    for (k, n) in e.nodes().iter().enumerate() {
        let id = match n {
            _ if !live[k] => b.konst(0),
            Node::Const(v) => b.konst(*v),
            Node::Var(v) => b.var(v.clone()),
            Node::Op(Op::Mod, args)
                if quotients.contains(&(args[0], args[1]))
                    && e.node(args[1]).as_const().is_some_and(|c| c != 0) =>
            {
                let (x, c) = (ids[args[0].index()], ids[args[1].index()]);
                let q = b.div(x, c);
                let m = b.mul(q, c);
                b.sub(x, m)
            }
            Node::Op(op, args) => {
                let a: Vec<NodeId> = args.iter().map(|c| ids[c.index()]).collect();
                b.op(*op, &a)
            }
        };
        ids.push(id);
    }
    let outputs = e
        .outputs()
        .iter()
        .map(|(n, o)| (n.clone(), ids[o.index()]))
        .collect();
    let shared = b.finish(outputs);
    let (new, old) = (shared.cost(), e.cost());
    if new.weighted < old.weighted {
        (shared, new)
    } else {
        (e, old)
    }
}

/// The extracted form of class `id` in the builder (shared subexpressions built once).
fn rebuild(
    ex: &Extractor<'_, Weights<'_>, Term, Analyzer>,
    g: &Graph,
    id: Id,
    inputs: &HashMap<Symbol, Var>,
    b: &mut Builder,
    memo: &mut HashMap<Id, NodeId>,
) -> Result<NodeId> {
    if let Some(n) = memo.get(&id) {
        return Ok(*n);
    }
    let n = match ex.find_best_node(id) {
        Term::Num(v) => b.konst(*v),
        Term::Input(s) => {
            let v = inputs
                .get(s)
                .ok_or_else(|| Error::invalid(format!("unknown input {s} in a simplified expression")))?;
            b.var(v.clone())
        }
        Term::Op(op, args) => {
            let mut a = Vec::with_capacity(op.arity());
            for c in &args[..op.arity()] {
                a.push(rebuild(ex, g, g.find(*c), inputs, b, memo)?);
            }
            b.op(*op, &a)
        }
    };
    memo.insert(id, n);
    Ok(n)
}
