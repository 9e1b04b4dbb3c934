//! Pickling of symbolic values and of `Proof`s.
//!
//! A symbolic value (a symbolic `Layout` or a `Sym`) pickles as its context's identity, its
//! declaration, the bound values of its session (`Sym.bind`) and its canonical text. Each
//! context has a process-unique id; unpickling finds the live context of that id (in the same
//! process: the very `params` call, so the value is `==` to the original and mixes with its
//! symbols) or creates one from the declaration and registers it under the id, so that the
//! values of one `params` call pickled together (or apart) come back sharing one context,
//! and values of different calls stay apart.
//!
//! A `Proof` pickles as its fields (its counterexample a plain dict).

#[allow(unused_imports)]
use crate::*;
use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// The live contexts by id (dead ones are dropped as new ones arrive).
fn registry() -> &'static Mutex<HashMap<String, Weak<Ctx>>> {
    static R: OnceLock<Mutex<HashMap<String, Weak<Ctx>>>> = OnceLock::new();
    R.get_or_init(|| Mutex::new(HashMap::new()))
}

/// A new process-unique context id: a per-process random nonce and a counter.
pub(crate) fn new_ctx_id() -> String {
    static NONCE: OnceLock<u64> = OnceLock::new();
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nonce = NONCE.get_or_init(|| RandomState::new().hash_one(std::process::id()));
    format!("{nonce:016x}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Records a context so that unpickling in this process finds it.
pub(crate) fn register(ctx: &Arc<Ctx>) {
    let mut r = registry().lock().unwrap_or_else(|p| p.into_inner());
    r.retain(|_, w| w.strong_count() > 0);
    r.insert(ctx.id.clone(), Arc::downgrade(ctx));
}

/// The context of a pickled value: the live one of its id, else a new one from its
/// declaration and bound values, registered under the id.
fn context(id: &str, decl: &str, binds: Vec<String>) -> PyResult<Arc<Ctx>> {
    let mut r = registry().lock().unwrap_or_else(|p| p.into_inner());
    if let Some(c) = r.get(id).and_then(Weak::upgrade) {
        if c.decl == decl && c.binds == binds {
            return Ok(c);
        }
        return Err(bad(format!(
            "unpickling: the context {id} is '{}' here, not '{decl}'",
            c.decl
        )));
    }
    let refs: Vec<&str> = binds.iter().map(String::as_str).collect();
    let session = lang::Session::new(&[decl], &refs).map_err(err)?;
    let c = Arc::new(Ctx {
        id: id.to_string(),
        decl: decl.to_string(),
        binds,
        session,
    });
    r.retain(|_, w| w.strong_count() > 0);
    r.insert(id.to_string(), Arc::downgrade(&c));
    Ok(c)
}

/// The arguments that rebuild a symbolic value: `(id, declaration, binds, text)`.
type SymState = (String, String, Vec<String>, String);

/// `__reduce__` of a symbolic value: `tessera._symbolic` and its state.
pub(crate) fn reduce_sym<'py>(py: Python<'py>, v: &SymVal) -> PyResult<(Bound<'py, PyAny>, SymState)> {
    let f = py.import("tessera")?.getattr("_symbolic")?;
    Ok((
        f,
        (
            v.ctx.id.clone(),
            v.ctx.decl.clone(),
            v.ctx.binds.clone(),
            v.text.clone(),
        ),
    ))
}

/// Rebuilds a pickled symbolic value (a symbolic `Layout`, a `Sym`): its text evaluated in
/// the context of its id. Not for direct use.
#[pyfunction]
pub(crate) fn _symbolic(
    py: Python<'_>,
    id: &str,
    declaration: &str,
    binds: Vec<String>,
    text: &str,
) -> PyResult<Py<PyAny>> {
    let ctx = context(id, declaration, binds)?;
    sym_eval(py, &ctx, text)
}

/// The fields of a `Proof`, in the order of [`_proof`].
type ProofState = (
    String,
    Py<PyAny>,
    Option<String>,
    f64,
    String,
    Option<String>,
    Option<usize>,
    Option<String>,
    Option<String>,
    Option<String>,
);

/// The state of a proof, its counterexample as given.
pub(crate) fn proof_state(p: &Proof, counterexample: Py<PyAny>) -> ProofState {
    (
        p.verdict.clone(),
        counterexample,
        p.reason.clone(),
        p.time,
        p.assertion.clone(),
        p.file.clone(),
        p.line,
        p.prover.clone(),
        p.picture.clone(),
        p.assumption.clone(),
    )
}

/// `__reduce__` of a `Proof`: `tessera._proof` and its fields.
pub(crate) fn reduce_proof<'py>(py: Python<'py>, p: &Proof) -> PyResult<(Bound<'py, PyAny>, ProofState)> {
    let f = py.import("tessera")?.getattr("_proof")?;
    Ok((f, proof_state(p, p.counterexample.clone_ref(py))))
}

/// A proof from its fields (unpickling, deep copies). Not for direct use.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (verdict, counterexample, reason, time, assertion, file, line, prover, picture, assumption = None))]
pub(crate) fn _proof(
    verdict: String,
    counterexample: Py<PyAny>,
    reason: Option<String>,
    time: f64,
    assertion: String,
    file: Option<String>,
    line: Option<usize>,
    prover: Option<String>,
    picture: Option<String>,
    assumption: Option<String>,
) -> Proof {
    Proof {
        verdict,
        counterexample,
        reason,
        time,
        assertion,
        file,
        line,
        prover,
        picture,
        assumption,
    }
}
