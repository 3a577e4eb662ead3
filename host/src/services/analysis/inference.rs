//! The host's inference capabilities for analysis steps: the models of `trellis-inference`, loaded
//! once on first use, run on the low-priority [`InferencePool`] with a time bound per call; its OCR
//! program runs from a second low-priority thread of its own, so reading a picture's text (a child
//! process) overlaps with the models. [`AssetMedia`] serves one asset's analysis through the module host's
//! `MediaAnalysis`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::{Mutex, OnceCell};
use trellis_inference::speech::Speech;
use trellis_inference::vision::{self, ObjectDetector, RgbImage, Vision};
use trellis_inference::{InferenceError, MediaKind, media};
use trellis_modules as modules;

use super::pool::{InferencePool, PoolError};
use crate::config::analysis::{AnalysisConfig, ToolSandbox};

/// Bounds on what one call may spend.
#[derive(Debug, Clone)]
pub struct InferenceLimits {
    pub max_pixels: u64,
    pub frame_side: u32,
    pub max_frames: u32,
    pub max_sound_seconds: u32,
    pub speech_threads: u32,
    pub decode_timeout: Duration,
    /// What each ffmpeg or ffprobe run may spend (its timeout is `decode_timeout`).
    pub decode: media::DecodeBounds,
    pub vision_timeout: Duration,
    pub speech_timeout: Duration,
}

impl InferenceLimits {
    pub fn from_config(config: &AnalysisConfig) -> Self {
        Self {
            max_pixels: config.max_pixels,
            frame_side: config.frame_side.max(64),
            max_frames: config.max_frames.clamp(1, 64),
            max_sound_seconds: config.max_sound_seconds.max(1),
            speech_threads: config.speech_threads.max(1),
            decode_timeout: Duration::from_millis(config.decode_timeout_ms),
            decode: media::DecodeBounds {
                timeout: Duration::from_millis(config.decode_timeout_ms),
                memory_bytes: config.tool_memory_bytes,
                max_pixels: config.max_pixels,
                sandbox: match config.tool_sandbox {
                    ToolSandbox::Auto => media::Sandbox::Auto,
                    ToolSandbox::Required => media::Sandbox::Required,
                    ToolSandbox::Off => media::Sandbox::Off,
                },
            },
            vision_timeout: Duration::from_millis(config.vision_timeout_ms),
            speech_timeout: Duration::from_millis(config.speech_timeout_ms),
        }
    }
}

/// The models and the threads they run on; one per server.
pub struct Inference {
    pool: InferencePool,
    /// Where the OCR program is started from (one thread, nice 19 like the pool's, which it inherits).
    tools: InferencePool,
    models_dir: PathBuf,
    limits: InferenceLimits,
    vision: Mutex<Option<Arc<Vision>>>,
    objects: Mutex<Option<Arc<ObjectDetector>>>,
    speech: Mutex<Option<Arc<Speech>>>,
}

impl Inference {
    pub fn new(models_dir: PathBuf, threads: usize, limits: InferenceLimits) -> Self {
        Self {
            pool: InferencePool::new(threads),
            tools: InferencePool::named("analysis-tools", 1),
            models_dir,
            limits,
            vision: Mutex::new(None),
            objects: Mutex::new(None),
            speech: Mutex::new(None),
        }
    }

    /// The label model, loaded on first use. A failed load is not kept, so installing the models
    /// makes the next analysis work without a restart.
    async fn vision(&self) -> Result<Arc<Vision>, String> {
        let mut slot = self.vision.lock().await;
        if let Some(vision) = slot.as_ref() {
            return Ok(vision.clone());
        }
        let dir = self.models_dir.clone();
        let loaded = self.run(self.limits.decode_timeout, move || Vision::load(&dir)).await?;
        let vision = Arc::new(loaded);
        *slot = Some(vision.clone());
        Ok(vision)
    }

    /// The object detector, loaded on first use (like [`Self::vision`]).
    async fn objects(&self) -> Result<Arc<ObjectDetector>, String> {
        let mut slot = self.objects.lock().await;
        if let Some(objects) = slot.as_ref() {
            return Ok(objects.clone());
        }
        let dir = self.models_dir.clone();
        let loaded = Arc::new(self.run(self.limits.decode_timeout, move || ObjectDetector::load(&dir)).await?);
        *slot = Some(loaded.clone());
        Ok(loaded)
    }

