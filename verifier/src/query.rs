//! A z3 query over parameters and index variables, with the arithmetic chosen from bounds.
//!
//! A query encodes only the parameters its expressions use: an unrelated declared
//! parameter, bounded or not, changes neither the arithmetic nor the constraints. Each used
//! parameter is constrained by its declared facts (an undeclared one is an internal error).
//! The width of the bit-vectors covers every node of every expression the query evaluates
//! (the layouts at their index ranges, the sizes and bounds it compares), every parameter's
//! range and the extra magnitudes the property adds, with headroom for one more sum.

use crate::deadline::Deadline;
use crate::encode::{Mode, Sides, Term, encode};
use crate::error::{PResult, ProveError};
use crate::width::{MAX_BV_BITS, bits_for, magnitude};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use tessera_ir::Int;
use tessera_ir::index::{IndexExpr, Var, lower_sym};
use tessera_ir::sym::{Facts, Interval, SymInt};
use z3::ast::Bool;
use z3::{SatResult, Solver};

/// A solver for integer queries whose every step is limited by z3's counted resource limit,
/// never by the clock: simplification, then z3's SMT core.
///
/// z3's default strategy for integer arithmetic (`qflia`, `qfnia`) runs sub-solvers under
/// wall-clock limits (`try_for`, 2 to 5 seconds), so the same query answered `sat` on an idle
/// machine and `unknown` on a loaded one (measured: `M * (N * i)` against `(M * N) * i` at
/// `M <= 2^31`, `N <= 2^62+1` gave three different counterexamples and one unknown in 40 runs
/// of one process). This strategy answers it in 621 resource units, the same every run.
///
/// @post the solver's answer depends on its assertions and `rlimit` alone.
///
/// Example: `integer_solver().check()` with no assertions is `sat`; the test
/// `int64_validation::verdicts_do_not_depend_on_the_clock_or_on_earlier_queries` repeats the
/// query above.
pub(crate) fn integer_solver() -> Solver {
    let step = |name: &str| z3::Tactic::new(name);
    step("simplify")
        .and_then(&step("propagate-values"))
        .and_then(&step("smt"))
        .solver()
}

/// The outcome of solving.
pub enum Outcome {
    /// A counterexample model exists.
    Sat(z3::Model),
    /// No counterexample.
    Unsat,
    /// z3 gave up; the reason.
    Unknown(String),
}

/// What a query evaluates, for its width and its parameters.
#[derive(Default)]
pub struct Scope<'a> {
    /// Expressions applied to index values in a range.
    pub apps: Vec<(&'a IndexExpr, Interval)>,
    /// Expressions applied to inputs in the given ranges (any inputs: index, coordinates).
    pub exprs: Vec<(&'a IndexExpr, &'a HashMap<Var, Interval>)>,
    /// Symbolic integers the query encodes (sizes, bounds).
    pub syms: Vec<&'a SymInt>,
    /// Other magnitudes the query compares or forms.
    pub extra: Vec<i128>,
    /// The query has a universal quantifier.
    pub quantified: bool,
    /// Prefer integers to bit-vectors (for products of two variables, which bit-blasting
    /// proves slowly); the query's bitwise operations must then be shifts and masks by
    /// constants.
    pub prefer_int: bool,
}

/// A solver with the parameters of the functions involved.
pub struct Query {
    mode: Mode,
    why_int: String,
    solver: Solver,
    facts: Arc<Facts>,
    used: BTreeSet<String>,
    params: BTreeMap<String, Term>,
    param_ranges: HashMap<Var, Interval>,
    deadline: Deadline,
    /// The divisions encoded outside quantifiers, their conditions asserted: shared by every
    /// expression the query applies there (see [`Sides::divmod`]).
    global: Sides,
    /// Named index variables, in creation order, for counterexamples.
    pub indices: Vec<(String, Term)>,
    /// Parameters are int64s (see [`Query::int64_semantics`]).
    int64: bool,
}

