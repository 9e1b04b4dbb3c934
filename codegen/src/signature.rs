//! The signature of an index function: its name, its arguments, the facts it assumes about
//! them, and notes for its comment block.

use crate::error::EmitError;
use std::collections::HashMap;
use tessera_ir::index::{IndexExpr, Var};
use tessera_ir::sym::Interval;

/// A fact the generated function assumes about one argument: `lo <= var <= hi` and
/// `var % modulus == 0`. The code states it in a comment and checks it in debug builds
/// (`assert` in C and CUDA, `debug_assert!` in Rust); its arithmetic is correct for every
/// value the facts admit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assumption {
    /// The argument.
    pub var: Var,
    /// Smallest value, if bounded below.
    pub lo: Option<i64>,
    /// Largest value, if bounded above.
    pub hi: Option<i64>,
    /// The argument is a multiple of this (1: no fact).
    pub modulus: i64,
}

impl Assumption {
    /// Whether `x` satisfies the assumption (its bounds and its modulus).
    ///
    /// ```
    /// use tessera_codegen::Assumption;
    /// use tessera_ir::index::Var;
    /// let a = Assumption { var: Var::Index, lo: Some(0), hi: Some(64), modulus: 8 };
    /// assert!(a.admits(16) && !a.admits(12) && !a.admits(72) && !a.admits(-8));
    /// ```
    pub fn admits(&self, x: i64) -> bool {
        self.lo.is_none_or(|l| l <= x)
            && self.hi.is_none_or(|h| x <= h)
            && (self.modulus <= 1 || x % self.modulus == 0)
    }

    /// The interval of values the assumption admits: `[lo, hi]` rounded inwards to multiples of
    /// the modulus.
    ///
    /// ```
    /// use tessera_codegen::Assumption;
    /// use tessera_ir::index::Var;
    /// use tessera_ir::sym::Interval;
    /// let a = Assumption { var: Var::Param("M".into()), lo: Some(1), hi: Some(100), modulus: 32 };
    /// assert_eq!(a.interval().unwrap(), Interval::new(Some(32), Some(96)));
    /// ```
    pub fn interval(&self) -> Result<Interval, EmitError> {
        if self.modulus < 1 {
            return Err(EmitError::BadModulus {
                var: self.var.clone(),
                modulus: self.modulus,
            });
        }
        let k = i128::from(self.modulus);
        let lo = self.lo.map(|l| {
            let l = i128::from(l);
            let r = l.div_euclid(k) * k;
            if r < l { r + k } else { r }
        });
        let hi = self.hi.map(|h| i128::from(h).div_euclid(k) * k);
        if let (Some(l), Some(h)) = (lo, hi)
            && l > h
        {
            return Err(EmitError::EmptyRange {
                var: self.var.clone(),
                lo: l,
                hi: h,
            });
        }
        Ok(Interval::new(lo, hi))
    }

    /// The bounds that say something: `lo` unless it is `i64::MIN`, `hi` unless `i64::MAX`
    /// (a compiler would call a check of those always true).
    ///
    /// ```
    /// use tessera_codegen::Assumption;
    /// use tessera_ir::index::Var;
    /// let a = Assumption { var: Var::Index, lo: Some(i64::MIN), hi: Some(7), modulus: 1 };
    /// assert_eq!(a.bounds(), (None, Some(7)));
    /// ```
    pub fn bounds(&self) -> (Option<i64>, Option<i64>) {
        (
            self.lo.filter(|l| *l != i64::MIN),
            self.hi.filter(|h| *h != i64::MAX),
        )
    }

    /// The facts as comment lines, with the argument written `name`: `0 <= i <= 1023`,
    /// `M >= 1`, `M % 32 == 0`; none when nothing is assumed.
    ///
    /// ```
    /// use tessera_codegen::Assumption;
    /// use tessera_ir::index::Var;
    /// let a = Assumption { var: Var::Param("M".into()), lo: Some(32), hi: None, modulus: 32 };
    /// assert_eq!(a.facts("M"), vec!["M >= 32", "M % 32 == 0"]);
    /// ```
    pub fn facts(&self, name: &str) -> Vec<String> {
        let mut out = Vec::new();
        match self.bounds() {
            (Some(l), Some(h)) if l == h => out.push(format!("{name} == {l}")),
            (Some(l), Some(h)) => out.push(format!("{l} <= {name} <= {h}")),
            (Some(l), None) => out.push(format!("{name} >= {l}")),
            (None, Some(h)) => out.push(format!("{name} <= {h}")),
            (None, None) => {}
        }
        if self.modulus > 1 {
            out.push(format!("{name} % {} == 0", self.modulus));
        }
        out
    }
}

