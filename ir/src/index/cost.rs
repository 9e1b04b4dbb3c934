//! The cost model of index arithmetic: what an operation costs on the targets (a CPU core, a GPU
//! thread), in rough instruction-latency units. The e-graph extraction minimises it, and the
//! figures before and after a simplification are reported in it.
//!
//! | operation | weight | why |
//! |---|---|---|
//! | constant, input | 0 | an immediate or a register |
//! | `+ - & ^ << >>` | 1 | one ALU instruction |
//! | `min max select` | 2 | a compare and a select |
//! | `*` | 3 | one multiply (`imul`, `mul.lo`) |
//! | `/` by a constant | 6 | strength-reduced: multiply-high, shift and a sign fix |
//! | `%` by a constant | 8 | the quotient as above, then multiply and subtract |
//! | `/` or `%` by a runtime value | 40 | a hardware divide (`idiv`: 40-90 cycles) or PTX's emulated `div.s64` |
//!
//! A division by a power-of-two constant costs what any constant division costs: the simplifier
//! is what turns it into a shift or a mask, and the count of those left is reported apart.
//!
//! ```
//! use tessera_ir::index::{Builder, Var};
//! let mut b = Builder::new();
//! let i = b.var(Var::Index);
//! let four = b.konst(4);
//! let m = b.var(Var::Param("M".into()));
//! let q = b.div(i, four);
//! let r = b.rem(i, m);
//! let s = b.add(q, r);
//! let c = b.finish(vec![("offset".into(), s)]).cost();
//! assert_eq!((c.ops, c.div_mod, c.pow2_div_mod, c.weighted), (3, 2, 1, 6 + 40 + 1));
//! ```

use super::{IndexExpr, Node, Op};

/// The cost figures of an index expression (live operations only; shared subexpressions count
/// once).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    /// Operation nodes.
    pub ops: usize,
    /// Of which `/` and `%`.
    pub div_mod: usize,
    /// Of which by a power-of-two constant.
    pub pow2_div_mod: usize,
    /// The weighted cost (the table of the module documentation).
    pub weighted: u64,
}

/// The weight of `op` (see the module documentation); `divisor` is the constant second operand,
/// when it is one.
///
/// ```
/// use tessera_ir::index::{Op, op_weight};
/// assert_eq!(op_weight(Op::Add, None), 1);
/// assert_eq!(op_weight(Op::Div, Some(3)), 6);
/// assert_eq!(op_weight(Op::Mod, None), 40);
/// ```
pub fn op_weight(op: Op, divisor: Option<i64>) -> u64 {
    match op {
        Op::Add | Op::Sub | Op::And | Op::Xor | Op::Shl | Op::Shr => 1,
        Op::Min | Op::Max | Op::Select => 2,
        Op::Mul => 3,
        Op::Div if divisor.is_some() => 6,
        Op::Mod if divisor.is_some() => 8,
        Op::Div | Op::Mod => 40,
    }
}

/// Whether `v` is a power of two (1 included).
pub(crate) fn is_pow2(v: i64) -> bool {
    v > 0 && v & (v - 1) == 0
}

impl IndexExpr {
    /// The cost figures of the live operations.
    pub fn cost(&self) -> Cost {
        let live = self.live();
        let mut c = Cost::default();
        for (k, n) in self.nodes.iter().enumerate() {
            let Node::Op(op, args) = n else { continue };
            if !live[k] {
                continue;
            }
            let divisor = args.get(1).and_then(|d| self.node(*d).as_const());
            c.ops += 1;
            if matches!(op, Op::Div | Op::Mod) {
                c.div_mod += 1;
                if divisor.is_some_and(is_pow2) {
                    c.pow2_div_mod += 1;
                }
            }
            c.weighted += op_weight(*op, divisor.filter(|_| matches!(op, Op::Div | Op::Mod)));
        }
        c
    }
}
