//! Tensor buffers in NumPy `.npy` files (through the `npyz` crate): one flat array of the
//! tensor's `cosize` elements, little-endian, of the dtype of its element type: `<f4`, `<f8`,
//! `<i4`, `<i8`, `<f2`, and `<u2` holding the bits of a `bf16` (NumPy has no bfloat16).

use half::{bf16, f16};
use npyz::WriterBuilder;
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

/// Reads the buffer of a tensor of type `elem` and `len` elements from `.npy` bytes; an error
/// says what differs (dtype, length) or why the file does not read.
pub fn read(bytes: &[u8], elem: ElemType, len: usize) -> Result<Buffer, String> {
    let npy = npyz::NpyFile::new(bytes).map_err(|e| format!("not a .npy file: {e}"))?;
    let want: npyz::TypeStr = dtype(elem).parse().map_err(|e| format!("{e}"))?;
    let got = npy.dtype();
    if got != npyz::DType::Plain(want.clone()) {
        return Err(format!(
            "dtype {} where the tensor's element type {} needs '{want}'",
            got.descr(),
            elem.name()
        ));
    }
    let n = npy.shape().iter().product::<u64>();
    if usize::try_from(n).ok() != Some(len) {
        return Err(format!(
            "{n} elements (shape {:?}) where the tensor's cosize is {len}",
            npy.shape()
        ));
    }
    let e = |e: std::io::Error| format!("cannot read the data: {e}");
    Ok(match elem {
        ElemType::F32 => Buffer::F32(npy.into_vec().map_err(e)?),
        ElemType::F64 => Buffer::F64(npy.into_vec().map_err(e)?),
        ElemType::I32 => Buffer::I32(npy.into_vec().map_err(e)?),
        ElemType::I64 => Buffer::I64(npy.into_vec().map_err(e)?),
        ElemType::F16 => Buffer::F16(npy.into_vec::<f16>().map_err(e)?),
        ElemType::BF16 => Buffer::BF16(
            npy.into_vec::<u16>()
                .map_err(e)?
                .into_iter()
                .map(bf16::from_bits)
                .collect(),
        ),
    })
}

/// The `.npy` bytes of a buffer: one flat array.
pub fn write(b: &Buffer) -> Result<Vec<u8>, String> {
    fn put<T: npyz::Serialize + npyz::AutoSerialize>(v: &[T], ty: &str) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        let ts: npyz::TypeStr = ty.parse().map_err(|e| format!("{e}"))?;
        let mut w = npyz::WriteOptions::new()
            .dtype(npyz::DType::Plain(ts))
            .shape(&[v.len() as u64])
            .writer(&mut out)
            .begin_nd()
            .map_err(|e| e.to_string())?;
        w.extend(v.iter()).map_err(|e| e.to_string())?;
        w.finish().map_err(|e| e.to_string())?;
        Ok(out)
    }
    let ty = dtype(b.elem());
    match b {
        Buffer::F32(v) => put(v, ty),
        Buffer::F64(v) => put(v, ty),
        Buffer::I32(v) => put(v, ty),
        Buffer::I64(v) => put(v, ty),
        Buffer::F16(v) => put(v, ty),
        Buffer::BF16(v) => put(&v.iter().map(|x| x.to_bits()).collect::<Vec<u16>>(), ty),
    }
}
