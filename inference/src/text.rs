//! Printed English text in a picture, read by the `tesseract` program (Debian's `tesseract-ocr` with
//! `tesseract-ocr-eng`) when it is installed.
//!
//! Tesseract runs like ffmpeg (`media/process.rs`): no shell, the frame as PNG on its standard input and
//! its words on standard output, under the media tools' [`DecodeBounds`] (a deadline, an address-space and
//! CPU limit, no files written, an empty environment, bubblewrap where it runs) and on one thread.
//! It answers words with a confidence; [`lines`] keeps the confident words and their lines, so the
//! texture of a photo without writing does not come back as stray letters.

use std::ffi::OsString;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use image::RgbImage;
pub use trellis_analysis_types::{MAX_TEXT_BYTES, MAX_TEXT_LINES};

use crate::InferenceError;
use crate::media::process::{self, Confinement, RunError};
use crate::media::{DecodeBounds, Sandbox};

/// The program.
const PROGRAM: &str = "tesseract";
/// The language data read (Debian's `tesseract-ocr-eng`).
const LANGUAGE: &str = "eng";
/// Most bytes of tesseract's answer kept: a dense page is ~100 KB of TSV.
const OUTPUT_CAP: usize = 4 << 20;
/// What asking the program its version may spend.
const VERSION_TIMEOUT: Duration = Duration::from_secs(10);
/// Words read with less confidence (0..100) are dropped.
const MIN_WORD_CONFIDENCE: f32 = 60.0;
/// Lines whose kept words average less than this are dropped.
const MIN_LINE_CONFIDENCE: f32 = 75.0;
/// One thread: the analysis pool already runs one call per core.
const ENV: &[(&str, &str)] = &[("OMP_THREAD_LIMIT", "1")];

/// The engine and its language data, e.g. `tesseract 5.3.0 (eng)`, once it has been found to run with
/// English data; `None` (asked again next time, so installing it needs no restart) otherwise.
pub fn model() -> Option<&'static str> {
    static MODEL: OnceLock<String> = OnceLock::new();
    if let Some(model) = MODEL.get() {
        return Some(model);
    }
    let found = probe_model()?;
    Some(MODEL.get_or_init(|| found))
}

fn probe_model() -> Option<String> {
    let bounds = DecodeBounds::new(VERSION_TIMEOUT);
    let plain = confinement_of(&bounds, false);
    let ask = |arg: &str| {
        let deadline = Instant::now() + VERSION_TIMEOUT;
        process::run(PROGRAM, &[arg.into()], 1 << 16, deadline, &plain).ok().filter(|r| r.success)
    };
    // `--version` prints to stdout since 4.1; older builds printed to stderr.
    let version = ask("--version")?;
    let printed = if version.stdout.is_empty() { version.stderr.into_bytes() } else { version.stdout };
    let first = String::from_utf8_lossy(&printed).lines().next()?.trim().to_owned();
    let languages = ask("--list-langs")?;
    let has_language = String::from_utf8_lossy(&languages.stdout).lines().any(|l| l.trim() == LANGUAGE);
    (first.starts_with(PROGRAM) && has_language).then(|| format!("{first} ({LANGUAGE})"))
}

/// The lines of printed English text in `image`, top to bottom (none when it shows none), at most
/// [`MAX_TEXT_LINES`] lines and [`MAX_TEXT_BYTES`] bytes.
pub fn read_text(image: &RgbImage, bounds: &DecodeBounds) -> Result<Vec<String>, InferenceError> {
    if model().is_none() {
        return Err(InferenceError::MissingProgram {
            program: PROGRAM,
            why: "needed to read text in pictures (Debian: tesseract-ocr and tesseract-ocr-eng)".into(),
        });
    }
    let mut png = Vec::new();
    image
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .map_err(|e| InferenceError::Failed(format!("encoding the frame for tesseract: {e}")))?;
    // `stdin stdout`: no file on either side; `tsv` answers each word with its confidence.
    let args: Vec<OsString> =
        ["stdin", "stdout", "-l", LANGUAGE, "--psm", "3", "tsv"].into_iter().map(OsString::from).collect();
    let confinement = confinement(bounds)?;
    let deadline = Instant::now() + bounds.timeout;
    let ran =
        process::run_with_input(PROGRAM, &args, Some(png), OUTPUT_CAP, deadline, &confinement).map_err(
            |e| match e {
                RunError::NotFound => InferenceError::MissingProgram {
                    program: PROGRAM,
                    why: "needed to read text in pictures (run under prlimit, from util-linux)".into(),
                },
                RunError::TimedOut => {
                    InferenceError::Failed(format!("{PROGRAM} took longer than {} ms", bounds.timeout.as_millis()))
                }
                RunError::Io(e) => InferenceError::Failed(format!("{PROGRAM}: {e}")),
            },
        )?;
    if !ran.success {
        let said = ran.stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no message");
        return Err(InferenceError::Failed(format!("{PROGRAM} failed: {said}")));
    }
    Ok(lines(&String::from_utf8_lossy(&ran.stdout)))
}

fn confinement_of(bounds: &DecodeBounds, sandboxed: bool) -> Confinement<'static> {
    Confinement {
        memory_bytes: bounds.memory_bytes,
        cpu_seconds: bounds.timeout.as_secs() + 1,
        sandboxed,
        input: None,
        env: ENV,
    }
}

