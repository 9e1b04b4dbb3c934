//! The tests' view of the PTX interpreter, which lives in `tessera_codegen::ptx_sim` (`tessera
//! run --target ptx-sim`): the same API, where a failure of the interpreter (an unknown
//! instruction, a register read before it is written, an access outside a buffer, unwritten
//! shared memory read) is a panic: a failed test.

#![allow(dead_code)]

pub use tessera_codegen::ptx_sim::{Memory, Stats};

/// A parsed module.
pub struct Module(tessera_codegen::ptx_sim::Module);

impl Module {
    /// Parses the module text.
    pub fn parse(text: &str) -> Module {
        Module(tessera_codegen::ptx_sim::Module::parse(text).unwrap_or_else(|e| panic!("{e}")))
    }
}

/// Launches entry `name` over `grid` CTAs of `block` threads (see
/// `tessera_codegen::ptx_sim::launch`).
pub fn launch(m: &Module, name: &str, grid: u64, block: u64, args: &[u64], mem: &mut Memory) -> Stats {
    tessera_codegen::ptx_sim::launch(&m.0, name, grid, block, args, mem)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}
