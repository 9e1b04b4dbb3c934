//! `Proof`, the answer of `prove` and of each assertion of `check`, and `check`.

#[allow(unused_imports)]
use crate::*;
use tessera::verifier::Verdict;

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

/// The answer about one assertion (of [`prove`], or of a check file's line in [`check`]): the
/// verdict, a counterexample when refuted, the time taken.
#[pyclass(module = "tessera", frozen, name = "Proof")]
pub struct Proof {
    /// `proved`, `refuted`, `unknown`, `internal error`, or (in `check`) `bad input`.
    #[pyo3(get)]
    pub(crate) verdict: String,
    /// For a refutation: a dict with `summary` (one line), `params` (a dict of parameter
    /// values) and `witnesses` (a list of dicts: `name`, `index`, `coord`, `value`); else
    /// `None`.
    #[pyo3(get)]
    pub(crate) counterexample: Py<PyAny>,
    /// Why the answer is `unknown`, an internal error or bad input (`None` otherwise).
    #[pyo3(get)]
    pub(crate) reason: Option<String>,
    /// Seconds spent proving.
    #[pyo3(get)]
    pub(crate) time: f64,
    /// The assertion proved, as `tessera check` writes it.
    #[pyo3(get)]
    pub(crate) assertion: String,
    /// The check file of the assertion (`None` for `prove`).
    #[pyo3(get)]
    pub(crate) file: Option<String>,
    /// The assertion's line in its check file, 1-based (`None` for `prove`).
    #[pyo3(get)]
    pub(crate) line: Option<usize>,
    /// The prover that answered: `egg` or `normal form` (an `equal` closed by rewriting),
    /// else the engine: `F2`, `structural`, `enumeration` or `z3` (`None` for a kernel).
    #[pyo3(get)]
    pub(crate) prover: Option<String>,
    /// The assumption a proof holds under (`offsets fit in int64 (...)`, naming the admitted
    /// valuation past int64 of an unbounded parameter); `None` for a proof without one.
    #[pyo3(get)]
    pub(crate) assumption: Option<String>,
    /// A refutation's picture (inline SVG, as the HTML report draws it), if it has one.
    pub(crate) picture: Option<String>,
}

impl Proof {
    /// The answer of an outcome of `tessera::check`.
    pub(crate) fn of(py: Python<'_>, outcome: &tessera::check::Outcome) -> PyResult<Proof> {
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
            Verdict::Unknown(m) | Verdict::Internal(m) | Verdict::Invalid(m) => (py.None(), Some(m.clone())),
            Verdict::Proved => (py.None(), None),
        };
        Ok(Proof {
            verdict: outcome.verdict.word().to_string(),
            counterexample,
            reason,
            time: outcome.elapsed.as_secs_f64(),
            prover: outcome.prover.map(|p| p.name().to_string()),
            assumption: outcome.assumption.clone(),
            assertion: outcome.text.clone(),
            file: Some(outcome.file.clone()),
            line: Some(outcome.line),
            picture: match (&outcome.verdict, &outcome.property) {
                (Verdict::Refuted(c), Some(p)) => tessera::check::html::counterexample_picture(p, c),
                _ => None,
            },
        })
    }
}

#[pymethods]
impl Proof {
    /// The answer as HTML, for notebooks: the verdict, the assertion and the time, a
    /// refutation's summary and its picture (the bank map or the layout, the counterexample
    /// outlined, as `tessera check --html` draws it), or why the answer is unknown.
    fn _repr_html_(&self, py: Python<'_>) -> PyResult<String> {
        use tessera::check::html::escape;
        let mut s = format!(
            "<div><p><b>{}</b> <code>{}</code> ({:.3} s)</p>",
            escape(&self.verdict),
            escape(&self.assertion),
            self.time
        );
        if let Some(r) = &self.reason {
            s.push_str(&format!("<p>{}</p>", escape(r)));
        }
        if let Some(a) = &self.assumption {
            s.push_str(&format!("<p>assuming {}</p>", escape(a)));
        }
        let cex = self.counterexample.bind(py);
        if !cex.is_none() {
            let summary: String = cex.get_item("summary")?.extract()?;
            s.push_str(&format!("<p>{}</p>", escape(&summary)));
        }
        if let Some(p) = &self.picture {
            s.push_str(p);
        }
        s.push_str("</div>");
        Ok(s)
    }

