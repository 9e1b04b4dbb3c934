//! The operators of the index IR, declared once.
//!
//! Each operator is one entry of the `operators!` table below: its name, the symbol it prints
//! with, how it prints, its arity and its evaluation. [`Op`] and its methods are generated from
//! the table, and every generic part of the IR (building, evaluation, printing, liveness,
//! [`super::Node::children`]) reads the operators from there. A semantics that is not
//! evaluation (the interval transfer, a z3 encoding, a code generator) is one `match` on
//! [`Op`]; adding an operator is one entry here and one arm in each such semantics.
//!
//! ```
//! use tessera_ir::index::{Form, Op};
//! assert_eq!(Op::Mod.symbol(), "%");
//! assert_eq!(Op::Select.arity(), 3);
//! assert_eq!(Op::Max.form(), Form::Call);
//! assert_eq!(Op::Mod.eval(&[-7, 4]).unwrap(), 1); // floor remainder
//! assert_eq!(Op::Select.eval(&[0, 10, 20]).unwrap(), 20);
//! assert!(Op::Add.eval(&[i64::MAX, 1]).is_err()); // overflow is an error
//! ```

use crate::error::{Error, Result};
use crate::int::Int;

/// The largest arity of an operator ([`Op::Select`]'s).
pub const MAX_ARITY: usize = 3;

/// How an operation prints, with `t`-names or literals for its operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// Between its two operands: `a + b`.
    Infix,
    /// As a call: `min(a, b)`.
    Call,
    /// As a conditional: `c != 0 ? a : b`.
    Select,
}

