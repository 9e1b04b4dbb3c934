//! `tessera`, the Python module: Tessera's layout algebra under PyCuTe's names.
//!
//! The module holds no algebra of its own. Layouts, swizzles and composed layouts wrap
//! `tessera-ir`'s types, and every function (`composition`, `logical_divide`, `idx2crd`, ...)
//! converts its Python arguments to values of Tessera's expression language and calls the
//! built-in of the same name through `tessera::lang::call`, the dispatch of `tessera eval`:
//! the same results and the same error messages as the command line. Errors are raised as
//! `tessera.LayoutError`, a `ValueError`. Symbolic extents (`params`, `symbolic.rs`) evaluate
//! through `tessera::lang::Session`; `check` and `run` (`results.rs`, `kernel_run.rs`) call the
//! libraries behind `tessera check` and `tessera run`.

use pyo3::Borrowed;
use pyo3::create_exception;
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyString, PyTuple};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use tessera::ir::algebra::{self as alg, Tiler, TilerView};
use tessera::ir::{self, HTuple, Stride};
use tessera::lang::{self, Value};

create_exception!(
    tessera,
    LayoutError,
    PyValueError,
    "An error of Tessera's layout algebra or text format: a failed pre-condition, an overflow, \
     a malformed layout. A ValueError, with Tessera's message."
);

/// The Python exception of a Tessera error.
pub(crate) fn err(e: ir::Error) -> PyErr {
    LayoutError::new_err(e.to_string())
}

/// A `LayoutError` with a message.
pub(crate) fn bad(msg: impl Into<String>) -> PyErr {
    LayoutError::new_err(msg.into())
}

mod atoms;
mod basis;
mod builtins;
mod classes;
mod convert;
mod fast;
mod kernel_run;
mod pickle;
mod proof;
mod results;
mod symbolic;

use atoms::*;
use basis::*;
use builtins::*;
use classes::*;
use convert::*;
use fast::*;
use kernel_run::*;
use pickle::*;
use proof::*;
use results::*;
use symbolic::*;

/// `is_int(x)`: PyCuTe's test, `isinstance(x, int)`.
#[pyfunction]
fn is_int(x: &Bound<'_, PyAny>) -> bool {
    x.is_instance_of::<PyInt>()
}

/// `is_layout(x)`: whether `x` is a `Layout` (PyCuTe's test).
#[pyfunction]
fn is_layout(x: &Bound<'_, PyAny>) -> bool {
    x.cast::<Layout>().is_ok()
}

/// PyCuTe's `Integer`: an abstract class that `int` (not `bool`, not `float`) is a subclass
/// of, for `isinstance(x, Integer)`; defined in Python because it needs a subclass hook.
fn add_integer(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let code = cr#"import abc
class Integer(abc.ABC):
    """The integers of int tuples: int, but not bool (PyCuTe's Integer)."""
    @classmethod
    def __subclasshook__(cls, c):
        return issubclass(c, int) and not issubclass(c, bool)
Integer.__module__ = 'tessera'
"#;
    let typing = PyModule::from_code(m.py(), code, c"tessera_integer.py", c"tessera_integer")?;
    m.add("Integer", typing.getattr("Integer")?)
}

/// The Python module `tessera`.
#[pymodule(name = "tessera")]
fn tessera_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("LayoutError", m.py().get_type::<LayoutError>())?;
    m.add_class::<Layout>()?;
    m.add_class::<Swizzle>()?;
    m.add_class::<ComposedLayout>()?;
    m.add_class::<ScaledBasis>()?;
    m.add_class::<F2>()?;
    m.add_function(wrap_pyfunction!(unit_basis, m)?)?;
    m.add_class::<Sym>()?;
    m.add_function(wrap_pyfunction!(params, m)?)?;
    add_fast_builtins(m)?;
    add_builtins(m)?;
    m.add_function(wrap_pyfunction!(recast, m)?)?;
    m.add_function(wrap_pyfunction!(eval, m)?)?;
    m.add_class::<Proof>()?;
    m.add_function(wrap_pyfunction!(prove, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(lower, m)?)?;
    m.add_function(wrap_pyfunction!(emit, m)?)?;
    m.add_function(wrap_pyfunction!(_builtin_names, m)?)?;
    m.add_function(wrap_pyfunction!(_symbolic, m)?)?;
    m.add_function(wrap_pyfunction!(_proof, m)?)?;
    m.add_class::<Atom>()?;
    m.add_function(wrap_pyfunction!(make_tiled_mma, m)?)?;
    m.add_function(wrap_pyfunction!(copy_atom, m)?)?;
    m.add_function(wrap_pyfunction!(smem_atom, m)?)?;
    m.add_function(wrap_pyfunction!(tma_swizzle, m)?)?;
    m.add_function(wrap_pyfunction!(is_int, m)?)?;
    m.add_function(wrap_pyfunction!(is_layout, m)?)?;
    add_integer(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // `__all__`: every name but the dunders, so that the package's `from .tessera import *`
    // (maturin's) re-exports `_builtin_names` too.
    let mut all: Vec<String> = m.dict().keys().iter().map(|k| k.to_string()).collect();
    // `eval` stays `tessera.eval` but is not star-exported: it would shadow Python's built-in.
    all.retain(|n| !n.starts_with("__") && n != "eval");
    all.sort();
    m.add("__all__", all)?;
    // maturin's package `tessera/__init__.py` star-imports this module, which leaves `eval`
    // out: put it on the package (being imported, so already in `sys.modules`) by hand.
    let modules = m.py().import("sys")?.getattr("modules")?;
    if let Ok(pkg) = modules.get_item("tessera")
        && !pkg.is(m)
    {
        pkg.setattr("eval", m.getattr("eval")?)?;
    }
    Ok(())
}
