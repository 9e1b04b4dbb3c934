//! Why a proof ends without a proof or a refutation.

use tessera_ir::Error;

/// The result type of the prover's internals.
pub type PResult<T> = Result<T, ProveError>;

/// An answer other than proved or refuted, as it travels up from the query that met it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProveError {
    /// The question is malformed: bad input (exit code 3).
    #[error("{0}")]
    Invalid(String),
    /// The assertion's time limit passed.
    #[error("timeout")]
    Timeout,
    /// No answer, for the reason given (a nonlinear query, an undecided side condition).
    #[error("{0}")]
    Unknown(String),
    /// A bug in Tessera: a counterexample that does not reproduce, a failed encoding.
    #[error("{0}")]
    Internal(String),
}

impl ProveError {
    /// An internal error.
    pub fn internal(msg: impl Into<String>) -> Self {
        ProveError::Internal(msg.into())
    }

    /// Bad input.
    pub fn invalid(msg: impl Into<String>) -> Self {
        ProveError::Invalid(msg.into())
    }
}

/// An algebra error met while encoding or evaluating: no answer, with the reason.
impl From<Error> for ProveError {
    fn from(e: Error) -> Self {
        match e {
            Error::Undecided { op, cond } => ProveError::Unknown(format!("{op} needs {cond}")),
            Error::Internal(m) => ProveError::Internal(m),
            e => ProveError::Unknown(e.to_string()),
        }
    }
}
