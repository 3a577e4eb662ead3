//! What the background analysis of an asset shows: the steps' findings composed into tags, a
//! description, a transcript and the printed text of its pictures, each traceable to the step and model
//! that produced it.

use serde::{Deserialize, Serialize};

/// Longest `error` kept, in bytes (a step's message is its own words; the rest is cut).
pub const MAX_ERROR_BYTES: usize = 2_048;

/// A tag, sentence or transcript and the model it came from, when a model gave it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub text: String,
    pub model: Option<String>,
}

/// How one step went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum StepState {
    Succeeded,
    Failed,
}

/// What one step found, or why it failed: the provenance of the composed result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StepOutcome {
    /// The analysis-step module's id.
    pub module: String,
    /// Its version.
    pub version: String,
    pub state: StepState,
    pub tags: Vec<Finding>,
    pub sentences: Vec<Finding>,
    pub transcript: Option<Finding>,
    /// The printed text the step read (lines joined by `\n`). Absent from records stored before it existed.
    #[serde(default)]
    pub text: Option<Finding>,
    pub error: Option<String>,
    /// Wall-clock milliseconds the step took.
    pub millis: u64,
}

impl StepOutcome {
    /// A step that failed with `error` and found nothing.
    pub fn failed(module: &str, version: &str, error: String, millis: u64) -> Self {
        Self {
            module: module.to_owned(),
            version: version.to_owned(),
            state: StepState::Failed,
            tags: Vec::new(),
            sentences: Vec::new(),
            transcript: None,
            text: None,
            error: Some(error),
            millis,
        }
    }
}

/// The composed result, stored as JSON on the asset and shown as its `analysis` (beside the state).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnalysisRecord {
    pub tags: Vec<String>,
    pub description: Option<String>,
    pub transcript: Option<String>,
    /// Absent from records stored before it existed.
    #[serde(default)]
    pub text: Option<String>,
    pub error: Option<String>,
    pub steps: Vec<StepOutcome>,
}

impl AnalysisRecord {
    /// An analysis that failed before any step could run (unreadable bytes, no steps configured).
    pub fn failed(error: impl Into<String>) -> Self {
        Self { error: Some(cut(error.into())), ..Self::default() }
    }

    /// Whether the analysis as a whole failed: a step failed, or nothing ran.
    pub fn is_failure(&self) -> bool {
        self.error.is_some()
    }
}

/// Composes the steps' findings in step order: tags once each (case-insensitively, first spelling
/// kept), the description as the steps' sentences in order, the first transcript, the first text. Any failed step
/// makes the whole analysis FAILED, its `error` naming each failed step; what the others found is kept.
pub fn compose(steps: Vec<StepOutcome>) -> AnalysisRecord {
    let mut tags: Vec<String> = Vec::new();
    let mut sentences: Vec<&str> = Vec::new();
    let mut transcript = None;
    let mut text = None;
    let mut errors = Vec::new();
    for step in &steps {
        for tag in &step.tags {
            let text = tag.text.trim();
            if !text.is_empty() && !tags.iter().any(|seen| seen.eq_ignore_ascii_case(text)) {
                tags.push(text.to_owned());
            }
        }
        sentences.extend(step.sentences.iter().map(|s| s.text.trim()).filter(|s| !s.is_empty()));
        if transcript.is_none() {
            transcript = step.transcript.as_ref().map(|t| t.text.trim().to_owned()).filter(|t| !t.is_empty());
        }
        if text.is_none() {
            text = step.text.as_ref().map(|t| t.text.trim().to_owned()).filter(|t| !t.is_empty());
        }
        if let Some(error) = &step.error {
            errors.push(format!("step {}: {error}", step.module));
        }
    }
    let error = match (steps.is_empty(), errors.is_empty()) {
        (true, _) => Some("no analysis step is configured for this asset".to_owned()),
        (false, true) => None,
        (false, false) => Some(cut(errors.join("; "))),
    };
    let description = (!sentences.is_empty()).then(|| sentences.join(" "));
    AnalysisRecord { tags, description, transcript, text, error, steps }
}

