//! The target languages.

use crate::error::EmitError;
use std::fmt;
use std::str::FromStr;

/// A target language of [`crate::emit`].
///
/// ```
/// use tessera_codegen::Lang;
/// assert_eq!("cuda".parse::<Lang>().unwrap(), Lang::Cuda);
/// assert_eq!(Lang::Ptx.to_string(), "ptx");
/// assert!("fortran".parse::<Lang>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lang {
    /// C11 (`static inline`, `int64_t`, `assert`).
    C,
    /// Rust (edition 2024, `i64`, `debug_assert!`).
    Rust,
    /// CUDA C++ (`__device__ __forceinline__`, `int64_t` from `<cstdint>`).
    Cuda,
    /// PTX text (`.version 8.0`, `.target sm_80`, a `.visible .func`).
    Ptx,
}

impl Lang {
    /// Every language.
    pub const ALL: [Lang; 4] = [Lang::C, Lang::Rust, Lang::Cuda, Lang::Ptx];

    /// The name the command line reads (`c`, `rust`, `cuda`, `ptx`).
    ///
    /// ```
    /// use tessera_codegen::Lang;
    /// assert_eq!(Lang::Rust.name(), "rust");
    /// assert!(Lang::ALL.iter().all(|l| l.name().parse::<Lang>() == Ok(*l)));
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Lang::C => "c",
            Lang::Rust => "rust",
            Lang::Cuda => "cuda",
            Lang::Ptx => "ptx",
        }
    }
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Lang {
    type Err = EmitError;

    fn from_str(s: &str) -> Result<Lang, EmitError> {
        Lang::ALL
            .into_iter()
            .find(|l| l.name() == s)
            .ok_or_else(|| EmitError::UnknownLang(s.to_string()))
    }
}