    /// The speech model, loaded on first use (like [`Self::vision`]).
    async fn speech(&self) -> Result<Arc<Speech>, String> {
        let mut slot = self.speech.lock().await;
        if let Some(speech) = slot.as_ref() {
            return Ok(speech.clone());
        }
        let dir = self.models_dir.clone();
        let loaded = self.run(self.limits.decode_timeout, move || Speech::load(&dir)).await?;
        let speech = Arc::new(loaded);
        *slot = Some(speech.clone());
        Ok(speech)
    }

    /// Runs `work` on the pool within `timeout`; every failure becomes the message a step sees.
    async fn run<T: Send + 'static>(
        &self,
        timeout: Duration,
        work: impl FnOnce() -> Result<T, InferenceError> + Send + 'static,
    ) -> Result<T, String> {
        answer(self.pool.run(timeout, work).await)
    }

    /// The printed lines of `frames[index]`, read by the OCR program started from the tools thread.
    async fn read_text(&self, frames: Arc<Vec<RgbImage>>, index: usize) -> Result<Vec<String>, String> {
        let bounds = self.limits.decode.clone();
        let read = move || trellis_inference::text::read_text(&frames[index], &bounds);
        answer(self.tools.run(self.limits.decode_timeout, read).await)
    }
}

/// A pool's answer as a step sees it: every failure a message.
fn answer<T>(outcome: Result<Result<T, InferenceError>, PoolError>) -> Result<T, String> {
    match outcome {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(error.to_string()),
        Err(PoolError::TimedOut(ms)) => Err(format!("inference took longer than its bound of {ms} ms")),
        Err(error @ PoolError::Panicked(_)) => Err(error.to_string()),
    }
}

/// One asset's analysis: its bytes in a file, what it is, the frames decoded so far and their text.
pub struct AssetMedia {
    inference: Arc<Inference>,
    path: PathBuf,
    content_type: String,
    info: OnceCell<Result<trellis_inference::MediaInfo, String>>,
    frames: Mutex<Arc<Vec<RgbImage>>>,
    texts: Mutex<TextReads>,
}

/// The printed text of each decoded frame: read ahead, one frame after another, as soon as the frames
/// are decoded (the OCR program then works on the other core while a step asks the models), or when a
/// step first asks. A cell is filled once, by whichever comes first.
#[derive(Default)]
struct TextReads {
    cells: TextCells,
    /// Held for its drop, which stops it.
    _ahead: Option<ReadAhead>,
}

/// One cell per decoded frame: its lines, or why they could not be read.
type TextCells = Arc<Vec<OnceCell<Result<Vec<String>, String>>>>;

/// The task reading ahead, stopped when the analysis (or a new decoding) no longer needs it.
struct ReadAhead(tokio::task::JoinHandle<()>);

impl Drop for ReadAhead {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl AssetMedia {
    pub fn new(inference: Arc<Inference>, path: PathBuf, content_type: String) -> Self {
        Self {
            inference,
            path,
            content_type,
            info: OnceCell::new(),
            frames: Mutex::new(Arc::new(Vec::new())),
            texts: Mutex::new(TextReads::default()),
        }
    }

    /// Starts reading the text of `frames` ahead, when an OCR program is installed.
    async fn read_ahead(&self, frames: Arc<Vec<RgbImage>>) {
        let cells: TextCells = Arc::new(frames.iter().map(|_| OnceCell::new()).collect());
        let ahead = trellis_inference::text::model().is_some().then(|| {
            let (inference, cells) = (self.inference.clone(), cells.clone());
            ReadAhead(tokio::spawn(async move {
                for (index, cell) in cells.iter().enumerate() {
                    cell.get_or_init(|| inference.read_text(frames.clone(), index)).await;
                }
            }))
        });
        *self.texts.lock().await = TextReads { cells, _ahead: ahead };
    }

    async fn info(&self) -> Result<trellis_inference::MediaInfo, String> {
        self.info
            .get_or_init(|| async {
                let (path, content_type) = (self.path.clone(), self.content_type.clone());
                let limits = self.inference.limits.clone();
                self.inference
                    .run(limits.decode_timeout, move || media::probe(&path, &content_type, &limits.decode))
                    .await
            })
            .await
            .clone()
    }

