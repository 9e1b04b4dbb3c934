//! Proof before run: what has to hold for a kernel's accesses to be safe, and the verifier's
//! answers.
//!
//! An access `T[i,j]` reads `T`'s layout at the coordinate `(i,j)`, each index in
//! `[0, extent)`. The front end has checked that every index's extent equals the extent of
//! every dimension it binds (decided on the symbolic extents under the facts), so over the
//! whole iteration domain the access reaches exactly the layout's image on its whole domain
//! (an index repeated in one access, `T[i,i]`, reaches a subset). Two obligations therefore
//! cover every access, for every parameter value the facts admit:
//!
//! * **in bounds**, per tensor: `in_bounds(layout, cosize)`, every offset of the layout in
//!   `[0, cosize)`. For a plain layout with non-negative strides this is true by the definition
//!   of cosize; a negative stride, an offset or a swizzle that moves offsets upward breaks it,
//!   and the verifier answers with the counterexample.
//! * **written once**, per output tensor: `injective(layout)`. Two distinct iterations of a
//!   statement's outer indices then never write one element. The iterations of a `+=` that
//!   differ only in contraction indices do write one element: that is the reduction, which the
//!   reference interpreter runs in order (and a parallel backend must keep on one thread).
//!   An output with an index repeated (`T[i,i]`) needs less than injectivity; the proof asks for
//!   injectivity anyway (sufficient, not necessary).
//!
//! Each obligation is first tried by structure (plain layouts: non-negative strides are in
//! bounds of their cosize; strides that grow past the span of the smaller ones are injective;
//! see the `lemmas` module), then by the verifier, which proves it for every parameter value
//! the facts admit or finds a counterexample (z3 on symbolic bounded parameters can be slow;
//! the structural proofs spare it the common cases).
//!
//! A refutation refuses the kernel with the verifier's counterexample (re-checked by direct
//! evaluation); an unknown answer refuses it unless the caller passes `unchecked`, and then the
//! certificate says so ([`Proved::unchecked`]), for the caller to print loudly.

use super::ir::{Kernel, TensorId};
use super::lemmas;
use crate::memo::{Memo, NoMemo};
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use tessera_ir::sym::SymInt;
use tessera_ir::{ComposedLayout, Int};
use tessera_verifier::{Concrete, Func, Options, Property, Verdict, prove};

/// What an obligation asks of a tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObligationKind {
    /// Every offset of the layout lies in `[0, cosize)`.
    InBounds,
    /// The layout is injective (an output written once per element).
    Injective,
}

/// One obligation and the verifier's answer.
#[derive(Clone, Debug)]
pub struct Obligation {
    /// The tensor it is about.
    pub tensor: TensorId,
    /// What it asks.
    pub kind: ObligationKind,
    /// The answer.
    pub verdict: Verdict,
    /// Who answered.
    pub method: Method,
}

/// Who answered an obligation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// A theorem about plain layouts whose side conditions the symbolic algebra decided
    /// (see the `lemmas` module: non-negative strides, mixed-radix strides).
    Structure,
    /// The verifier ([`tessera_verifier::prove`]: z3 or enumeration).
    Verifier,
}

/// The property an obligation asks the verifier.
pub fn obligation_property(k: &Kernel, t: TensorId, kind: ObligationKind) -> Property {
    let tensor = &k.tensors[t.index()];
    match kind {
        ObligationKind::InBounds => Property::InBounds(tensor.layout.clone(), tensor.cosize.clone()),
        ObligationKind::Injective => Property::Injective(tensor.layout.clone()),
    }
}

/// Every obligation of the kernel, in order: in bounds for each tensor, then injective for
/// each output tensor (each once).
pub fn obligations(k: &Kernel) -> Vec<(TensorId, ObligationKind)> {
    let mut out: Vec<(TensorId, ObligationKind)> = (0..k.tensors.len())
        .map(|t| (TensorId::new(t), ObligationKind::InBounds))
        .collect();
    for s in &k.stmts {
        let o = (s.target.tensor, ObligationKind::Injective);
        if !out.contains(&o) {
            out.push(o);
        }
    }
    out
}

