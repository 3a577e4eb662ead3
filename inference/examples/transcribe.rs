//! Transcribes a sound file with the installed model and prints the transcript, the time it took and,
//! given a reference text, the word accuracy. Used by `bench/speech-accuracy.sh`.
//!
//! `cargo run --release -p trellis-inference --example transcribe -- FILE [REFERENCE.txt] [THREADS]`

use std::path::PathBuf;
use std::time::{Duration, Instant};

use trellis_inference::{media, speech};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let file =
        PathBuf::from(args.first().ok_or_else(|| anyhow::anyhow!("usage: transcribe FILE [REFERENCE] [THREADS]"))?);
    let reference = args.get(1).filter(|r| !r.is_empty()).map(std::fs::read_to_string).transpose()?;
    let threads: u32 = args.get(2).map_or(Ok(2), |t| t.parse())?;
    let home = PathBuf::from(std::env::var_os("HOME").unwrap_or_else(|| ".".into()));
    let models =
        std::env::var_os("TRELLIS_MODELS_DIR").map_or_else(|| home.join(".cache/trellis/models"), PathBuf::from);

    let timeout = Duration::from_secs(120);
    let info = media::probe(&file, "", &media::DecodeBounds::new(timeout))?;
    let samples = media::sound(&file, &info, speech::MAX_SECONDS, &media::DecodeBounds::new(timeout))?;
    let model = speech::Speech::load(&models)?;
    let started = Instant::now();
    let segments = model.transcribe(&samples, threads)?;
    let took = started.elapsed().as_secs_f64();
    let transcript: Vec<&str> = segments.iter().map(|s| s.text.as_str()).collect();
    let transcript = transcript.join(" ");
    let seconds = samples.len() as f64 / f64::from(speech::SAMPLE_RATE);
    println!("transcript: {transcript}");
    println!("audio_seconds: {seconds:.1}");
    println!("transcribe_seconds: {took:.2} ({threads} threads)");
    if let Some(reference) = reference {
        println!("word_accuracy: {:.3}", speech::word_accuracy(&reference, &transcript));
        println!("reference_words: {}", reference.split_whitespace().count());
    }
    Ok(())
}
