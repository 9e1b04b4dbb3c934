//! Symbolic extents: `tessera.params(...)`, the `Sym` class, and the symbolic path of
//! `Layout`, the algebra functions and `prove`.
//!
//! A symbolic value is the canonical text of a value of the expression language over the
//! parameters of one `params` call, with that call's [`Ctx`] (the declaration and the
//! `tessera::lang::Session` that evaluates over it, as `tessera eval --param` does). Every
//! operation on symbolic values writes the call as text and evaluates it in the session: the
//! same results and errors as the command line.

#[allow(unused_imports)]
use crate::*;
use std::sync::Arc;

/// The parameters of one `params` call: their declaration, and the session over them.
pub(crate) struct Ctx {
    /// A process-unique id, kept by pickling (`pickle.rs`).
    pub(crate) id: String,
    /// The declaration, as given: `M, N where M % 128 == 0`.
    pub(crate) decl: String,
    /// The values bound in the session (`M=256`), by `Sym.bind` / `Layout.bind`.
    pub(crate) binds: Vec<String>,
    /// The session of `tessera eval --param DECL`.
    pub(crate) session: lang::Session,
}

/// A symbolic value: its canonical text, evaluated in `ctx`.
#[derive(Clone)]
pub(crate) struct SymVal {
    pub(crate) ctx: Arc<Ctx>,
    pub(crate) text: String,
}

/// A symbolic integer (or another symbolic value that is not a layout) over the parameters of
/// one `tessera.params` call: `str()` is its canonical text (`M*N`, `M/128`). Arithmetic with
/// ints and symbols of the same call (`+`, `-`, `*`, `//` for the exact division `/`, `%`)
/// gives symbols; symbols stand wherever the algebra takes an int.
#[pyclass(module = "tessera", frozen, name = "Sym")]
pub struct Sym {
    pub(crate) v: SymVal,
}

/// The context shared by the arguments, if any is symbolic; an error when two come from
/// different `params` calls.
fn join_ctx(a: &mut Option<Arc<Ctx>>, b: &Arc<Ctx>) -> PyResult<()> {
    match a {
        Some(x) if !Arc::ptr_eq(x, b) => Err(bad(format!(
            "symbols of two tessera.params calls ('{}' and '{}') cannot be mixed: declare all \
             parameters in one call",
            x.decl, b.decl
        ))),
        Some(_) => Ok(()),
        None => {
            *a = Some(b.clone());
            Ok(())
        }
    }
}

/// The text of a Python argument in the expression language, noting in `ctx` the context of
/// any symbol in it. Symbols are written bare (in a tuple `(M/2)` would be a one-mode tuple).
pub(crate) fn sym_text(obj: &Bound<'_, PyAny>, ctx: &mut Option<Arc<Ctx>>) -> PyResult<String> {
    if let Ok(s) = obj.cast::<Sym>() {
        join_ctx(ctx, &s.get().v.ctx)?;
        return Ok(s.get().v.text.clone());
    }
    if let Ok(l) = obj.cast::<Layout>() {
        if let Some(v) = &l.get().sym {
            join_ctx(ctx, &v.ctx)?;
            return Ok(v.text.clone());
        }
        return Ok(l.get().inner.to_string());
    }
    let items: Option<Vec<Bound<'_, PyAny>>> = if let Ok(t) = obj.cast::<PyTuple>() {
        Some(t.iter().collect())
    } else if let Ok(t) = obj.cast::<PyList>() {
        Some(t.iter().collect())
    } else {
        None
    };
    if let Some(items) = items {
        let parts = items
            .iter()
            .map(|x| sym_text(x, ctx))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(format!("({})", parts.join(",")));
    }
    Ok(to_value(obj)?.to_string())
}

/// Whether a Python argument holds a symbol (a `Sym` or a symbolic `Layout`, at any depth of
/// tuples and lists).
pub(crate) fn is_symbolic(obj: &Bound<'_, PyAny>) -> bool {
    if obj.cast::<Sym>().is_ok() {
        return true;
    }
    if let Ok(l) = obj.cast::<Layout>() {
        return l.get().sym.is_some();
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return t.iter().any(|x| is_symbolic(&x));
    }
    if let Ok(t) = obj.cast::<PyList>() {
        return t.iter().any(|x| is_symbolic(&x));
    }
    false
}