/// Proves every obligation of the kernel (each with the options' time limit).
pub fn prove_kernel(k: &Kernel, opts: &Options) -> Vec<Obligation> {
    obligations(k)
        .into_iter()
        .map(|(tensor, kind)| {
            let t = &k.tensors[tensor.index()];
            let by_structure = match kind {
                ObligationKind::InBounds => lemmas::in_bounds(&t.layout, &t.cosize),
                ObligationKind::Injective => lemmas::injective(&t.layout),
            };
            let (verdict, method) = if by_structure {
                (Verdict::Proved, Method::Structure)
            } else {
                (
                    prove(&obligation_property(k, tensor, kind), opts),
                    Method::Verifier,
                )
            };
            Obligation {
                tensor,
                kind,
                verdict,
                method,
            }
        })
        .collect()
}

/// One verdict for the kernel: the first refutation, else the first bad input or internal
/// error, else the first unknown, else proved. A counterexample's summary is prefixed with
/// the obligation it breaks (`in bounds of dst: ...`).
pub fn kernel_verdict(k: &Kernel, obligations: &[Obligation]) -> Verdict {
    let named = |o: &Obligation| {
        let t = &k.tensors[o.tensor.index()].name;
        match o.kind {
            ObligationKind::InBounds => format!(
                "{t} in bounds of its cosize {}",
                k.tensors[o.tensor.index()].cosize
            ),
            ObligationKind::Injective => format!("output {t} written once (injective)"),
        }
    };
    let rank = |v: &Verdict| match v {
        Verdict::Refuted(_) => 0,
        Verdict::Internal(_) => 1,
        Verdict::Invalid(_) => 2,
        Verdict::Unknown(_) => 3,
        Verdict::Proved => 4,
    };
    let Some(worst) = obligations.iter().min_by_key(|o| rank(&o.verdict)) else {
        return Verdict::Proved;
    };
    match &worst.verdict {
        Verdict::Proved => Verdict::Proved,
        Verdict::Refuted(c) => {
            let mut c = c.clone();
            c.summary = format!("{}: {}", named(worst), c.summary);
            Verdict::Refuted(c)
        }
        Verdict::Unknown(m) => Verdict::Unknown(format!("{}: {m}", named(worst))),
        Verdict::Internal(m) => Verdict::Internal(format!("{}: {m}", named(worst))),
        Verdict::Invalid(m) => Verdict::Invalid(format!("{}: {m}", named(worst))),
    }
}

/// Why a kernel was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The kernel.
    pub kernel: String,
    /// The verdict that refused it (refuted, unknown, bad input or internal error).
    pub verdict: Verdict,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "kernel {} refused: {}", self.kernel, self.verdict)
    }
}

impl std::error::Error for Refusal {}

/// A kernel whose accesses were proved safe (or, with `unchecked`, not refuted): the only way
/// to get one is [`Proved::check`] or [`Proved::check_at`], and the interpreter runs only
/// these.
#[derive(Clone, Debug)]
pub struct Proved {
    kernel: Kernel,
    unchecked: Option<String>,
    bound: Option<BTreeMap<String, i64>>,
}

/// The time limit, in milliseconds, of the proof for every value in [`Proved::check_at`] when
/// the launch binds every parameter (the launch's own values are proved next, in full).
pub const QUICK_MS: u64 = 1000;

/// The kernel specialised at concrete parameter values: layouts, extents and cosizes as
/// constants (`tessera build --bind`). The values are not checked against the facts here
/// ([`super::check_bindings`] does that).
///
/// @pre `vals` binds every parameter of `k`.
/// @post the result mentions no parameter.
///
/// ```
/// use std::collections::HashMap;
/// use std::sync::Arc;
/// use tessera_codegen::kernel::*;
/// use tessera_ir::sym::{Facts, SymInt};
/// use tessera_verifier::Func;
/// let mut facts = Facts::default();
/// facts.declare("M where 1 <= M <= 64").unwrap();
/// let layout = Func::parse("M:1", &Arc::new(facts)).unwrap();
/// let Func::Layout(l) = &layout else { unreachable!() };
/// let t = Tensor { name: "x".into(), elem: ElemType::F32, dims: vec![l.size().unwrap()],
///     cosize: l.cosize().unwrap(), layout: layout.clone() };
/// let k = Kernel { name: "k".into(), tensors: vec![t], indices: vec![], tiles: vec![],
///     threads: vec![], stages: vec![], vector: None, stmts: vec![] };
/// let s = specialize(&k, &HashMap::from([("M".to_string(), 8)])).unwrap();
/// assert_eq!(s.tensors[0].cosize.to_string(), "8");
/// ```
pub fn specialize(k: &Kernel, vals: &HashMap<String, i64>) -> Result<Kernel, tessera_ir::Error> {
    instantiate(k, vals)
}

