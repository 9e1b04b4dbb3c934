//! PTX: a module (`.version 8.0`, `.target sm_80`, `.address_size 64`) with one `.visible
//! .func` over `.s64` values.
//!
//! The arguments are `.param .s64 arg_<name>`. One output is the return parameter
//! `.param .s64 ret_<name>`; several (PTX allows one return parameter in `.param` space) are one
//! `.param .align 8 .b8 ret[8n]`, output `k` (in the expression's order) at byte offset `8k`, as
//! a function returning a struct of `int64_t` does. Every input and operation `t<k>` has the
//! register `%t<k>`; the floor sequences use scratch registers `%s<n>` and predicates `%p<n>`.
//!
//! A division or remainder by a constant power of two `2^k` is `shr.s64` by `k` or `and.b64`
//! with `2^k - 1`: floor for either sign. Otherwise `div.s64`/`rem.s64`, which truncate, stand
//! alone only where the interval analysis proves a non-negative dividend and a positive divisor;
//! elsewhere they are corrected to floor with `setp`/`selp` (the quotient less one, the
//! remainder plus the divisor, when the remainder is non-zero and its sign differs from the
//! divisor's). Another constant divisor of a non-negative, bounded dividend is a multiplication
//! by a fixed-point reciprocal (`mul.hi.u64`, `shr.u64`, exact on the whole domain). The
//! assumptions are stated in the comment block, not checked: PTX has no `assert`.

use crate::error::EmitError;
use crate::plan::{Plan, Trivial};
use std::fmt::Write;
use tessera_ir::index::{Node, NodeId, Op};

/// A constant as a PTX immediate.
fn literal(v: i64) -> String {
    if v == i64::MIN {
        "0x8000000000000000".into()
    } else {
        v.to_string()
    }
}

struct Ctx<'p, 'a> {
    p: &'p Plan<'a>,
    body: String,
    scratch: usize,
    preds: usize,
}

impl Ctx<'_, '_> {
    fn operand(&self, id: NodeId) -> String {
        match self.p.node(id) {
            Node::Const(c) => literal(*c),
            Node::Var(_) | Node::Op(..) => format!("%t{}", id.index()),
        }
    }

    fn s(&mut self) -> String {
        self.scratch += 1;
        format!("%s{}", self.scratch - 1)
    }

    fn pred(&mut self) -> String {
        self.preds += 1;
        format!("%p{}", self.preds - 1)
    }

    fn ins(&mut self, text: String) {
        let _ = writeln!(self.body, "\t{text};");
    }

    /// `d = floor(a / b)` or `d = a mod b` (floor), from the truncating `div`/`rem`.
    fn floor(&mut self, d: &str, a: &str, b: &str, div: bool) {
        let r = self.s();
        self.ins(format!("rem.s64 {r}, {a}, {b}"));
        let nz = self.pred();
        self.ins(format!("setp.ne.s64 {nz}, {r}, 0"));
        // The remainder (or the quotient) needs a correction when the signs of the
        // dividend and the divisor differ, which the sign of their xor tells.
        let x = self.s();
        self.ins(format!("xor.b64 {x}, {a}, {b}"));
        let neg = self.pred();
        self.ins(format!("setp.lt.s64 {neg}, {x}, 0"));
        let fix = self.pred();
        self.ins(format!("and.pred {fix}, {nz}, {neg}"));
        if div {
            let q = self.s();
            self.ins(format!("div.s64 {q}, {a}, {b}"));
            let q1 = self.s();
            self.ins(format!("sub.s64 {q1}, {q}, 1"));
            self.ins(format!("selp.s64 {d}, {q1}, {q}, {fix}"));
        } else {
            let rb = self.s();
            self.ins(format!("add.s64 {rb}, {r}, {b}"));
            self.ins(format!("selp.s64 {d}, {rb}, {r}, {fix}"));
        }
    }

    /// A multiplier `m < 2^64` and shift `s` with `floor(a * m / 2^(64 + s)) = floor(a / d)` for
    /// every dividend `a` of the domain, when the divisor is a constant `d > 1` and the dividend
    /// is non-negative and bounded by `n`: with `m = ceil(2^(64+s) / d)` and `e = m d - 2^(64+s)`,
    /// `a m / 2^(64+s) = a / d + a e / (d 2^(64+s))`, whose floor is `floor(a / d)` when
    /// `a e < 2^(64+s)`, so `n e < 2^(64+s)` suffices.
    fn magic(&self, args: &[NodeId]) -> Option<(u64, u32)> {
        let d = u128::try_from(self.p.node(args[1]).as_const()?)
            .ok()
            .filter(|d| *d > 1)?;
        let n = u128::try_from(self.p.max_value(args[0])?).ok()?;
        (0..64u32).find_map(|s| {
            let l = 1u128 << (64 + s);
            let m = l.div_ceil(d);
            let e = m * d - l;
            (m < 1 << 64 && n.checked_mul(e).is_some_and(|ne| ne < l)).then_some((m as u64, s))
        })
    }

    /// `d = a / divisor` or `a % divisor` by the multiplier and shift of [`Ctx::magic`].
    fn by_magic(&mut self, d: &str, a: &str, divisor: &str, m: u64, s: u32, div: bool) {
        let hi = self.s();
        self.ins(format!("mul.hi.u64 {hi}, {a}, {m:#x}"));
        let q = if div { d.to_string() } else { self.s() };
        self.ins(format!("shr.u64 {q}, {hi}, {s}"));
        if !div {
            let qd = self.s();
            self.ins(format!("mul.lo.s64 {qd}, {q}, {divisor}"));
            self.ins(format!("sub.s64 {d}, {a}, {qd}"));
        }
    }

