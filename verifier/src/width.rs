//! The width of a query's bit-vectors, from the interval bounds of what it evaluates
//! ([`tessera_ir::index::IndexExpr::intervals`], [`tessera_ir::sym::Facts::interval`]).

use tessera_ir::sym::Interval;

/// The widest bit-vector a query uses; wider values are encoded as integers. Wide enough for
/// any `i64` layout (offsets near 2^63, and the sums and products a property forms of them).
pub const MAX_BV_BITS: u32 = 128;

/// The largest magnitude of the values in some intervals; `None` when one is unbounded.
pub fn magnitude(rs: &[Interval]) -> Option<i128> {
    rs.iter().try_fold(0, |m, r| Some(m.max(r.magnitude()?)))
}

/// Bits of a signed two's-complement vector holding every value up to `m` in magnitude, with
/// one bit of headroom for the comparisons and sums the properties add. Unbounded values
/// (`None`) need more than any vector holds: `MAX_BV_BITS + 1`, as every magnitude from 2^126.
pub fn bits_for(m: Option<i128>) -> u32 {
    match m {
        Some(m) => (128 - (m.max(1) as u128).leading_zeros()) + 2,
        None => MAX_BV_BITS + 1,
    }
}
