//! Cross-origin access for browser apps (conventions section 1): off unless `http.cors_origins`
//! lists origins. Listed origins get preflights answered and may read the headers a client needs.

use std::time::Duration;

use axum::http::{HeaderName, HeaderValue, Method, header};
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::config::HttpConfig;
use crate::http::middleware::{LICENSE_KEY, REQUEST_ID};

/// How long a browser may reuse a preflight's answer.
const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(600);

/// The CORS layer for the listed origins, or `None` when none are listed.
pub fn layer(config: &HttpConfig) -> Option<CorsLayer> {
    // Origins were checked when the configuration was read; one that is no header value is skipped.
    let origins: Vec<HeaderValue> =
        config.cors_origins.iter().filter_map(|origin| HeaderValue::from_str(origin).ok()).collect();
    if origins.is_empty() {
        return None;
    }
    let request_id = HeaderName::from_static(REQUEST_ID);
    Some(
        CorsLayer::new()
            .allow_origin(AllowOrigin::list(origins))
            .allow_methods([Method::GET, Method::HEAD, Method::POST, Method::PUT, Method::PATCH, Method::DELETE])
            .allow_headers([
                header::AUTHORIZATION,
                header::CONTENT_TYPE,
                header::IF_MATCH,
                header::IF_NONE_MATCH,
                header::RANGE,
                HeaderName::from_static(LICENSE_KEY),
                request_id.clone(),
                // Resumable uploads (tus), from a browser's tus client.
                HeaderName::from_static("tus-resumable"),
                HeaderName::from_static("upload-length"),
                HeaderName::from_static("upload-metadata"),
                HeaderName::from_static("upload-offset"),
            ])
            .expose_headers([
                header::ETAG,
                header::LOCATION,
                header::RETRY_AFTER,
                request_id,
                HeaderName::from_static("tus-resumable"),
                HeaderName::from_static("tus-version"),
                HeaderName::from_static("tus-extension"),
                HeaderName::from_static("tus-max-size"),
                HeaderName::from_static("upload-offset"),
                HeaderName::from_static("upload-length"),
                HeaderName::from_static("upload-expires"),
                HeaderName::from_static("upload-metadata"),
            ])
            .max_age(PREFLIGHT_MAX_AGE),
    )
}