/// The kernel at concrete parameter values: layouts, extents and cosizes as constants.
fn instantiate(k: &Kernel, vals: &HashMap<String, i64>) -> Result<Kernel, tessera_ir::Error> {
    let lit = |s: &SymInt| s.eval(vals).map(SymInt::lit);
    let mut out = k.clone();
    for t in &mut out.tensors {
        t.layout = match t.layout.at(vals)? {
            Concrete::Layout(l) => Func::Layout(l.lift()?),
            Concrete::Composed(c) => Func::Composed(ComposedLayout {
                swizzle: c.swizzle,
                offset: SymInt::lit(c.offset),
                inner: c.inner.lift()?,
            }),
        };
        t.cosize = lit(&t.cosize)?;
        t.dims = t.dims.iter().map(lit).collect::<Result<_, _>>()?;
    }
    for x in &mut out.indices {
        x.extent = lit(&x.extent)?;
    }
    Ok(out)
}

impl Proved {
    /// Proves the kernel's obligations ([`prove_kernel`]). A refutation, a bad input or an
    /// internal error refuses it; an unknown answer refuses it unless `unchecked` is set, in
    /// which case the certificate records the reason ([`Proved::unchecked`]).
    pub fn check(kernel: Kernel, opts: &Options, unchecked: bool) -> Result<Proved, Refusal> {
        let obligations = prove_kernel(&kernel, opts);
        match kernel_verdict(&kernel, &obligations) {
            Verdict::Proved => Ok(Proved {
                kernel,
                unchecked: None,
                bound: None,
            }),
            Verdict::Unknown(m) if unchecked => Ok(Proved {
                kernel,
                unchecked: Some(m),
                bound: None,
            }),
            verdict => Err(Refusal {
                kernel: kernel.name.clone(),
                verdict,
            }),
        }
    }

    /// Proves the kernel for every parameter value the facts admit, as [`Proved::check`] does
    /// (within [`QUICK_MS`] when `bindings` bind every parameter admissibly);
    /// when that is not proved, proves it again at the launch's values `bindings` (each checked
    /// against its facts first), and the certificate then holds only for those values
    /// ([`Proved::bound`]: the interpreter refuses other values). A refutation or unknown at the
    /// bound values refuses the kernel as [`Proved::check`] does (unknown: unless
    /// `unchecked`).
    pub fn check_at(
        kernel: Kernel,
        bindings: &HashMap<String, i64>,
        opts: &Options,
        unchecked: bool,
    ) -> Result<Proved, Refusal> {
        Proved::check_at_memo(kernel, bindings, opts, unchecked, &NoMemo)
    }

    /// [`Proved::check_at`], recalling its answer from `memo` and recording it there: the
    /// question is the whole kernel (its layouts with their facts, cosizes, statements), every
    /// binding and the time limit; only a proof is recorded (for every value, or at the
    /// bindings), never an unknown or a refusal.
    ///
    /// @pre none. @post as [`Proved::check_at`]; with a memo that recalls nothing, the same.
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use std::sync::Arc;
    /// use tessera_codegen::{kernel::*, NoMemo};
    /// use tessera_ir::sym::Facts;
    /// use tessera_verifier::{Func, Options};
    /// let layout = Func::parse("8:1", &Arc::new(Facts::default())).unwrap();
    /// let Func::Layout(l) = &layout else { unreachable!() };
    /// let t = Tensor { name: "x".into(), elem: ElemType::F32, dims: vec![l.size().unwrap()],
    ///     cosize: l.cosize().unwrap(), layout: layout.clone() };
    /// let k = Kernel { name: "k".into(), tensors: vec![t], indices: vec![], tiles: vec![],
    ///     threads: vec![], stages: vec![], vector: None, stmts: vec![] };
    /// let p = Proved::check_at_memo(k, &HashMap::new(), &Options::default(), false, &NoMemo);
    /// assert!(p.unwrap().bound().is_none());
    /// ```
    pub fn check_at_memo(
        kernel: Kernel,
        bindings: &HashMap<String, i64>,
        opts: &Options,
        unchecked: bool,
        memo: &dyn Memo,
    ) -> Result<Proved, Refusal> {
        let sorted: BTreeMap<&String, &i64> = bindings.iter().collect();
        let question = format!("options={opts:?}\nbindings={sorted:?}\nkernel={kernel:?}");
        match memo.recall("proof", &question).as_deref() {
            Some("proved") => {
                return Ok(Proved {
                    kernel,
                    unchecked: None,
                    bound: None,
                });
            }
            Some("proved-at") => {
                if let Some(bound) = bound_at(&kernel, bindings) {
                    return Ok(Proved {
                        kernel,
                        unchecked: None,
                        bound: Some(bound),
                    });
                }
            }
            _ => {}
        }
        let p = Proved::check_at_uncached(kernel, bindings, opts, unchecked)?;
        if p.unchecked.is_none() {
            let answer = if p.bound.is_some() { "proved-at" } else { "proved" };
            memo.record("proof", &question, answer);
        }
        Ok(p)
    }

