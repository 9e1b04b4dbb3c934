//! Copies out of views: `to_tensor` / `contiguous` in a [`MemoryOrder`], and `conj`.
//!
//! The copy walks the view's flat leaves as an odometer, fastest leaf innermost, reading the
//! source at each position (a unit-stride innermost leaf without a swizzle is copied as a
//! slice). The result is a [`Tensor`] with the view's shape (hierarchy included) and the
//! compact layout of that shape in the requested order ([`compact_layout`]), so a coordinate
//! reaches the same element in the view and in the copy.
//!
//! ```
//! use tessera_ir::view::{Tensor, MemoryOrder};
//! let t = Tensor::from_shape_vec(&[2, 3], MemoryOrder::RowMajor, vec![0, 1, 2, 3, 4, 5]).unwrap();
//! let tt = t.view().permute(&[1, 0]).unwrap().contiguous(MemoryOrder::RowMajor);
//! assert_eq!(tt.data(), &[0, 3, 1, 4, 2, 5]);
//! assert_eq!(tt.layout().to_string(), "0 o (3,2):(2,1)");
//! ```

use super::geometry::{Geometry, compact_layout};
use super::order::MemoryOrder;
use super::tensor::Tensor;
use num_complex::Complex;

/// Complex conjugation; the identity for real and integer types.
pub trait Conj {
    /// The complex conjugate of `self`.
    fn conj(&self) -> Self;
}

macro_rules! real_conj {
    ($($t:ty),*) => {
        $(impl Conj for $t {
            #[inline]
            fn conj(&self) -> Self {
                *self
            }
        })*
    };
}

real_conj!(
    f32, f64, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
);

impl<T: Clone + std::ops::Neg<Output = T>> Conj for Complex<T> {
    #[inline]
    fn conj(&self) -> Self {
        Complex::new(self.re.clone(), -self.im.clone())
    }
}

/// The elements of `geom` over `data`, in `order` over the dimensions.
pub(crate) fn gather<T: Clone>(data: &[T], geom: &Geometry, order: MemoryOrder) -> Vec<T> {
    let n = geom.size() as usize;
    let mut out = Vec::with_capacity(n);
    let leaves = geom.iteration_leaves(order);
    let Some((&(n0, d0), outer)) = leaves.split_first() else {
        // Rank 0: one element.
        out.push(data[geom.place(geom.layout.offset)].clone());
        return out;
    };
    let swizzled = geom.layout.swizzle.is_some();
    let mut idx = vec![0i64; outer.len()];
    let mut base = geom.layout.offset;
    loop {
        // Every position below is an element of the view: in range by the geometry's
        // invariant.
        if !swizzled && d0 == 1 {
            let b = base as usize;
            out.extend_from_slice(&data[b..b + n0 as usize]);
        } else if !swizzled {
            let mut p = base;
            for _ in 0..n0 {
                out.push(data[p as usize].clone());
                p += d0;
            }
        } else {
            for j in 0..n0 {
                out.push(data[geom.place(base + j * d0)].clone());
            }
        }
        let mut k = 0;
        loop {
            let Some(&(s, d)) = outer.get(k) else {
                return out;
            };
            if idx[k] + 1 < s {
                idx[k] += 1;
                base += d;
                break;
            }
            base -= (s - 1) * d;
            idx[k] = 0;
            k += 1;
        }
    }
}

/// [`gather`] into a tensor of the view's shape, laid out compactly in `order`.
pub(crate) fn to_tensor<T: Clone>(data: &[T], geom: &Geometry, order: MemoryOrder) -> Tensor<T> {
    let elems = gather(data, geom, order);
    let shape = geom.layout.inner.shape();
    // The compact layout of a shape whose size fits i64 does too, and reaches exactly
    // 0..size, so the first branch is always taken; the flat layout keeps the copy total.
    let n = elems.len();
    match compact_layout(shape, order).and_then(|l| Geometry::over(super::leaves::unswizzled(0, l), n)) {
        Ok(geom) => Tensor { data: elems, geom },
        Err(_) => Tensor {
            data: elems,
            geom: Geometry::flat(geom.size()),
        },
    }
}
