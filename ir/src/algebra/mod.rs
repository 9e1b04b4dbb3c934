//! The layout algebra of seed `004_*`, generic over concrete and symbolic integers.
//!
//! Each operation states its post-condition in its module; the property tests under
//! `tests/` check them pointwise.

mod axes;
mod by_mode;
mod coalesce;
mod complement;
mod composition;
mod construct;
mod divide;
mod inverse;
mod layout_add;
mod modes;
mod nullspace;
mod product;
mod recast;
mod swizzle_inverse;
mod tile_to_shape;
mod tiler;
mod tuple_div;

pub use coalesce::{
    coalesce, coalesce_by, coalesce_to, coalesce_z, coalesce_z_by, filter, filter_by, filter_zeros,
    filter_zeros_by,
};
pub use complement::complement;
pub use composition::{composition, composition_tiler, composition_view};
pub use construct::{
    make_fragment_like, make_layout_like, make_ordered_layout, max_common_layout, max_common_vector,
};
pub use divide::{
    flat_divide, logical_divide, logical_divide_layout, logical_divide_view, tiled_divide, zipped_divide,
};
pub use inverse::{left_inverse, right_inverse};
pub use layout_add::{greatest_common_domain, layout_add};
pub use modes::{End, extend, group_modes, on_layouts, replace};
pub use nullspace::nullspace;
pub use product::{
    blocked_product, flat_product, logical_product, raked_product, tiled_product, zipped_product,
};
pub use recast::{downcast, recast, recast_composed, upcast};
pub use swizzle_inverse::{SWIZZLED_INVERSE_CHECK_LIMIT, left_inverse_swizzled, right_inverse_swizzled};
pub use tile_to_shape::tile_to_shape;
pub use tiler::{Tiler, TilerView, identity_layout, make_basis_like, tiler_to_layout};
pub use tuple_div::{ceil_div, elem_scale, shape_div};
