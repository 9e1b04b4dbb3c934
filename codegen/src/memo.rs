//! A memo of preparation answers: what a kernel's preparation proved or computed (a kernel's
//! proof, a tensor's validated index code, a contiguity proof), recalled by the complete text
//! of the question that produced it.
//!
//! The questions are deterministic and complete: each holds everything its answer depends on
//! (the kernel or the lowered expression, its domain, the bindings, the limits), so an answer
//! recorded once is the answer. Only answers that are facts are recorded (proved, a validated
//! rewrite, the input kept after a validation the resource limit ended), never an unknown that
//! a wall-clock limit produced. `tessera run` stores them on disk (the `tessera` crate's
//! `prep_cache`); [`NoMemo`] recalls nothing and is the library's default.
//!
//! ```
//! use std::{cell::RefCell, collections::HashMap};
//! use tessera_codegen::Memo;
//! struct InMemory(RefCell<HashMap<(String, String), String>>);
//! impl Memo for InMemory {
//!     fn recall(&self, kind: &str, question: &str) -> Option<String> {
//!         self.0.borrow().get(&(kind.into(), question.into())).cloned()
//!     }
//!     fn record(&self, kind: &str, question: &str, answer: &str) {
//!         self.0.borrow_mut().insert((kind.into(), question.into()), answer.into());
//!     }
//! }
//! let m = InMemory(RefCell::default());
//! m.record("proof", "q", "proved");
//! assert_eq!(m.recall("proof", "q").as_deref(), Some("proved"));
//! ```

/// Where preparation recalls and records its answers (see the module documentation).
pub trait Memo {
    /// The answer recorded for `question` of this `kind`, if any (a short lowercase word:
    /// `proof`, `index`, `step`).
    ///
    /// @pre none. @post `Some` only with an answer recorded for exactly this kind and question.
    fn recall(&self, kind: &str, question: &str) -> Option<String>;

    /// Records `answer` to `question`; failures are silent (a memo is never required).
    ///
    /// @pre `answer` is the deterministic answer to `question`. @post a later
    /// [`Memo::recall`] may give it.
    fn record(&self, kind: &str, question: &str, answer: &str);
}

/// A memo that remembers nothing.
///
/// ```
/// use tessera_codegen::{Memo, NoMemo};
/// NoMemo.record("proof", "q", "proved");
/// assert_eq!(NoMemo.recall("proof", "q"), None);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct NoMemo;

impl Memo for NoMemo {
    fn recall(&self, _: &str, _: &str) -> Option<String> {
        None
    }

    fn record(&self, _: &str, _: &str, _: &str) {}
}

/// Whether `question` (of `kind`) is proved: the answer `memo` recalls, else `decide`'s verdict,
/// recorded when it is a proof or a refutation (a counterexample, re-checked); an unknown, which
/// may be a wall-clock limit's, and `None` are not recorded.
///
/// @pre `decide` answers exactly `question`. @post `true` only for a proof, recalled or made.
pub(crate) fn proved_memo(
    memo: &dyn Memo,
    kind: &str,
    question: &str,
    decide: impl FnOnce() -> Option<tessera_verifier::Verdict>,
) -> bool {
    use tessera_verifier::Verdict;
    match memo.recall(kind, question).as_deref() {
        Some("proved") => return true,
        Some("refuted") => return false,
        _ => {}
    }
    match decide() {
        Some(Verdict::Proved) => {
            memo.record(kind, question, "proved");
            true
        }
        Some(Verdict::Refuted(_)) => {
            memo.record(kind, question, "refuted");
            false
        }
        _ => false,
    }
}
