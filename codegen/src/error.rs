//! The errors of the code generators.

use tessera_ir::index::Var;

/// Why an index function cannot be emitted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EmitError {
    /// A function or argument name that is not an identifier of the target language, or is
    /// one of its keywords or one of the names the generated code uses itself.
    #[error("'{name}' cannot be used as a name: {why}")]
    InvalidName {
        /// The name as given.
        name: String,
        /// What is wrong with it.
        why: String,
    },
    /// Two names of the signature become the same identifier in the target language.
    #[error("'{0}' and '{1}' become the same identifier '{2}'")]
    NameClash(String, String, String),
    /// The expression reads an input that is not an argument of the signature.
    #[error("the expression reads {0}, which is not an argument of the signature")]
    MissingArgument(Var),
    /// An input listed twice among the arguments.
    #[error("{0} is listed twice among the arguments")]
    DuplicateArgument(Var),
    /// An assumption about something that is not an argument.
    #[error("an assumption about {0}, which is not an argument")]
    AssumptionOnNonArgument(Var),
    /// An assumption that no value satisfies.
    #[error("the assumptions about {var} admit no value ({lo} > {hi})")]
    EmptyRange {
        /// The input.
        var: Var,
        /// Its smallest value (after rounding to the modulus).
        lo: i128,
        /// Its largest value (after rounding to the modulus).
        hi: i128,
    },
    /// A modulus below 1.
    #[error("the modulus of {var} must be at least 1, not {modulus}")]
    BadModulus {
        /// The input.
        var: Var,
        /// The modulus given.
        modulus: i64,
    },
    /// An expression without outputs.
    #[error("the expression has no outputs")]
    NoOutputs,
    /// A shift whose amount is not a constant in `0..=62`.
    #[error("t{node} shifts by {amount}; index functions shift by a constant in 0..=62")]
    ShiftAmount {
        /// The shift's node.
        node: usize,
        /// The amount, as printed.
        amount: String,
    },
    /// An operation that leaves int64 even with every argument at its admitted value nearest
    /// 0, so that no bound on the arguments makes the code fit.
    #[error("t{node} = {op} overflows int64 even with every argument at its admitted value nearest 0 (its value lies in [{}, {}]), so no bound on the arguments makes the code fit", show_end(.lo), show_end(.hi))]
    Overflow {
        /// The operation's node.
        node: usize,
        /// The operation as written, e.g. `7 << 61`.
        op: String,
        /// Its smallest value, if bounded.
        lo: Option<i128>,
        /// Its largest value, if bounded.
        hi: Option<i128>,
    },
    /// A bug of the code generator.
    #[error("internal error: {0}")]
    Internal(String),
    /// An unknown target language.
    #[error("unknown language '{0}' (expected c, rust, cuda or ptx)")]
    UnknownLang(String),
    /// A kernel the PTX backend cannot emit (a layout that does not lower, a construct it does
    /// not support).
    #[error("{0}")]
    Unsupported(String),
    /// The PTX uses a feature the target architecture lacks.
    #[error("{what} needs {needs} or later; --arch {arch} lacks it")]
    Arch {
        /// The feature, with the instruction that uses it.
        what: String,
        /// The first architecture that has it.
        needs: &'static str,
        /// The architecture asked for.
        arch: &'static str,
    },
}

/// An interval's end as printed: the number, or "unbounded".
fn show_end(x: &Option<i128>) -> String {
    x.map_or("unbounded".to_string(), |v| v.to_string())
}