/// The parameters an expression reads.
fn params_in(e: &IndexExpr, out: &mut BTreeSet<String>) {
    for v in e.inputs() {
        if let Var::Param(n) = v {
            out.insert(n);
        }
    }
}

/// The ranges of some parameters under their facts; an internal error for an undeclared one.
pub fn param_ranges<'a>(
    facts: &Facts,
    names: impl IntoIterator<Item = &'a String>,
) -> PResult<HashMap<Var, Interval>> {
    let mut m = HashMap::new();
    for n in names {
        let f = facts
            .get(n)
            .ok_or_else(|| ProveError::internal(format!("parameter {n} has no declared facts")))?;
        m.insert(Var::Param(n.clone()), f.interval());
    }
    Ok(m)
}

/// The facts shared by some symbolic integers (the first that has any).
pub fn facts_of<'a>(xs: impl IntoIterator<Item = &'a SymInt>) -> Arc<Facts> {
    xs.into_iter()
        .find_map(|s| s.facts().cloned())
        .unwrap_or_default()
}

impl Query {
    /// A query over what `scope` evaluates, ending by `deadline`.
    pub fn new(facts: Arc<Facts>, scope: &Scope, deadline: Deadline) -> PResult<Query> {
        let mut used = BTreeSet::new();
        let mut lowered = Vec::with_capacity(scope.syms.len());
        // Every value the query forms lies in one of these.
        let mut seen: Vec<Interval> = scope.extra.iter().map(|&x| Interval::point(x)).collect();
        for s in &scope.syms {
            match s.as_const() {
                Some(c) => seen.push(Interval::point(c.into())),
                None => {
                    let e = lower_sym(s)?;
                    params_in(&e, &mut used);
                    lowered.push(e);
                }
            }
        }
        for (e, _) in &scope.apps {
            params_in(e, &mut used);
        }
        for (e, _) in &scope.exprs {
            params_in(e, &mut used);
        }
        let pr = param_ranges(&facts, &used)?;
        let unbounded: Vec<&str> = used
            .iter()
            .filter(|n| facts.get(n).and_then(|f| f.bounds().1).is_none())
            .map(String::as_str)
            .collect();
        seen.extend(pr.values().copied());
        for (e, r) in &scope.apps {
            let mut inputs = pr.clone();
            inputs.insert(Var::Index, *r);
            seen.extend(e.intervals(&inputs));
            seen.push(*r);
        }
        for (e, r) in &scope.exprs {
            let mut inputs = pr.clone();
            inputs.extend(
                r.iter()
                    .filter(|(v, _)| !matches!(v, Var::Param(_)))
                    .map(|(v, i)| (v.clone(), *i)),
            );
            seen.extend(e.intervals(&inputs));
        }
        for e in &lowered {
            seen.extend(e.intervals(&pr));
        }
        let bits = bits_for(magnitude(&seen));
        let (mode, why_int) = if scope.prefer_int {
            (Mode::Int, "it multiplies variables".to_string())
        } else if !unbounded.is_empty() {
            let why = format!("give {} an upper bound", unbounded.join(", "));
            (Mode::Int, why)
        } else if bits > MAX_BV_BITS {
            let why = format!("its values need {bits} bits, more than {MAX_BV_BITS}");
            (Mode::Int, why)
        } else {
            (Mode::Bv(bits.max(4)), String::new())
        };
        // Quantifier-free bit-vector queries get z3's QF_BV solver (bit-blasting from the
        // start); integer queries the clock-free strategy of [`integer_solver`]; quantified
        // bit-vector ones the general solver. No z3 timeout parameter: see `deadline`.
        let solver = match mode {
            Mode::Bv(_) if !scope.quantified => Solver::new_for_logic("QF_BV").unwrap_or_default(),
            Mode::Bv(_) => Solver::new(),
            Mode::Int => integer_solver(),
        };
        Ok(Query {
            mode,
            why_int,
            solver,
            facts,
            used,
            params: BTreeMap::new(),
            param_ranges: pr,
            deadline,
            global: Sides::default(),
            indices: Vec::new(),
            int64: false,
        })
    }

