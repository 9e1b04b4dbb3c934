//! Arrays by shape and strides: the rule by which an array a user holds (a NumPy array, a
//! `.npy` file) becomes a tensor's buffer, and back.
//!
//! A tensor `T : f32[L]` at a launch's parameter values takes an array whose shape is `L`'s
//! shape, flattened either to its top-level modes (each of which must then coalesce to one
//! extent and stride) or to its leaves, and whose strides, in elements, are `L`'s strides
//! (a mode of extent 0 or 1 accepts any stride, as NumPy's own contiguity test does). Element
//! `a[c]` of such an array is the tensor's element at coordinate `c`: it is stored at offset
//! `L(c)` of the buffer (the offset of an offset layout included). Anything else is refused
//! with the expected shape and strides and the one-line NumPy fix; nothing is read by its
//! storage unless the caller asks for that (`storage=True`, `--storage`). A swizzled layout
//! has no strides: its arrays are passed as storage.
//!
//! Arrays travel in colexicographic order of their coordinates (NumPy's `order="F"`), which
//! is the same sequence for the top-level and the leaf shape: [`Strided::scatter`] puts it in
//! the buffer, [`Strided::gather`] takes it back out.

use std::collections::HashMap;
use tessera_codegen::kernel::{Buffer, ElemType, Tensor};
use tessera_verifier::Concrete;

/// The strided form of one tensor at a launch's parameter values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Strided {
    /// The tensor's name.
    pub name: String,
    /// Its element type.
    pub elem: ElemType,
    /// The top-level modes as `(extent, stride)`, when each coalesces to one.
    pub top: Option<Vec<(i64, i64)>>,
    /// The leaves as `(extent, stride)`, in order.
    pub leaves: Vec<(i64, i64)>,
    /// The offset added to every element's position (an offset layout's).
    pub offset: i64,
    /// The length of the buffer, in elements.
    pub len: usize,
    /// Why the layout has no strides (a swizzle), if it has none.
    pub opaque: Option<String>,
}

/// Which of the two shapes an array was given in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// The top-level modes.
    Top,
    /// The leaves.
    Leaves,
}

/// A mode's leaves coalesced: `(extent, stride)` when they make one, `(1, 0)` when all are 1.
fn coalesce(leaves: &[(i64, i64)]) -> Option<(i64, i64)> {
    let mut out: Option<(i64, i64)> = None;
    for &(s, d) in leaves.iter().filter(|(s, _)| *s != 1) {
        out = match out {
            None => Some((s, d)),
            Some((s0, d0)) if d0.checked_mul(s0) == Some(d) => Some((s0.checked_mul(s)?, d0)),
            Some(_) => return None,
        };
    }
    Some(out.unwrap_or((1, 0)))
}

/// The strides, in elements, of a contiguous array of `shape`, C order (`fortran` false) or
/// Fortran order; `None` when they overflow.
pub fn contiguous(shape: &[i64], fortran: bool) -> Option<Vec<i64>> {
    let mut strides = vec![0i64; shape.len()];
    let mut m = 1i64;
    let order: Vec<usize> = if fortran {
        (0..shape.len()).collect()
    } else {
        (0..shape.len()).rev().collect()
    };
    for k in order {
        strides[k] = m;
        m = m.checked_mul(shape[k].max(1))?;
    }
    Some(strides)
}

