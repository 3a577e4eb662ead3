//! English transcription with Whisper tiny.en through whisper.cpp.
