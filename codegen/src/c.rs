//! C11 and CUDA C++: one `static inline` (C) or `__device__ __forceinline__` (CUDA) function
//! over `int64_t`, one local per operation.
//!
//! C's `/` and `%` truncate and the IR's floor; they are used only where the interval analysis
//! proves a non-negative dividend and a positive divisor; else a constant power-of-two divisor
//! becomes an arithmetic shift (below) or a mask (`int64_t` is two's complement), and any other
//! divisor a floor helper (emitted once, guarded by a macro so that several functions share a
//! file). A left shift of a value that may
//! be negative is undefined in C, so it becomes a multiplication by the power of two; a right
//! shift of such a value is implementation-defined, so it becomes `x < 0 ? ~(~x >> s) : x >> s`.

use crate::error::EmitError;
use crate::plan::{Plan, Trivial};
use std::fmt::Write;
use tessera_ir::index::{Node, NodeId, Op};

/// Which dialect of C.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    C,
    Cuda,
}

/// A constant as a C expression of type `int64_t` (its value for any width of `long`).
pub(crate) fn literal(v: i64) -> String {
    if v == i64::MIN {
        "INT64_MIN".into()
    } else if i32::try_from(v).is_ok() {
        v.to_string()
    } else {
        format!("INT64_C({v})")
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

    /// The right-hand side of `t<k> = op(args)`.
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
            Op::Div if let Some(k) = self.p.power_of_two(args[1]) => {
                format!("{a} < 0 ? ~(~{a} >> {k}) : {a} >> {k}")
            }
            Op::Div => {
                self.floor_div = true;
                format!("tessera_floor_div({a}, {b})")
            }
            Op::Mod if self.p.truncation_is_floor(args[0], args[1]) => format!("{a} % {b}"),
            // int64_t is two's complement: the low bits are the floor remainder.
            Op::Mod if let Some(k) = self.p.power_of_two(args[1]) => {
                format!("{a} & {}", literal((1i64 << k) - 1))
            }
            Op::Mod => {
                self.floor_mod = true;
                format!("tessera_floor_mod({a}, {b})")
            }
            Op::Xor => format!("{a} ^ {b}"),
            Op::And => format!("{a} & {b}"),
            Op::Shl => {
                let s = self.p.shift(args[1]);
                if self.p.nonneg(args[0]) {
                    format!("{a} << {s}")
                } else {
                    format!("{a} * {}", literal(1i64 << s))
                }
            }
            Op::Shr => {
                let s = self.p.shift(args[1]);
                if self.p.nonneg(args[0]) {
                    format!("{a} >> {s}")
                } else {
                    format!("{a} < 0 ? ~(~{a} >> {s}) : {a} >> {s}")
                }
            }
            Op::Min => format!("{a} < {b} ? {a} : {b}"),
            Op::Max => format!("{a} > {b} ? {a} : {b}"),
            Op::Select => format!("{a} != 0 ? {b} : {}", o(2)),
        }
    }
}

/// The assertions of the signature's assumptions, as C conditions.
fn conditions(p: &Plan<'_>) -> Vec<String> {
    let mut out = Vec::new();
    for a in &p.sig.assumptions {
        let x = p.arg(&a.var);
        match a.bounds() {
            (Some(l), Some(h)) if l == h => out.push(format!("{x} == {}", literal(l))),
            (Some(l), Some(h)) => out.push(format!("{} <= {x} && {x} <= {}", literal(l), literal(h))),
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

const FLOOR_DIV: &str = "\
#ifndef TESSERA_FLOOR_DIV_DEFINED
#define TESSERA_FLOOR_DIV_DEFINED
/* Floor division: C's / truncates towards zero. */
static QUAL int64_t tessera_floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}
#endif
";

const FLOOR_MOD: &str = "\
#ifndef TESSERA_FLOOR_MOD_DEFINED
#define TESSERA_FLOOR_MOD_DEFINED
/* Floor remainder, with the sign of the divisor: C's % has the sign of the dividend. */
static QUAL int64_t tessera_floor_mod(int64_t a, int64_t b) {
    int64_t r = b == -1 ? 0 : a % b;
    return (r != 0 && (r < 0) != (b < 0)) ? r + b : r;
}
#endif
";

pub(crate) fn emit(p: &Plan<'_>, dialect: Dialect) -> Result<String, EmitError> {
    let mut cx = Ctx {
        p,
        floor_div: false,
        floor_mod: false,
    };
    let mut body = String::new();
    let conds = conditions(p);
    for c in &conds {
        let _ = writeln!(body, "    assert({c});");
    }
    for n in p.unread_args() {
        let _ = writeln!(body, "    (void){n};");
    }
    for (k, op, args) in p.ops() {
        let rhs = cx.rhs(op, args);
        let _ = writeln!(body, "    int64_t t{k} = {rhs};");
    }
    let single = p.outputs.len() == 1;
    if single {
        let _ = writeln!(body, "    return {};", cx.operand(p.outputs[0].1));
    } else {
        for (n, id) in &p.outputs {
            let _ = writeln!(body, "    *out_{n} = {};", cx.operand(*id));
        }
    }
    let names: Vec<&str> = p.outputs.iter().map(|(n, _)| n.as_str()).collect();
    let returns = if single {
        format!("Returns {}.", p.e.outputs()[0].0)
    } else {
        format!(
            "Writes {} through out_{}.",
            p.e.outputs()
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            names.join(", out_")
        )
    };
    let mut out = String::new();
    out.push_str(&crate::plan::comment("//", &p.header(&returns)));
    let check = match dialect {
        Dialect::C => "The assumptions are checked by assert() unless NDEBUG is defined.",
        Dialect::Cuda => "The assumptions are checked by device assert() unless NDEBUG is defined.",
    };
    let _ = writeln!(out, "// {check}");
    let (qual, fn_qual) = match dialect {
        Dialect::C => {
            out.push_str("#include <assert.h>\n#include <stdint.h>\n");
            ("inline", "static inline")
        }
        Dialect::Cuda => {
            out.push_str("#include <cassert>\n#include <cstdint>\n");
            ("__device__ __forceinline__", "__device__ __forceinline__")
        }
    };
    if cx.floor_div {
        out.push_str(&FLOOR_DIV.replace("QUAL", qual));
    }
    if cx.floor_mod {
        out.push_str(&FLOOR_MOD.replace("QUAL", qual));
    }
    let mut params: Vec<String> = p.args.iter().map(|(_, n)| format!("int64_t {n}")).collect();
    if !single {
        params.extend(names.iter().map(|n| format!("int64_t *out_{n}")));
    }
    let params = if params.is_empty() {
        "void".to_string()
    } else {
        params.join(", ")
    };
    let ret = if single { "int64_t" } else { "void" };
    let _ = writeln!(out, "{fn_qual} {ret} {}({params}) {{", p.name);
    out.push_str(&body);
    out.push_str("}\n");
    Ok(out)
}
