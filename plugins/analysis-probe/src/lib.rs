//! An analysis step for the host's tests (`analysis-probe`), written as a third party would write a domain
//! tagger: it tags an asset with the configured words its file name contains. The deployment's
//! configuration makes it misbehave or report: `{"fail": "..."}` fails with that message, `{"trap": true}`
//! panics, `{"spin": true}` computes until the deadline, and `{"measure": true}` asks every inference
//! capability for more than the host hands out and reports, as sentences, how much it got.

use std::hint::black_box;

use serde::Deserialize;
use serde_json::json;
use trellis_plugin_sdk::analysis::{AnalysisResult, AnalysisStep, AssetInfo, Finding};
use trellis_plugin_sdk::{Context, Error, Manifest, Permission, Result, media, speech, vision};

/// The module.
pub struct AnalysisProbe;

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Config {
    words: Vec<String>,
    fail: Option<String>,
    trap: bool,
    spin: bool,
    measure: bool,
}

impl AnalysisStep for AnalysisProbe {
    fn manifest() -> Manifest {
        Manifest::new("analysis-probe", "Analysis probe", env!("CARGO_PKG_VERSION"))
            .description("Test step: tags words found in file names; fails, traps, spins or measures on demand")
            .config_schema(json!({
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "words": {"type": "array", "items": {"type": "string", "minLength": 1}, "maxItems": 64},
                    "fail": {"type": "string"},
                    "trap": {"type": "boolean"},
                    "spin": {"type": "boolean"},
                    "measure": {"type": "boolean"}
                }
            }))
            .permission(Permission::MediaDecode)
            .permission(Permission::Vision)
            .permission(Permission::Speech)
    }

    fn analyze(ctx: &Context, asset: &AssetInfo) -> Result<AnalysisResult> {
        let config: Config = ctx.config()?;
        if let Some(message) = config.fail {
            return Err(Error::new(message));
        }
        if config.trap {
            panic!("analysis-probe traps as configured");
        }
        if config.spin {
            spin();
        }
        if config.measure {
            return measure();
        }
        let name = asset.filename.to_lowercase();
        let tags = config.words.iter().filter(|w| name.contains(&w.to_lowercase())).map(Finding::new).collect();
        Ok(AnalysisResult { tags, ..Default::default() })
    }
}

trellis_plugin_sdk::export_analysis_step!(AnalysisProbe);

/// Asks for more than the host gives and says how much came back.
fn measure() -> Result<AnalysisResult> {
    let frames = media::frames(u32::MAX)?;
    let labels = vision::classify(0, u32::MAX)?;
    let faces = vision::detect_faces(0)?;
    let transcript = speech::transcribe()?;
    let text_bytes: usize = transcript.segments.iter().map(|s| s.text.len()).sum();
    let printed = vision::read_text(0)?;
    let printed_bytes: usize = printed.lines.iter().map(|l| l.len() + 1).sum::<usize>().saturating_sub(1);
    let sentences = [
        format!("frames {frames}."),
        format!("labels {}.", labels.labels.len()),
        format!("faces {}.", faces.faces.len()),
        format!("segments {}.", transcript.segments.len()),
        format!("transcript bytes {text_bytes}."),
        format!("model bytes {}.", labels.model.len()),
        format!("text lines {}.", printed.lines.len()),
        format!("text bytes {printed_bytes}."),
    ];
    Ok(AnalysisResult { sentences: sentences.into_iter().map(Finding::new).collect(), ..Default::default() })
}

/// Never returns; `black_box` keeps the optimiser from proving the loop has no effect.
fn spin() -> ! {
    let mut counter = 0u64;
    loop {
        counter = black_box(counter.wrapping_add(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asset(filename: &str) -> AssetInfo {
        AssetInfo { filename: filename.into(), ..Default::default() }
    }

    #[test]
    fn tags_the_configured_words_found_in_the_file_name() {
        let ctx = Context::with_config("", &json!({"words": ["Invoice", "receipt", "contract"]}));

        let result = AnalysisProbe::analyze(&ctx, &asset("2026-invoice-and-RECEIPT.pdf")).unwrap();

        assert_eq!(result.tag_texts(), ["Invoice", "receipt"]);
        AnalysisProbe::manifest().check().unwrap();
    }

    #[test]
    fn fails_with_the_configured_message() {
        let ctx = Context::with_config("", &json!({"fail": "the tagger is unhappy"}));
        assert_eq!(AnalysisProbe::analyze(&ctx, &asset("a")).unwrap_err().to_string(), "the tagger is unhappy");
    }
}
