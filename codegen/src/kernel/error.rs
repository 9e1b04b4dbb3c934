//! Errors of running a kernel.

use super::ir::ElemType;

/// Why the reference interpreter did not run (or did not finish) a kernel.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// A parameter of the kernel has no value.
    #[error("parameter {0} is not bound")]
    Unbound(String),
    /// A bound value that the parameter's facts do not admit.
    #[error("{name}={value} is not admitted by the facts of {name}")]
    NotAdmitted {
        /// The parameter.
        name: String,
        /// The value given.
        value: i64,
    },
    /// A kernel proved only at other parameter values ([`super::Proved::check_at`]).
    #[error("the kernel was proved for {name}={proved} only")]
    NotProvedFor {
        /// The parameter.
        name: String,
        /// The value it was proved for.
        proved: i64,
    },
    /// The number of buffers is not the number of tensors.
    #[error("expected {expected} buffers (one per tensor), got {got}")]
    BufferCount {
        /// Tensors of the kernel.
        expected: usize,
        /// Buffers given.
        got: usize,
    },
    /// A buffer of the wrong element type.
    #[error("tensor {tensor}: expected a buffer of {expected}, got {got}")]
    BufferType {
        /// The tensor.
        tensor: String,
        /// Its element type's name.
        expected: &'static str,
        /// The buffer's element type's name.
        got: &'static str,
    },
    /// A buffer whose length is not the tensor's cosize.
    #[error("tensor {tensor}: expected a buffer of {expected} elements (its cosize), got {got}")]
    BufferLength {
        /// The tensor.
        tensor: String,
        /// The cosize at the bound values.
        expected: i64,
        /// The buffer's length.
        got: usize,
    },
    /// An offset outside the buffer (only possible for a kernel accepted `unchecked`): the
    /// interpreter checks every offset and stops here instead of reading or writing it.
    #[error("tensor {tensor}: offset {offset} is outside its buffer of {len} elements")]
    OutOfBounds {
        /// The tensor.
        tensor: String,
        /// The offset.
        offset: i64,
        /// The buffer's length.
        len: usize,
    },
    /// An integer division by zero.
    #[error("integer division by zero (type {0:?})")]
    DivisionByZero(ElemType),
    /// The layouts could not be evaluated at the bound values (overflow, bad layout).
    #[error("{0}")]
    Layout(String),
}
