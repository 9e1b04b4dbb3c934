//! `tessera-ir`: hierarchical int tuples, layouts, swizzles, the layout algebra and the text
//! format of Tessera.
//!
//! A layout maps coordinates to offsets: `((2,2),3):((24,2),8)`. The algebra (composition,
//! complement, the divides and products, the inverses...) follows the PyCuTe API (seed
//! `004_*`), computed exactly with checked arithmetic, and answers with a typed [`Error`]
//! where a pre-condition fails, including where PyCuTe silently returns a wrong layout.
//!
//! ```
//! use tessera_ir::{parse_layout, algebra::composition};
//! let a = parse_layout("(6,2):(8,2)").unwrap();
//! let b = parse_layout("(4,3):(3,1)").unwrap();
//! assert_eq!(composition(&a, &b).unwrap().to_string(), "((2,2),3):((24,2),8)");
//! ```

#![warn(missing_docs)]

pub mod algebra;
pub mod atom;
mod error;
mod fmt_buffer;
mod htuple;
pub mod index;
mod int;
mod layout;
pub mod shape;
pub mod simplify;
mod stride;
mod swizzle;
pub mod sym;
pub mod text;
pub mod view;

pub use error::{Error, ParseError, Result};
pub use htuple::{HTuple, Leaves, Profile};
pub use int::Int;
pub use layout::Layout;
pub use stride::{Basis, Codomain, Path, Stride};
pub use swizzle::{ComposedLayout, Swizzle};
pub use text::{parse_int_tuple, parse_layout};