/// `text` cut to [`MAX_ERROR_BYTES`] on a character boundary.
fn cut(mut text: String) -> String {
    if text.len() > MAX_ERROR_BYTES {
        let mut end = MAX_ERROR_BYTES;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(text: &str, model: Option<&str>) -> Finding {
        Finding { text: text.into(), model: model.map(Into::into) }
    }

    fn step(module: &str, tags: &[&str], sentences: &[&str], transcript: Option<&str>) -> StepOutcome {
        StepOutcome {
            module: module.into(),
            version: "1.0.0".into(),
            state: StepState::Succeeded,
            tags: tags.iter().map(|t| finding(t, Some("m"))).collect(),
            sentences: sentences.iter().map(|s| finding(s, None)).collect(),
            transcript: transcript.map(|t| finding(t, Some("w"))),
            text: None,
            error: None,
            millis: 1,
        }
    }

    #[test]
    fn findings_compose_in_step_order_with_tags_once() {
        let record = compose(vec![
            step("a", &["Kite", "bald eagle"], &["It shows a kite."], None),
            step("b", &["kite", "bird"], &["It is bright."], Some(" hello ")),
        ]);

        assert_eq!(record.tags, ["Kite", "bald eagle", "bird"]);
        assert_eq!(record.description.as_deref(), Some("It shows a kite. It is bright."));
        assert_eq!(record.transcript.as_deref(), Some("hello"));
        assert_eq!(record.error, None);
        assert_eq!(record.steps.len(), 2);
    }

    #[test]
    fn a_failed_step_fails_the_analysis_and_keeps_the_rest() {
        let record = compose(vec![
            step("a", &["kite"], &[], None),
            StepOutcome::failed("b", "0.1.0", "models not installed".into(), 3),
        ]);

        assert!(record.is_failure());
        assert_eq!(record.error.as_deref(), Some("step b: models not installed"));
        assert_eq!(record.tags, ["kite"]);
        assert_eq!(record.description, None);
    }

    #[test]
    fn the_first_step_with_text_gives_the_text_and_a_record_from_before_text_reads_as_none() {
        let read = |t: &str| StepOutcome {
            text: Some(finding(t, Some("tesseract 5.3.0 (eng)"))),
            ..step("a", &[], &[], None)
        };
        let record = compose(vec![step("x", &[], &[], None), read(" EXIT\nPlatform 2 "), read("later")]);
        assert_eq!(record.text.as_deref(), Some("EXIT\nPlatform 2"));

        let old = r#"{"tags":[],"description":null,"transcript":null,"error":null,"steps":[{"module":"a","version":"1",
            "state":"SUCCEEDED","tags":[],"sentences":[],"transcript":null,"error":null,"millis":1}]}"#;
        let record: AnalysisRecord = serde_json::from_str(old).unwrap();
        assert_eq!((record.text, record.steps[0].text.clone()), (None, None));
    }

    #[test]
    fn no_steps_is_a_failure_with_a_reason() {
        assert!(compose(Vec::new()).error.unwrap().contains("no analysis step"));
    }

    #[test]
    fn long_errors_are_cut_on_a_character_boundary() {
        let record = AnalysisRecord::failed("é".repeat(MAX_ERROR_BYTES));
        let error = record.error.unwrap();

        assert!(error.len() <= MAX_ERROR_BYTES + '…'.len_utf8());
        assert!(error.ends_with('…'));
    }

    #[test]
    fn the_record_round_trips_as_camel_case_json() {
        let record = compose(vec![step("a", &["kite"], &["S."], None)]);
        let json = serde_json::to_value(&record).unwrap();

        assert_eq!(json["steps"][0]["state"], "SUCCEEDED");
        assert_eq!(json["steps"][0]["tags"][0]["model"], "m");
        assert_eq!(serde_json::from_value::<AnalysisRecord>(json).unwrap(), record);
    }
}
