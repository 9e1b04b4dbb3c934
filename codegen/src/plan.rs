//! What every backend needs, checked once: the names in the target language, the live
//! operations in order, and the interval of every node under the signature's assumptions,
//! which decides where plain (truncating) division and shifts are exact.

use crate::error::EmitError;
use crate::lang::Lang;
use crate::names;
use crate::signature::Signature;
use std::collections::HashMap;
use tessera_ir::index::{IndexExpr, Node, NodeId, Op, Var};
use tessera_ir::sym::Interval;

/// An operation whose value needs no operator: one that lints (`clippy::eq_op`,
/// `-Wtautological-compare`, `clippy::neg_multiply`) would flag as written.
pub(crate) enum Trivial {
    /// The value of an operand: `min(x, x)`, `max(x, x)`, `x & x`.
    Same(NodeId),
    /// A constant: `x ^ x` is 0, `x % x` is 0, `x / x` is 1 (where defined: `x != 0`).
    Const(i64),
    /// The negation of an operand: `x * -1`.
    Neg(NodeId),
}

/// A checked emission job.
pub(crate) struct Plan<'a> {
    pub e: &'a IndexExpr,
    pub sig: &'a Signature,
    /// The function's name in the target language.
    pub name: String,
    /// The arguments and their names in the target language.
    pub args: Vec<(Var, String)>,
    /// The outputs: sanitized names and nodes.
    pub outputs: Vec<(String, NodeId)>,
    live: Vec<bool>,
    iv: Vec<Interval>,
}

impl<'a> Plan<'a> {
    pub fn new(e: &'a IndexExpr, sig: &'a Signature, lang: Lang) -> Result<Plan<'a>, EmitError> {
        let name = names::function_name(&sig.name, lang);
        names::check(&sig.name, &name, lang)?;
        let mut seen: HashMap<String, String> = HashMap::from([(name.clone(), sig.name.clone())]);
        let mut args = Vec::new();
        for v in &sig.args {
            if args.iter().any(|(w, _)| w == v) {
                return Err(EmitError::DuplicateArgument(v.clone()));
            }
            let written = names::arg_name(v, lang);
            let plain = names::arg_name(v, Lang::C);
            names::check(
                &plain,
                &names::arg_name(v, if lang == Lang::Ptx { Lang::C } else { lang }),
                lang,
            )?;
            if let Some(prev) = seen.insert(written.clone(), plain.clone()) {
                return Err(EmitError::NameClash(prev, plain, written));
            }
            args.push((v.clone(), written));
        }
        for v in e.inputs() {
            if !sig.args.contains(&v) {
                return Err(EmitError::MissingArgument(v));
            }
        }
        if e.outputs().is_empty() {
            return Err(EmitError::NoOutputs);
        }
        let mut outputs: Vec<(String, NodeId)> = Vec::new();
        let mut out_seen: HashMap<String, String> = HashMap::new();
        for (n, id) in e.outputs() {
            let s = names::sanitize(n);
            if let Some(prev) = out_seen.insert(s.clone(), n.clone()) {
                return Err(EmitError::NameClash(prev, n.clone(), s));
            }
            outputs.push((s, *id));
        }
        let ranges = sig.ranges()?;
        let live = liveness(e);
        let iv = e.intervals(&ranges);
        let plan = Plan {
            e,
            sig,
            name,
            args,
            outputs,
            live,
            iv,
        };
        for (k, op, a) in plan.ops() {
            if matches!(op, Op::Shl | Op::Shr) {
                match e.node(a[1]).as_const() {
                    Some(s) if (0..=62).contains(&s) => {}
                    _ => {
                        return Err(EmitError::ShiftAmount {
                            node: k,
                            amount: plan.operand_text(a[1]),
                        });
                    }
                }
            }
        }
        Ok(plan)
    }

    /// The live operations in topological order: `(k, op, operands)` for node `t<k>`.
    pub fn ops(&self) -> impl Iterator<Item = (usize, Op, &'a [NodeId])> + '_ {
        let e: &'a IndexExpr = self.e;
        e.nodes().iter().enumerate().filter_map(move |(k, n)| match n {
            Node::Op(op, a) if self.live[k] => Some((k, *op, &a[..])),
            _ => None,
        })
    }

    /// The node at `id`.
    pub fn node(&self, id: NodeId) -> &'a Node {
        let e: &'a IndexExpr = self.e;
        e.node(id)
    }

    /// The name of an argument in the target language.
    pub fn arg(&self, v: &Var) -> &str {
        self.args
            .iter()
            .find(|(w, _)| w == v)
            .map(|(_, n)| n.as_str())
            .expect("a checked plan names every input")
    }

    /// The operation's value without its operator, where that is simpler (see [`Trivial`]).
    pub fn trivial(&self, op: Op, args: &[NodeId]) -> Option<Trivial> {
        trivial(self.e, op, args)
    }

    /// Whether the emitted code reads node `k` (after the [`Trivial`] forms).
    pub fn is_live(&self, k: usize) -> bool {
        self.live[k]
    }

    /// The arguments the emitted arithmetic does not read.
    pub fn unread_args(&self) -> Vec<&str> {
        let read: Vec<&Var> = self
            .e
            .nodes()
            .iter()
            .enumerate()
            .filter_map(|(k, n)| match n {
                Node::Var(v) if self.live[k] => Some(v),
                _ => None,
            })
            .collect();
        self.args
            .iter()
            .filter(|(v, _)| !read.contains(&v))
            .map(|(_, n)| n.as_str())
            .collect()
    }

    /// The interval of the node's values on the assumptions' domain.
    pub fn interval(&self, id: NodeId) -> Interval {
        self.iv[id.index()]
    }

    /// The interval of the `k`-th node (`t<k>`).
    pub fn interval_at(&self, k: usize) -> Interval {
        self.iv[k]
    }

    /// The largest value of the node on the domain, when bounded.
    pub fn max_value(&self, id: NodeId) -> Option<i128> {
        self.iv[id.index()].hi()
    }

    /// Whether the node is never negative on the assumptions' domain.
    pub fn nonneg(&self, id: NodeId) -> bool {
        self.iv[id.index()].is_at_least(0)
    }

    /// Whether C's truncating `/` and `%` of `a` by `b` are the IR's floor division and
    /// remainder on the whole domain: `a >= 0` and `b >= 1` there.
    pub fn truncation_is_floor(&self, a: NodeId, b: NodeId) -> bool {
        self.nonneg(a) && self.iv[b.index()].is_at_least(1)
    }

    /// `k` when `id` is the constant `2^k` (`k` in `1..=62`): the floor quotient by it is an
    /// arithmetic right shift by `k`, and the floor remainder the low `k` bits (`& (2^k - 1)`),
    /// for dividends of either sign (two's complement).
    pub fn power_of_two(&self, id: NodeId) -> Option<u32> {
        self.node(id)
            .as_const()
            .filter(|d| *d > 1 && (*d & (*d - 1)) == 0)
            .map(|d| d.trailing_zeros())
    }

    /// The constant shift amount of a shift's second operand (checked in [`Plan::new`]).
    pub fn shift(&self, id: NodeId) -> u32 {
        self.node(id).as_const().map_or(0, |s| s as u32)
    }

    fn operand_text(&self, id: NodeId) -> String {
        match self.node(id) {
            Node::Const(c) => c.to_string(),
            Node::Var(v) => v.to_string(),
            Node::Op(..) => format!("t{}", id.index()),
        }
    }

    /// The comment block shared by every language, without comment markers: what the
    /// function computes, what it assumes, the notes.
    pub fn header(&self, returns: &str) -> Vec<String> {
        let mut out = vec![format!("Index function `{}`, generated by Tessera.", self.name)];
        // A renamed parameter (snake case in Rust) names what it stands for.
        let args: Vec<String> = self
            .args
            .iter()
            .map(|(v, n)| {
                let plain = v.to_string();
                if *n == plain || *n == format!("arg_{plain}") {
                    n.clone()
                } else {
                    format!("{n} (for {plain})")
                }
            })
            .collect();
        out.push(format!(
            "Arguments: {}. {returns}",
            if args.is_empty() {
                "none".to_string()
            } else {
                args.join(", ")
            }
        ));
        let facts = self.facts();
        if facts.is_empty() {
            out.push("Assumes nothing about its arguments.".into());
        } else {
            out.push("Assumes (the arithmetic is exact for every value these admit):".into());
            out.extend(facts.iter().map(|f| format!("  {f}")));
        }
        for n in &self.sig.notes {
            // A trailing backslash would continue a `//` comment onto the next line; a fence
            // would open a doc test in Rust.
            out.extend(n.lines().map(|l| l.trim_end_matches('\\').replace("```", "'''")));
        }
        out
    }

    /// Each fact of the assumptions as a comment line, with the arguments' names.
    pub fn facts(&self) -> Vec<String> {
        self.sig
            .assumptions
            .iter()
            .flat_map(|a| a.facts(self.arg(&a.var)))
            .collect()
    }
}

