//! Rust: one `pub fn` over `i64` returning the output (a tuple for several), one `let` per
//! operation, the assumptions checked by `debug_assert!`.
//!
//! Rust's `/` and `%` truncate; they are used where the interval analysis proves a non-negative
//! dividend and a positive divisor. Else a constant power-of-two divisor `2^k` becomes `>> k` or
//! `& (2^k - 1)` (the floor forms for either sign), and any other divisor the local
//! `floor_div`/`floor_mod` helpers (items inside the function, so that several functions share a
//! file). Shifts are Rust's own: `<<` of a negative value is its product by the power of two
//! when that does not overflow (the IR forbids overflow), and `>>` on `i64` is arithmetic. No
//! wrapping operation changes a value in range: only the floor remainder uses `wrapping_rem`,
//! which differs from `%` only for `i64::MIN % -1`, whose remainder (0) it returns instead of
//! panicking. Names are snake case (`M` becomes `m`), as `-D warnings` wants them.

use crate::error::EmitError;
use crate::plan::{Plan, Trivial};
use std::fmt::Write;
use tessera_ir::index::{Node, NodeId, Op};

/// A constant as a Rust expression of type `i64`.
fn literal(v: i64) -> String {
    if v == i64::MIN {
        "i64::MIN".into()
    } else {
        v.to_string()
    }
}

struct Ctx<'p, 'a> {
    p: &'p Plan<'a>,
    floor_div: bool,
    floor_mod: bool,
}

impl Ctx<'_, '_> {
    fn operand(&self, id: NodeId) -> String {
        match self.p.node(id) {
            Node::Const(c) => literal(*c),
            Node::Var(v) => self.p.arg(v).to_string(),
            Node::Op(..) => format!("t{}", id.index()),
        }
    }

    fn rhs(&mut self, op: Op, args: &[NodeId]) -> String {
        if let Some(t) = self.p.trivial(op, args) {
            return match t {
                Trivial::Same(id) => self.operand(id),
                Trivial::Const(v) => literal(v),
                Trivial::Neg(id) => format!("-{}", self.operand(id)),
            };
        }
        let o = |k: usize| self.operand(args[k]);
        let (a, b) = (o(0), args.get(1).map(|_| o(1)).unwrap_or_default());
        match op {
            Op::Add => format!("{a} + {b}"),
            Op::Sub => format!("{a} - {b}"),
            Op::Mul => format!("{a} * {b}"),
            Op::Div if self.p.truncation_is_floor(args[0], args[1]) => format!("{a} / {b}"),
            Op::Div if let Some(k) = self.p.power_of_two(args[1]) => format!("{a} >> {k}"),
            Op::Div => {
                self.floor_div = true;
                format!("floor_div({a}, {b})")
            }
            Op::Mod if self.p.truncation_is_floor(args[0], args[1]) => format!("{a} % {b}"),
            Op::Mod if let Some(k) = self.p.power_of_two(args[1]) => format!("{a} & {}", (1i64 << k) - 1),
            Op::Mod => {
                self.floor_mod = true;
                format!("floor_mod({a}, {b})")
            }
            Op::Xor => format!("{a} ^ {b}"),
            Op::And => format!("{a} & {b}"),
            Op::Shl => format!("{a} << {}", self.p.shift(args[1])),
            Op::Shr => format!("{a} >> {}", self.p.shift(args[1])),
            Op::Min => format!("i64::min({a}, {b})"),
            Op::Max => format!("i64::max({a}, {b})"),
            Op::Select => format!("if {a} != 0 {{ {b} }} else {{ {} }}", o(2)),
        }
    }
}

/// The assertions of the signature's assumptions, as Rust conditions.
fn conditions(p: &Plan<'_>) -> Vec<String> {
    let mut out = Vec::new();
    for a in &p.sig.assumptions {
        let x = p.arg(&a.var);
        match a.bounds() {
            (Some(l), Some(h)) if l == h => out.push(format!("{x} == {}", literal(l))),
            (Some(l), Some(h)) => out.push(format!("({}..={}).contains(&{x})", literal(l), literal(h))),
            (Some(l), None) => out.push(format!("{x} >= {}", literal(l))),
            (None, Some(h)) => out.push(format!("{x} <= {}", literal(h))),
            (None, None) => {}
        }
        if a.modulus > 1 {
            out.push(format!("{x} % {} == 0", literal(a.modulus)));
        }
    }
    out
}

const FLOOR_DIV: &str = "    \
    // Floor division: Rust's `/` truncates towards zero.
    fn floor_div(a: i64, b: i64) -> i64 {
        let q = a / b;
        if a % b != 0 && (a < 0) != (b < 0) { q - 1 } else { q }
    }
";

const FLOOR_MOD: &str = "    \
    // Floor remainder, with the sign of the divisor (`i64::MIN % -1` is 0).
    fn floor_mod(a: i64, b: i64) -> i64 {
        let r = a.wrapping_rem(b);
        if r != 0 && (r < 0) != (b < 0) { r + b } else { r }
    }
";

pub(crate) fn emit(p: &Plan<'_>) -> Result<String, EmitError> {
    let mut cx = Ctx {
        p,
        floor_div: false,
        floor_mod: false,
    };
    let mut lets = String::new();
    for (k, op, args) in p.ops() {
        let rhs = cx.rhs(op, args);
        let _ = writeln!(lets, "    let t{k}: i64 = {rhs};");
    }
    let mut body = String::new();
    for (c, fact) in conditions(p).iter().zip(p.facts()) {
        let _ = writeln!(body, "    debug_assert!({c}, \"assumption: {fact}\");");
    }
    // An argument that neither an assumption nor the arithmetic reads.
    let asserted: Vec<&str> = p
        .sig
        .assumptions
        .iter()
        .filter(|a| !a.facts("").is_empty())
        .map(|a| p.arg(&a.var))
        .collect();
    for n in p.unread_args() {
        if !asserted.contains(&n) {
            let _ = writeln!(body, "    let _ = {n};");
        }
    }
    if cx.floor_div {
        body.push_str(FLOOR_DIV);
    }
    if cx.floor_mod {
        body.push_str(FLOOR_MOD);
    }
    body.push_str(&lets);
    let outs: Vec<String> = p.outputs.iter().map(|(_, id)| cx.operand(*id)).collect();
    let (ret, value, returns) = if outs.len() == 1 {
        (
            "i64".to_string(),
            outs[0].clone(),
            format!("Returns {}.", p.e.outputs()[0].0),
        )
    } else {
        let names: Vec<&str> = p.e.outputs().iter().map(|(n, _)| n.as_str()).collect();
        (
            format!("({})", vec!["i64"; outs.len()].join(", ")),
            format!("({})", outs.join(", ")),
            format!("Returns ({}).", names.join(", ")),
        )
    };
    let _ = writeln!(body, "    {value}");
    let mut out = String::new();
    out.push_str(&crate::plan::comment("///", &p.header(&returns)));
    out.push_str("/// The assumptions are checked by `debug_assert!`.\n");
    let params: Vec<String> = p.args.iter().map(|(_, n)| format!("{n}: i64")).collect();
    let _ = writeln!(out, "pub fn {}({}) -> {ret} {{", p.name, params.join(", "));
    out.push_str(&body);
    out.push_str("}\n");
    Ok(out)
}
