//! Tensor arrays in NumPy `.npy` files (format versions 1 to 3), little-endian, of the dtype of
//! the tensor's element type: `<f4`, `<f8`, `<i4`, `<i8`, `<f2`, and `<u2` holding the bits of
//! a `bf16` (NumPy has no bfloat16).
//!
//! A file is an array: its header's `shape` and `fortran_order` give its shape and strides,
//! which must be the tensor's (the rule of [`crate::kernel::Strided`]); with `--storage` it is
//! the tensor's raw buffer instead (any shape, exactly the buffer's length, read in the file's
//! memory order). The header is read here, every field with checked arithmetic: a shape whose
//! product or byte count overflows, a truncated file, or a header that is not the dict NumPy
//! writes is an error, never a wrap.

use crate::kernel::{Strided, contiguous};
use tessera_codegen::kernel::{Buffer, ElemType};

/// The dtype of an element type's `.npy` file.
pub fn dtype(elem: ElemType) -> &'static str {
    match elem {
        ElemType::F32 => "<f4",
        ElemType::F64 => "<f8",
        ElemType::I32 => "<i4",
        ElemType::I64 => "<i8",
        ElemType::F16 => "<f2",
        ElemType::BF16 => "<u2",
    }
}

/// A `.npy` file's header and data.
#[derive(Debug, PartialEq)]
pub struct Npy<'a> {
    /// The `descr` field (`<f4`).
    pub descr: String,
    /// The `fortran_order` field.
    pub fortran: bool,
    /// The `shape` field.
    pub shape: Vec<i64>,
    /// The data: exactly the shape's elements.
    pub data: &'a [u8],
}

/// The value of `key` in a header dict: the text after `'key':` up to the field's end.
fn field<'h>(header: &'h str, key: &str) -> Result<&'h str, String> {
    let k = format!("'{key}'");
    let at = header
        .find(&k)
        .or_else(|| header.find(&format!("\"{key}\"")))
        .ok_or_else(|| format!("the header has no '{key}'"))?;
    let rest = header[at + k.len()..].trim_start();
    rest.strip_prefix(':')
        .map(str::trim_start)
        .ok_or_else(|| format!("the header's '{key}' has no value"))
}

/// Reads a `.npy` file's header; the header and the data it describes.
///
/// @pre none: any bytes.
/// @post `data.len()` is the shape's product times the item size, computed without overflow.
///
/// ```
/// use tessera::npy::{parse, write};
/// use tessera_codegen::kernel::Buffer;
/// let bytes = write(&Buffer::I32(vec![1, 2, 3, 4, 5, 6]), &[2, 3], true).unwrap();
/// let npy = parse(&bytes).unwrap();
/// assert_eq!((npy.descr.as_str(), npy.fortran, npy.shape.as_slice()), ("<i4", true, &[2, 3][..]));
/// ```
pub fn parse(bytes: &[u8]) -> Result<Npy<'_>, String> {
    let bad = |m: &str| format!("not a .npy file: {m}");
    let rest = bytes
        .strip_prefix(b"\x93NUMPY")
        .ok_or_else(|| bad("no magic string"))?;
    let (&major, rest) = rest.split_first().ok_or_else(|| bad("truncated"))?;
    let rest = rest.get(1..).ok_or_else(|| bad("truncated"))?;
    let (hlen, rest) = match major {
        1 => {
            let b = rest.get(..2).ok_or_else(|| bad("truncated"))?;
            (usize::from(u16::from_le_bytes([b[0], b[1]])), &rest[2..])
        }
        2 | 3 => {
            let b = rest.get(..4).ok_or_else(|| bad("truncated"))?;
            let n = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            (
                usize::try_from(n).map_err(|_| bad("header too long"))?,
                &rest[4..],
            )
        }
        v => return Err(bad(&format!("format version {v} is not 1, 2 or 3"))),
    };
    let header = rest.get(..hlen).ok_or_else(|| bad("the header is truncated"))?;
    let header = std::str::from_utf8(header).map_err(|_| bad("the header is not text"))?;
    let data = &rest[hlen..];
    let descr = field(header, "descr")?;
    let q = descr.chars().next().filter(|c| *c == '\'' || *c == '"');
    let descr = q
        .and_then(|q| descr[1..].split(q).next())
        .ok_or_else(|| bad("'descr' is not a string"))?
        .to_string();
    let fortran = match field(header, "fortran_order")? {
        f if f.starts_with("True") => true,
        f if f.starts_with("False") => false,
        _ => return Err(bad("'fortran_order' is neither True nor False")),
    };
    let shape = field(header, "shape")?;
    let inner = shape
        .strip_prefix('(')
        .and_then(|s| s.split(')').next())
        .ok_or_else(|| bad("'shape' is not a tuple"))?;
    let mut dims = Vec::new();
    for d in inner.split(',').map(str::trim).filter(|d| !d.is_empty()) {
        let d = d.strip_suffix('L').unwrap_or(d);
        let n: i64 = d
            .parse()
            .map_err(|_| bad(&format!("'shape' holds '{d}', not an extent below 2^63")))?;
        if n < 0 {
            return Err(bad(&format!("'shape' holds the negative extent {n}")));
        }
        dims.push(n);
    }
    let item = match descr.get(2..) {
        Some(n) => n.parse::<usize>().map_err(|_| bad(&format!("dtype '{descr}'")))?,
        None => return Err(bad(&format!("dtype '{descr}'"))),
    };
    let overflow = || format!("shape {dims:?}: its byte count overflows (a corrupt header)");
    let count = dims
        .iter()
        .try_fold(1usize, |m, d| m.checked_mul(usize::try_from(*d).ok()?))
        .ok_or_else(overflow)?;
    let nbytes = count.checked_mul(item).ok_or_else(overflow)?;
    if data.len() != nbytes {
        return Err(format!(
            "the header's shape {dims:?} of '{descr}' needs {nbytes} bytes of data, the file holds {}",
            data.len()
        ));
    }
    Ok(Npy {
        descr,
        fortran,
        shape: dims,
        data,
    })
}

