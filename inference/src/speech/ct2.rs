//! Reading a CTranslate2 model file (binary version 6): named variables with their shapes and raw bytes.
//! Only what the Whisper conversion needs: f32 and f16 arrays, and small integer scalars.

use std::collections::HashMap;

use anyhow::{Context, bail, ensure};

/// One stored array: its shape (outermost first), element type and little-endian bytes.
pub(crate) struct Variable<'a> {
    pub(crate) dims: Vec<usize>,
    dtype: DType,
    data: &'a [u8],
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum DType {
    F32,
    I8,
    I16,
    I32,
    F16,
    Bf16,
}

impl DType {
    fn from_code(code: u8) -> anyhow::Result<DType> {
        Ok(match code {
            0 => DType::F32,
            1 => DType::I8,
            2 => DType::I16,
            3 => DType::I32,
            4 => DType::F16,
            5 => DType::Bf16,
            other => bail!("unknown element type {other}"),
        })
    }

    fn size(self) -> usize {
        match self {
            DType::I8 => 1,
            DType::I16 | DType::F16 | DType::Bf16 => 2,
            DType::F32 | DType::I32 => 4,
        }
    }
}

impl<'a> Variable<'a> {
    /// The elements as little-endian f16 bytes (stored f16 is passed through untouched).
    pub(crate) fn f16_bytes(&self) -> anyhow::Result<Vec<u8>> {
        match self.dtype {
            DType::F16 => Ok(self.data.to_vec()),
            DType::F32 => {
                Ok(self.data.chunks_exact(4).flat_map(|c| half::f16::from_f32(le_f32(c)).to_le_bytes()).collect())
            }
            other => bail!("cannot convert {other:?} to f16"),
        }
    }

    /// The elements as little-endian f32 bytes.
    pub(crate) fn f32_bytes(&self) -> anyhow::Result<Vec<u8>> {
        match self.dtype {
            DType::F32 => Ok(self.data.to_vec()),
            DType::F16 => Ok(self
                .data
                .chunks_exact(2)
                .flat_map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32().to_le_bytes())
                .collect()),
            other => bail!("cannot convert {other:?} to f32"),
        }
    }

    /// Part `index` of `parts` equal slices along the first axis (CTranslate2 fuses q|k|v this way).
    pub(crate) fn rows(&self, parts: usize, index: usize) -> anyhow::Result<Variable<'a>> {
        let first = *self.dims.first().context("a scalar has no rows")?;
        ensure!(first % parts == 0, "{first} rows do not split in {parts}");
        let part = self.data.len() / parts;
        let mut dims = self.dims.clone();
        dims[0] = first / parts;
        Ok(Variable { dims, dtype: self.dtype, data: &self.data[part * index..part * (index + 1)] })
    }

    /// The same elements under another shape with as many elements.
    pub(crate) fn reshaped(&self, dims: &[usize]) -> anyhow::Result<Variable<'a>> {
        ensure!(dims.iter().product::<usize>() == self.dims.iter().product::<usize>());
        Ok(Variable { dims: dims.to_vec(), dtype: self.dtype, data: self.data })
    }
}

fn le_f32(c: &[u8]) -> f32 {
    f32::from_le_bytes([c[0], c[1], c[2], c[3]])
}

/// A parsed model: its variables by name, aliases resolved.
pub(crate) struct Model<'a> {
    variables: HashMap<String, Variable<'a>>,
}

impl<'a> Model<'a> {
    /// Parses `bytes`, refusing other specs than `spec` and truncated or inconsistent files.
    pub(crate) fn parse(bytes: &'a [u8], spec: &str) -> anyhow::Result<Model<'a>> {
        let mut r = Reader { bytes, at: 0 };
        let version = r.u32()?;
        ensure!(version == 6, "CTranslate2 model version {version}, expected 6");
        let found = r.string()?;
        ensure!(found == spec, "model spec {found}, expected {spec}");
        let _revision = r.u32()?;
        let mut variables = HashMap::new();
        for _ in 0..r.u32()? {
            let name = r.string()?;
            let rank = r.u8()?;
            let dims = (0..rank).map(|_| r.u32().map(|d| d as usize)).collect::<anyhow::Result<Vec<_>>>()?;
            let dtype = DType::from_code(r.u8()?).with_context(|| name.clone())?;
            let len = r.u32()? as usize;
            ensure!(
                len == dims.iter().product::<usize>() * dtype.size(),
                "{name}: {len} bytes do not fit shape {dims:?}"
            );
            let data = r.take(len)?;
            variables.insert(name, Variable { dims, dtype, data });
        }
        for _ in 0..r.u32()? {
            let (alias, target) = (r.string()?, r.string()?);
            let v = variables.get(&target).with_context(|| format!("alias of missing {target}"))?;
            let copy = Variable { dims: v.dims.clone(), dtype: v.dtype, data: v.data };
            variables.insert(alias, copy);
        }
        Ok(Model { variables })
    }

    /// The variable called `name`.
    pub(crate) fn get(&self, name: &str) -> anyhow::Result<&Variable<'a>> {
        self.variables.get(name).with_context(|| format!("the model has no {name}"))
    }

    /// A small integer scalar (e.g. a head count).
    pub(crate) fn int(&self, name: &str) -> anyhow::Result<i64> {
        let v = self.get(name)?;
        let d = v.data;
        Ok(match v.dtype {
            DType::I8 => i64::from(d[0] as i8),
            DType::I16 => i64::from(i16::from_le_bytes([d[0], d[1]])),
            DType::I32 => i64::from(i32::from_le_bytes([d[0], d[1], d[2], d[3]])),
            other => bail!("{name} is {other:?}, not an integer"),
        })
    }

    /// How many `<prefix>/layer_N/` blocks there are.
    pub(crate) fn layers(&self, prefix: &str) -> usize {
        (0..)
            .take_while(|i| {
                let p = format!("{prefix}/layer_{i}/");
                self.variables.keys().any(|k| k.starts_with(&p))
            })
            .count()
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> anyhow::Result<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.context("the model file is truncated")?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u8(&mut self) -> anyhow::Result<u8> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> anyhow::Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A u16 length, then that many bytes ending in a NUL.
    fn string(&mut self) -> anyhow::Result<String> {
        let b = self.take(2)?;
        let len = u16::from_le_bytes([b[0], b[1]]) as usize;
        let raw = self.take(len)?;
        let raw = raw.strip_suffix(&[0]).unwrap_or(raw);
        Ok(String::from_utf8(raw.to_vec())?)
    }
}
