//! The engines a proof can use, for the callers that choose one or compare them.

/// The engine of a proof: of an equivalence ([`crate::prove_equivalent_by`]) or of a property
/// ([`crate::prove_by`]).
///
/// ```
/// use tessera_verifier::Engine;
/// assert_eq!("enum".parse::<Engine>(), Ok(Engine::Enumeration));
/// assert_eq!(Engine::F2.name(), "F2");
/// assert!("cvc5".parse::<Engine>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Engine {
    /// The choice of the engine (as a choice only): for an equivalence, enumeration when the
    /// domain has at most [`crate::MAX_ENUMERATION`] points, else z3; for a property, the
    /// portfolio's choice by cost ([`crate::plan`]).
    Auto,
    /// Every point of the domain evaluated (a complete proof on a finite domain).
    Enumeration,
    /// z3.
    Z3,
    /// Linear algebra over GF(2) on the bits of the index ([`crate::F2Layout`]): layout
    /// properties only (see [`crate::prove_by`]); an equivalence of index expressions forced
    /// to it is `unknown`.
    F2,
    /// Reasoning on the leaves of a concrete layout without visiting its points: its extreme
    /// values (bounds), its strides against its extents (contiguity), sorted strides that
    /// dominate what the smaller ones reach (injectivity). `unknown` where that is not
    /// decisive.
    Structural,
}

impl Engine {
    /// The name reports print.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Auto => "auto",
            Engine::Enumeration => "enumeration",
            Engine::Z3 => "z3",
            Engine::F2 => "F2",
            Engine::Structural => "structural",
        }
    }
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Engine {
    type Err = String;
    /// `auto`, `enum` (or `enumeration`), `f2`, `z3`, `structural`, in any case.
    fn from_str(s: &str) -> Result<Engine, String> {
        match s.to_ascii_lowercase().as_str() {
            "auto" => Ok(Engine::Auto),
            "enum" | "enumeration" => Ok(Engine::Enumeration),
            "z3" => Ok(Engine::Z3),
            "f2" => Ok(Engine::F2),
            "structural" => Ok(Engine::Structural),
            _ => Err(format!(
                "'{s}' is not an engine (auto, enum, f2, z3 or structural)"
            )),
        }
    }
}
