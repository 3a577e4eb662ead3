//! The imports of WIT 0.2.0, adapted to the host's one implementation (0.3.0): the interfaces are the same
//! functions over types of another name, so each adapter converts and calls the 0.3.0 code. 0.2.0's `vision`
//! lacks `read-text`, which only 0.3.0 components can call.

use crate::invoke::state::StoreState;
use crate::wit::latest::{asset_read, item_read, key_value, logging, media, outbound_http, speech, vision};
use crate::wit::v0_2::{asset_read as asset_read_v2, item_read as item_read_v2, key_value as key_value_v2};
use crate::wit::v0_2::{logging as logging_v2, media as media_v2, outbound_http as http_v2};
use crate::wit::v0_2::{speech as speech_v2, types as types_v2, vision as vision_v2};

impl types_v2::Host for StoreState {}

impl key_value_v2::Host for StoreState {
    async fn get(&mut self, key: String) -> wasmtime::Result<Option<Vec<u8>>> {
        key_value::Host::get(self, key).await
    }

    async fn set(&mut self, key: String, value: Vec<u8>) -> wasmtime::Result<Result<(), String>> {
        key_value::Host::set(self, key, value).await
    }

    async fn delete(&mut self, key: String) -> wasmtime::Result<()> {
        key_value::Host::delete(self, key).await
    }

    async fn list_keys(
        &mut self,
        prefix: String,
        start_after: Option<String>,
        limit: u32,
    ) -> wasmtime::Result<Vec<String>> {
        key_value::Host::list_keys(self, prefix, start_after, limit).await
    }

    async fn compare_and_swap(
        &mut self,
        key: String,
        expected: Option<Vec<u8>>,
        new: Option<Vec<u8>>,
    ) -> wasmtime::Result<Result<bool, String>> {
        key_value::Host::compare_and_swap(self, key, expected, new).await
    }

    async fn increment(&mut self, key: String, delta: i64) -> wasmtime::Result<Result<i64, String>> {
        key_value::Host::increment(self, key, delta).await
    }
}

impl item_read_v2::Host for StoreState {
    async fn current_item(&mut self) -> wasmtime::Result<Option<String>> {
        item_read::Host::current_item(self).await
    }
}

impl logging_v2::Host for StoreState {
    async fn log(&mut self, level: logging_v2::Level, message: String) -> wasmtime::Result<()> {
        let level = match level {
            logging_v2::Level::Trace => logging::Level::Trace,
            logging_v2::Level::Debug => logging::Level::Debug,
            logging_v2::Level::Info => logging::Level::Info,
            logging_v2::Level::Warn => logging::Level::Warn,
            logging_v2::Level::Error => logging::Level::Error,
        };
        logging::Host::log(self, level, message).await
    }
}

impl http_v2::Host for StoreState {
    async fn fetch(
        &mut self,
        request: http_v2::OutgoingRequest,
    ) -> wasmtime::Result<Result<http_v2::IncomingResponse, String>> {
        let request = outbound_http::OutgoingRequest {
            method: request.method,
            url: request.url,
            headers: request.headers,
            body: request.body,
        };
        let response = outbound_http::Host::fetch(self, request).await?;
        Ok(response.map(|r| http_v2::IncomingResponse { status: r.status, headers: r.headers, body: r.body }))
    }
}

impl asset_read_v2::Host for StoreState {
    async fn size(&mut self) -> wasmtime::Result<u64> {
        asset_read::Host::size(self).await
    }

    async fn read(&mut self, offset: u64, length: u32) -> wasmtime::Result<Vec<u8>> {
        asset_read::Host::read(self, offset, length).await
    }
}

impl media_v2::Host for StoreState {
    async fn probe(&mut self) -> wasmtime::Result<Result<media_v2::MediaInfo, String>> {
        let info = media::Host::probe(self).await?;
        Ok(info.map(|i| media_v2::MediaInfo {
            kind: match i.kind {
                media::MediaKind::Image => media_v2::MediaKind::Image,
                media::MediaKind::Audio => media_v2::MediaKind::Audio,
                media::MediaKind::Video => media_v2::MediaKind::Video,
                media::MediaKind::Other => media_v2::MediaKind::Other,
            },
            width: i.width,
            height: i.height,
            duration_ms: i.duration_ms,
            has_sound: i.has_sound,
        }))
    }

    async fn frames(&mut self, count: u32) -> wasmtime::Result<Result<u32, String>> {
        media::Host::frames(self, count).await
    }
}

impl vision_v2::Host for StoreState {
    async fn classify(&mut self, frame: u32, limit: u32) -> wasmtime::Result<Result<vision_v2::Labels, String>> {
        let found = vision::Host::classify(self, frame, limit).await?;
        Ok(found.map(|found| vision_v2::Labels {
            labels: found.labels.into_iter().map(|l| vision_v2::Label { name: l.name, score: l.score }).collect(),
            model: found.model,
        }))
    }

    async fn detect_faces(&mut self, frame: u32) -> wasmtime::Result<Result<vision_v2::Faces, String>> {
        let found = vision::Host::detect_faces(self, frame).await?;
        Ok(found.map(|found| vision_v2::Faces {
            faces: found
                .faces
                .into_iter()
                .map(|f| vision_v2::Face { x: f.x, y: f.y, width: f.width, height: f.height, score: f.score })
                .collect(),
            model: found.model,
        }))
    }

    async fn facts(&mut self, frame: u32) -> wasmtime::Result<Result<vision_v2::PictureFacts, String>> {
        let found = vision::Host::facts(self, frame).await?;
        Ok(found.map(|f| vision_v2::PictureFacts {
            width: f.width,
            height: f.height,
            orientation: f.orientation,
            colours: f.colours.into_iter().map(|c| vision_v2::Colour { name: c.name, share: c.share }).collect(),
            brightness: f.brightness,
        }))
    }
}

impl speech_v2::Host for StoreState {
    async fn transcribe(&mut self) -> wasmtime::Result<Result<speech_v2::Transcript, String>> {
        let found = speech::Host::transcribe(self).await?;
        Ok(found.map(|t| speech_v2::Transcript {
            segments: t
                .segments
                .into_iter()
                .map(|s| speech_v2::Segment { start_ms: s.start_ms, end_ms: s.end_ms, text: s.text })
                .collect(),
            model: t.model,
        }))
    }
}