    /// The arithmetic in use.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// A constant term.
    pub fn konst(&self, v: i64) -> Term {
        Term::konst(self.mode, v)
    }

    /// The term of parameter `name`, constrained by its facts.
    fn param(&mut self, name: &str) -> PResult<Term> {
        if let Some(t) = self.params.get(name) {
            return Ok(t.clone());
        }
        if !self.used.contains(name) {
            return Err(ProveError::internal(format!(
                "parameter {name} is outside the query's scope"
            )));
        }
        let f = self
            .facts
            .get(name)
            .cloned()
            .ok_or_else(|| ProveError::internal(format!("parameter {name} has no declared facts")))?;
        let t = Term::var(self.mode, name);
        let (lo, hi) = f.bounds();
        let k = |v: i128| -> PResult<Term> {
            let v = i64::try_from(v).map_err(|_| ProveError::internal(format!("bound {v} of {name}")))?;
            Ok(self.konst(v))
        };
        self.solver.assert(&k(lo)?.le(&t)?);
        if let Some(h) = hi {
            self.solver.assert(&t.le(&k(h)?)?);
        }
        if self.int64 && matches!(t, Term::I(_)) {
            self.solver.assert(&self.konst(i64::MIN).le(&t)?);
            self.solver.assert(&t.le(&self.konst(i64::MAX))?);
        }
        if f.modulus > 1 {
            // `t % k == r` with the floor remainder (`0 <= r < k`), whatever the sign of `t`.
            let (_, r) = self.divmod(&t, &self.konst(f.modulus), lo >= 0)?;
            self.solver.assert(&r.eq(&self.konst(f.residue))?);
        }
        self.params.insert(name.to_string(), t.clone());
        Ok(t)
    }

    fn inputs_for(&mut self, e: &IndexExpr) -> PResult<HashMap<Var, Term>> {
        let mut m = HashMap::new();
        for v in e.inputs() {
            if let Var::Param(n) = &v {
                let t = self.param(n)?;
                m.insert(v, t);
            }
        }
        Ok(m)
    }

    /// Encodes `e` outside any quantifier: its divisions shared with the query's earlier
    /// ones, their conditions asserted (also those of a division encoded before an error, so
    /// that no shared variable is left undefined).
    fn encode_global(
        &mut self,
        e: &IndexExpr,
        inputs: &HashMap<Var, Term>,
        ranges: &[Interval],
    ) -> PResult<BTreeMap<String, Term>> {
        let out = encode(e, self.mode, &self.why_int, inputs, ranges, &mut self.global);
        self.assert_global();
        out
    }

    /// Asserts the conditions of the global divisions encoded since the last call.
    fn assert_global(&mut self) {
        for c in self.global.conds.drain(..) {
            self.solver.assert(&c);
        }
        self.global.locals.clear();
    }

    /// A symbolic integer as a term (it must be one the scope listed).
    pub fn sym(&mut self, s: &SymInt) -> PResult<Term> {
        if let Some(c) = s.as_const() {
            return Ok(self.konst(c));
        }
        let e = lower_sym(s)?;
        let inputs = self.inputs_for(&e)?;
        let r = e.intervals(&self.param_ranges);
        let out = self.encode_global(&e, &inputs, &r)?;
        Ok(out.into_values().next().unwrap_or_else(|| self.konst(0)))
    }

    /// Floor quotient and remainder, with their defining condition asserted.
    pub fn divmod(&self, a: &Term, b: &Term, nonneg: bool) -> PResult<(Term, Term)> {
        let (q, r, side) = a.floor_divmod(b, nonneg)?;
        if let Some(s) = side {
            self.solver.assert(&s);
        }
        Ok((q, r))
    }

    /// A fresh index variable `lo <= v < hi`, recorded for counterexamples.
    pub fn index(&mut self, name: &str, lo: &Term, hi: &Term) -> PResult<Term> {
        let t = Term::var(self.mode, name);
        self.solver.assert(&lo.le(&t)?);
        self.solver.assert(&t.lt(hi)?);
        self.indices.push((name.to_string(), t.clone()));
        Ok(t)
    }

