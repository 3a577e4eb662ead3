//! `GET /metrics`: the Prometheus text exposition, for operators only (see `MetricsConfig`).

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tower::ServiceBuilder;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};

use crate::domain::secret;
use crate::http::error::Error;
use crate::state::AppState;

/// The route on the main listener: answers only a request bearing the configured token; without
/// a token configured the route does not exist there.
pub fn router() -> Router<AppState> {
    Router::new().route("/metrics", get(metrics))
}

/// The separate metrics listener (`metrics.listen`): the same route, open to whoever reaches the
/// address unless a token is configured too.
pub fn listener_router(state: AppState) -> Router {
    let request_id = HeaderName::from_static(super::middleware::REQUEST_ID);
    Router::new()
        .route("/metrics", get(metrics_on_listener))
        .fallback(|| async { Error::NotFound("no such route".into()) })
        .layer(
            ServiceBuilder::new()
                .layer(SetRequestIdLayer::new(request_id.clone(), MakeRequestUuid))
                .layer(PropagateRequestIdLayer::new(request_id))
                .layer(axum::middleware::from_fn(super::middleware::render_errors)),
        )
        .with_state(state)
}

async fn metrics(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let Some(token) = state.config.metrics.token.as_deref() else {
        return Error::NotFound("no such route".into()).into_response();
    };
    if let Err(error) = authorized(token, &headers) {
        return error.into_response();
    }
    exposition(&state).await
}

async fn metrics_on_listener(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if let Some(token) = state.config.metrics.token.as_deref()
        && let Err(error) = authorized(token, &headers)
    {
        return error.into_response();
    }
    exposition(&state).await
}

async fn exposition(state: &AppState) -> Response {
    let text = crate::infra::metrics::render(&state.metrics_snapshot().await);
    ([(header::CONTENT_TYPE, HeaderValue::from_static(crate::infra::metrics::CONTENT_TYPE))], text).into_response()
}

fn authorized(token: &str, headers: &HeaderMap) -> Result<(), Error> {
    let sent = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    match sent {
        Some(sent) if secret::same(sent, token) => Ok(()),
        _ => Err(Error::Unauthenticated("GET /metrics needs Authorization: Bearer <metrics.token>".into())),
    }
}