/// Evaluates `src` in the context and returns the result as Python data: concrete values as
/// the module's usual objects, a symbolic layout as a `Layout` carrying the context, a
/// tuple element by element, any other symbolic value as a `Sym`.
pub(crate) fn sym_eval(py: Python<'_>, ctx: &Arc<Ctx>, src: &str) -> PyResult<Py<PyAny>> {
    let v = ctx
        .session
        .value(src)
        .and_then(|v| v.check_depth())
        .map_err(err)?;
    sym_to_py(py, ctx, v)
}

/// A value over symbolic integers as Python data (see [`sym_eval`]).
fn sym_to_py(py: Python<'_>, ctx: &Arc<Ctx>, v: Value<ir::sym::SymInt>) -> PyResult<Py<PyAny>> {
    let text = v.to_string();
    // A value without symbols reads back with concrete integers.
    if let Ok(c) = lang::parse_value(&text) {
        return to_py(py, c);
    }
    let sym = SymVal {
        ctx: ctx.clone(),
        text,
    };
    Ok(match v {
        Value::Tuple(vs) => {
            let items = vs
                .into_iter()
                .map(|v| sym_to_py(py, ctx, v))
                .collect::<PyResult<Vec<_>>>()?;
            PyTuple::new(py, items)?.into_any().unbind()
        }
        Value::Layout(_) => Py::new(
            py,
            Layout {
                inner: placeholder(),
                sym: Some(sym),
            },
        )?
        .into_any(),
        Value::Bool(b) => PyBool::new(py, b).to_owned().into_any().unbind(),
        _ => Py::new(py, Sym { v: sym })?.into_any(),
    })
}

/// The concrete layout a symbolic `Layout` holds in place of its value (never read).
pub(crate) fn placeholder() -> ir::Layout<i64> {
    ir::Layout::compact(&HTuple::leaf(1)).expect("the layout 1:1")
}

/// The call `name(args...)` evaluated in the context of its symbolic arguments.
pub(crate) fn sym_call(py: Python<'_>, name: &str, args: &[Bound<'_, PyAny>]) -> PyResult<Py<PyAny>> {
    let mut ctx = None;
    let parts = args
        .iter()
        .map(|a| sym_text(a, &mut ctx))
        .collect::<PyResult<Vec<_>>>()?;
    let ctx = ctx.ok_or_else(|| bad("no symbolic argument"))?;
    sym_eval(py, &ctx, &format!("{name}({})", parts.join(", ")))
}

/// A symbolic `Layout(shape, stride)`: the text `shape:stride` evaluated in the context.
pub(crate) fn sym_layout(shape: &Bound<'_, PyAny>, stride: Option<&Bound<'_, PyAny>>) -> PyResult<Layout> {
    let mut ctx = None;
    let mut src = sym_text(shape, &mut ctx)?;
    if let Some(d) = stride {
        src = format!("{src}:{}", sym_text(d, &mut ctx)?);
    }
    let ctx = ctx.ok_or_else(|| bad("no symbolic extent"))?;
    let v = ctx.session.value(&src).map_err(err)?;
    let l = v.to_layout().map_err(err)?;
    Ok(Layout {
        inner: placeholder(),
        sym: Some(SymVal {
            ctx,
            text: l.to_string(),
        }),
    })
}

/// `v` with values bound to some of its parameters (`{"M": 256}`), as `tessera eval --param
/// ... --bind M=256` does: a concrete value when every parameter it names is bound, else a
/// symbolic one over the others (in a new context: it does not mix with the old symbols).
pub(crate) fn sym_bind(
    py: Python<'_>,
    v: &SymVal,
    values: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let mut binds = Vec::new();
    if let Some(kw) = values {
        for (k, x) in kw.iter() {
            binds.push(format!("{}={}", k.str()?, int_of(&x)?));
        }
    }
    let refs: Vec<&str> = binds.iter().map(String::as_str).collect();
    let session = lang::Session::new(&[v.ctx.decl.as_str()], &refs).map_err(err)?;
    let ctx = Arc::new(Ctx {
        id: new_ctx_id(),
        decl: v.ctx.decl.clone(),
        binds,
        session,
    });
    register(&ctx);
    sym_eval(py, &ctx, &v.text)
}

/// The text of an arithmetic operand: a symbol in parentheses (which group in arithmetic), an
/// int as written.
fn operand(obj: &Bound<'_, PyAny>, ctx: &mut Option<Arc<Ctx>>) -> PyResult<Option<String>> {
    if let Ok(s) = obj.cast::<Sym>() {
        join_ctx(ctx, &s.get().v.ctx)?;
        return Ok(Some(format!("({})", s.get().v.text)));
    }
    if obj.is_instance_of::<PyInt>() && !obj.is_instance_of::<PyBool>() {
        return Ok(Some(int_of(obj)?.to_string()));
    }
    Ok(None)
}

