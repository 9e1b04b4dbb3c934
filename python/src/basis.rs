//! `ScaledBasis` and `E`: coordinate strides as Python objects (CuTe's `ScaledBasis`,
//! `E<i>`), so that `make_identity_layout((4,3)).stride` is `(E(0), E(1))` rather than text.

#[allow(unused_imports)]
use crate::*;

/// A coordinate stride: `v@i` (`v` times the unit vector of coordinate mode `i`), `v@i@j` for
/// a nested mode, or a sum of them (`2@0+1@1`). `E(i)` is `1@i`; `3 * E(0)` is `3@0`; `+` adds.
/// Equal to another `ScaledBasis` of the same value, and to its text (`E(0) == "1@0"`).
#[pyclass(module = "tessera", frozen, name = "ScaledBasis")]
#[derive(Clone)]
pub struct ScaledBasis {
    pub(crate) inner: Stride<i64>,
}

#[pymethods]
impl ScaledBasis {
    /// `ScaledBasis(value, *modes)`: `value@modes[0]@modes[1]...`.
    #[new]
    #[pyo3(signature = (value, *modes))]
    fn new(value: i64, modes: Vec<u32>) -> PyResult<Self> {
        if modes.is_empty() {
            return Err(bad("ScaledBasis needs at least one mode"));
        }
        Ok(ScaledBasis {
            inner: Stride::basis(value, &modes),
        })
    }

    /// The coefficient of a single-term stride (`3` for `3@0`); `None` for a sum.
    #[getter]
    fn value(&self) -> Option<i64> {
        self.inner.axis_value().map(|(_, v)| *v)
    }

    /// The mode path of a single-term stride (`(0,)` for `3@0`); `None` for a sum.
    #[getter]
    fn mode(&self) -> Option<Vec<u32>> {
        self.inner.axis_value().map(|(p, _)| p.iter().copied().collect())
    }

    fn __mul__(&self, n: i64) -> PyResult<Self> {
        Ok(ScaledBasis {
            inner: self.inner.scale(&n).map_err(err)?,
        })
    }

    fn __rmul__(&self, n: i64) -> PyResult<Self> {
        self.__mul__(n)
    }

    fn __add__(&self, other: &Bound<'_, PyAny>) -> PyResult<Self> {
        let rhs = match other.cast::<ScaledBasis>() {
            Ok(o) => o.get().inner.clone(),
            Err(_) => Stride::Int(other.extract::<i64>()?),
        };
        Ok(ScaledBasis {
            inner: self.inner.add(&rhs).map_err(err)?,
        })
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        if let Ok(o) = other.cast::<ScaledBasis>() {
            return o.get().inner == self.inner;
        }
        other
            .extract::<String>()
            .is_ok_and(|s| s.replace(' ', "") == self.inner.to_string())
    }

    fn __hash__(&self) -> u64 {
        hash_of(&self.inner.to_string())
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        match self.inner.axis_value() {
            Some((p, v)) => {
                let modes: Vec<String> = p.iter().map(|m| m.to_string()).collect();
                format!("ScaledBasis({v}, {})", modes.join(", "))
            }
            None => format!("ScaledBasis.parse({:?})", self.inner.to_string()),
        }
    }

    /// Pickling: rebuilt from its text.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let parse = slf.py().get_type::<ScaledBasis>().getattr("parse")?;
        Ok((parse, (slf.get().inner.to_string(),)))
    }

    /// Reads a coordinate stride from its text (`"2@0"`, `"1@1@0"`, `"2@0+1@1"`).
    #[staticmethod]
    fn parse(text: &str) -> PyResult<Self> {
        match lang::parse_value(text).map_err(err)? {
            Value::Stride(s @ Stride::Basis(_)) => Ok(ScaledBasis { inner: s }),
            v => Err(bad(format!("'{v}' is a {}, not a coordinate stride", v.kind()))),
        }
    }
}

/// `E(*modes)`: the unit coordinate stride `1@modes...` (CuTe's `E<i>`).
#[pyfunction(name = "E")]
#[pyo3(signature = (*modes))]
pub(crate) fn unit_basis(modes: Vec<u32>) -> PyResult<ScaledBasis> {
    ScaledBasis::new(1, modes)
}

/// A value of the binary field `F2` as a stride or an offset (`F2(6)`): `+` and `^` are XOR;
/// `int(x)` is its bits. Equal to another `F2` of the same bits and to its text
/// (`F2(6) == "F2(6)"`).
#[pyclass(module = "tessera", frozen, name = "F2")]
#[derive(Clone)]
pub struct F2 {
    pub(crate) bits: u64,
}

#[pymethods]
impl F2 {
    /// `F2(bits)`: `bits` is a non-negative integer below 2^64.
    #[new]
    fn new(bits: u64) -> Self {
        F2 { bits }
    }

    fn __int__(&self) -> u64 {
        self.bits
    }

    fn __index__(&self) -> u64 {
        self.bits
    }

    fn __add__(&self, other: &Bound<'_, PyAny>) -> PyResult<Self> {
        let o = match other.cast::<F2>() {
            Ok(o) => o.get().bits,
            Err(_) => other.extract::<u64>()?,
        };
        Ok(F2 { bits: self.bits ^ o })
    }

    fn __xor__(&self, other: &Bound<'_, PyAny>) -> PyResult<Self> {
        self.__add__(other)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        if let Ok(o) = other.cast::<F2>() {
            return o.get().bits == self.bits;
        }
        other
            .extract::<String>()
            .is_ok_and(|s| s.replace(' ', "") == self.__str__())
    }

    fn __hash__(&self) -> u64 {
        hash_of(&self.bits)
    }

    fn __str__(&self) -> String {
        Stride::<i64>::F2(self.bits).to_string()
    }

    fn __repr__(&self) -> String {
        format!("F2({})", self.bits)
    }

    /// Pickling: rebuilt from its bits.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (u64,))> {
        Ok((slf.py().get_type::<F2>().into_any(), (slf.get().bits,)))
    }
}