    async fn frame(&self, frame: u32) -> Result<(Arc<Vec<RgbImage>>, usize), String> {
        let frames = self.frames.lock().await.clone();
        let index = frame as usize;
        if index >= frames.len() {
            return Err(match frames.len() {
                0 => "no frames are decoded: call media.frames first".to_owned(),
                n => format!("frame {frame} does not exist: there are {n}"),
            });
        }
        Ok((frames, index))
    }
}

#[async_trait]
impl modules::MediaAnalysis for AssetMedia {
    async fn probe(&self) -> Result<modules::MediaInfo, String> {
        // Inference and the module host share the analysis types (`trellis-analysis-types`).
        self.info().await
    }

    async fn frames(&self, count: u32) -> Result<u32, String> {
        let info = self.info().await?;
        let limits = self.inference.limits.clone();
        let count = count.clamp(1, limits.max_frames);
        let path = self.path.clone();
        let decoded = match info.kind {
            MediaKind::Image => {
                self.inference
                    .run(limits.decode_timeout, move || {
                        let bytes = std::fs::read(&path).map_err(|e| InferenceError::Unreadable(e.to_string()))?;
                        Ok(vec![vision::decode_image(&bytes, limits.max_pixels, limits.frame_side)?])
                    })
                    .await?
            }
            MediaKind::Video => {
                self.inference
                    .run(limits.decode_timeout, move || {
                        media::video_frames(&path, &info, count, limits.frame_side, &limits.decode)
                    })
                    .await?
            }
            MediaKind::Audio | MediaKind::Other => return Err("the asset has no pictures".to_owned()),
        };
        let n = u32::try_from(decoded.len()).unwrap_or(u32::MAX);
        let decoded = Arc::new(decoded);
        *self.frames.lock().await = decoded.clone();
        self.read_ahead(decoded).await;
        Ok(n)
    }

    async fn classify(&self, frame: u32, limit: u32) -> Result<modules::Labels, String> {
        let (frames, index) = self.frame(frame).await?;
        let vision = self.inference.vision().await?;
        let model = vision.label_model().to_owned();
        let labels = self
            .inference
            .run(self.inference.limits.vision_timeout, move || vision.classify(&frames[index], limit as usize))
            .await?;
        Ok(modules::Labels { labels, model })
    }

    async fn detect_faces(&self, frame: u32) -> Result<modules::Faces, String> {
        let (frames, index) = self.frame(frame).await?;
        let faces = self
            .inference
            .run(self.inference.limits.vision_timeout, move || Ok(vision::detect_faces(&frames[index])))
            .await?;
        Ok(modules::Faces { faces, model: vision::FACE_MODEL.to_owned() })
    }

    async fn detect_objects(&self, frame: u32) -> Result<modules::Objects, String> {
        let (frames, index) = self.frame(frame).await?;
        let detector = self.inference.objects().await?;
        let objects =
            self.inference.run(self.inference.limits.vision_timeout, move || detector.detect(&frames[index])).await?;
        Ok(modules::Objects { objects, model: vision::OBJECT_MODEL.to_owned() })
    }

    async fn facts(&self, frame: u32) -> Result<modules::PictureFacts, String> {
        let (frames, index) = self.frame(frame).await?;
        let facts =
            self.inference.run(self.inference.limits.vision_timeout, move || Ok(vision::facts(&frames[index]))).await?;
        Ok(facts)
    }

    async fn read_text(&self, frame: u32) -> Result<modules::Text, String> {
        let (frames, index) = self.frame(frame).await?;
        let cells = self.texts.lock().await.cells.clone();
        let lines = match cells.get(index) {
            Some(cell) => cell.get_or_init(|| self.inference.read_text(frames, index)).await.clone()?,
            // Decoded again since: read it now.
            None => self.inference.read_text(frames, index).await?,
        };
        let model = trellis_inference::text::model().unwrap_or("tesseract").to_owned();
        Ok(modules::Text { lines, model })
    }

    async fn transcribe(&self) -> Result<modules::Transcript, String> {
        let info = self.info().await?;
        if !info.has_sound {
            return Err("the asset has no sound".to_owned());
        }
        let speech = self.inference.speech().await?;
        let model = speech.model_name().to_owned();
        let limits = self.inference.limits.clone();
        let path = self.path.clone();
        let samples = self
            .inference
            .run(limits.decode_timeout, move || media::sound(&path, &info, limits.max_sound_seconds, &limits.decode))
            .await?;
        let threads = limits.speech_threads;
        let segments = self.inference.run(limits.speech_timeout, move || speech.transcribe(&samples, threads)).await?;
        Ok(modules::Transcript { segments, model })
    }
}