impl Sym {
    /// `a OP b` evaluated in the context; `NotImplemented` for an operand that is neither a
    /// symbol nor an int.
    fn binop(py: Python<'_>, a: &Bound<'_, PyAny>, op: &str, b: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let mut ctx = None;
        let (Some(x), Some(y)) = (operand(a, &mut ctx)?, operand(b, &mut ctx)?) else {
            return Ok(py.NotImplemented());
        };
        let ctx = ctx.ok_or_else(|| bad("no symbol"))?;
        sym_eval(py, &ctx, &format!("{x}{op}{y}"))
    }
}

#[pymethods]
impl Sym {
    fn __str__(&self) -> String {
        self.v.text.clone()
    }

    fn __repr__(&self) -> String {
        format!("Sym({:?})", self.v.text)
    }

    /// The symbol with values bound to parameters (`M.bind(M=256)`): an int when every
    /// parameter it names is bound, else a `Sym` over the others (which does not mix with the
    /// symbols of the `params` call). A value the facts do not admit raises `LayoutError`.
    #[pyo3(signature = (**values))]
    fn bind(&self, py: Python<'_>, values: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
        sym_bind(py, &self.v, values)
    }

    /// The declaration of the parameters this symbol ranges over.
    #[getter]
    fn declaration(&self) -> String {
        self.v.ctx.decl.clone()
    }

    /// Pickling: its context's id, declaration and bound values, and its text (`pickle.rs`).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, impl IntoPyObject<'py>)> {
        reduce_sym(py, &self.v)
    }

    /// A symbol is immutable: its copy is itself.
    fn __copy__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    /// A symbol is immutable: its deep copy is itself.
    fn __deepcopy__<'py>(slf: Bound<'py, Self>, _memo: &Bound<'py, PyAny>) -> Bound<'py, Self> {
        slf
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Sym>()
            .is_ok_and(|o| Arc::ptr_eq(&o.get().v.ctx, &self.v.ctx) && o.get().v.text == self.v.text)
    }

    fn __hash__(&self) -> u64 {
        hash_of(&self.v.text)
    }

    fn __add__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        Sym::binop(slf.py(), slf.as_any(), "+", o)
    }

    fn __radd__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        Sym::binop(slf.py(), o, "+", slf.as_any())
    }

    fn __sub__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        Sym::binop(slf.py(), slf.as_any(), "-", o)
    }

    fn __rsub__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        Sym::binop(slf.py(), o, "-", slf.as_any())
    }

    fn __mul__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        Sym::binop(slf.py(), slf.as_any(), "*", o)
    }

    fn __rmul__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        Sym::binop(slf.py(), o, "*", slf.as_any())
    }

    /// `M // k`: Tessera's exact division `M/k` (an error unless the facts make it exact).
    fn __floordiv__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        Sym::binop(slf.py(), slf.as_any(), "/", o)
    }

    fn __rfloordiv__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        Sym::binop(slf.py(), o, "/", slf.as_any())
    }

    fn __mod__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        Sym::binop(slf.py(), slf.as_any(), "%", o)
    }

    fn __rmod__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        Sym::binop(slf.py(), o, "%", slf.as_any())
    }
}

/// `params("M, N where M % 128 == 0, 1 <= N <= 4096")`: declares symbolic parameters with
/// facts (the declaration of `tessera eval --param` and of a check file's `param` line) and
/// returns one `Sym` per name, in order (a single `Sym` for one name). Layouts built from
/// them are symbolic, and the algebra functions and `prove` take them, under the facts.
#[pyfunction]
pub(crate) fn params(py: Python<'_>, declaration: &str) -> PyResult<Py<PyAny>> {
    let session = lang::Session::new(&[declaration], &[]).map_err(err)?;
    let mut facts = ir::sym::Facts::default();
    let names = lang::declare(&mut facts, declaration).map_err(err)?;
    let ctx = Arc::new(Ctx {
        id: new_ctx_id(),
        decl: declaration.to_string(),
        binds: Vec::new(),
        session,
    });
    register(&ctx);
    let syms = names
        .into_iter()
        .map(|n| {
            Py::new(
                py,
                Sym {
                    v: SymVal {
                        ctx: ctx.clone(),
                        text: n,
                    },
                },
            )
        })
        .collect::<PyResult<Vec<_>>>()?;
    if syms.len() == 1 {
        return Ok(syms.into_iter().next().expect("one").into_any());
    }
    Ok(PyTuple::new(py, syms)?.into_any().unbind())
}