/// What an emitted index function is called, what it takes, and what it assumes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    /// The function's name (an identifier; snake case in Rust, where it is converted).
    pub name: String,
    /// The inputs in order: `i` or `c0..cN`, then the parameters.
    pub args: Vec<Var>,
    /// The facts assumed about the arguments (at most one per argument is expected; all are
    /// stated and checked).
    pub assumptions: Vec<Assumption>,
    /// Extra comment lines, e.g. "simplified and validated by z3".
    pub notes: Vec<String>,
}

impl Signature {
    /// The signature of `e`: its inputs as arguments (index or coordinates first, then the
    /// parameters by name), each with the bounds of `ranges` and the modulus of `moduli` (a
    /// modulus of 1, or none, states nothing). Bounds beyond `i64` are dropped (unbounded).
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use tessera_codegen::Signature;
    /// use tessera_ir::{index::{lower_index, Var}, parse_layout, sym::Interval};
    /// let e = lower_index(&parse_layout("(4,8):(8,1)").unwrap()).unwrap();
    /// let ranges = HashMap::from([(Var::Index, Interval::new(Some(0), Some(31)))]);
    /// let sig = Signature::for_expr(&e, "f", &ranges, &HashMap::new()).unwrap();
    /// assert_eq!(sig.args, vec![Var::Index]);
    /// assert_eq!(sig.assumptions[0].facts("i"), vec!["0 <= i <= 31"]);
    /// ```
    pub fn for_expr(
        e: &IndexExpr,
        name: &str,
        ranges: &HashMap<Var, Interval>,
        moduli: &HashMap<Var, i64>,
    ) -> Result<Signature, EmitError> {
        let args = e.inputs();
        let mut assumptions = Vec::new();
        for v in &args {
            let iv = ranges.get(v).copied().unwrap_or(Interval::UNBOUNDED);
            let modulus = moduli.get(v).copied().unwrap_or(1);
            let a = Assumption {
                var: v.clone(),
                lo: iv.lo().and_then(|l| i64::try_from(l).ok()),
                hi: iv.hi().and_then(|h| i64::try_from(h).ok()),
                modulus,
            };
            a.interval()?;
            if a.lo.is_some() || a.hi.is_some() || a.modulus != 1 {
                assumptions.push(a);
            }
        }
        Ok(Signature {
            name: name.to_string(),
            args,
            assumptions,
            notes: Vec::new(),
        })
    }

    /// The interval of every argument that has assumptions (several about one argument
    /// meet); an error for assumptions that admit nothing or one about a non-argument.
    ///
    /// ```
    /// use tessera_codegen::{Assumption, Signature};
    /// use tessera_ir::index::Var;
    /// use tessera_ir::sym::Interval;
    /// let at = |lo, hi, modulus| Assumption { var: Var::Index, lo, hi, modulus };
    /// let mut sig = Signature {
    ///     name: "f".into(),
    ///     args: vec![Var::Index],
    ///     assumptions: vec![at(Some(0), Some(100), 1), at(None, Some(50), 8)],
    ///     notes: vec![],
    /// };
    /// assert_eq!(sig.ranges().unwrap()[&Var::Index], Interval::new(Some(0), Some(48)));
    /// sig.assumptions.push(at(Some(60), None, 1));
    /// assert!(sig.ranges().is_err());
    /// ```
    pub fn ranges(&self) -> Result<HashMap<Var, Interval>, EmitError> {
        let mut out: HashMap<Var, Interval> = HashMap::new();
        for a in &self.assumptions {
            if !self.args.contains(&a.var) {
                return Err(EmitError::AssumptionOnNonArgument(a.var.clone()));
            }
            let iv = a.interval()?;
            let both = match out.get(&a.var) {
                None => iv,
                Some(prev) => meet(*prev, iv).ok_or_else(|| EmitError::EmptyRange {
                    var: a.var.clone(),
                    lo: prev.lo().max(iv.lo()).unwrap_or(0),
                    hi: prev.hi().min(iv.hi()).or(prev.hi()).unwrap_or(0),
                })?,
            };
            out.insert(a.var.clone(), both);
        }
        Ok(out)
    }
}

/// The intersection of two intervals, `None` when empty.
fn meet(a: Interval, b: Interval) -> Option<Interval> {
    let lo = match (a.lo(), b.lo()) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, y) => x.or(y),
    };
    let hi = match (a.hi(), b.hi()) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    };
    match (lo, hi) {
        (Some(l), Some(h)) if l > h => None,
        _ => Some(Interval::new(lo, hi)),
    }
}