fn tuple(v: &[i64]) -> String {
    match v {
        [x] => format!("({x},)"),
        _ => format!(
            "({})",
            v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// Whether strides `got` are `want` on every mode of extent above 1 (an empty array matches any).
fn same_strides(shape: &[i64], want: &[i64], got: &[i64]) -> bool {
    shape.contains(&0)
        || shape
            .iter()
            .zip(want.iter().zip(got))
            .all(|(&n, (w, g))| n <= 1 || w == g)
}

impl Strided {
    /// The strided form of tensor `t` at `bindings`, whose buffer holds `len` elements.
    ///
    /// @pre `bindings` binds every parameter of `t`'s layout.
    /// @post `top` and `leaves` have the layout's top-level and leaf extents; the offset of
    /// coordinate `c` is `offset + sum(c[k] * stride[k])`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use tessera::kernel::{parse_tensor, tensor, Strided};
    /// use tessera_verifier::Func;
    /// let d = parse_tensor("tensor A : f32[(4,(2,3)):(1,(4,8))]", 1).unwrap();
    /// let t = tensor(&d, Func::parse(&d.layout, &Arc::new(Default::default())).unwrap()).unwrap();
    /// let s = Strided::of(&t, &Default::default(), 24).unwrap();
    /// assert_eq!(s.top, Some(vec![(4, 1), (6, 4)]));
    /// assert_eq!(s.leaves, vec![(4, 1), (2, 4), (3, 8)]);
    /// ```
    pub fn of(t: &Tensor, bindings: &HashMap<String, i64>, len: usize) -> Result<Strided, String> {
        let c = t
            .layout
            .at(bindings)
            .map_err(|e| format!("tensor {}: {e}", t.name))?;
        let (layout, offset, opaque) = match &c {
            Concrete::Layout(l) => (l, 0, None),
            Concrete::Composed(c) => (
                &c.inner,
                c.offset,
                c.swizzle
                    .map(|s| format!("its layout {} is swizzled ({s:?})", t.layout)),
            ),
        };
        let mut top = Some(Vec::new());
        let mut leaves = Vec::new();
        for m in layout.modes() {
            let mut mode = Vec::new();
            for (s, d) in m.shape().leaves().iter().zip(m.stride().leaves()) {
                match d {
                    tessera_ir::Stride::Int(d) => mode.push((*s, *d)),
                    _ => {
                        return Err(format!(
                            "tensor {}: its layout {} has no integer strides",
                            t.name, t.layout
                        ));
                    }
                }
            }
            top = top.and_then(|mut v: Vec<(i64, i64)>| {
                v.push(coalesce(&mode)?);
                Some(v)
            });
            leaves.extend(mode);
        }
        Ok(Strided {
            name: t.name.clone(),
            elem: t.elem,
            top,
            leaves,
            offset,
            len,
            opaque,
        })
    }

    /// The number of elements of the array (the layout's size); `None` on overflow.
    pub fn size(&self) -> Option<usize> {
        self.leaves
            .iter()
            .try_fold(1usize, |m, (s, _)| m.checked_mul(usize::try_from(*s).ok()?))
    }

    /// The expected array, described: shape and strides in elements, with its NumPy order.
    pub fn expected(&self) -> String {
        let describe = |modes: &[(i64, i64)]| {
            let shape: Vec<i64> = modes.iter().map(|m| m.0).collect();
            let strides: Vec<i64> = modes.iter().map(|m| m.1).collect();
            let order = if contiguous(&shape, false).is_some_and(|c| same_strides(&shape, &c, &strides)) {
                ", C order"
            } else if contiguous(&shape, true).is_some_and(|c| same_strides(&shape, &c, &strides)) {
                ", Fortran order"
            } else {
                ""
            };
            format!(
                "shape {} with strides {} (in elements{order})",
                tuple(&shape),
                tuple(&strides)
            )
        };
        let mut s = match &self.top {
            Some(t) => describe(t),
            None => describe(&self.leaves),
        };
        if self.top.as_ref().is_some_and(|t| t.len() != self.leaves.len()) {
            s.push_str(&format!(", or {}", describe(&self.leaves)));
        }
        if self.offset != 0 {
            s.push_str(&format!(
                ", at offset {} of a buffer of {}",
                self.offset, self.len
            ));
        }
        s
    }

    /// Checks an array of `shape` with `strides` in elements (`None`: not a whole number of
    /// elements); which shape it matched, or the error with the expected array and the fix.
    ///
    /// @pre none.
    /// @post `Ok` only when the shape is the top-level or the leaf shape and every stride of a
    /// mode of extent above 1 is the layout's.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use tessera::kernel::{parse_tensor, tensor, Form, Strided};
    /// use tessera_verifier::Func;
    /// let d = parse_tensor("tensor src : f32[(64,32):(1,64)]", 1).unwrap();
    /// let t = tensor(&d, Func::parse(&d.layout, &Arc::new(Default::default())).unwrap()).unwrap();
    /// let s = Strided::of(&t, &Default::default(), 2048).unwrap();
    /// assert_eq!(s.accept(&[64, 32], Some(&[1, 64])), Ok(Form::Top));
    /// let e = s.accept(&[64, 32], Some(&[32, 1])).unwrap_err();
    /// assert!(e.contains("np.asfortranarray(a)"), "{e}");
    /// ```
    pub fn accept(&self, shape: &[i64], strides: Option<&[i64]>) -> Result<Form, String> {
        if let Some(why) = &self.opaque {
            return Err(format!(
                "tensor {}: {why}, so no array strides express it; pass its buffer of {} elements as storage (storage=True, --storage)",
                self.name, self.len
            ));
        }
        let forms = [
            (Form::Top, self.top.as_deref()),
            (Form::Leaves, Some(&self.leaves[..])),
        ];
        for (form, modes) in forms {
            let Some(modes) = modes else { continue };
            let want: Vec<i64> = modes.iter().map(|m| m.0).collect();
            if want != shape {
                continue;
            }
            let ws: Vec<i64> = modes.iter().map(|m| m.1).collect();
            if strides.is_some_and(|g| g.len() == ws.len() && same_strides(shape, &ws, g)) {
                return Ok(form);
            }
            return Err(self.refusal(shape, strides, Some(modes)));
        }
        Err(self.refusal(shape, strides, None))
    }

    /// The error for an array that does not match, with the fix.
    fn refusal(&self, shape: &[i64], strides: Option<&[i64]>, same: Option<&[(i64, i64)]>) -> String {
        let got = match strides {
            Some(s) => format!("shape {} with strides {}", tuple(shape), tuple(s)),
            None => format!(
                "shape {} with strides that are no whole number of elements",
                tuple(shape)
            ),
        };
        let modes = same.unwrap_or_else(|| self.top.as_deref().unwrap_or(&self.leaves));
        let want: Vec<i64> = modes.iter().map(|m| m.0).collect();
        let ws: Vec<i64> = modes.iter().map(|m| m.1).collect();
        let is = |fortran: bool| contiguous(&want, fortran).is_some_and(|c| same_strides(&want, &c, &ws));
        let order = if is(false) {
            Some("np.ascontiguousarray")
        } else if is(true) {
            Some("np.asfortranarray")
        } else {
            None
        };
        let rev: Vec<i64> = shape.iter().rev().copied().collect();
        let fix = match (order, same.is_some()) {
            (Some(f), true) => format!("{f}(a)"),
            _ if rev == want
                && strides.is_some_and(|s| {
                    let t: Vec<i64> = s.iter().rev().copied().collect();
                    same_strides(&want, &ws, &t)
                }) =>
            {
                "a.T".to_string()
            }
            (Some(f), false) if self.elements_match(shape) => format!("{f}(a.reshape({}))", tuple(&want)),
            (None, _) => format!(
                "no contiguous order has these strides: make `a` a strided view of a buffer of {} elements \
                 (np.lib.stride_tricks.as_strided), or pass that buffer with storage=True / --storage",
                self.len
            ),
            (Some(_), false) => format!(
                "an array of {} elements; to pass the raw buffer instead, use storage=True / --storage",
                self.size().map_or("?".into(), |n| n.to_string())
            ),
        };
        format!(
            "tensor {} needs {}; got {got}; fix: {fix}",
            self.name,
            self.expected()
        )
    }

    fn elements_match(&self, shape: &[i64]) -> bool {
        let n = shape
            .iter()
            .try_fold(1usize, |m, s| m.checked_mul(usize::try_from(*s).ok()?));
        n.is_some() && n == self.size()
    }

    /// The buffer position of each element, in colexicographic order of the coordinates.
    fn positions(&self) -> Result<Vec<usize>, String> {
        let n = self
            .size()
            .ok_or_else(|| format!("tensor {}: its size overflows", self.name))?;
        let mut out = Vec::new();
        out.try_reserve_exact(n)
            .map_err(|_| format!("tensor {}: cannot allocate {n} positions", self.name))?;
        let overflow = || format!("tensor {}: an element's offset overflows", self.name);
        let mut coord = vec![0i64; self.leaves.len()];
        let mut pos = self.offset;
        for _ in 0..n {
            match usize::try_from(pos) {
                Ok(p) if p < self.len => out.push(p),
                _ => {
                    return Err(format!(
                        "tensor {}: an element lies at offset {pos}, outside its buffer of {}",
                        self.name, self.len
                    ));
                }
            }
            for (k, &(s, d)) in self.leaves.iter().enumerate() {
                coord[k] += 1;
                pos = pos.checked_add(d).ok_or_else(overflow)?;
                if coord[k] < s {
                    break;
                }
                pos = d
                    .checked_mul(s)
                    .and_then(|w| pos.checked_sub(w))
                    .ok_or_else(overflow)?;
                coord[k] = 0;
            }
        }
        Ok(out)
    }

    /// The buffer (of `len` elements, zero where no coordinate lands) holding the array whose
    /// elements, in colexicographic order, are `array`.
    ///
    /// @pre `array` holds [`Strided::size`] elements of the tensor's type.
    /// @post `gather(scatter(a)) == a` for an injective layout.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use tessera::kernel::{parse_tensor, tensor, Strided};
    /// use tessera_codegen::kernel::Buffer;
    /// use tessera_verifier::Func;
    /// let d = parse_tensor("tensor A : f32[(2,3):(3,1)]", 1).unwrap();
    /// let t = tensor(&d, Func::parse(&d.layout, &Arc::new(Default::default())).unwrap()).unwrap();
    /// let s = Strided::of(&t, &Default::default(), 6).unwrap();
    /// // a = [[0, 1, 2], [3, 4, 5]] in Fortran order: 0 3 1 4 2 5.
    /// let b = s.scatter(&Buffer::F32(vec![0., 3., 1., 4., 2., 5.])).unwrap();
    /// assert_eq!(b, Buffer::F32(vec![0., 1., 2., 3., 4., 5.]));
    /// assert_eq!(s.gather(&b).unwrap(), Buffer::F32(vec![0., 3., 1., 4., 2., 5.]));
    /// ```
    pub fn scatter(&self, array: &Buffer) -> Result<Buffer, String> {
        let pos = self.positions()?;
        if array.len() != pos.len() || array.elem() != self.elem {
            return Err(format!(
                "tensor {}: {} {} elements where it holds {} {}",
                self.name,
                array.len(),
                array.elem().name(),
                pos.len(),
                self.elem.name()
            ));
        }
        let mut out = Buffer::try_zeros(self.elem, self.len)
            .map_err(|_| format!("tensor {}: cannot allocate {} elements", self.name, self.len))?;
        macro_rules! put {
            ($($v:ident),*) => {
                match (&mut out, array) {
                    $((Buffer::$v(o), Buffer::$v(a)) => {
                        for (p, x) in pos.iter().zip(a) {
                            o[*p] = *x;
                        }
                    })*
                    _ => {}
                }
            };
        }
        put!(F32, F64, I32, I64, F16, BF16);
        Ok(out)
    }

    /// The array's elements, in colexicographic order, read from `buffer`: the inverse of
    /// [`Strided::scatter`].
    ///
    /// @pre `buffer` holds `len` elements of the tensor's type.
    /// @post the result holds [`Strided::size`] elements.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use tessera::kernel::{parse_tensor, tensor, Strided};
    /// use tessera_codegen::kernel::Buffer;
    /// use tessera_verifier::Func;
    /// let d = parse_tensor("tensor A : i32[2:2]", 1).unwrap();
    /// let t = tensor(&d, Func::parse(&d.layout, &Arc::new(Default::default())).unwrap()).unwrap();
    /// let s = Strided::of(&t, &Default::default(), 3).unwrap();
    /// assert_eq!(s.gather(&Buffer::I32(vec![7, 0, 9])).unwrap(), Buffer::I32(vec![7, 9]));
    /// ```
    pub fn gather(&self, buffer: &Buffer) -> Result<Buffer, String> {
        if buffer.len() != self.len || buffer.elem() != self.elem {
            return Err(format!(
                "tensor {}: a buffer of {} {} where it needs {} {}",
                self.name,
                buffer.len(),
                buffer.elem().name(),
                self.len,
                self.elem.name()
            ));
        }
        let pos = self.positions()?;
        macro_rules! get {
            ($($v:ident),*) => {
                match buffer {
                    $(Buffer::$v(b) => Buffer::$v(pos.iter().map(|p| b[*p]).collect()),)*
                }
            };
        }
        Ok(get!(F32, F64, I32, I64, F16, BF16))
    }

    /// The shape an output array is written in (the top-level modes where they have strides,
    /// else the leaves) and whether its strides are Fortran order rather than C order.
    pub fn output_shape(&self) -> (Vec<i64>, bool) {
        let modes = self.top.as_deref().unwrap_or(&self.leaves);
        let shape: Vec<i64> = modes.iter().map(|m| m.0).collect();
        let strides: Vec<i64> = modes.iter().map(|m| m.1).collect();
        let c = contiguous(&shape, false).is_some_and(|c| same_strides(&shape, &c, &strides));
        let fortran = !c && shape.len() > 1;
        (shape, fortran)
    }
}
