//! A z3 query over parameters and index variables, with the arithmetic chosen from bounds.

use crate::encode::{Mode, Term, encode};
use crate::width::{Range, UNBOUNDED, bits_for, magnitude, ranges};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use tessera_ir::index::{IndexExpr, Var, lower_sym};
use tessera_ir::sym::{Facts, SymInt};
use tessera_ir::{Int, Result};
use z3::ast::Bool;
use z3::{Params, SatResult, Solver};

/// The outcome of solving.
pub enum Outcome {
    /// A counterexample model exists.
    Sat(z3::Model),
    /// No counterexample.
    Unsat,
    /// z3 gave up; the reason.
    Unknown(String),
}

/// A solver with the parameters of the functions involved.
pub struct Query {
    mode: Mode,
    solver: Solver,
    facts: Arc<Facts>,
    params: BTreeMap<String, Term>,
    param_ranges: HashMap<Var, Range>,
    /// Named index variables, in creation order, for counterexamples.
    pub indices: Vec<(String, Term)>,
}

/// The range of every declared parameter.
pub fn param_ranges(facts: &Facts) -> (HashMap<Var, Range>, bool) {
    let mut m = HashMap::new();
    let mut bounded = true;
    for n in facts.names() {
        let f = facts.get(n).cloned().unwrap_or_default();
        let (lo, hi) = f.bounds();
        if hi.is_none() {
            bounded = false;
        }
        m.insert(Var::Param(n.to_string()), (lo, hi.unwrap_or(UNBOUNDED.1)));
    }
    (m, bounded)
}

/// The facts shared by some symbolic integers (the first that has any).
pub fn facts_of<'a>(xs: impl IntoIterator<Item = &'a SymInt>) -> Arc<Facts> {
    xs.into_iter()
        .find_map(|s| s.facts().cloned())
        .unwrap_or_default()
}

/// The range of a symbolic integer's values.
pub fn sym_range(facts: &Facts, s: &SymInt) -> Range {
    if let Some(c) = s.as_const() {
        return (c as i128, c as i128);
    }
    let iv = facts.interval(s.poly());
    (iv.lo, iv.hi)
}

impl Query {
    /// A query over the expressions `apps`, each applied to index values in its range.
    /// `extra` are other magnitudes the query compares (sizes, bounds).
    pub fn new(
        facts: Arc<Facts>,
        apps: &[(&IndexExpr, Range)],
        extra: &[i128],
        timeout_ms: Option<u64>,
    ) -> Result<Query> {
        Query::build(facts, apps, extra, timeout_ms, false)
    }

    /// Like [`Query::new`], for queries with a universal quantifier.
    pub fn new_quantified(
        facts: Arc<Facts>,
        apps: &[(&IndexExpr, Range)],
        extra: &[i128],
        timeout_ms: Option<u64>,
    ) -> Result<Query> {
        Query::build(facts, apps, extra, timeout_ms, true)
    }

