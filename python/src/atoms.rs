//! CuTe's atoms in Python: `make_tiled_mma`, `copy_atom`, `make_tiled_copy`... return an
//! `Atom` (a tiled MMA, a copy atom or a tiled copy) whose attributes are the CuTe DSL's
//! (`.tv_layout_A`, `.tile_size`, `.partition_A(tensor, thread)`), each answered by the
//! built-in of the same name of `tessera eval` (`src/lang/builtins/atoms.rs`).

#[allow(unused_imports)]
use crate::*;
use std::sync::Arc;
use tessera::lang::atom_value::AtomValue;

/// A tiled MMA (`make_tiled_mma`), a copy atom (`copy_atom`) or a tiled copy
/// (`make_tiled_copy`); it prints as the expression that makes it.
#[pyclass(name = "Atom", module = "tessera", frozen)]
pub(crate) struct Atom {
    pub(crate) inner: Arc<AtomValue>,
}

impl Atom {
    fn call(&self, py: Python<'_>, name: &str, rest: Vec<Value<i64>>) -> PyResult<Py<PyAny>> {
        let mut args = vec![Value::Atom(self.inner.clone())];
        args.extend(rest);
        to_py(py, lang::call(name, args).map_err(err)?)
    }
}

#[pymethods]
impl Atom {
    fn __repr__(&self) -> String {
        self.inner.to_string()
    }
    fn __str__(&self) -> String {
        self.inner.to_string()
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Atom>()
            .map(|o| *o.get().inner == *self.inner)
            .unwrap_or(false)
    }
    /// What the atom is: "tiled MMA", "copy atom" or "tiled copy".
    #[getter]
    fn kind(&self) -> &'static str {
        self.inner.kind().trim_start_matches("a ")
    }
    /// get_layoutA_TV(): (thread, value) -> (m,k) of the tiled MMA's A tile.
    #[getter]
    #[allow(non_snake_case)]
    fn tv_layout_A(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.call(py, "tv_layout_A", vec![])
    }
    /// get_layoutB_TV(): (thread, value) -> (n,k).
    #[getter]
    #[allow(non_snake_case)]
    fn tv_layout_B(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.call(py, "tv_layout_B", vec![])
    }
    /// get_layoutC_TV(): (thread, value) -> (m,n).
    #[getter]
    #[allow(non_snake_case)]
    fn tv_layout_C(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.call(py, "tv_layout_C", vec![])
    }
    /// get_layoutS_TV() of a tiled copy.
    #[getter]
    #[allow(non_snake_case)]
    fn tv_layout_S(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.call(py, "tv_layout_S", vec![])
    }
    /// get_layoutD_TV() of a tiled copy.
    #[getter]
    #[allow(non_snake_case)]
    fn tv_layout_D(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.call(py, "tv_layout_D", vec![])
    }
    /// The tile: (tile_size<0>, tile_size<1>, tile_size<2>) of a tiled MMA, a tiled copy's.
    #[getter]
    fn tile_size(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.call(py, "tile_size", vec![])
    }
    /// thr_mma.partition_A(tensor) of thread `thread`, a view.
    #[allow(non_snake_case)]
    fn partition_A(
        &self,
        py: Python<'_>,
        tensor: &Bound<'_, PyAny>,
        thread: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        self.call(py, "partition_A", vec![to_value(tensor)?, to_value(thread)?])
    }
    /// thr_mma.partition_B(tensor) of thread `thread`.
    #[allow(non_snake_case)]
    fn partition_B(
        &self,
        py: Python<'_>,
        tensor: &Bound<'_, PyAny>,
        thread: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        self.call(py, "partition_B", vec![to_value(tensor)?, to_value(thread)?])
    }
    /// thr_mma.partition_C(tensor) of thread `thread`.
    #[allow(non_snake_case)]
    fn partition_C(
        &self,
        py: Python<'_>,
        tensor: &Bound<'_, PyAny>,
        thread: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        self.call(py, "partition_C", vec![to_value(tensor)?, to_value(thread)?])
    }
    /// thr_copy.partition_S(tensor) of thread `thread`.
    #[allow(non_snake_case)]
    fn partition_S(
        &self,
        py: Python<'_>,
        tensor: &Bound<'_, PyAny>,
        thread: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        self.call(py, "partition_S", vec![to_value(tensor)?, to_value(thread)?])
    }
    /// thr_copy.partition_D(tensor) of thread `thread`.
    #[allow(non_snake_case)]
    fn partition_D(
        &self,
        py: Python<'_>,
        tensor: &Bound<'_, PyAny>,
        thread: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        self.call(py, "partition_D", vec![to_value(tensor)?, to_value(thread)?])
    }
}

/// An atom name: letters, digits and `_` (it is spliced into an expression).
fn name(s: &str) -> PyResult<&str> {
    if s.is_empty() || !s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(bad(format!("'{s}' is not an atom name (letters, digits and _)")));
    }
    Ok(s)
}

/// Evaluates `f(NAME, args...)`, the arguments printed as the expression language reads them.
fn named_call(py: Python<'_>, f: &str, atom: &str, args: &[&Bound<'_, PyAny>]) -> PyResult<Py<PyAny>> {
    let mut text = format!("{f}({}", name(atom)?);
    for a in args {
        text.push_str(", ");
        text.push_str(&to_value(a)?.to_string());
    }
    text.push(')');
    to_py(py, lang::parse_value(&text).map_err(err)?)
}

/// make_tiled_mma(atom, atom_layout=(1,1,1), permutation=None): CuTe's make_tiled_mma of an MMA
/// atom named as in CuTe C++ ("SM80_16x8x16_F32F16F16F32_TN", GMMA with "_SS_TN"...).
#[pyfunction]
#[pyo3(signature = (atom, atom_layout = None, permutation = None))]
pub(crate) fn make_tiled_mma(
    py: Python<'_>,
    atom: &str,
    atom_layout: Option<&Bound<'_, PyAny>>,
    permutation: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let one = (1, 1, 1).into_pyobject(py)?.into_any();
    let al = atom_layout.unwrap_or(&one);
    match permutation {
        Some(p) => named_call(py, "make_tiled_mma", atom, &[al, p]),
        None => named_call(py, "make_tiled_mma", atom, &[al]),
    }
}

/// copy_atom(op, bits): Copy_Atom<op, T> for a T of that many bits ("SM75_U32x4_LDSM_N",
/// "UniversalCopy_128", "SM80_CP_ASYNC_CACHEALWAYS_128"...).
#[pyfunction]
pub(crate) fn copy_atom(py: Python<'_>, op: &str, bits: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    named_call(py, "copy_atom", op, &[bits])
}

/// smem_atom(name, bits): GMMA's Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom over element
/// offsets.
#[pyfunction]
pub(crate) fn smem_atom(py: Python<'_>, name: &str, bits: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    named_call(py, "smem_atom", name, &[bits])
}

/// tma_swizzle(mode, bits): TMA's swizzle mode (INTER, SW32, SW64, SW128) on element offsets.
#[pyfunction]
pub(crate) fn tma_swizzle(py: Python<'_>, mode: &str, bits: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    named_call(py, "tma_swizzle", mode, &[bits])
}
