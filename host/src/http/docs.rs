//! `/docs`: the OpenAPI document rendered by Swagger UI from assets built into the binary, so a
//! client can read and try the API on a machine without internet; `/` points there. The workspace turns on
//! `debug-embed` so a debug build embeds them too (rust-embed would otherwise read them from `target/` at
//! run time, and `/docs` of a debug binary would break once that folder moves).
//!
//! The page handles session tokens, so it keeps none (authorization is not persisted in the
//! browser's storage), loads and sends nothing beyond this server, and no other site may frame it.

use axum::Router;
use axum::http::{HeaderName, HeaderValue, header};
use axum::middleware::map_response;
use axum::response::{Redirect, Response};
use axum::routing::get;
use utoipa_swagger_ui::{Config, SwaggerUi};

use crate::state::AppState;

pub fn router() -> Router<AppState> {
    let config = Config::new(["/v0/openapi.json"])
        // Swagger UI would otherwise send the document to an online validator.
        .validator_url("none")
        .try_it_out_enabled(true)
        // A token typed into "Authorize" lives as long as the page, not in localStorage.
        .persist_authorization(false)
        .display_request_duration(true);
    let docs = Router::new().merge(SwaggerUi::new("/docs").config(config)).layer(map_response(protect));
    docs.route("/", get(|| async { Redirect::to("/docs/") }))
}

/// Swagger UI's scripts, styles and pictures come from this server (its styles also inline, its
/// icons as `data:` pictures); it calls only this server; no page may frame it.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
     img-src 'self' data:; connect-src 'self'; font-src 'self' data:; base-uri 'none'; form-action 'none'; \
     frame-ancestors 'none'";

async fn protect(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (HeaderName::from_static("cross-origin-opener-policy"), "same-origin"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}
