//! `prove`, `lower`, `emit` and `eval`: what PyCuTe lacks.

#[allow(unused_imports)]
use crate::*;

/// The text of a Python argument in Tessera's expression language.
pub(crate) fn text_of(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(to_value(obj)?.to_string())
}

/// A witness of a counterexample as a dict: `name`, `index`, `coord`, `value`.
pub(crate) fn witness_to_py<'py>(
    py: Python<'py>,
    w: &tessera::verifier::Witness,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", &w.name)?;
    d.set_item("index", w.index)?;
    d.set_item("coord", &w.coord)?;
    d.set_item("value", &w.value)?;
    Ok(d)
}

/// The answer of [`prove`]: the verdict, a counterexample when refuted, the time taken.
#[pyclass(module = "tessera", frozen, name = "Proof")]
pub struct Proof {
    /// `proved`, `refuted`, `unknown` or `internal error`.
    #[pyo3(get)]
    verdict: String,
    /// For a refutation: a dict with `summary` (one line), `params` (a dict of parameter
    /// values) and `witnesses` (a list of dicts: `name`, `index`, `coord`, `value`); else
    /// `None`.
    #[pyo3(get)]
    counterexample: Py<PyAny>,
    /// Why the answer is `unknown` or an internal error (`None` otherwise).
    #[pyo3(get)]
    reason: Option<String>,
    /// Seconds spent proving.
    #[pyo3(get)]
    time: f64,
    /// The assertion proved, as `tessera check` writes it.
    #[pyo3(get)]
    assertion: String,
}

#[pymethods]
impl Proof {
    /// `True` when the property is proved.
    fn __bool__(&self) -> bool {
        self.verdict == "proved"
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let detail = match (&self.reason, self.counterexample.is_none(py)) {
            (Some(r), _) => format!(": {r}"),
            (None, false) => format!(": {}", self.counterexample.bind(py).get_item("summary")?.str()?),
            _ => String::new(),
        };
        Ok(format!(
            "<Proof {}: {}{detail} ({:.3}s)>",
            self.assertion, self.verdict, self.time
        ))
    }
}

/// `prove(property, *args, timeout=60.0, **keywords)`: proves a property of layouts with
/// Tessera's prover (z3, the bank model, enumeration), as `tessera prove` does:
/// `prove("injective", L)`, `prove("equal", A, B)`, `prove("bank_conflict_free", S, T, elem=2,
/// access=16)`. The arguments are layouts, tuples or text; keywords are the property's
/// `NAME=VALUE` options. Returns a [`Proof`]; the GIL is released while proving. A malformed
/// question (an unknown property, a bad argument) raises `LayoutError`.
#[pyfunction]
#[pyo3(signature = (property, *args, timeout = 60.0, **keywords))]
pub(crate) fn prove(
    py: Python<'_>,
    property: &str,
    args: &Bound<'_, PyTuple>,
    timeout: f64,
    keywords: Option<&Bound<'_, PyDict>>,
) -> PyResult<Proof> {
    if !(timeout.is_finite() && timeout > 0.0 && timeout <= 1e9) {
        return Err(bad(format!(
            "timeout must be a positive number of seconds (at most 1e9), not {timeout}"
        )));
    }
    let mut parts = args.iter().map(|a| text_of(&a)).collect::<PyResult<Vec<_>>>()?;
    if let Some(kw) = keywords {
        for (k, v) in kw.iter() {
            parts.push(format!("{}={}", k.str()?, text_of(&v)?));
        }
    }
    let call = format!("{property}({})", parts.join(", "));
    let src = format!("assert {call}\n");
    let opts = tessera::verifier::Options {
        timeout_ms: Some(((timeout * 1000.0).round() as u64).max(1)),
    };
    let outcome = py.detach(|| {
        let cf = tessera::check::load("<python>", &src).map_err(|e| e.msg)?;
        Ok::<_, String>(tessera::check::run(&cf.assertions, &opts, 1).into_iter().next())
    });
    let outcome = outcome
        .map_err(bad)?
        .ok_or_else(|| bad(format!("{call}: nothing to prove")))?;
    use tessera::verifier::Verdict;
    let (counterexample, reason) = match &outcome.verdict {
        Verdict::Refuted(c) => {
            let d = PyDict::new(py);
            d.set_item("summary", &c.summary)?;
            let params = PyDict::new(py);
            for (n, v) in &c.params {
                params.set_item(n, v)?;
            }
            d.set_item("params", params)?;
            let ws = c
                .witnesses
                .iter()
                .map(|w| witness_to_py(py, w))
                .collect::<PyResult<Vec<_>>>()?;
            d.set_item("witnesses", PyList::new(py, ws)?)?;
            (d.into_any().unbind(), None)
        }
        Verdict::Invalid(m) => return Err(bad(format!("{call}: {m}"))),
        Verdict::Unknown(m) | Verdict::Internal(m) => (py.None(), Some(m.clone())),
        Verdict::Proved => (py.None(), None),
    };
    Ok(Proof {
        verdict: outcome.verdict.word().to_string(),
        counterexample,
        reason,
        time: outcome.elapsed.as_secs_f64(),
        assertion: call,
    })
}

/// `lower(L, coords=False)`: the index expression of a layout (or any layout-valued
/// expression) as `tessera lower` prints it: a header line, then the IR.
#[pyfunction]
#[pyo3(signature = (layout, coords = false))]
pub(crate) fn lower(layout: &Bound<'_, PyAny>, coords: bool) -> PyResult<String> {
    let src = text_of(layout)?;
    let session = lang::Session::new(&[], &[]).map_err(err)?;
    tessera::lower::lower_text(&session, &src, coords).map_err(err)
}

/// `emit(L, lang="c", name="offset_of", coords=False)`: the layout's index function as source
/// code in `c`, `rust`, `cuda` or `ptx`, simplified and validated, as `tessera emit` writes
/// it.
#[pyfunction]
#[pyo3(signature = (layout, lang = "c", name = "offset_of", coords = false))]
pub(crate) fn emit(layout: &Bound<'_, PyAny>, lang: &str, name: &str, coords: bool) -> PyResult<String> {
    let src = text_of(layout)?;
    let l: tessera::codegen::Lang = lang.parse().map_err(|e| bad(format!("{e}")))?;
    let session = lang::Session::new(&[], &[]).map_err(err)?;
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
