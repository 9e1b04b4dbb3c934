//! Index expressions as Cranelift instructions: the IR's semantics (floor division and
//! remainder, arithmetic shifts) with the cheapest exact instruction per node, chosen from the
//! interval analysis as the text backends choose theirs.

use crate::plan::{Plan, Trivial};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Value, types};
use cranelift_frontend::FunctionBuilder;
use std::collections::HashMap;
use tessera_ir::index::{Node, NodeId, Op, Var};

/// Emits the live nodes of `plan`'s expression into `b` (the current block), inputs taken from
/// `inputs`; returns the value of every output, in order.
///
/// @pre the plan's checks passed and [`super::check_total`] accepted the expression (no
/// division by a value that may be 0, every value inside `i64`).
pub(crate) fn build(
    b: &mut FunctionBuilder<'_>,
    plan: &Plan<'_>,
    inputs: &HashMap<Var, Value>,
) -> Vec<Value> {
    let mut v: HashMap<usize, Value> = HashMap::new();
    let get = |v: &HashMap<usize, Value>, b: &mut FunctionBuilder<'_>, id: NodeId| -> Value {
        match plan.node(id) {
            Node::Const(c) => b.ins().iconst(types::I64, *c),
            Node::Var(x) => inputs[x],
            Node::Op(..) => v[&id.index()],
        }
    };
    for (k, op, a) in plan.ops() {
        // Forms with a known value (`x ^ x`, `min(x, x)`, `x * -1`): the plan's liveness leaves
        // their operands' own operations out, as the text backends write them.
        if let Some(t) = plan.trivial(op, a) {
            let r = match t {
                Trivial::Same(id) => get(&v, b, id),
                Trivial::Const(c) => b.ins().iconst(types::I64, c),
                Trivial::Neg(id) => {
                    let x = get(&v, b, id);
                    b.ins().ineg(x)
                }
            };
            v.insert(k, r);
            continue;
        }
        let x = get(&v, b, a[0]);
        let y = get(&v, b, a[1]);
        let r = match op {
            Op::Add => b.ins().iadd(x, y),
            Op::Sub => b.ins().isub(x, y),
            Op::Mul => b.ins().imul(x, y),
            Op::Div | Op::Mod => divmod(b, plan, op, (a[0], x), (a[1], y)),
            Op::Xor => b.ins().bxor(x, y),
            Op::And => b.ins().band(x, y),
            Op::Shl => b.ins().ishl_imm_u(x, i64::from(plan.shift(a[1]))),
            Op::Shr => b.ins().sshr_imm_u(x, i64::from(plan.shift(a[1]))),
            Op::Min => b.ins().smin(x, y),
            Op::Max => b.ins().smax(x, y),
            Op::Select => {
                let z = get(&v, b, a[2]);
                let c = b.ins().icmp_imm_s(IntCC::NotEqual, x, 0);
                b.ins().select(c, y, z)
            }
        };
        v.insert(k, r);
    }
    plan.e.outputs().iter().map(|(_, id)| get(&v, b, *id)).collect()
}

/// Floor division or remainder: a shift or mask by a power of two, an unsigned instruction
/// where both operands are proved non-negative (truncation is then the floor), else the signed
/// instruction corrected toward negative infinity.
fn divmod(
    b: &mut FunctionBuilder<'_>,
    plan: &Plan<'_>,
    op: Op,
    (xid, x): (NodeId, Value),
    (yid, y): (NodeId, Value),
) -> Value {
    if let Some(k) = plan.power_of_two(yid) {
        return if op == Op::Div {
            b.ins().sshr_imm_u(x, i64::from(k))
        } else {
            b.ins().band_imm_s(x, (1i64 << k) - 1)
        };
    }
    if plan.truncation_is_floor(xid, yid) {
        return if op == Op::Div {
            b.ins().udiv(x, y)
        } else {
            b.ins().urem(x, y)
        };
    }
    let q = b.ins().sdiv(x, y);
    let r = b.ins().srem(x, y);
    // Truncation is one too high (the remainder off by the divisor) when the remainder is not
    // zero and its sign differs from the divisor's.
    let nz = b.ins().icmp_imm_s(IntCC::NotEqual, r, 0);
    let sx = b.ins().bxor(r, y);
    let neg = b.ins().icmp_imm_s(IntCC::SignedLessThan, sx, 0);
    let fix = b.ins().band(nz, neg);
    if op == Op::Div {
        let one = b.ins().uextend(types::I64, fix);
        b.ins().isub(q, one)
    } else {
        let adjusted = b.ins().iadd(r, y);
        b.ins().select(fix, adjusted, r)
    }
}
