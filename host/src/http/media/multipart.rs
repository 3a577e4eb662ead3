//! Reading a `multipart/form-data` body part by part, streaming each file.

use axum::extract::Request;
use axum::http::header;
use futures::{StreamExt, TryStreamExt};

use crate::http::error::{ApiResult, Error};
use crate::media::{Tripwire, limited};
use crate::services::attachments::{Part, PartSource};

/// Text parts are ids; anything longer is not one.
const MAX_TEXT_PART: usize = 1024;

pub struct MultipartSource {
    multipart: multer::Multipart<'static>,
    request_limit: u64,
    tripwire: Tripwire,
}

impl MultipartSource {
    /// Checks the content type and caps the whole body at `request_limit` bytes.
    pub fn from_request(request: Request, request_limit: u64) -> ApiResult<Self> {
        let content_type = request.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
        let boundary = multer::parse_boundary(content_type)
            .map_err(|_| Error::UnsupportedMediaType("the body must be multipart/form-data with a boundary".into()))?;
        let body = request.into_body().into_data_stream().map_err(std::io::Error::other);
        let (body, tripwire) = limited(Box::pin(body), request_limit);
        Ok(Self { multipart: multer::Multipart::new(body, boundary), request_limit, tripwire })
    }

    fn failure(&self, error: Option<multer::Error>) -> Error {
        if self.tripwire.tripped() {
            return Error::PayloadTooLarge(format!("the request is larger than {} bytes", self.request_limit).into());
        }
        let message = error.map_or_else(|| "the body was cut off".to_owned(), |e| e.to_string());
        Error::invalid("", "MALFORMED_MULTIPART", format!("the multipart body is malformed: {message}"))
    }
}

#[async_trait::async_trait]
impl PartSource for MultipartSource {
    async fn next_part(&mut self) -> ApiResult<Option<Part>> {
        let field = match self.multipart.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => return Ok(None),
            Err(error) => return Err(self.failure(Some(error))),
        };
        let name = field.name().unwrap_or_default().to_owned();
        if let Some(filename) = field.file_name() {
            let filename = filename.to_owned();
            let content_type = field.content_type().map(ToString::to_string);
            let body = Box::pin(field.map(|chunk| chunk.map_err(std::io::Error::other)));
            return Ok(Some(Part::File { name, filename, content_type, body }));
        }
        let mut value = Vec::new();
        let mut field = field;
        while let Some(chunk) = field.next().await {
            let chunk = chunk.map_err(|e| self.failure(Some(e)))?;
            if value.len() + chunk.len() > MAX_TEXT_PART {
                return Err(Error::invalid(format!("/{name}"), "TOO_LONG", "a text part holds one id"));
            }
            value.extend_from_slice(&chunk);
        }
        let value = String::from_utf8(value)
            .map_err(|_| Error::invalid(format!("/{name}"), "INVALID_TYPE", "must be UTF-8 text"))?;
        Ok(Some(Part::Text { name, value: value.trim().to_owned() }))
    }

    fn stream_failure(&self) -> Error {
        self.failure(None)
    }
}
