//! `GET /v0/openapi.json`, generated from the handlers' annotations.

mod bounds;
mod conditional;
mod examples;
mod responses;
mod strict;

use axum::Json;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use super::channels::{comments as channel_comments, invites as channel_invites};
use super::forms::{configurations, instances};
use super::spaces::{
    assets as space_assets, comments as space_comments, marketplace as space_marketplace, modules as space_modules,
};
use super::workflows::{configurations as workflow_configurations, items as workflow_items};
use super::{
    admin, admin_modules, auth, channels, health, list, marketplace, media, messages, modules, spaces, users, views,
};
use crate::domain::problems::Problem;
use crate::http::error::{ErrorBody, ErrorCode, ErrorEnvelope};

#[derive(OpenApi)]
#[openapi(
    info(title = "Trellis", description = "Form, workflow and collaboration service. Every /v0 route needs `X-License-Key` (or gateway headers); most also need `Authorization: Bearer <sessionToken>`. Errors answer `{\"error\": {code, numeric, message, details?, requestId}}`."),
    paths(
        auth::start_signup, auth::verify_signup_pin, auth::complete_signup, auth::login, auth::get_session, auth::logout,
        auth::start_reset, auth::verify_reset_pin, auth::resend_reset_pin, auth::complete_reset,
        users::get_me, users::update_me, users::search_users,
        configurations::validate_configuration, configurations::create_configuration, configurations::update_configuration,
        configurations::get_configuration, configurations::list_configurations,
        instances::create_form, instances::get_form, instances::update_form, instances::list_forms, instances::form_history,
        workflow_configurations::validate_workflow, workflow_configurations::create_workflow, workflow_configurations::update_workflow,
        workflow_configurations::get_workflow, workflow_configurations::list_workflows, workflow_configurations::get_permissions,
        workflow_configurations::replace_permissions, workflow_items::start_workflow, workflow_items::list_view_items,
        workflow_items::get_item, workflow_items::update_item, workflow_items::transition_item, workflow_items::item_history,
        spaces::create_space, spaces::list_spaces, spaces::get_general, spaces::update_general,
        space_comments::post_comment, space_comments::list_comments,
        space_assets::create_asset, space_assets::list_assets, space_assets::get_asset, space_assets::change_asset_state,
        space_assets::awaiting_approval,
        channels::create_channel, channels::list_channels, channels::get_channel, channels::replace_spaces,
        channels::list_spaces, channels::list_members, channels::change_role, channels::remove_member,
        channel_invites::invite, channel_invites::pending_invites, channel_invites::respond, channel_invites::cancel_invite,
        channel_comments::post_comment, channel_comments::list_comments,
        space_marketplace::get_settings, space_marketplace::put_settings, space_marketplace::list_pending,
        space_marketplace::decide_pending, marketplace::trending, marketplace::get_listing, marketplace::register,
        admin::listings, admin::decide, modules::refused_modules, admin_modules::module_metrics,
        modules::list_modules, space_modules::get_modules, space_modules::replace_modules, space_modules::module_route,
        media::upload_attachments, media::download_attachment, media::delete_attachment,
        media::upload_asset, media::download_asset,
        media::upload_avatar, media::delete_avatar, media::download_avatar,
        messages::send_message, messages::unread, messages::list_threads, messages::list_messages, messages::get_message,
        health::healthz, health::readyz, openapi_json,
    ),
    components(schemas(ErrorEnvelope, ErrorBody, ErrorCode, Problem, views::Profile, views::UserSummary, views::AvatarRef,
        list::ListEnvelope<views::UserSummary>, media::AttachmentDescriptor, views::CommentView,
        list::ListEnvelope<views::CommentView>, space_assets::AssetView, list::ListEnvelope<space_assets::AssetView>,
        space_assets::AssetPart, list::ListEnvelope<space_assets::AssetPart>,
        messages::NewMessage, messages::MessageSent, messages::UnreadCount, messages::CorrespondentView,
        messages::ThreadView, list::ListEnvelope<messages::ThreadView>, messages::MessageView,
        list::ListEnvelope<messages::MessageView>,
        marketplace::TrendingView, list::ListEnvelope<marketplace::TrendingView>,
        space_marketplace::PendingRegistrationView, list::ListEnvelope<space_marketplace::PendingRegistrationView>,
        admin::ReviewedListingView, list::ListEnvelope<admin::ReviewedListingView>,
        modules::RefusedModuleView, list::ListEnvelope<modules::RefusedModuleView>,
        admin_modules::ModuleMetricsView, list::ListEnvelope<admin_modules::ModuleMetricsView>)),
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
#[utoipa::path(get, path = "/v0/openapi.json", tag = "operations", security(()), responses((status = 200, description = "OpenAPI 3.1 document")))]
pub async fn openapi_json() -> Json<serde_json::Value> {
    Json(DOCUMENT.clone())
}

/// Built once: the generated document plus the form configuration JSON Schema, which is
/// published as it is checked (utoipa's schema model does not hold every 2020-12 keyword).
static DOCUMENT: std::sync::LazyLock<serde_json::Value> = std::sync::LazyLock::new(|| {
    let mut document = serde_json::to_value(ApiDoc::openapi()).expect("the OpenAPI document serializes");
    if let Some(schemas) = document.pointer_mut("/components/schemas").and_then(serde_json::Value::as_object_mut) {
        for (name, schema) in [
            ("FormConfigurationDocument", crate::domain::forms::config_schema()),
            ("WorkflowConfigurationDocument", crate::domain::workflows::workflow_schema()),
        ] {
            let mut schema = schema.clone();
            rebase_refs(&mut schema, &format!("#/components/schemas/{name}"));
            schemas.insert(name.into(), schema);
        }
        // The wrappers carry the documents as they are checked.
        for (wrapper, inner) in [
            ("ConfigurationWrapper", "FormConfigurationDocument"),
            ("WorkflowWrapper", "WorkflowConfigurationDocument"),
        ] {
            if let Some(config) = schemas.get_mut(wrapper).and_then(|w| w.pointer_mut("/properties/config")) {
                *config = serde_json::json!({ "$ref": format!("#/components/schemas/{inner}") });
            }
        }
    }
    bounds::complete(&mut document);
    strict::complete(&mut document);
    responses::complete(&mut document);
    conditional::complete(&mut document);
    examples::complete(&mut document);
    document
});

/// Points a schema's own references (`#/$defs/x`) at where it now sits in the document.
fn rebase_refs(schema: &mut serde_json::Value, base: &str) {
    match schema {
        serde_json::Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match value {
                    serde_json::Value::String(target) if key == "$ref" && target.starts_with("#/") => {
                        *target = format!("{base}{}", &target[1..]);
                    }
                    _ => rebase_refs(value, base),
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|item| rebase_refs(item, base)),
        _ => {}
    }
}
