//! Answering a download: conditional requests, single byte ranges and safe headers.

use std::future::Future;
use std::ops::Range;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::http::error::{ApiResult, Error};
use crate::infra::media::Object;

/// What the response says about the stored bytes.
pub struct Download<'a> {
    pub content_type: &'a str,
    pub length: u64,
    /// Objects never change under a key, so the key makes a strong tag.
    pub etag: String,
    /// Sent in `Content-Disposition` when given.
    pub filename: Option<&'a str>,
}

/// What a `Range` header asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Wanted {
    All,
    Part(Range<u64>),
    Unsatisfiable,
}

impl Download<'_> {
    pub async fn respond<F, Fut>(&self, headers: &HeaderMap, open: F) -> ApiResult<Response>
    where
        F: FnOnce(Option<Range<u64>>) -> Fut,
        Fut: Future<Output = ApiResult<Object>>,
    {
        if headers.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()).is_some_and(|v| self.matches(v)) {
            let mut response = StatusCode::NOT_MODIFIED.into_response();
            self.common_headers(&mut response);
            return Ok(response);
        }
        let if_range_holds =
            headers.get(header::IF_RANGE).and_then(|v| v.to_str().ok()).is_none_or(|v| v.trim() == self.etag);
        let wanted = match headers.get(header::RANGE).and_then(|v| v.to_str().ok()) {
            Some(range) if if_range_holds => parse_range(range, self.length),
            _ => Wanted::All,
        };
        let (status, range) = match wanted {
            Wanted::All => (StatusCode::OK, None),
            Wanted::Part(range) => (StatusCode::PARTIAL_CONTENT, Some(range)),
            Wanted::Unsatisfiable => {
                let mut response =
                    Error::invalid("header.range", "RANGE_NOT_SATISFIABLE", "lies outside the file").into_response();
                *response.status_mut() = StatusCode::RANGE_NOT_SATISFIABLE;
                if let Ok(value) = HeaderValue::from_str(&format!("bytes */{}", self.length)) {
                    response.headers_mut().insert(header::CONTENT_RANGE, value);
                }
                return Ok(response);
            }
        };
        let object = open(range.clone()).await?;
        let mut response = Response::new(Body::from_stream(object.body));
        *response.status_mut() = status;
        self.common_headers(&mut response);
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from(object.length));
        if let Some(range) = range
            && let Ok(value) =
                HeaderValue::from_str(&format!("bytes {}-{}/{}", range.start, range.end - 1, self.length))
        {
            headers.insert(header::CONTENT_RANGE, value);
        }
        Ok(response)
    }

    fn matches(&self, if_none_match: &str) -> bool {
        if_none_match
            .split(',')
            .map(|tag| tag.trim().trim_start_matches("W/"))
            .any(|tag| tag == "*" || tag == self.etag)
    }

    fn common_headers(&self, response: &mut Response) {
        let headers = response.headers_mut();
        let content_type =
            HeaderValue::from_str(self.content_type).unwrap_or(HeaderValue::from_static("application/octet-stream"));
        headers.insert(header::CONTENT_TYPE, content_type);
        if let Ok(etag) = HeaderValue::from_str(&self.etag) {
            headers.insert(header::ETAG, etag);
        }
        headers.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, max-age=0, must-revalidate"));
        // User-supplied bytes: never let a browser run them as a page of this origin.
        headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
        headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static("default-src 'none'; sandbox"));
        if let Ok(disposition) = HeaderValue::from_str(&content_disposition(self.filename)) {
            headers.insert(header::CONTENT_DISPOSITION, disposition);
        }
    }
}

/// `attachment` with an ASCII fallback name and the exact name in RFC 5987 form.
pub fn content_disposition(filename: Option<&str>) -> String {
    let Some(name) = filename else { return "attachment".into() };
    let fallback: String = name
        .chars()
        .map(|c| if c.is_ascii_graphic() && c != '"' && c != '\\' && c != '%' || c == ' ' { c } else { '_' })
        .collect();
    let encoded: String = name
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'.' | b'-' | b'_' | b'~' => (b as char).to_string(),
            other => format!("%{other:02X}"),
        })
        .collect();
    format!("attachment; filename=\"{fallback}\"; filename*=UTF-8''{encoded}")
}

/// One range of `bytes=`; several ranges are answered with the whole file, as RFC 9110 allows.
pub fn parse_range(header: &str, length: u64) -> Wanted {
    let Some(spec) = header.trim().strip_prefix("bytes=") else { return Wanted::All };
    if spec.contains(',') {
        return Wanted::All;
    }
    let Some((start, end)) = spec.trim().split_once('-') else { return Wanted::All };
    let (start, end) = (start.trim(), end.trim());
    let range = match (start.is_empty(), end.is_empty()) {
        (true, true) => return Wanted::All,
        // The last `end` bytes.
        (true, false) => match end.parse::<u64>() {
            Ok(0) => return Wanted::Unsatisfiable,
            Ok(suffix) => length.saturating_sub(suffix)..length,
            Err(_) => return Wanted::All,
        },
        (false, _) => {
            let Ok(first) = start.parse::<u64>() else { return Wanted::All };
            let last = if end.is_empty() {
                length.saturating_sub(1)
            } else {
                match end.parse::<u64>() {
                    Ok(last) if last >= first => last.min(length.saturating_sub(1)),
                    _ => return Wanted::All,
                }
            };
            if first >= length {
                return Wanted::Unsatisfiable;
            }
            first..last + 1
        }
    };
    if range.is_empty() { Wanted::Unsatisfiable } else { Wanted::Part(range) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(parse_range("bytes=0-9", 100), Wanted::Part(0..10));
        assert_eq!(parse_range("bytes=90-", 100), Wanted::Part(90..100));
        assert_eq!(parse_range("bytes=-10", 100), Wanted::Part(90..100));
        assert_eq!(parse_range("bytes=-1000", 100), Wanted::Part(0..100));
        assert_eq!(parse_range("bytes=50-1000", 100), Wanted::Part(50..100));
        assert_eq!(parse_range("bytes=100-", 100), Wanted::Unsatisfiable);
        assert_eq!(parse_range("bytes=-0", 100), Wanted::Unsatisfiable);
        assert_eq!(parse_range("bytes=5-1", 100), Wanted::All);
        assert_eq!(parse_range("bytes=0-1,5-6", 100), Wanted::All);
        assert_eq!(parse_range("items=0-1", 100), Wanted::All);
        assert_eq!(parse_range("bytes=x-", 100), Wanted::All);
    }

    #[test]
    fn dispositions_are_safe() {
        assert_eq!(content_disposition(None), "attachment");
        assert_eq!(
            content_disposition(Some("a b.pdf")),
            "attachment; filename=\"a b.pdf\"; filename*=UTF-8''a%20b.pdf"
        );
        let tricky = content_disposition(Some("évil\".pdf"));
        assert!(tricky.starts_with("attachment; filename=\"_vil_.pdf\""), "{tricky}");
        assert!(tricky.ends_with("filename*=UTF-8''%C3%A9vil%22.pdf"));
    }
}