/// Reads the buffer of tensor `t` (its strided form) from `.npy` bytes: by the shape rule, or
/// as its raw buffer when `storage`. An error says what differs (dtype, shape, order, length)
/// and how to fix it, or why the file does not read.
///
/// @pre none: any bytes.
/// @post the buffer holds `t.len` elements; without `storage`, array element `c` is at the
/// layout's offset of `c`.
///
/// ```
/// use std::{collections::HashMap, sync::Arc};
/// use tessera::kernel::{parse_tensor, tensor, Strided};
/// use tessera::npy::{read, write};
/// use tessera_codegen::kernel::Buffer;
/// use tessera_verifier::Func;
/// let d = parse_tensor("tensor x : f32[16:1]", 1).unwrap();
/// let t = tensor(&d, Func::parse(&d.layout, &Arc::new(Default::default())).unwrap()).unwrap();
/// let s = Strided::of(&t, &HashMap::new(), 16).unwrap();
/// let square = write(&Buffer::F32((0..16).map(|x| x as f32).collect()), &[4, 4], true).unwrap();
/// assert!(read(&square, &s, false).unwrap_err().contains("shape (16,)"));
/// assert_eq!(read(&square, &s, true).unwrap().len(), 16);
/// ```
pub fn read(bytes: &[u8], t: &Strided, storage: bool) -> Result<Buffer, String> {
    let npy = parse(bytes)?;
    let want = dtype(t.elem);
    if npy.descr != want {
        return Err(format!(
            "dtype '{}' where the tensor's element type {} needs '{want}' (fix: a.astype('{want}'))",
            npy.descr,
            t.elem.name()
        ));
    }
    let flat = Buffer::from_le_bytes(t.elem, npy.data);
    if storage {
        if flat.len() != t.len {
            return Err(format!(
                "--storage: {} elements (shape {:?}) where tensor {}'s buffer holds {}",
                flat.len(),
                npy.shape,
                t.name,
                t.len
            ));
        }
        return Ok(flat);
    }
    let strides = contiguous(&npy.shape, npy.fortran).ok_or("the shape's strides overflow")?;
    t.accept(&npy.shape, Some(&strides)).map_err(|e| {
        let order = if npy.fortran { "Fortran" } else { "C" };
        format!("{e} (the file holds a {order}-order array)")
    })?;
    // The file's elements in colexicographic order of their coordinates.
    let colex = if npy.fortran || npy.shape.iter().filter(|d| **d > 1).count() <= 1 {
        flat
    } else {
        reorder(&flat, &npy.shape, true)
    };
    t.scatter(&colex)
}

/// A C-order array's elements in colexicographic (Fortran) order (`to_colex`), or the other
/// way round.
pub fn reorder(c: &Buffer, shape: &[i64], to_colex: bool) -> Buffer {
    let strides = contiguous(shape, false).unwrap_or_default();
    let n = c.len();
    let mut idx = Vec::with_capacity(n);
    let mut coord = vec![0i64; shape.len()];
    let mut pos = 0i64;
    for _ in 0..n {
        idx.push(pos as usize);
        for k in 0..shape.len() {
            coord[k] += 1;
            pos += strides[k];
            if coord[k] < shape[k] {
                break;
            }
            pos -= strides[k] * shape[k];
            coord[k] = 0;
        }
    }
    if !to_colex {
        let mut inv = vec![0usize; n];
        for (i, p) in idx.iter().enumerate() {
            inv[*p] = i;
        }
        idx = inv;
    }
    macro_rules! pick {
        ($($v:ident),*) => {
            match c {
                $(Buffer::$v(b) => Buffer::$v(idx.iter().map(|p| b[*p]).collect()),)*
            }
        };
    }
    pick!(F32, F64, I32, I64, F16, BF16)
}

/// The `.npy` bytes of an array of `shape` whose elements, in the file's order (Fortran order
/// when `fortran`, else C order), are `b`.
///
/// @pre the shape's product is `b.len()`.
/// @post [`parse`] reads back the shape, the order and the bytes.
///
/// ```
/// use tessera::npy::{parse, write};
/// use tessera_codegen::kernel::Buffer;
/// let bytes = write(&Buffer::F32(vec![1.0]), &[1], false).unwrap();
/// assert_eq!(bytes.len() % 64, 4);
/// assert_eq!(parse(&bytes).unwrap().data, 1f32.to_le_bytes());
/// ```
pub fn write(b: &Buffer, shape: &[i64], fortran: bool) -> Result<Vec<u8>, String> {
    let n = shape
        .iter()
        .try_fold(1usize, |m, d| m.checked_mul(usize::try_from(*d).ok()?));
    if n != Some(b.len()) {
        return Err(format!("shape {shape:?} does not hold {} elements", b.len()));
    }
    let dims = match shape {
        [d] => format!("({d},)"),
        _ => format!(
            "({})",
            shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")
        ),
    };
    let order = if fortran { "True" } else { "False" };
    let mut header = format!(
        "{{'descr': '{}', 'fortran_order': {order}, 'shape': {dims}, }}",
        dtype(b.elem())
    );
    // Magic (6), version (2), length (2), the header and its newline: a multiple of 64.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let hlen =
        u16::try_from(header.len()).map_err(|_| "the shape is too long for a .npy header".to_string())?;
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&hlen.to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&b.to_le_bytes());
    Ok(out)
}