fn confinement(bounds: &DecodeBounds) -> Result<Confinement<'static>, InferenceError> {
    let sandboxed = Sandbox::decide(bounds.sandbox, sandbox_runs)?;
    Ok(confinement_of(bounds, sandboxed))
}

/// Whether tesseract runs inside bubblewrap on this machine (checked once per process).
fn sandbox_runs() -> bool {
    static RUNS: OnceLock<bool> = OnceLock::new();
    *RUNS.get_or_init(|| {
        let jail = confinement_of(&DecodeBounds::new(VERSION_TIMEOUT), true);
        let deadline = Instant::now() + VERSION_TIMEOUT;
        let runs = process::run(PROGRAM, &["--version".into()], 1 << 16, deadline, &jail).is_ok_and(|r| r.success);
        if !runs {
            tracing::warn!(
                "bubblewrap (bwrap) does not run here: tesseract runs without a sandbox, still under its memory and \
                 CPU limits and with an empty environment"
            );
        }
        runs
    })
}

/// The confident lines of tesseract's TSV answer, in its reading order, within the bounds.
///
/// TSV columns: level, page, block, paragraph, line, word, left, top, width, height, confidence, text;
/// words are level 5. A line is the words that share (page, block, paragraph, line).
pub fn lines(tsv: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut current: Option<([u32; 4], Vec<&str>, f32)> = None;
    let finish = |line: Option<([u32; 4], Vec<&str>, f32)>, lines: &mut Vec<String>| {
        let Some((_, words, confidence)) = line else { return };
        if words.is_empty() || confidence / (words.len() as f32) < MIN_LINE_CONFIDENCE {
            return;
        }
        let text = words.join(" ");
        // At least two letters or digits: a lone mark is noise, not writing.
        if text.chars().filter(|c| c.is_alphanumeric()).count() < 2 {
            return;
        }
        lines.push(text);
    };
    for row in tsv.lines().skip(1) {
        let cells: Vec<&str> = row.split('\t').collect();
        if cells.len() < 12 || cells[0] != "5" {
            continue;
        }
        let key = [1, 2, 3, 4].map(|i| cells[i].parse::<u32>().unwrap_or(0));
        let (Ok(confidence), word) = (cells[10].parse::<f32>(), cells[11].trim()) else { continue };
        if current.as_ref().is_none_or(|(k, _, _)| *k != key) {
            finish(current.take(), &mut lines);
            current = Some((key, Vec::new(), 0.0));
        }
        if !word.is_empty()
            && confidence >= MIN_WORD_CONFIDENCE
            && let Some((_, words, total)) = current.as_mut()
        {
            words.push(word);
            *total += confidence;
        }
    }
    finish(current.take(), &mut lines);
    bounded(lines)
}

/// At most [`MAX_TEXT_LINES`] lines and [`MAX_TEXT_BYTES`] bytes (with the `\n` between them), whole lines.
fn bounded(mut lines: Vec<String>) -> Vec<String> {
    lines.truncate(MAX_TEXT_LINES);
    let mut total = 0;
    let keep = lines
        .iter()
        .take_while(|line| {
            total += line.len() + 1;
            total <= MAX_TEXT_BYTES + 1
        })
        .count();
    lines.truncate(keep);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str =
        "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n";

    fn word(line: u32, confidence: f32, text: &str) -> String {
        format!("5\t1\t1\t1\t{line}\t1\t0\t0\t10\t10\t{confidence}\t{text}\n")
    }

    #[test]
    fn confident_words_make_lines_in_reading_order() {
        let tsv = [
            HEADER.to_owned(),
            "4\t1\t1\t1\t1\t0\t0\t0\t10\t10\t-1\t\n".to_owned(),
            word(1, 96.0, "Men"),
            word(1, 95.0, "may"),
            word(1, 20.0, "~"),
            word(2, 91.0, "stock-companies"),
            word(2, 93.0, "and"),
        ]
        .concat();

        assert_eq!(lines(&tsv), ["Men may", "stock-companies and"]);
    }

    #[test]
    fn unsure_lines_and_lone_marks_are_dropped() {
        let tsv =
            [HEADER.to_owned(), word(1, 61.0, "lI"), word(1, 62.0, "il"), word(2, 99.0, "|"), word(3, 97.0, "Exit")]
                .concat();

        assert_eq!(lines(&tsv), ["Exit"]);
    }

    #[test]
    fn text_is_cut_at_whole_lines_within_the_bounds() {
        let many = vec!["word".to_owned(); MAX_TEXT_LINES + 10];
        assert_eq!(bounded(many).len(), MAX_TEXT_LINES);

        let long = vec!["x".repeat(MAX_TEXT_BYTES / 2); 3];
        let kept = bounded(long);
        assert_eq!(kept.len(), 1);
    }

    #[test]
    fn garbage_is_not_text() {
        assert!(lines("").is_empty());
        assert!(lines("not\ta\ttsv").is_empty());
        assert!(lines(&format!("{HEADER}5\t1\t1\t1\t1\t1\t0\t0\t1\t1\tNaNx\tword\n")).is_empty());
    }
}
