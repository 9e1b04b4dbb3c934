//! Pictures of layouts (`tessera draw`): CuTe's `print_layout` grid, its thread-value
//! pictures, and shared-memory bank pictures, written as SVG, TikZ, PNG or HTML.
//!
//! * [`layout`]: a layout (also swizzled, composed with an offset, a view, a bare shape, or
//!   symbolic with every parameter bound) as a grid, mode 0 down the rows and mode 1 across
//!   the columns (rank 1: one column, as CuTe's `print_latex`; rank 3 or more:
//!   `(mode 0, (mode 1, ...))`), each cell the
//!   evaluator's value at its index (the value `tessera eval 'L(i)'` prints: an offset, a
//!   coordinate for coordinate strides, an `F2` value). Thicker rules separate the blocks of
//!   hierarchical modes' sub-modes.
//! * [`tv`]: a thread-value layout over its tile, each cell `T{t}V{v}`.
//! * [`mma`]: a tiled MMA's A, B and C in one picture, as CuTe's `print_latex(tiled_mma)`.
//! * [`banks`]: a bank question's shared-memory tile coloured by bank, each phase's
//!   conflicting words outlined, with the verifier's degree of each phase.
//!
//! A picture has at most [`MAX_CELLS`] cells; a larger one is refused with a message that
//! suggests a smaller view. The data ([`Picture`]) is public, so that reports can lay it out
//! themselves or check it.
//!
//! ```
//! use tessera::draw::{layout, Color};
//! use tessera::lang::Session;
//! let l = Session::default().value("Sw<1,0,1> o (2,2):(2,1)").unwrap();
//! let p = layout(&l, Color::Index).unwrap();
//! let texts: Vec<&str> = p.cells.iter().map(|c| c.text.as_str()).collect();
//! assert_eq!(texts, ["0", "1", "3", "2"]);
//! ```

mod bank;
mod color;
mod concrete;
mod error;
mod grid;
mod layout;
mod mma;
mod picture;
mod png;
mod svg;
mod tex;
mod tv;
mod window;

pub use bank::banks;
pub use color::{Color, Rgb, grey8, spectrum32};
pub use error::DrawError;
pub use layout::{layout, layout_of_elements};
pub use mma::mma;
pub use picture::{BankCell, Cell, Legend, Outline, Picture, Read, Rule};
pub use png::{MAX_PIXELS, SCALE};
pub use tv::{MAX_ACCESSES, tv};
pub use window::span;

/// The most cells a picture may have (a 256 x 256 grid).
pub const MAX_CELLS: usize = 65_536;