/// Comment lines: each of `lines` behind `marker` (`//`, `///`), without trailing blanks.
pub(crate) fn comment(marker: &str, lines: &[String]) -> String {
    let mut out = String::new();
    for l in lines {
        out.push_str(marker);
        if !l.is_empty() {
            out.push(' ');
            out.push_str(l.trim_end());
        }
        out.push('\n');
    }
    out
}

/// The value of `op(args)` without its operator, where that is simpler (see [`Trivial`]).
fn trivial(e: &IndexExpr, op: Op, args: &[NodeId]) -> Option<Trivial> {
    let same = args.len() == 2 && args[0] == args[1];
    let minus_one = |k: usize| e.node(args[k]).as_const() == Some(-1);
    match op {
        Op::Min | Op::Max | Op::And if same => Some(Trivial::Same(args[0])),
        Op::Xor | Op::Mod if same => Some(Trivial::Const(0)),
        Op::Div if same => Some(Trivial::Const(1)),
        Op::Mul if minus_one(0) => Some(Trivial::Neg(args[1])),
        Op::Mul if minus_one(1) => Some(Trivial::Neg(args[0])),
        _ => None,
    }
}

/// The nodes the emitted code reads: those the outputs reach, where a [`Trivial`] operation
/// reaches only the operand it keeps (one sweep back: operands come before their users).
fn liveness(e: &IndexExpr) -> Vec<bool> {
    let mut live = vec![false; e.nodes().len()];
    for (_, o) in e.outputs() {
        live[o.index()] = true;
    }
    for k in (0..live.len()).rev() {
        let Node::Op(op, args) = &e.nodes()[k] else {
            continue;
        };
        if !live[k] {
            continue;
        }
        match trivial(e, *op, args) {
            Some(Trivial::Same(id) | Trivial::Neg(id)) => live[id.index()] = true,
            Some(Trivial::Const(_)) => {}
            None => args.iter().for_each(|c| live[c.index()] = true),
        }
    }
    live
}
