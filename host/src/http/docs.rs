//! `/docs`: the OpenAPI document rendered by Swagger UI from assets built into the binary, so a
//! client can read and try the API on a machine without internet; `/` points there. The workspace turns on
//! `debug-embed` so a debug build embeds them too (rust-embed would otherwise read them from `target/` at
//! run time, and `/docs` of a debug binary would break once that folder moves).

use axum::Router;
use axum::response::Redirect;
use axum::routing::get;
use utoipa_swagger_ui::{Config, SwaggerUi};

use crate::state::AppState;

pub fn router() -> Router<AppState> {
    let config = Config::new(["/v0/openapi.json"])
        // Swagger UI would otherwise send the document to an online validator.
        .validator_url("none")
        .try_it_out_enabled(true)
        .persist_authorization(true)
        .display_request_duration(true);
    Router::new().merge(SwaggerUi::new("/docs").config(config)).route("/", get(|| async { Redirect::to("/docs/") }))
}