    /// A fresh input variable inside `range` (each finite end asserted), recorded for
    /// counterexamples.
    pub fn input(&mut self, name: &str, range: Interval) -> PResult<Term> {
        let t = Term::var(self.mode, name);
        let k = |v: i128| -> PResult<Term> {
            let v = i64::try_from(v).map_err(|_| ProveError::internal(format!("bound {v} of {name}")))?;
            Ok(self.konst(v))
        };
        if let Some(lo) = range.lo() {
            self.solver.assert(&k(lo)?.le(&t)?);
        }
        if let Some(hi) = range.hi() {
            self.solver.assert(&t.le(&k(hi)?)?);
        }
        self.indices.push((name.to_string(), t.clone()));
        Ok(t)
    }

    /// The outputs of `e` with its non-parameter inputs bound to `terms` (their values inside
    /// `ranges`); the parameters are the query's own.
    pub fn apply_vars(
        &mut self,
        e: &IndexExpr,
        terms: &HashMap<Var, Term>,
        ranges: &HashMap<Var, Interval>,
    ) -> PResult<BTreeMap<String, Term>> {
        let mut inputs = self.inputs_for(e)?;
        inputs.extend(terms.iter().map(|(v, t)| (v.clone(), t.clone())));
        let mut rin = self.param_ranges.clone();
        rin.extend(
            ranges
                .iter()
                .filter(|(v, _)| !matches!(v, Var::Param(_)))
                .map(|(v, i)| (v.clone(), *i)),
        );
        let r = e.intervals(&rin);
        self.encode_global(e, &inputs, &r)
    }

    /// Limits z3 by its deterministic resource count (`rlimit`) instead of the clock: past it
    /// the check answers unknown, the same on an idle and on a loaded machine.
    pub fn set_rlimit(&self, rlimit: u32) {
        let mut p = z3::Params::new();
        p.set_u32("rlimit", rlimit);
        self.solver.set_params(&p);
    }

    /// Makes this query reason about where expressions are defined in int64: integer
    /// divisions no longer assert a non-zero divisor (see [`Sides::guarded`]), and every
    /// parameter is an int64. Call before encoding anything.
    pub fn int64_semantics(&mut self) {
        self.global.guarded = true;
        self.int64 = true;
    }

    /// Like [`Query::apply_vars`], also returning the condition under which every operation
    /// of `e` is defined in int64 (each intermediate in `[-2^63, 2^63)`, no division by 0,
    /// shifts by `0..=62`): what [`IndexExpr::eval_vars`] checks, and what emitted code needs.
    pub fn apply_vars_defined(
        &mut self,
        e: &IndexExpr,
        terms: &HashMap<Var, Term>,
        ranges: &HashMap<Var, Interval>,
    ) -> PResult<(BTreeMap<String, Term>, Bool)> {
        self.global.defined = Some(Vec::new());
        let out = self.apply_vars(e, terms, ranges);
        let conds = self.global.defined.take().unwrap_or_default();
        Ok((out?, Bool::and(&conds)))
    }

    /// The outputs of `e` at index `input` (whose values lie in `range`).
    pub fn apply(&mut self, e: &IndexExpr, input: &Term, range: Interval) -> PResult<BTreeMap<String, Term>> {
        let mut global = std::mem::take(&mut self.global);
        let out = self.apply_in(e, input, range, &mut global);
        self.global = global;
        self.assert_global();
        out
    }

    /// Like [`Query::apply`], leaving the side conditions and their variables in `sides`: for
    /// a quantifier's body, which must bind them.
    pub fn apply_in(
        &mut self,
        e: &IndexExpr,
        input: &Term,
        range: Interval,
        sides: &mut Sides,
    ) -> PResult<BTreeMap<String, Term>> {
        let mut inputs = self.inputs_for(e)?;
        inputs.insert(Var::Index, input.clone());
        let mut rin = self.param_ranges.clone();
        rin.insert(Var::Index, range);
        let r = e.intervals(&rin);
        encode(e, self.mode, &self.why_int, &inputs, &r, sides)
    }

