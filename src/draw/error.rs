//! Why a picture could not be drawn.

use crate::exit;

/// An error of [`crate::draw`]: bad input (exit code 3) unless it is a bug (exit code 4).
#[derive(Debug, thiserror::Error)]
pub enum DrawError {
    /// Evaluating the layout failed (an algebra error, an overflow).
    #[error("{0}")]
    Eval(#[from] tessera_ir::Error),
    /// The bank analysis refused the question or did not answer.
    #[error("{0}")]
    Bank(#[from] tessera_verifier::ProveError),
    /// The picture would have more cells (or the thread-value layout more accesses) than a
    /// picture may.
    #[error(
        "{what} has {count} {unit}, more than the {max} a picture may have; draw a smaller view, e.g. a slice such as L[0:64, :] or a tile of it"
    )]
    TooLarge {
        /// What is too large.
        what: String,
        /// Its number of cells or accesses (as text: it may not fit an integer).
        count: String,
        /// `cells` or `accesses`.
        unit: &'static str,
        /// The limit.
        max: usize,
    },
    /// The input cannot be drawn this way (a rank, a kind of value, a colouring).
    #[error("{0}")]
    Invalid(String),
    /// The PNG could not be rendered.
    #[error("rendering the PNG: {0}")]
    Render(String),
}

impl DrawError {
    /// The exit code of the `tessera` binary for this error: 4 for a bug in Tessera, else 3
    /// (bad input).
    pub fn exit_code(&self) -> i32 {
        match self {
            DrawError::Eval(e) => exit::of(e),
            DrawError::Bank(tessera_verifier::ProveError::Internal(_)) => exit::INTERNAL,
            DrawError::Render(_) => exit::INTERNAL,
            _ => exit::BAD_INPUT,
        }
    }

    /// Bad input with this message.
    pub(crate) fn invalid(msg: impl Into<String>) -> DrawError {
        DrawError::Invalid(msg.into())
    }
}