    fn build(
        facts: Arc<Facts>,
        apps: &[(&IndexExpr, Range)],
        extra: &[i128],
        timeout_ms: Option<u64>,
        quantified: bool,
    ) -> Result<Query> {
        let (pr, bounded) = param_ranges(&facts);
        let mut m = magnitude(&extra.iter().map(|&x| (x, x)).collect::<Vec<_>>());
        for (e, r) in apps {
            let mut inputs = pr.clone();
            inputs.insert(Var::Index, *r);
            m = m
                .max(magnitude(&ranges(e, &inputs)))
                .max(r.0.abs())
                .max(r.1.abs());
        }
        let bits = bits_for(m);
        let mode = if bounded && bits <= 63 {
            Mode::Bv(bits.max(4))
        } else {
            Mode::Int
        };
        // Quantifier-free bit-vector queries get z3's QF_BV solver (bit-blasting from the
        // start); the rest the general one.
        let solver = match mode {
            Mode::Bv(_) if !quantified => Solver::new_for_logic("QF_BV").unwrap_or_default(),
            _ => Solver::new(),
        };
        if let Some(ms) = timeout_ms {
            let mut p = Params::new();
            p.set_u32("timeout", ms.min(u32::MAX as u64) as u32);
            solver.set_params(&p);
        }
        Ok(Query {
            mode,
            solver,
            facts,
            params: BTreeMap::new(),
            param_ranges: pr,
            indices: Vec::new(),
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
    fn param(&mut self, name: &str) -> Result<Term> {
        if let Some(t) = self.params.get(name) {
            return Ok(t.clone());
        }
        let t = Term::var(self.mode, name);
        let f = self.facts.get(name).cloned().unwrap_or_default();
        self.solver.assert(&self.konst(f.lo).le(&t)?);
        if let Some(h) = f.hi {
            self.solver.assert(&t.le(&self.konst(h))?);
        }
        if f.modulus > 1 {
            let (_, r) = self.divmod(&t, &self.konst(f.modulus), f.lo >= 0)?;
            self.solver.assert(&r.eq(&self.konst(0))?);
        }
        self.params.insert(name.to_string(), t.clone());
        Ok(t)
    }

    fn inputs_for(&mut self, e: &IndexExpr) -> Result<HashMap<Var, Term>> {
        let mut m = HashMap::new();
        for v in e.inputs() {
            if let Var::Param(n) = &v {
                let t = self.param(n)?;
                m.insert(v, t);
            }
        }
        Ok(m)
    }

    /// A symbolic integer as a term.
    pub fn sym(&mut self, s: &SymInt) -> Result<Term> {
        if let Some(c) = s.as_const() {
            return Ok(self.konst(c));
        }
        let e = lower_sym(s)?;
        let inputs = self.inputs_for(&e)?;
        let r = ranges(&e, &self.param_ranges);
        let mut sides = Vec::new();
        let out = encode(&e, self.mode, &inputs, &r, &mut sides)?;
        for s in &sides {
            self.solver.assert(s);
        }
        Ok(out.into_values().next().unwrap_or_else(|| self.konst(0)))
    }

    /// Floor quotient and remainder, with their defining condition asserted.
    pub fn divmod(&self, a: &Term, b: &Term, nonneg: bool) -> Result<(Term, Term)> {
        let (q, r, side) = a.floor_divmod(b, nonneg)?;
        if let Some(s) = side {
            self.solver.assert(&s);
        }
        Ok((q, r))
    }

    /// A fresh index variable `lo <= v < hi`, recorded for counterexamples.
    pub fn index(&mut self, name: &str, lo: &Term, hi: &Term) -> Result<Term> {
        let t = Term::var(self.mode, name);
        self.solver.assert(&lo.le(&t)?);
        self.solver.assert(&t.lt(hi)?);
        self.indices.push((name.to_string(), t.clone()));
        Ok(t)
    }

    /// The outputs of `e` at index `input` (whose values lie in `range`).
    pub fn apply(&mut self, e: &IndexExpr, input: &Term, range: Range) -> Result<BTreeMap<String, Term>> {
        let mut inputs = self.inputs_for(e)?;
        inputs.insert(Var::Index, input.clone());
        let mut rin = self.param_ranges.clone();
        rin.insert(Var::Index, range);
        let r = ranges(e, &rin);
        let mut sides = Vec::new();
        let out = encode(e, self.mode, &inputs, &r, &mut sides)?;
        for s in &sides {
            self.solver.assert(s);
        }
        Ok(out)
    }

    /// The integer output (`offset`) of `e` at index `input`.
    pub fn apply_offset(&mut self, e: &IndexExpr, input: &Term, range: Range) -> Result<Term> {
        let out = self.apply(e, input, range)?;
        offset_term(self, &out)
    }

    /// Output ranges of `e` for inputs in `range`, under this query's parameters.
    pub fn output_range(&self, e: &IndexExpr, range: Range) -> Range {
        output_range_in(&self.param_ranges, e, range)
    }

    /// Asserts a condition.
    pub fn assert(&self, b: &Bool) {
        self.solver.assert(b);
    }

    /// Solves.
    pub fn solve(&self) -> Outcome {
        match self.solver.check() {
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
        }
    }

    /// The parameter values of a model (every declared parameter the query used).
    pub fn model_params(&self, m: &z3::Model) -> HashMap<String, i64> {
        self.params
            .iter()
            .filter_map(|(n, t)| Some((n.clone(), t.value(m)?)))
            .collect()
    }

    /// The values of the index variables in a model.
    pub fn model_indices(&self, m: &z3::Model) -> Vec<(String, i64)> {
        self.indices
            .iter()
            .filter_map(|(n, t)| Some((n.clone(), t.value(m)?)))
            .collect()
    }
}

/// The range of all outputs of `e` for index values in `range`, the parameters ranging over
/// their facts. Interval analysis only: no solver.
pub fn output_range(facts: &Facts, e: &IndexExpr, range: Range) -> Range {
    output_range_in(&param_ranges(facts).0, e, range)
}

fn output_range_in(params: &HashMap<Var, Range>, e: &IndexExpr, range: Range) -> Range {
    let mut rin = params.clone();
    rin.insert(Var::Index, range);
    let r = ranges(e, &rin);
    let outs = e.outputs().iter().map(|(_, id)| r[id.0 as usize]);
    outs.fold(None, |acc: Option<Range>, x| {
        Some(acc.map_or(x, |a| (a.0.min(x.0), a.1.max(x.1))))
    })
    .unwrap_or((0, 0))
}

/// Pointwise equality of two outputs maps (missing outputs are zero).
pub fn points_equal(q: &Query, a: &BTreeMap<String, Term>, b: &BTreeMap<String, Term>) -> Result<Bool> {
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
pub fn offset_term(q: &Query, a: &BTreeMap<String, Term>) -> Result<Term> {
    if a.keys().any(|k| k != "offset") {
        return Err(tessera_ir::Error::invalid(
            "expected an integer-valued layout, found a coordinate layout",
        ));
    }
    Ok(a.get("offset").cloned().unwrap_or_else(|| q.konst(0)))
}