    /// [`Proved::check_at`] itself.
    fn check_at_uncached(
        kernel: Kernel,
        bindings: &HashMap<String, i64>,
        opts: &Options,
        unchecked: bool,
    ) -> Result<Proved, Refusal> {
        // When the launch binds every parameter, the proof for every value gets at most
        // `QUICK_MS`: past it the launch's own values are proved (with the full limit) at
        // once, rather than after the whole timeout.
        let bound_launch = !super::bind::params_of(&kernel).is_empty()
            && super::bind::check_bindings(&kernel, bindings).is_ok();
        let quick = Options {
            timeout_ms: match opts.timeout_ms {
                Some(t) if bound_launch => Some(t.min(QUICK_MS)),
                None if bound_launch => Some(QUICK_MS),
                t => t,
            },
        };
        let symbolic = kernel_verdict(&kernel, &prove_kernel(&kernel, &quick));
        if symbolic == Verdict::Proved {
            return Ok(Proved {
                kernel,
                unchecked: None,
                bound: None,
            });
        }
        let refuse = |verdict: Verdict| Refusal {
            kernel: kernel.name.clone(),
            verdict,
        };
        let Some(bound) = bound_at(&kernel, bindings) else {
            // Nothing to bind, or values the run refuses anyway: the symbolic answer stands.
            return match symbolic {
                Verdict::Unknown(m) if unchecked => Ok(Proved {
                    kernel,
                    unchecked: Some(m),
                    bound: None,
                }),
                v => Err(refuse(v)),
            };
        };
        let at = instantiate(&kernel, bindings).map_err(|e| refuse(Verdict::Invalid(e.to_string())))?;
        match kernel_verdict(&at, &prove_kernel(&at, opts)) {
            Verdict::Proved => Ok(Proved {
                kernel,
                unchecked: None,
                bound: Some(bound),
            }),
            Verdict::Unknown(m) if unchecked => Ok(Proved {
                kernel,
                unchecked: Some(m),
                bound: Some(bound),
            }),
            v => Err(refuse(v)),
        }
    }

    /// When the proof holds only at the launch's values ([`Proved::check_at`]): those values.
    pub fn bound(&self) -> Option<&BTreeMap<String, i64>> {
        self.bound.as_ref()
    }

    /// The kernel.
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// When the proof was unknown and `unchecked` accepted it: the reason. A caller must print
    /// it loudly (the reference interpreter still checks every offset and refuses one outside
    /// its buffer with an error).
    pub fn unchecked(&self) -> Option<&str> {
        self.unchecked.as_deref()
    }
}

/// The values a proof at the launch's `bindings` holds for: every parameter of the kernel with
/// its bound value; `None` when the kernel has no parameter or the bindings are not admissible
/// (then only the proof for every value counts).
fn bound_at(kernel: &Kernel, bindings: &HashMap<String, i64>) -> Option<BTreeMap<String, i64>> {
    let params = super::bind::params_of(kernel);
    if params.is_empty() || super::bind::check_bindings(kernel, bindings).is_err() {
        return None;
    }
    Some(
        params
            .into_iter()
            .filter_map(|n| bindings.get(&n).map(|v| (n, *v)))
            .collect(),
    )
}
