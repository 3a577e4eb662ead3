//! Reading a `multipart/form-data` body part by part, streaming each file.

use axum::extract::Request;
use axum::http::header;
use futures::{StreamExt, TryStreamExt};

use crate::http::error::{ApiResult, Error};
use crate::infra::media::{Tripwire, limited};
use crate::services::uploads::{Part, PartSource};

/// Text parts are ids; anything longer is not one.
const MAX_TEXT_PART: usize = 1024;
/// Most bytes read while looking for the next part: the rest of the previous part's last chunk,
/// the boundary and the part's header block. The parser searches its whole buffer for the end of
/// the headers on every read, so an endless header block would cost quadratic time.
const MAX_PART_HEADER_BYTES: u64 = 1024 * 1024;

pub struct MultipartSource {
    multipart: multer::Multipart<'static>,
    tripwire: Tripwire,
    /// What the client announced, to refuse early what cannot fit.
    content_length: Option<u64>,
}

impl MultipartSource {
    /// Checks the content type and caps the whole body at `request_limit` bytes.
    pub fn from_request(request: Request, request_limit: u64) -> ApiResult<Self> {
        let content_type = request.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
        let boundary = multer::parse_boundary(content_type)
            .map_err(|_| Error::UnsupportedMediaType("the body must be multipart/form-data with a boundary".into()))?;
        let content_length =
            request.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse().ok());
        let body = request.into_body().into_data_stream().map_err(std::io::Error::other);
        let (body, tripwire) = limited(Box::pin(body), request_limit);
        let source = Self { multipart: multer::Multipart::new(body, boundary), tripwire, content_length };
        source.refuse_announced_excess()?;
        Ok(source)
    }

    fn too_large(&self) -> Error {
        Error::PayloadTooLarge(format!("the request is larger than {} bytes", self.tripwire.limit()).into())
    }

    fn refuse_announced_excess(&self) -> ApiResult<()> {
        match self.content_length {
            Some(length) if length > self.tripwire.limit() => Err(self.too_large()),
            _ => Ok(()),
        }
    }

    fn failure(&self, error: Option<multer::Error>) -> Error {
        if self.tripwire.tripped() {
            return self.too_large();
        }
        if self.tripwire.window_tripped() {
            return Error::invalid(
                "",
                "PART_HEADERS_TOO_LARGE",
                format!("a part's headers are longer than {MAX_PART_HEADER_BYTES} bytes"),
            );
        }
        let message = error.map_or_else(|| "the body was cut off".to_owned(), |e| e.to_string());
        Error::invalid("", "MALFORMED_MULTIPART", format!("the multipart body is malformed: {message}"))
    }
}

#[async_trait::async_trait]
impl PartSource for MultipartSource {
    async fn next_part(&mut self) -> ApiResult<Option<Part>> {
        self.tripwire.open_window(MAX_PART_HEADER_BYTES);
        let next = self.multipart.next_field().await;
        self.tripwire.close_window();
        let field = match next {
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

    fn limit_to(&mut self, bytes: u64) -> ApiResult<()> {
        self.tripwire.tighten(bytes);
        self.refuse_announced_excess()
    }
}
