//! `GET /v0/openapi.json`, generated from the handlers' annotations.

use axum::Json;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use super::{auth, health, list, users, views};
use crate::domain::problems::Problem;
use crate::error::{ErrorBody, ErrorCode, ErrorEnvelope};

#[derive(OpenApi)]
#[openapi(
    info(title = "Trellis", description = "Form, workflow and collaboration service. Every /v0 route needs `X-License-Key` (or gateway headers); most also need `Authorization: Bearer <sessionToken>`. Errors answer `{\"error\": {code, numeric, message, details?, requestId}}`."),
    paths(
        auth::start_signup, auth::verify_signup_pin, auth::complete_signup, auth::login, auth::get_session, auth::logout,
        auth::start_reset, auth::verify_reset_pin, auth::resend_reset_pin, auth::complete_reset,
        users::get_me, users::update_me, users::search_users,
        health::healthz, health::readyz, openapi_json,
    ),
    components(schemas(ErrorEnvelope, ErrorBody, ErrorCode, Problem, views::Profile, views::UserSummary, views::AvatarRef,
        list::ListEnvelope<views::UserSummary>)),
    modifiers(&SecuritySchemes),
    security(("license" = [])),
)]
pub struct ApiDoc;

struct SecuritySchemes;

impl Modify for SecuritySchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components
            .add_security_scheme("license", SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::new("X-License-Key"))));
        components.add_security_scheme(
            "session",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

/// This document.
#[utoipa::path(get, path = "/v0/openapi.json", tag = "operations", responses((status = 200, description = "OpenAPI 3.1 document")))]
pub async fn openapi_json() -> Json<utoipa::openapi::OpenApi> {
    Json(ApiDoc::openapi())
}
