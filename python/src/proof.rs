//! `prove`, `lower`, `emit` and `eval`: what PyCuTe lacks.

#[allow(unused_imports)]
use crate::*;

/// The text of a (possibly symbolic) argument and the session to read it in: its parameters'
/// for a symbolic one, an empty one otherwise.
fn text_and_session(obj: &Bound<'_, PyAny>) -> PyResult<(String, lang::Session)> {
    let mut ctx = None;
    let src = sym_text(obj, &mut ctx)?;
    let session = match ctx {
        Some(c) => c.session.clone(),
        None => lang::Session::new(&[], &[]).map_err(err)?,
    };
    Ok((src, session))
}

/// `prove(property, *args, timeout=60.0, engine="auto", **keywords)`: proves a property of
/// layouts with Tessera's engines (F2, structural, enumeration, z3: `engine` forces one, as
/// `tessera prove --engine` does), as `tessera prove` does:
/// `prove("injective", L)`, `prove("equal", A, B)`, `prove("bank_conflict_free", S, T, elem=2,
/// access=16)`. The arguments are layouts, tuples or text; keywords are the property's
/// `NAME=VALUE` options. Returns a [`Proof`]; the GIL is released while proving. A malformed
/// question (an unknown property, a bad argument) raises `LayoutError`.
#[pyfunction]
#[pyo3(signature = (property, *args, timeout = 60.0, engine = "auto", **keywords))]
pub(crate) fn prove(
    py: Python<'_>,
    property: &str,
    args: &Bound<'_, PyTuple>,
    timeout: f64,
    engine: &str,
    keywords: Option<&Bound<'_, PyDict>>,
) -> PyResult<Proof> {
    let provers = engine_choice(engine)?;
    if !(timeout.is_finite() && timeout > 0.0 && timeout <= 1e9) {
        return Err(bad(format!(
            "timeout must be a positive number of seconds (at most 1e9), not {timeout}"
        )));
    }
    let mut ctx = None;
    let mut parts = args
        .iter()
        .map(|a| sym_text(&a, &mut ctx))
        .collect::<PyResult<Vec<_>>>()?;
    if let Some(kw) = keywords {
        for (k, v) in kw.iter() {
            parts.push(format!("{}={}", k.str()?, sym_text(&v, &mut ctx)?));
        }
    }
    let call = format!("{property}({})", parts.join(", "));
    // Symbolic arguments: the check file declares their parameters, facts included.
    let src = match &ctx {
        Some(c) => format!("param {}\nassert {call}\n", c.decl),
        None => format!("assert {call}\n"),
    };
    let opts = tessera::verifier::Options {
        timeout_ms: Some(((timeout * 1000.0).round() as u64).max(1)),
    };
    let outcome = py.detach(|| {
        let cf = tessera::check::load("<python>", &src).map_err(|e| e.msg)?;
        Ok::<_, String>(
            tessera::check::run_with(&cf.assertions, &opts, 1, provers)
                .into_iter()
                .next(),
        )
    });
    let outcome = outcome
        .map_err(bad)?
        .ok_or_else(|| bad(format!("{call}: nothing to prove")))?;
    if let tessera::verifier::Verdict::Invalid(m) = &outcome.verdict {
        return Err(bad(format!("{call}: {m}")));
    }
    let mut p = Proof::of(py, &outcome)?;
    p.assertion = call;
    p.file = None;
    p.line = None;
    Ok(p)
}

/// `lower(L, coords=False)`: the index expression of a layout (or any layout-valued
/// expression) as `tessera lower` prints it: a header line, then the IR.
#[pyfunction]
#[pyo3(signature = (layout, coords = false))]
pub(crate) fn lower(layout: &Bound<'_, PyAny>, coords: bool) -> PyResult<String> {
    let (src, session) = text_and_session(layout)?;
    tessera::lower::lower_text(&session, &src, coords).map_err(err)
}

/// `emit(L, lang="c", name="index_fn", coords=False)`: the layout's index function as source
/// code in `c`, `rust`, `cuda` or `ptx`, simplified and validated, as `tessera emit` writes
/// it (the same default name, [`tessera::emit::DEFAULT_NAME`]; a test checks they agree).
#[pyfunction]
#[pyo3(signature = (layout, lang = "c", name = "index_fn", coords = false))]
pub(crate) fn emit(layout: &Bound<'_, PyAny>, lang: &str, name: &str, coords: bool) -> PyResult<String> {
    let (src, session) = text_and_session(layout)?;
    let l: tessera::codegen::Lang = lang.parse().map_err(|e| bad(format!("{e}")))?;
    tessera::emit::emit_text(&session, &src, l, name, coords).map_err(|e| bad(e.to_string()))
}

/// The names of every built-in function of `tessera eval`, for checking that the module binds
/// them all.
#[pyfunction]
pub(crate) fn _builtin_names() -> Vec<&'static str> {
    lang::builtins::BUILTINS.iter().map(|b| b.name).collect()
}

/// Evaluates one line of Tessera's expression language, as `tessera eval` does, and returns
/// its value as Python data: `eval("composition((6,2):(8,2), (4,3):(3,1))")`.
#[pyfunction]
pub(crate) fn eval(py: Python<'_>, expr: &str) -> PyResult<Py<PyAny>> {
    to_py(py, lang::parse_value(expr).map_err(err)?)
}
