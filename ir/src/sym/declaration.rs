//! A parameter declaration as data: the names it declares and the facts it states. The text
//! format reads one ([`crate::text::facts::parse_declaration`]); [`super::Facts`] records what
//! it means.

/// A declared name and its column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    /// The parameter's name.
    pub name: String,
    /// Byte column in the declaration.
    pub col: usize,
}

/// One side of a comparison.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    /// An integer.
    Int(i64),
    /// A parameter.
    Name(String),
}

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `<=`
    Le,
    /// `<`
    Lt,
    /// `>=`
    Ge,
    /// `>`
    Gt,
    /// `==`
    Eq,
}

impl Cmp {
    /// The same comparison with its sides swapped (`a <= b` is `b >= a`).
    pub fn flipped(self) -> Cmp {
        match self {
            Cmp::Le => Cmp::Ge,
            Cmp::Ge => Cmp::Le,
            Cmp::Lt => Cmp::Gt,
            Cmp::Gt => Cmp::Lt,
            Cmp::Eq => Cmp::Eq,
        }
    }
}

/// One fact.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fact {
    /// `name % k == r`, with `k >= 1` (a congruence; `r` as written, any integer).
    Modulus {
        /// The parameter.
        name: String,
        /// The modulus.
        k: i64,
        /// The residue as written (normalised to `0 <= r < k` by [`super::Facts`]).
        r: i64,
        /// Column of the fact.
        col: usize,
    },
    /// `a0 op0 a1 op1 a2 ...`: each adjacent pair compared.
    Compare {
        /// The operands, one more than the operators.
        operands: Vec<Operand>,
        /// The operators.
        ops: Vec<Cmp>,
        /// Column of the fact.
        col: usize,
    },
}

/// A parsed declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declaration {
    /// The declared names, in order.
    pub names: Vec<Name>,
    /// The facts after `where`.
    pub facts: Vec<Fact>,
}
