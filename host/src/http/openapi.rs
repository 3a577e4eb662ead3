//! `GET /v0/openapi.json`, generated from the handlers' annotations.

mod bounds;
mod conditional;
mod enums;
mod envelopes;
mod errors;
mod examples;
mod links;
mod required;
mod responses;
mod strict;
mod tus;

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
    admin, admin_modules, auth, channels, events, export, health, list, marketplace, media, messages, modules, spaces,
    users, views,
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
        export::export_forms, export::export_items,
        workflow_configurations::validate_workflow, workflow_configurations::create_workflow, workflow_configurations::update_workflow,
        workflow_configurations::get_workflow, workflow_configurations::list_workflows, workflow_configurations::get_permissions,
        workflow_configurations::replace_permissions, workflow_items::start_workflow, workflow_items::list_view_items,
        workflow_items::get_item, workflow_items::update_item, workflow_items::transition_item, workflow_items::item_history,
        spaces::create_space, spaces::list_spaces, spaces::get_general, spaces::update_general,
        space_comments::post_comment, space_comments::list_comments,
        space_assets::create_asset, space_assets::list_assets, space_assets::get_asset, space_assets::change_asset_state,
        space_assets::awaiting_approval, space_assets::reanalyse_asset,
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
        media::tus::tus_options, media::tus::create_upload, media::tus::upload_status, media::tus::append_upload,
        media::tus::terminate_upload,
        messages::send_message, messages::unread, messages::list_threads, messages::list_messages, messages::get_message,
        events::events, events::create_ticket,
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
        admin_modules::ModuleMetricsView, list::ListEnvelope<admin_modules::ModuleMetricsView>,
        events::EventTicket, events::LiveEventData, events::LiveMessageCreated, events::LiveUnreadChanged, events::LiveCommentCreated,
        events::LiveAssetChanged, events::LiveInviteCreated, events::LiveRegistrationChanged, events::LiveItemChanged)),
    servers((url = "/", description = "The server that serves this document (a relative URL, so `/docs` works at any address)")),
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
#[utoipa::path(get, path = "/v0/openapi.json", operation_id = "get_openapi_document", tag = "operations", security(()), responses((status = 200, description = "OpenAPI 3.1 document")))]
pub async fn openapi_json() -> Json<serde_json::Value> {
    Json(DOCUMENT.clone())
}

/// The document `GET /v0/openapi.json` serves.
pub fn document() -> &'static serde_json::Value {
    &DOCUMENT
}

/// Built once: the generated document plus the form configuration JSON Schema, which is
/// published as it is checked (utoipa's schema model does not hold every 2020-12 keyword).
static DOCUMENT: std::sync::LazyLock<serde_json::Value> = std::sync::LazyLock::new(|| {
    let mut document = serde_json::to_value(ApiDoc::openapi()).expect("the OpenAPI document serializes");
    if let Some(schemas) = document.pointer_mut("/components/schemas").and_then(serde_json::Value::as_object_mut) {
        for (def, schema) in configuration_documents() {
            assert!(schemas.insert(def.clone(), schema).is_none(), "{def} names two schemas");
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
    envelopes::complete(&mut document);
    enums::complete(&mut document);
    bounds::complete(&mut document);
    strict::complete(&mut document);
    responses::complete(&mut document);
    required::complete(&mut document);
    conditional::complete(&mut document);
    tus::complete(&mut document);
    links::complete(&mut document);
    examples::complete(&mut document);
    errors::complete(&mut document);
    document
});

/// The configuration documents' JSON Schemas, as components: published as the domain checks them,
/// so the passes that complete the rest of the document leave them alone.
fn configuration_documents() -> Vec<(String, serde_json::Value)> {
    let mut documents =
        lift_defs(crate::domain::forms::config_schema(), "FormConfigurationDocument", "FormConfiguration");
    documents.extend(lift_defs(
        crate::domain::workflows::workflow_schema(),
        "WorkflowConfigurationDocument",
        "WorkflowConfiguration",
    ));
    documents
}

/// Whether the component `name` is (part of) a configuration document's JSON Schema.
/// The operation `method path` of the document, for a pass that completes a route it names; a route
/// that is not documented is a bug of the pass's list (`what` names the pass in the panic).
pub(super) fn operation_mut<'a>(
    document: &'a mut serde_json::Value,
    method: &str,
    path: &str,
    what: &str,
) -> &'a mut serde_json::Value {
    let pointer = format!("/paths/{}/{method}", path.replace('~', "~0").replace('/', "~1"));
    document.pointer_mut(&pointer).unwrap_or_else(|| panic!("a {what} route is undocumented: {method} {path}"))
}

pub(super) fn is_configuration_document(name: &str) -> bool {
    static NAMES: std::sync::LazyLock<std::collections::BTreeSet<String>> =
        std::sync::LazyLock::new(|| configuration_documents().into_iter().map(|(name, _)| name).collect());
    NAMES.contains(name)
}

/// A configuration document's schema and its `$defs` as components of their own: `name` for the
/// document, `<prefix><Def>` for each definition (`$defs/field` of the form document becomes
/// `FormConfigurationField`), every `#/$defs/x` pointed at its component. Generators follow component
/// references; most do not follow references into a schema's nested `$defs`.
fn lift_defs(schema: &serde_json::Value, name: &str, prefix: &str) -> Vec<(String, serde_json::Value)> {
    let mut schema = schema.clone();
    let defs = schema.as_object_mut().and_then(|s| s.remove("$defs"));
    let mut lifted = vec![(name.to_owned(), schema)];
    if let Some(serde_json::Value::Object(defs)) = defs {
        lifted.extend(defs.into_iter().map(|(def, schema)| (def_component(prefix, &def), schema)));
    }
    for (_, schema) in &mut lifted {
        rebase_refs(schema, prefix);
    }
    lifted
}

/// `field` → `FormConfigurationField`, `pageTexts` → `FormConfigurationPageTexts`.
fn def_component(prefix: &str, def: &str) -> String {
    let mut chars = def.chars();
    let first = chars.next().map(|c| c.to_ascii_uppercase()).into_iter();
    format!("{prefix}{}", first.chain(chars).collect::<String>())
}

/// Points a schema's references to its definitions (`#/$defs/x`) at their components.
fn rebase_refs(schema: &mut serde_json::Value, prefix: &str) {
    match schema {
        serde_json::Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match value {
                    serde_json::Value::String(target) if key == "$ref" => {
                        if let Some(def) = target.strip_prefix("#/$defs/") {
                            *target = format!("#/components/schemas/{}", def_component(prefix, def));
                        }
                    }
                    _ => rebase_refs(value, prefix),
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|item| rebase_refs(item, prefix)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_operation_has_its_own_operation_id() {
        let mut seen = std::collections::BTreeMap::new();
        for (path, item) in super::document()["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                let Some(id) = operation.get("operationId").and_then(serde_json::Value::as_str) else {
                    panic!("{method} {path} has no operationId");
                };
                if let Some(other) = seen.insert(id.to_owned(), format!("{method} {path}")) {
                    panic!("{id} names both {other} and {method} {path}");
                }
            }
        }
    }
}