    /// Pickling: its fields (`pickle.rs`).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, impl IntoPyObject<'py>)> {
        reduce_proof(py, self)
    }

    /// A proof is immutable: its copy is itself.
    fn __copy__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    /// A new proof whose counterexample (a dict) is a deep copy.
    fn __deepcopy__(&self, py: Python<'_>, memo: &Bound<'_, PyAny>) -> PyResult<Proof> {
        let cex = py
            .import("copy")?
            .getattr("deepcopy")?
            .call1((self.counterexample.bind(py), memo))?
            .unbind();
        let s = proof_state(self, cex);
        Ok(_proof(s.0, s.1, s.2, s.3, s.4, s.5, s.6, s.7, s.8, s.9))
    }

    /// `True` when the property is proved.
    fn __bool__(&self) -> bool {
        self.verdict == "proved"
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let detail = match (&self.reason, self.counterexample.is_none(py)) {
            (Some(r), _) => format!(": {r}"),
            (None, false) => format!(": {}", self.counterexample.bind(py).get_item("summary")?.str()?),
            _ => match &self.assumption {
                Some(a) => format!(", assuming {a}"),
                None => String::new(),
            },
        };
        let at = match (&self.file, self.line) {
            (Some(f), Some(l)) => format!("{f}:{l}: "),
            _ => String::new(),
        };
        Ok(format!(
            "<Proof {at}{}: {}{detail} ({:.3}s)>",
            self.assertion, self.verdict, self.time
        ))
    }
}

/// Reads a check file, raising `OSError` when it cannot be read and `LayoutError` (with
/// `file:line:col` and the line) when it cannot be parsed.
fn load_file(path: &str) -> PyResult<tessera::check::CheckFile> {
    let src = std::fs::read_to_string(path)
        .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("{path}: {e}")))?;
    tessera::check::load(path, &src).map_err(|e| bad(e.to_string()))
}

/// `check(*files, timeout=60.0, threads=None, engine="auto")`: proves every assertion of the
/// check files (`.tess`) as `tessera check` does, returning one `Proof` per assertion in file
/// order, with `file` and `line` set. `timeout` is per assertion; `threads` (default: the
/// machine's cores) prove assertions in parallel; `engine` is `tessera check --engine`. The
/// GIL is released while proving. A file that cannot be read raises `OSError`; one that
/// cannot be parsed, `LayoutError`.
#[pyfunction]
#[pyo3(signature = (*files, timeout = 60.0, threads = None, engine = "auto"))]
pub(crate) fn check(
    py: Python<'_>,
    files: Vec<std::path::PathBuf>,
    timeout: f64,
    threads: Option<usize>,
    engine: &str,
) -> PyResult<Vec<Proof>> {
    if !(timeout.is_finite() && timeout > 0.0 && timeout <= 1e9) {
        return Err(bad(format!(
            "timeout must be a positive number of seconds (at most 1e9), not {timeout}"
        )));
    }
    if files.is_empty() {
        return Err(PyTypeError::new_err("check() takes at least one file"));
    }
    let threads = threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let mut assertions = Vec::new();
    for f in &files {
        assertions.extend(load_file(&f.to_string_lossy())?.assertions);
    }
    let opts = tessera::verifier::Options {
        timeout_ms: Some(((timeout * 1000.0).round() as u64).max(1)),
    };
    let provers = engine_choice(engine)?;
    let outcomes = py.detach(|| tessera::check::run_with(&assertions, &opts, threads, provers));
    outcomes.iter().map(|o| Proof::of(py, o)).collect()
}

/// `engine="auto|enum|f2|z3|structural"` as `tessera check --engine` takes it; `LayoutError`
/// otherwise.
pub(crate) fn engine_choice(engine: &str) -> PyResult<tessera::check::Provers> {
    let e: tessera::verifier::Engine = engine.parse().map_err(bad)?;
    Ok(tessera::check::Provers::engine(e))
}