    /// The integer output (`offset`) of `e` at index `input`.
    pub fn apply_offset(&mut self, e: &IndexExpr, input: &Term, range: Interval) -> PResult<Term> {
        let out = self.apply(e, input, range)?;
        offset_term(self, &out)
    }

    /// Asserts a condition.
    pub fn assert(&self, b: &Bool) {
        self.solver.assert(b);
    }

    /// Solves by the deadline.
    pub fn solve(&self) -> PResult<Outcome> {
        Ok(match self.deadline.solve(&self.solver)? {
            SatResult::Sat => match self.solver.get_model() {
                Some(m) => Outcome::Sat(m),
                None => Outcome::Unknown("z3 reported sat without a model".into()),
            },
            SatResult::Unsat => Outcome::Unsat,
            SatResult::Unknown => Outcome::Unknown(
                self.solver
                    .get_reason_unknown()
                    .unwrap_or_else(|| "z3 gave up".into()),
            ),
        })
    }

    /// The values of the parameters the query encodes, in a model.
    pub fn model_params(&self, m: &z3::Model) -> PResult<HashMap<String, i64>> {
        let mut out = HashMap::new();
        for n in &self.used {
            // A parameter the encoding never reached is unconstrained: any admitted value.
            let v = match self.params.get(n) {
                // Model completion gives every term a value: none means one past `i64`,
                // which no re-check can evaluate.
                Some(t) => t.value(m).ok_or_else(|| {
                    ProveError::Unknown(format!("z3's counterexample gives {n} a value past i64"))
                })?,
                None => admitted(&self.facts, n)?,
            };
            out.insert(n.clone(), v);
        }
        Ok(out)
    }

    /// The values of the index variables in a model.
    pub fn model_indices(&self, m: &z3::Model) -> Vec<(String, i64)> {
        self.indices
            .iter()
            .filter_map(|(n, t)| Some((n.clone(), t.value(m)?)))
            .collect()
    }
}

/// The smallest value the facts admit for `name`.
pub fn admitted(facts: &Facts, name: &str) -> PResult<i64> {
    let f = facts
        .get(name)
        .ok_or_else(|| ProveError::internal(format!("parameter {name} has no declared facts")))?;
    i64::try_from(f.bounds().0).map_err(|_| ProveError::internal(format!("the lower bound of {name}")))
}

/// The range of all outputs of `e` for index values in `range`, the parameters ranging over
/// their facts. Interval analysis only: no solver.
pub fn output_range(facts: &Facts, e: &IndexExpr, range: Interval) -> PResult<Interval> {
    let mut used = BTreeSet::new();
    params_in(e, &mut used);
    let mut rin = param_ranges(facts, &used)?;
    rin.insert(Var::Index, range);
    let r = e.intervals(&rin);
    let outs = e.outputs().iter().map(|(_, id)| r[id.index()]);
    Ok(outs.reduce(Interval::hull).unwrap_or(Interval::point(0)))
}

/// Pointwise equality of two outputs maps (missing outputs are zero).
pub fn points_equal(q: &Query, a: &BTreeMap<String, Term>, b: &BTreeMap<String, Term>) -> PResult<Bool> {
    let zero = q.konst(0);
    let mut conj = Vec::new();
    for k in a.keys().chain(b.keys()) {
        let x = a.get(k).unwrap_or(&zero);
        let y = b.get(k).unwrap_or(&zero);
        conj.push(x.eq(y)?);
    }
    Ok(Bool::and(&conj))
}

/// The single integer output of a map (`offset`).
pub fn offset_term(q: &Query, a: &BTreeMap<String, Term>) -> PResult<Term> {
    if a.keys().any(|k| k != "offset") {
        return Err(ProveError::internal(
            "expected an integer-valued layout, found a coordinate layout",
        ));
    }
    Ok(a.get("offset").cloned().unwrap_or_else(|| q.konst(0)))
}