/// Declares the operators: `Variant: "name", "symbol", Form, arity, |operands| evaluation;`,
/// where `operands` is a pattern over a `[i64; MAX_ARITY]` (unused slots are 0).
macro_rules! operators {
    ($($(#[$doc:meta])* $op:ident: $name:literal, $sym:literal, $form:ident, $arity:literal,
        |$v:pat_param| $eval:expr;)*) => {
        /// An operator of the index IR (see the module documentation for the table).
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
        pub enum Op {
            $($(#[$doc])* $op,)*
        }

        impl Op {
            /// Every operator, in the order of the table.
            pub const ALL: &'static [Op] = &[$(Op::$op),*];

            /// The operator's name: a lower-case identifier (`add`, `shl`, `select`).
            pub fn name(self) -> &'static str {
                match self {
                    $(Op::$op => $name,)*
                }
            }

            /// The symbol it prints with (`+`, `<<`, `min`).
            pub fn symbol(self) -> &'static str {
                match self {
                    $(Op::$op => $sym,)*
                }
            }

            /// How it prints.
            pub fn form(self) -> Form {
                match self {
                    $(Op::$op => Form::$form,)*
                }
            }

            /// The number of operands.
            pub fn arity(self) -> usize {
                match self {
                    $(Op::$op => $arity,)*
                }
            }

            /// Evaluates the operator on its operand values (`arity` of them), with checked
            /// arithmetic: overflow, division by zero and a shift outside `0..63` are errors.
            ///
            /// # Panics
            /// When given more than [`MAX_ARITY`] operands.
            pub fn eval(self, operands: &[i64]) -> Result<i64> {
                debug_assert_eq!(operands.len(), self.arity(), "operands of {}", self.name());
                let mut padded = [0i64; MAX_ARITY];
                padded[..operands.len()].copy_from_slice(operands);
                match self {
                    $(Op::$op => {
                        let $v = padded;
                        $eval
                    })*
                }
            }
        }
    };
}

operators! {
    /// `a + b`
    Add: "add", "+", Infix, 2, |[a, b, _]| checked(a.checked_add(b), "+", a, b);
    /// `a - b`
    Sub: "sub", "-", Infix, 2, |[a, b, _]| checked(a.checked_sub(b), "-", a, b);
    /// `a * b`
    Mul: "mul", "*", Infix, 2, |[a, b, _]| checked(a.checked_mul(b), "*", a, b);
    /// `floor(a / b)`
    Div: "div", "/", Infix, 2, |[a, b, _]| nonzero(a, b).and_then(|_| a.floor_div(&b));
    /// `a mod b` (floor remainder, with the sign of `b`)
    Mod: "mod", "%", Infix, 2, |[a, b, _]| nonzero(a, b).and_then(|_| a.floor_mod(&b));
    /// `a ^ b`
    Xor: "xor", "^", Infix, 2, |[a, b, _]| Ok(a ^ b);
    /// `a & b`
    And: "and", "&", Infix, 2, |[a, b, _]| Ok(a & b);
    /// `a << b`, `b` in `0..63`
    Shl: "shl", "<<", Infix, 2, |[a, b, _]| shift(b).and_then(|s| checked(a.checked_mul(1 << s), "<<", a, b));
    /// `a >> b` (arithmetic), `b` in `0..63`
    Shr: "shr", ">>", Infix, 2, |[a, b, _]| shift(b).map(|s| a >> s);
    /// `min(a, b)`
    Min: "min", "min", Call, 2, |[a, b, _]| Ok(a.min(b));
    /// `max(a, b)`
    Max: "max", "max", Call, 2, |[a, b, _]| Ok(a.max(b));
    /// `c != 0 ? a : b`
    Select: "select", "?", Select, 3, |[c, a, b]| Ok(if c != 0 { a } else { b });
}

fn checked(v: Option<i64>, op: &str, a: i64, b: i64) -> Result<i64> {
    v.ok_or_else(|| Error::Overflow(format!("{a} {op} {b} in an index expression")))
}

fn nonzero(a: i64, b: i64) -> Result<()> {
    if b == 0 {
        return Err(Error::DivisionByZero(format!("{a} / 0 in an index expression")));
    }
    Ok(())
}

fn shift(b: i64) -> Result<u32> {
    u32::try_from(b)
        .ok()
        .filter(|s| *s < 63)
        .ok_or_else(|| Error::invalid(format!("shift by {b} in an index expression")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_consistent() {
        assert_eq!(Op::ALL.len(), 12);
        for (k, op) in Op::ALL.iter().enumerate() {
            assert!(op.arity() >= 1 && op.arity() <= MAX_ARITY, "{op:?}");
            assert!(Op::ALL[..k].iter().all(|o| o.name() != op.name()), "{op:?}");
            assert!(Op::ALL[..k].iter().all(|o| o.symbol() != op.symbol()), "{op:?}");
            assert_eq!(op.form() == Form::Select, op.arity() == 3, "{op:?}");
            assert!(op.name().chars().all(|c| c.is_ascii_lowercase()), "{op:?}");
        }
    }

    #[test]
    fn evaluation_semantics() {
        let e = |op: Op, v: &[i64]| op.eval(v).ok();
        assert_eq!(e(Op::Sub, &[3, 5]), Some(-2));
        assert_eq!(e(Op::Div, &[-7, 2]), Some(-4));
        assert_eq!(e(Op::Mod, &[7, -2]), Some(-1));
        assert_eq!(e(Op::Div, &[1, 0]), None);
        assert_eq!(e(Op::Mod, &[1, 0]), None);
        assert_eq!(e(Op::Xor, &[6, 3]), Some(5));
        assert_eq!(e(Op::And, &[-1, 12]), Some(12));
        assert_eq!(e(Op::Shl, &[3, 4]), Some(48));
        assert_eq!(e(Op::Shl, &[1, 63]), None);
        assert_eq!(e(Op::Shl, &[1 << 62, 1]), None);
        assert_eq!(e(Op::Shr, &[-16, 2]), Some(-4));
        assert_eq!(e(Op::Shr, &[1, -1]), None);
        assert_eq!(e(Op::Min, &[3, -5]), Some(-5));
        assert_eq!(e(Op::Max, &[3, -5]), Some(3));
        assert_eq!(e(Op::Select, &[7, 1, 2]), Some(1));
        assert_eq!(e(Op::Mul, &[i64::MAX, 2]), None);
        let msg = Op::Mul.eval(&[i64::MAX, 2]).unwrap_err().to_string();
        assert!(
            msg.contains(&format!("{} * 2 in an index expression", i64::MAX)),
            "{msg}"
        );
    }
}
