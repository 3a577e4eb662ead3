//! CTranslate2 Whisper → whisper.cpp ggml. CTranslate2 fuses attention projections and names things its
//! own way; whisper.cpp wants OpenAI's names, separate q/k/v (k without bias), its mel filter bank and
//! the byte-level tokens, in one file it can load from memory or disk.

use anyhow::{Context, ensure};

use super::ct2::{Model, Variable};
use super::mel;

/// "ggml" as whisper.cpp reads it.
const GGML_MAGIC: u32 = 0x6767_6d6c;
/// whisper.cpp's file type for "large matrices in f16".
const FTYPE_F16: i32 = 1;

/// Converts CTranslate2's `model.bin` and `vocabulary.txt` of a Whisper model to whisper.cpp's format.
pub(crate) fn convert(model_bin: &[u8], vocabulary_txt: &[u8]) -> anyhow::Result<Vec<u8>> {
    let model = Model::parse(model_bin, "WhisperSpec").context("reading the CTranslate2 model")?;
    let tokens = byte_tokens(vocabulary_txt).context("reading the vocabulary")?;

    let embeddings = model.get("decoder/embeddings/weight")?;
    let encoder_pos = model.get("encoder/position_encodings/encodings")?;
    let decoder_pos = model.get("decoder/position_encodings/encodings")?;
    let conv1 = model.get("encoder/conv1/weight")?;
    ensure!(embeddings.dims.len() == 2 && encoder_pos.dims.len() == 2 && conv1.dims.len() == 3);
    let (n_vocab, n_state) = (embeddings.dims[0], embeddings.dims[1]);
    let n_mels = conv1.dims[1];
    let (encoder_layers, decoder_layers) = (model.layers("encoder"), model.layers("decoder"));
    ensure!(encoder_layers > 0 && decoder_layers > 0, "the model has no layers");

    let mut out = Ggml::with_capacity(model_bin.len() + (1 << 20));
    out.u32(GGML_MAGIC);
    let hparams = [
        n_vocab as i64,
        encoder_pos.dims[0] as i64,
        encoder_pos.dims[1] as i64,
        model.int("encoder/num_heads")?,
        encoder_layers as i64,
        decoder_pos.dims[0] as i64,
        n_state as i64,
        model.int("decoder/num_heads")?,
        decoder_layers as i64,
        n_mels as i64,
        i64::from(FTYPE_F16),
    ];
    for h in hparams {
        out.i32(i32::try_from(h)?);
    }
    out.i32(i32::try_from(n_mels)?);
    out.i32(mel::N_BINS as i32);
    for w in mel::filters(n_mels) {
        out.bytes(&w.to_le_bytes());
    }
    out.i32(i32::try_from(tokens.len())?);
    for t in &tokens {
        out.u32(u32::try_from(t.len())?);
        out.bytes(t);
    }

    out.f32("encoder.positional_embedding", encoder_pos)?;
    for i in 1..=2 {
        let conv = format!("encoder/conv{i}");
        out.f16(&format!("encoder.conv{i}.weight"), model.get(&format!("{conv}/weight"))?)?;
        let bias = model.get(&format!("{conv}/bias"))?;
        out.f32(&format!("encoder.conv{i}.bias"), &bias.reshaped(&[bias.dims[0], 1])?)?;
    }
    out.norm(&model, "encoder/layer_norm", "encoder.ln_post")?;
    for i in 0..encoder_layers {
        let (from, to) = (format!("encoder/layer_{i}"), format!("encoder.blocks.{i}"));
        out.self_attention(&model, &from, &to)?;
        out.ffn(&model, &from, &to)?;
    }

    out.f32("decoder.positional_embedding", decoder_pos)?;
    out.f16("decoder.token_embedding.weight", embeddings)?;
    out.norm(&model, "decoder/layer_norm", "decoder.ln")?;
    for i in 0..decoder_layers {
        let (from, to) = (format!("decoder/layer_{i}"), format!("decoder.blocks.{i}"));
        out.self_attention(&model, &from, &to)?;
        out.cross_attention(&model, &from, &to)?;
        out.ffn(&model, &from, &to)?;
    }
    Ok(out.buf)
}

/// The ggml file being written.
struct Ggml {
    buf: Vec<u8>,
}

impl Ggml {
    fn with_capacity(n: usize) -> Ggml {
        Ggml { buf: Vec::with_capacity(n) }
    }

    fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }

    fn i32(&mut self, v: i32) {
        self.bytes(&v.to_le_bytes());
    }

    /// One tensor: rank, name length, type (0 f32, 1 f16), dims innermost first, name, data.
    fn tensor(&mut self, name: &str, dims: &[usize], ftype: i32, data: &[u8]) -> anyhow::Result<()> {
        self.i32(i32::try_from(dims.len())?);
        self.i32(i32::try_from(name.len())?);
        self.i32(ftype);
        for &d in dims.iter().rev() {
            self.i32(i32::try_from(d)?);
        }
        self.bytes(name.as_bytes());
        self.bytes(data);
        Ok(())
    }

    fn f32(&mut self, name: &str, v: &Variable<'_>) -> anyhow::Result<()> {
        self.tensor(name, &v.dims, 0, &v.f32_bytes()?)
    }

    fn f16(&mut self, name: &str, v: &Variable<'_>) -> anyhow::Result<()> {
        self.tensor(name, &v.dims, 1, &v.f16_bytes()?)
    }

    /// A linear layer: f16 weight, f32 bias.
    fn linear(&mut self, to: &str, weight: &Variable<'_>, bias: Option<&Variable<'_>>) -> anyhow::Result<()> {
        self.f16(&format!("{to}.weight"), weight)?;
        match bias {
            Some(b) => self.f32(&format!("{to}.bias"), b),
            None => Ok(()),
        }
    }

    fn norm(&mut self, model: &Model<'_>, from: &str, to: &str) -> anyhow::Result<()> {
        self.f32(&format!("{to}.weight"), model.get(&format!("{from}/gamma"))?)?;
        self.f32(&format!("{to}.bias"), model.get(&format!("{from}/beta"))?)
    }

    /// `linear_0` is q|k|v fused; whisper.cpp's key projection has no bias (CTranslate2 stores zeros).
    fn self_attention(&mut self, model: &Model<'_>, from: &str, to: &str) -> anyhow::Result<()> {
        let at = format!("{from}/self_attention");
        self.norm(model, &format!("{at}/layer_norm"), &format!("{to}.attn_ln"))?;
        let (w, b) = linear_of(model, &format!("{at}/linear_0"))?;
        self.linear(&format!("{to}.attn.query"), &w.rows(3, 0)?, Some(&b.rows(3, 0)?))?;
        self.linear(&format!("{to}.attn.key"), &w.rows(3, 1)?, None)?;
        self.linear(&format!("{to}.attn.value"), &w.rows(3, 2)?, Some(&b.rows(3, 2)?))?;
        let (w, b) = linear_of(model, &format!("{at}/linear_1"))?;
        self.linear(&format!("{to}.attn.out"), w, Some(b))
    }

    /// `linear_0` is the query, `linear_1` k|v fused, `linear_2` the output.
    fn cross_attention(&mut self, model: &Model<'_>, from: &str, to: &str) -> anyhow::Result<()> {
        let at = format!("{from}/attention");
        self.norm(model, &format!("{at}/layer_norm"), &format!("{to}.cross_attn_ln"))?;
        let (w, b) = linear_of(model, &format!("{at}/linear_0"))?;
        self.linear(&format!("{to}.cross_attn.query"), w, Some(b))?;
        let (w, b) = linear_of(model, &format!("{at}/linear_1"))?;
        self.linear(&format!("{to}.cross_attn.key"), &w.rows(2, 0)?, None)?;
        self.linear(&format!("{to}.cross_attn.value"), &w.rows(2, 1)?, Some(&b.rows(2, 1)?))?;
        let (w, b) = linear_of(model, &format!("{at}/linear_2"))?;
        self.linear(&format!("{to}.cross_attn.out"), w, Some(b))
    }

    fn ffn(&mut self, model: &Model<'_>, from: &str, to: &str) -> anyhow::Result<()> {
        let at = format!("{from}/ffn");
        self.norm(model, &format!("{at}/layer_norm"), &format!("{to}.mlp_ln"))?;
        let (w, b) = linear_of(model, &format!("{at}/linear_0"))?;
        self.linear(&format!("{to}.mlp.0"), w, Some(b))?;
        let (w, b) = linear_of(model, &format!("{at}/linear_1"))?;
        self.linear(&format!("{to}.mlp.2"), w, Some(b))
    }
}

fn linear_of<'m, 'a>(model: &'m Model<'a>, at: &str) -> anyhow::Result<(&'m Variable<'a>, &'m Variable<'a>)> {
    Ok((model.get(&format!("{at}/weight"))?, model.get(&format!("{at}/bias"))?))
}

/// The text tokens (those before `<|endoftext|>`) as bytes: `vocabulary.txt` spells each byte as one
/// printable character (GPT-2's byte-to-unicode table), whisper.cpp wants the bytes themselves.
/// whisper.cpp names the special tokens after these itself.
fn byte_tokens(vocabulary_txt: &[u8]) -> anyhow::Result<Vec<Vec<u8>>> {
    let text = std::str::from_utf8(vocabulary_txt)?;
    let table = unicode_to_byte();
    let mut tokens = Vec::new();
    for line in text.split('\n') {
        if line == "<|endoftext|>" {
            return Ok(tokens);
        }
        let token = line
            .chars()
            .map(|c| table.get(c as usize).copied().flatten())
            .collect::<Option<Vec<u8>>>()
            .with_context(|| format!("token {} ({line:?}) is not byte-level", tokens.len()))?;
        tokens.push(token);
    }
    anyhow::bail!("no <|endoftext|> token")
}

/// The inverse of GPT-2's `bytes_to_unicode`: printable Latin-1 bytes stand for themselves, the other
/// 68 bytes are shifted, in order, to U+0100 onwards.
fn unicode_to_byte() -> Vec<Option<u8>> {
    let printable = |b: u8| matches!(b, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF);
    let mut table = vec![None; 256 + 68];
    let mut shifted = 256;
    for b in 0..=255u8 {
        if printable(b) {
            table[b as usize] = Some(b);
        } else {
            table[shifted] = Some(b);
            shifted += 1;
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_tokens_decode_gpt2_spellings_and_stop_at_end_of_text() {
        // Arrange: "Ġthe" is " the", "Ċ" is a newline, "Ã©" is é's two UTF-8 bytes.
        let vocabulary = "!\nĠthe\nĊ\nÃ©\n<|endoftext|>\n<|startoftranscript|>";
        // Act
        let tokens = byte_tokens(vocabulary.as_bytes()).unwrap();
        // Assert
        let expected: Vec<&[u8]> = vec![b"!", b" the", b"\n", "é".as_bytes()];
        assert_eq!(tokens, expected);
    }

    #[test]
    fn a_truncated_model_is_refused_with_a_reason() {
        let err = convert(&[6, 0, 0, 0, 3], b"<|endoftext|>").unwrap_err();
        assert!(format!("{err:#}").contains("truncated"), "{err:#}");
    }
}
