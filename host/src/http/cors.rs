//! Cross-origin access for browser apps (conventions section 1): off unless `http.cors_origins`
//! lists origins. Listed origins get preflights answered and may read the headers a client needs.
//! Only a real preflight (an `OPTIONS` with `Origin` and `Access-Control-Request-Method`) gets the
//! CORS answer: any other `OPTIONS`, such as a tus client's discovery of `Tus-Version`, reaches its
//! route.

use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, Method, header};
use axum::response::Response;
use futures::future::BoxFuture;
use tower::{Layer, Service, ServiceExt};
use tower_http::cors::{AllowOrigin, Cors, CorsLayer};

use crate::config::HttpConfig;
use crate::http::middleware::{LICENSE_KEY, REQUEST_ID};

/// How long a browser may reuse a preflight's answer.
const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(600);

/// The headers an answer to a listed origin lets its script read.
const EXPOSED: [&str; 12] = [
    "etag",
    "location",
    "retry-after",
    REQUEST_ID,
    "tus-resumable",
    "tus-version",
    "tus-extension",
    "tus-max-size",
    "upload-offset",
    "upload-length",
    "upload-expires",
    "upload-metadata",
];

/// The CORS layer for the listed origins, or `None` when none are listed.
pub fn layer(config: &HttpConfig) -> Option<BrowserCorsLayer> {
    // Origins were checked when the configuration was read; one that is no header value is skipped.
    let origins: Vec<HeaderValue> =
        config.cors_origins.iter().filter_map(|origin| HeaderValue::from_str(origin).ok()).collect();
    if origins.is_empty() {
        return None;
    }
    let cors = CorsLayer::new()
        .allow_origin(AllowOrigin::list(origins.clone()))
        .allow_methods([Method::GET, Method::HEAD, Method::POST, Method::PUT, Method::PATCH, Method::DELETE])
        .allow_headers([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            header::IF_MATCH,
            header::IF_NONE_MATCH,
            header::RANGE,
            HeaderName::from_static(LICENSE_KEY),
            HeaderName::from_static(REQUEST_ID),
            // A live stream resumed from a browser's own `fetch` (an `EventSource` sends it only
            // on its own reconnects, which are not cross-origin preflighted).
            HeaderName::from_static("last-event-id"),
            // Resumable uploads (tus), from a browser's tus client.
            HeaderName::from_static("tus-resumable"),
            HeaderName::from_static("upload-length"),
            HeaderName::from_static("upload-metadata"),
            HeaderName::from_static("upload-offset"),
        ])
        .expose_headers(EXPOSED.map(HeaderName::from_static))
        .max_age(PREFLIGHT_MAX_AGE);
    Some(BrowserCorsLayer { cors, origins })
}

/// CORS for real preflights and for the answers to listed origins; see the module's comment.
#[derive(Clone)]
pub struct BrowserCorsLayer {
    cors: CorsLayer,
    origins: Vec<HeaderValue>,
}

impl<S: Clone> Layer<S> for BrowserCorsLayer {
    type Service = BrowserCors<S>;

    fn layer(&self, inner: S) -> Self::Service {
        BrowserCors { cors: self.cors.layer(inner.clone()), plain: inner, origins: self.origins.clone() }
    }
}

#[derive(Clone)]
pub struct BrowserCors<S> {
    cors: Cors<S>,
    plain: S,
    origins: Vec<HeaderValue>,
}

impl<S> Service<Request> for BrowserCors<S>
where
    S: Service<Request, Response = Response> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = Response;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.plain.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let headers = request.headers();
        let plain_options = request.method() == Method::OPTIONS
            && !(headers.contains_key(header::ORIGIN) && headers.contains_key(header::ACCESS_CONTROL_REQUEST_METHOD));
        if !plain_options {
            return Box::pin(self.cors.clone().oneshot(request));
        }
        // Answered by its route, with what an answer to a listed origin carries.
        let listed = headers.get(header::ORIGIN).filter(|origin| self.origins.contains(origin)).cloned();
        let plain = self.plain.clone();
        Box::pin(async move {
            let mut response = plain.oneshot(request).await?;
            let headers = response.headers_mut();
            headers.append(header::VARY, HeaderValue::from_static("origin"));
            if let Some(origin) = listed {
                headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
                headers.insert(
                    header::ACCESS_CONTROL_EXPOSE_HEADERS,
                    HeaderValue::from_str(&EXPOSED.join(",")).expect("names"),
                );
            }
            Ok(response)
        })
    }
}
