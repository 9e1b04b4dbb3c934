//! The kernel API: a kernel of a loaded check file, proved and compiled (Cranelift) for a
//! launch's parameter values, run on typed buffers.

use crate::check::CheckFile;
use std::collections::HashMap;
use tessera_codegen::kernel::{Buffer, Cells, Proved, Refusal, RunError};
use tessera_codegen::{CompiledKernel, JitError, JitOptions, StmtPath};
use tessera_verifier::Options;

/// Why a kernel was not compiled.
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// The file has no kernel of that name.
    #[error("{file}: no kernel '{name}'")]
    NoKernel {
        /// The check file.
        file: String,
        /// The name asked for.
        name: String,
    },
    /// The proof refuted the kernel, or could not decide it.
    #[error("{0}")]
    Refused(#[from] Refusal),
    /// The bindings, or the compilation, failed.
    #[error("{0}")]
    Jit(#[from] JitError),
}

/// A proved kernel compiled for one set of parameter values.
pub struct Kernel {
    proved: Proved,
    jit: CompiledKernel,
    bindings: HashMap<String, i64>,
}

impl Kernel {
    /// Proves kernel `name` of `module` (for every value its facts admit, or else at
    /// `bindings`) and compiles it for `bindings`.
    ///
    /// @pre none: an unknown kernel, a refuted or unknown proof, and bindings the facts do not
    /// admit are errors.
    /// @post [`Kernel::run`] computes what the reference interpreter computes, bit for bit.
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use tessera::check::load;
    /// use tessera::jit::Kernel;
    /// use tessera_codegen::kernel::Buffer;
    /// let module = load("t.tess", "param M, N where 1 <= M <= 64, 1 <= N <= 64\n\
    ///     tensor src : f32[(M,N):(1,M)]\ntensor dst : f32[(M,N):(N,1)]\n\
    ///     kernel transpose { dst[i,j] = src[i,j] }\n").unwrap();
    /// let bindings = HashMap::from([("M".to_string(), 2), ("N".to_string(), 3)]);
    /// let k = Kernel::compile(&module, "transpose", &bindings).unwrap();
    /// // Buffers in the order the kernel uses the tensors: dst, then src.
    /// let mut args = vec![Buffer::F32(vec![0.0; 6]), Buffer::F32(vec![0., 1., 2., 3., 4., 5.])];
    /// k.run(&mut args).unwrap();
    /// assert_eq!(args[0], Buffer::F32(vec![0., 2., 4., 1., 3., 5.]));
    /// ```
    pub fn compile(
        module: &CheckFile,
        name: &str,
        bindings: &HashMap<String, i64>,
    ) -> Result<Kernel, CompileError> {
        let k = module
            .kernels
            .iter()
            .find(|k| k.name == name)
            .ok_or_else(|| CompileError::NoKernel {
                file: module.path.clone(),
                name: name.to_string(),
            })?;
        let proved = Proved::check_at(k.clone(), bindings, &Options::default(), false)?;
        let jit = CompiledKernel::compile(&proved, bindings, &JitOptions::default())?;
        Ok(Kernel {
            proved,
            jit,
            bindings: bindings.clone(),
        })
    }

    /// The tensors' names, in the order [`Kernel::run`] takes their buffers.
    pub fn tensors(&self) -> Vec<&str> {
        self.proved
            .kernel()
            .tensors
            .iter()
            .map(|t| t.name.as_str())
            .collect()
    }

    /// Each tensor's strided form at the compiled values (see [`crate::kernel::Strided`]): the
    /// arrays [`Kernel::run`]'s callers hold, by shape and strides.
    ///
    /// @pre none.
    /// @post one entry per tensor, in the order of [`Kernel::tensors`].
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use tessera::{check::load, jit::Kernel};
    /// let module = load("t.tess", "tensor a : f32[(2,3):(1,2)]\ntensor b : f32[(2,3):(1,2)]\n\
    ///     kernel k { b[i,j] = a[i,j] }\n").unwrap();
    /// let k = Kernel::compile(&module, "k", &HashMap::new()).unwrap();
    /// assert_eq!(k.arrays().unwrap()[0].top, Some(vec![(2, 1), (3, 2)]));
    /// ```
    pub fn arrays(&self) -> Result<Vec<crate::kernel::Strided>, String> {
        self.proved
            .kernel()
            .tensors
            .iter()
            .map(|t| {
                let len = t.cosize.eval(&self.bindings).map_err(|e| e.to_string())?;
                let len =
                    usize::try_from(len).map_err(|_| format!("tensor {}: buffer length {len}", t.name))?;
                crate::kernel::Strided::of(t, &self.bindings, len)
            })
            .collect()
    }

    /// How each statement was compiled.
    pub fn paths(&self) -> &[StmtPath] {
        self.jit.paths()
    }

    /// Runs the kernel on every core. `args` holds one buffer per tensor, in the order of
    /// [`Kernel::tensors`], each exactly the tensor's cosize long.
    pub fn run(&self, args: &mut [Buffer]) -> Result<(), RunError> {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        self.jit.run(args, threads)
    }

    /// Runs the kernel on `threads` threads.
    pub fn run_on(&self, args: &mut [Buffer], threads: usize) -> Result<(), RunError> {
        self.jit.run(args, threads)
    }

    /// Runs the kernel on `threads` threads over borrowed buffers (memory the caller owns,
    /// such as a NumPy array's), without copying them; two buffers sharing memory are an
    /// error.
    ///
    /// @pre none (checked). @post as [`Kernel::run_on`] on owned buffers of the same elements.
    ///
    /// ```
    /// use std::{cell::Cell, collections::HashMap};
    /// use tessera::{check::load, jit::Kernel};
    /// use tessera_codegen::kernel::Cells;
    /// let module = load("t.tess", "tensor a : f32[4:1]\ntensor b : f32[4:1]\n\
    ///     kernel k { b[i] = a[i] + 1.0 }\n").unwrap();
    /// let k = Kernel::compile(&module, "k", &HashMap::new()).unwrap();
    /// assert_eq!(k.tensors(), ["b", "a"]); // the kernel's order: its target first
    /// let (mut a, mut b) = (vec![1.0f32; 4], vec![0.0f32; 4]);
    /// fn cells(v: &mut [f32]) -> Cells<'_> {
    ///     Cells::F32(Cell::from_mut(v).as_slice_of_cells())
    /// }
    /// k.run_cells(&[cells(&mut b), cells(&mut a)], 2).unwrap();
    /// assert_eq!(b, [2.0; 4]);
    /// ```
    pub fn run_cells(&self, args: &[Cells<'_>], threads: usize) -> Result<(), RunError> {
        self.jit.run_cells(args, threads)
    }
}