    fn op(&mut self, k: usize, op: Op, args: &[NodeId]) {
        let d = format!("%t{k}");
        if let Some(t) = self.p.trivial(op, args) {
            let text = match t {
                Trivial::Same(id) => format!("mov.s64 {d}, {}", self.operand(id)),
                Trivial::Const(v) => format!("mov.s64 {d}, {}", literal(v)),
                Trivial::Neg(id) => format!("neg.s64 {d}, {}", self.operand(id)),
            };
            return self.ins(text);
        }
        let a = self.operand(args[0]);
        let b = args.get(1).map(|x| self.operand(*x)).unwrap_or_default();
        let plain = args.len() == 2 && self.p.truncation_is_floor(args[0], args[1]);
        let text = match op {
            Op::Add => format!("add.s64 {d}, {a}, {b}"),
            Op::Sub => format!("sub.s64 {d}, {a}, {b}"),
            Op::Mul => format!("mul.lo.s64 {d}, {a}, {b}"),
            // A power-of-two divisor: the shift and the mask are the floor forms for either sign.
            Op::Div if let Some(k) = self.p.power_of_two(args[1]) => format!("shr.s64 {d}, {a}, {k}"),
            Op::Mod if let Some(k) = self.p.power_of_two(args[1]) => {
                format!("and.b64 {d}, {a}, {}", (1i64 << k) - 1)
            }
            Op::Div | Op::Mod if plain && let Some((m, s)) = self.magic(args) => {
                return self.by_magic(&d, &a, &b, m, s, op == Op::Div);
            }
            Op::Div if plain => format!("div.s64 {d}, {a}, {b}"),
            Op::Mod if plain => format!("rem.s64 {d}, {a}, {b}"),
            Op::Div | Op::Mod => return self.floor(&d, &a, &b, op == Op::Div),
            Op::Xor => format!("xor.b64 {d}, {a}, {b}"),
            Op::And => format!("and.b64 {d}, {a}, {b}"),
            Op::Shl => format!("shl.b64 {d}, {a}, {}", self.p.shift(args[1])),
            Op::Shr => format!("shr.s64 {d}, {a}, {}", self.p.shift(args[1])),
            Op::Min => format!("min.s64 {d}, {a}, {b}"),
            Op::Max => format!("max.s64 {d}, {a}, {b}"),
            Op::Select => {
                let p = self.pred();
                self.ins(format!("setp.ne.s64 {p}, {a}, 0"));
                format!("selp.s64 {d}, {b}, {}, {p}", self.operand(args[2]))
            }
        };
        self.ins(text);
    }
}

pub(crate) fn emit(p: &Plan<'_>) -> Result<String, EmitError> {
    let mut cx = Ctx {
        p,
        body: String::new(),
        scratch: 0,
        preds: 0,
    };
    for (k, n) in p.e.nodes().iter().enumerate() {
        if let Node::Var(v) = n
            && p.is_live(k)
        {
            cx.ins(format!("ld.param.s64 %t{k}, [{}]", p.arg(v)));
        }
    }
    for (k, op, args) in p.ops() {
        cx.op(k, op, args);
    }
    for (n, id) in &p.outputs {
        let v = match p.node(*id) {
            Node::Const(c) => {
                let s = cx.s();
                cx.ins(format!("mov.s64 {s}, {}", literal(*c)));
                s
            }
            _ => cx.operand(*id),
        };
        cx.ins(format!("st.param.s64 [{}], {v}", slot(p, n)));
    }
    cx.ins("ret".into());
    let names: Vec<&str> = p.e.outputs().iter().map(|(n, _)| n.as_str()).collect();
    let returns = format!(
        "Returns {} in ret_{}.",
        names.join(", "),
        p.outputs
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(", ret_")
    );
    let mut out = String::new();
    out.push_str(&crate::plan::comment("//", &p.header(&returns)));
    out.push_str("// The assumptions are not checked (PTX has no assert).\n");
    out.push_str(".version 8.0\n.target sm_80\n.address_size 64\n");
    let ret = if p.outputs.len() == 1 {
        format!(".param .s64 ret_{}", p.outputs[0].0)
    } else {
        format!(".param .align 8 .b8 ret[{}]", 8 * p.outputs.len())
    };
    let params: Vec<String> = p.args.iter().map(|(_, n)| format!(".param .s64 {n}")).collect();
    let _ = writeln!(
        out,
        ".visible .func ({}) {}({})\n{{",
        ret,
        p.name,
        params.join(", ")
    );
    let _ = writeln!(out, "\t.reg .s64 %t<{}>;", p.e.nodes().len().max(1));
    if cx.scratch > 0 {
        let _ = writeln!(out, "\t.reg .s64 %s<{}>;", cx.scratch);
    }
    if cx.preds > 0 {
        let _ = writeln!(out, "\t.reg .pred %p<{}>;", cx.preds);
    }
    out.push_str(&cx.body);
    out.push_str("}\n");
    Ok(out)
}

/// Where output `name` is stored: its return parameter, or its slot of `ret`.
fn slot(p: &Plan<'_>, name: &str) -> String {
    if p.outputs.len() == 1 {
        return format!("ret_{name}");
    }
    let k = p.outputs.iter().position(|(n, _)| n == name).unwrap_or(0);
    if k == 0 {
        "ret".into()
    } else {
        format!("ret+{}", 8 * k)
    }
}
