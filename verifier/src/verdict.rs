//! Answers: proved, refuted with a counterexample, or unknown with the reason.

use std::fmt;

/// One point of a counterexample: an index of some function, its coordinate and its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    /// What the point is, e.g. `x` or `thread 3`.
    pub name: String,
    /// The integral index in the function's domain.
    pub index: i64,
    /// The natural coordinate of the index.
    pub coord: String,
    /// What it reaches, e.g. `offset 12`.
    pub value: String,
}

/// A counterexample, re-checked by direct evaluation before it is reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counterexample {
    /// Values of the parameters (empty for concrete layouts).
    pub params: Vec<(String, i64)>,
    /// The points that violate the property.
    pub witnesses: Vec<Witness>,
    /// One line saying what goes wrong, e.g. `L(3) == L(9) == 12`.
    pub summary: String,
}

impl fmt::Display for Witness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.name.contains(' ') {
            // Already names its index, e.g. `thread 19`.
            write!(f, "{} ({}) -> {}", self.name, self.coord, self.value)
        } else {
            write!(
                f,
                "{} = {} {} -> {}",
                self.name, self.index, self.coord, self.value
            )
        }
    }
}

impl fmt::Display for Counterexample {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.summary)?;
        if !self.params.is_empty() {
            let p: Vec<String> = self.params.iter().map(|(n, v)| format!("{n}={v}")).collect();
            write!(f, " [{}]", p.join(", "))?;
        }
        // Bank-conflict witnesses (thread, access, byte) are already in the summary; the JSON
        // report keeps them as data.
        for w in self.witnesses.iter().filter(|w| !w.coord.starts_with("access")) {
            write!(f, "; {w}")?;
        }
        Ok(())
    }
}

/// The answer to a property.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The property holds for every index (and every admitted parameter value).
    Proved,
    /// The property fails; here is where.
    Refuted(Counterexample),
    /// Neither: a timeout, a nonlinear query, an undecided side condition.
    Unknown(String),
    /// A bug in Tessera: a counterexample that does not reproduce, a failed encoding.
    Internal(String),
    /// The question is malformed (bad input): a coordinate-valued layout where offsets are
    /// needed, mixed stride kinds, a vector width below 1, a malformed bank access.
    Invalid(String),
}

impl Verdict {
    /// `proved`, `refuted`, `unknown`, `internal error` or `bad input`.
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Proved => "proved",
            Verdict::Refuted(_) => "refuted",
            Verdict::Unknown(_) => "unknown",
            Verdict::Internal(_) => "internal error",
            Verdict::Invalid(_) => "bad input",
        }
    }

    /// Whether this is the unknown of a wall-clock time limit (and so may differ on a machine
    /// under another load).
    ///
    /// ```
    /// use tessera_verifier::Verdict;
    /// assert!(Verdict::from_error(tessera_verifier::ProveError::Timeout).is_timeout());
    /// assert!(!Verdict::Unknown("max. resource limit exceeded".into()).is_timeout());
    /// ```
    pub fn is_timeout(&self) -> bool {
        matches!(self, Verdict::Unknown(r) if r == TIMEOUT)
    }

    /// The verdict of an answer that is neither a proof nor a refutation.
    pub fn from_error(e: crate::error::ProveError) -> Verdict {
        use crate::error::ProveError;
        match e {
            ProveError::Invalid(m) => Verdict::Invalid(m),
            ProveError::Timeout => Verdict::Unknown(TIMEOUT.into()),
            ProveError::Unknown(m) => Verdict::Unknown(m),
            ProveError::Internal(m) => Verdict::Internal(m),
        }
    }
}

/// The reason of the unknown verdict a wall-clock time limit gives.
const TIMEOUT: &str = "timeout";

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Proved => write!(f, "proved"),
            Verdict::Refuted(c) => write!(f, "refuted: {c}"),
            Verdict::Unknown(r) => write!(f, "unknown: {r}"),
            Verdict::Internal(r) => write!(f, "internal error: {r}"),
            Verdict::Invalid(r) => write!(f, "bad input: {r}"),
        }
    }
}
