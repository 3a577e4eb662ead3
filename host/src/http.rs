//! The HTTP edge: one router per resource, nested under `/v0`, and the layers around them.

pub mod admin;
pub mod admin_modules;
pub mod auth;
pub mod channels;
pub mod conditional;
pub mod cors;
pub mod docs;
pub mod error;
pub mod events;
pub mod export;
pub mod extract;
pub mod forms;
pub mod forwarded;
pub mod health;
pub mod list;
pub mod marketplace;
pub mod media;
pub mod messages;
pub mod metrics;
pub mod middleware;
pub mod modules;
pub mod openapi;
pub mod server;
pub mod spaces;
pub mod users;
pub mod views;
pub mod workflows;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderName, Request};
use axum::routing::get;
use tower::ServiceBuilder;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;

use crate::http::error::Error;
use crate::state::AppState;

/// The whole service as one router.
pub fn router(state: AppState) -> Router {
    let request_id = HeaderName::from_static(middleware::REQUEST_ID);
    let v0 = Router::new()
        .nest("/auth", auth::router())
        .nest("/users", users::router())
        .nest("/forms", forms::router())
        .nest("/media", media::router())
        .nest("/workflows", workflows::router())
        .nest("/spaces", spaces::router())
        .nest("/channels", channels::router())
        .nest("/modules", modules::router())
        .nest("/messages", messages::router())
        .nest("/marketplace", marketplace::router())
        .nest("/admin", admin::router())
        .nest("/events", events::router())
        .route_layer(axum::middleware::from_fn(middleware::refuse_nul))
        .route_layer(axum::middleware::from_fn_with_state(state.clone(), middleware::require_license))
        // The stream checks its own credentials: a browser's ticket stands in for the headers.
        .merge(events::stream_router().route_layer(axum::middleware::from_fn(middleware::refuse_nul)))
        // The API description is public (conventions section 1): added after the license layer.
        .route("/openapi.json", get(openapi::openapi_json));
    let cors = cors::layer(&state.config.http);
    let router = Router::new()
        .nest("/v0", v0)
        .merge(health::router())
        .merge(docs::router())
        .merge(metrics::router())
        .fallback(|| async { Error::NotFound("no such route".into()) })
        .layer(
            ServiceBuilder::new()
                .layer(SetRequestIdLayer::new(request_id.clone(), MakeRequestUuid))
                .layer(TraceLayer::new_for_http().make_span_with(|request: &Request<_>| {
                    let id = request.headers().get(middleware::REQUEST_ID).and_then(|v| v.to_str().ok()).unwrap_or("");
                    tracing::info_span!("request", method = %request.method(), path = %request.uri().path(), request_id = %id)
                }))
                .layer(PropagateRequestIdLayer::new(request_id))
                .layer(axum::middleware::from_fn(middleware::track_requests))
                .layer(axum::middleware::from_fn(middleware::render_errors))
                .layer(axum::middleware::from_fn(conditional::not_modified))
                .layer(CatchPanicLayer::new())
                .layer(DefaultBodyLimit::max(state.config.http.json_body_limit)),
        )
        .with_state(state);
    // Outermost: a preflight is answered here, before the license and session checks, which a
    // browser cannot satisfy on a preflight (it sends no credentials on one).
    match cors {
        Some(cors) => router.layer(cors),
        None => router,
    }
}
