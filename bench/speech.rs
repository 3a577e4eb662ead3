//! Speech transcription speed: one minute of speech (espeak-ng reading a text) through Whisper tiny.en.
//!
//! `cargo bench -p trellis-inference --bench speech` (needs the models installed, see scripts/setup, and
//! espeak-ng). Prints the time and CPU time once for 1 and 2 threads, then criterion's figures for 2
//! threads (`SPEECH_BENCH_ONLY=once` stops after the first part). The target is under 10 s per minute of
//! speech on 2 cores. ggml's threads spin while they wait for each other, so on a busy machine 2 threads
//! can take far longer than 1.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::Criterion;
use trellis_inference::media;
use trellis_inference::speech::{SAMPLE_RATE, Speech, word_accuracy};

/// About a minute of plain English at espeak-ng's default rate.
const TEXT: &str = "The village lies at the foot of a long green hill, where the river bends towards the sea. \
    Every morning the baker opens his shop before the sun is up, and the smell of warm bread drifts along \
    the main street. Children walk past on their way to school, carrying books and small bags of fruit. \
    At the market square, farmers set out tables of apples, potatoes, onions and fresh eggs. \
    An old man sits on a bench by the fountain and feeds the pigeons with crumbs from his pocket. \
    In the afternoon the wind picks up, and the fishing boats come back into the harbour one by one. \
    The fishermen unload their catch and talk about the weather, the price of fuel and the football match \
    on Saturday. When evening comes, lights appear in the windows, and families sit down together for \
    supper. Somewhere a dog barks, a door closes, and the village slowly falls asleep under a clear sky \
    full of stars.";

fn minute_of_speech() -> Vec<f32> {
    let dir = tempfile::tempdir().expect("temp dir");
    let wav = dir.path().join("minute.wav");
    let status = Command::new("espeak-ng").arg("-w").arg(&wav).arg(TEXT).status().expect("espeak-ng is needed");
    assert!(status.success());
    let bounds = media::DecodeBounds::new(Duration::from_secs(60));
    let info = media::probe(&wav, "audio/wav", &bounds).expect("probe");
    media::sound(&wav, &info, 120, &bounds).expect("sound")
}

fn models_dir() -> PathBuf {
    std::env::var_os("TRELLIS_MODELS_DIR").map_or_else(
        || PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cache/trellis/models"),
        PathBuf::from,
    )
}

/// User and system CPU seconds of this process so far (Linux `/proc/self/stat`, 100 ticks a second).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after_name = stat.rsplit(") ").next().unwrap_or_default();
    let fields: Vec<&str> = after_name.split(' ').collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    (ticks(11) + ticks(12)) / 100.0
}

fn main() {
    let speech = Speech::load(&models_dir()).expect("models installed (scripts/setup)");
    let samples = minute_of_speech();
    let seconds = samples.len() as f64 / f64::from(SAMPLE_RATE);
    for threads in [1, 2] {
        let (started, cpu) = (Instant::now(), cpu_seconds());
        let segments = speech.transcribe(&samples, threads).expect("transcribe");
        let (took, cpu) = (started.elapsed().as_secs_f64(), cpu_seconds() - cpu);
        let text: Vec<&str> = segments.iter().map(|s| s.text.as_str()).collect();
        println!(
            "{seconds:.1} s of speech in {took:.2} s ({cpu:.2} s CPU) with {threads} thread(s): {:.2} s per minute, \
             word accuracy {:.3}",
            took * 60.0 / seconds,
            word_accuracy(TEXT, &text.join(" "))
        );
    }
    if std::env::var("SPEECH_BENCH_ONLY").is_ok_and(|v| v == "once") {
        return;
    }
    let mut c = Criterion::default().sample_size(10).measurement_time(Duration::from_secs(30)).configure_from_args();
    c.bench_function("transcribe one minute of speech, 2 threads", |b| {
        b.iter(|| speech.transcribe(&samples, 2).expect("transcribe"))
    });
    c.final_summary();
}
