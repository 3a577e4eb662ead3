//! The types the host crate passes in and gets back: invocations, requests, events, answers, the catalogue.

use serde::Serialize;

use crate::load::manifest::ModuleKind;
use crate::wit::WitVersion;

/// Longest response body a module may answer, in bytes.
pub const MAX_RESPONSE_BODY_BYTES: usize = 1024 * 1024;
/// Longest error message kept from a module's `Err`, in bytes.
pub const MAX_MODULE_ERROR_BYTES: usize = 1024;

/// Where an invocation happens.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Invocation {
    /// The space the module is connected to (empty for marketplace and analysis modules).
    pub space_id: String,
    /// The configuration the space or the deployment gave the module, as JSON text.
    pub config_json: String,
}

/// HTTP method of a request to a module's routes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// GET
    Get,
    /// POST
    Post,
    /// PUT
    Put,
    /// PATCH
    Patch,
    /// DELETE
    Delete,
}

impl Method {
    /// The method for an HTTP method name; `None` for methods modules cannot serve.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "GET" => Self::Get,
            "POST" => Self::Post,
            "PUT" => Self::Put,
            "PATCH" => Self::Patch,
            "DELETE" => Self::Delete,
            _ => return None,
        })
    }
}

/// The caller's role in the space.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallerRole {
    /// The space's owner.
    Owner,
    /// A member.
    Member,
}

/// A request to a module's routes under `/v0/spaces/{spaceId}/modules/{moduleId}/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleRequest {
    /// The method.
    pub method: Method,
    /// The path after the module id, starting with `/`.
    pub path: String,
    /// The raw query string without `?`, possibly empty.
    pub query: String,
    /// The request body.
    pub body: Vec<u8>,
    /// The caller's user id.
    pub caller_user_id: String,
    /// The caller's handle.
    pub caller_handle: String,
    /// The caller's role in the space.
    pub caller_role: CallerRole,
}

/// A module's answer to a request, already checked: status 200 to 599, body empty or JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleResponse {
    /// The HTTP status.
    pub status: u16,
    /// JSON text, or empty for no body.
    pub body_json_text: String,
}

/// What happened in a space.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// A form instance was created in the space.
    FormInstanceCreated,
    /// A form instance of the space changed.
    FormInstanceUpdated,
    /// An asset of the space changed state.
    AssetStateChanged,
    /// A comment was posted on the space. Only WIT 0.2.0 modules receive it; a 0.1.0 module skips it.
    CommentCreated,
}

/// An event delivered to a space module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleEvent {
    /// What happened.
    pub kind: EventKind,
    /// The form instance or asset it happened to.
    pub item_id: String,
    /// The item as JSON text, returned by `item-read` (only to modules granted it).
    pub item_json: Option<String>,
}

/// Figures about a marketplace listing, for the trending score.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListingStats {
    /// The listed space.
    pub space_id: String,
    /// Its members.
    pub members: u32,
    /// Its assets.
    pub assets: u32,
    /// Comments in the last 7 days.
    pub comments_last_week: u32,
    /// Registrations in the last 7 days.
    pub registrations_last_week: u32,
    /// Days since the listing was published.
    pub age_days: u32,
}

/// A request to join a space, for the registration decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registration {
    /// The space.
    pub space_id: String,
    /// The user asking to join.
    pub user_id: String,
    /// Their handle.
    pub handle: String,
    /// Their note to the owner.
    pub note: String,
    /// The space's membership policy: `OPEN`, `APPROVAL` or `CLOSED`.
    pub membership: String,
}

/// A marketplace rule's decision on a registration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    /// Let the user in.
    Approve,
    /// Turn the user away.
    Reject,
    /// Leave it to the space's owner.
    DeferToOwner,
}

/// One enabled module, as `GET /v0/modules` lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModuleSummary {
    /// The manifest id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Semantic version.
    pub version: String,
    /// `space`, `marketplace-rule` or `analysis-step`.
    pub kind: ModuleKind,
    /// What the module does.
    pub description: String,
    /// JSON Schema of its configuration.
    pub config_schema: serde_json::Value,
    /// What it was granted in this deployment: `key-value`, `logging`, `item-read`, `asset-read`,
    /// `media-decode`, `vision`, `speech`, and `outbound-http:HOST` once per reachable host
    /// (`outbound-http` alone when no host is reachable).
    pub permissions: Vec<String>,
    /// The WIT version the component targets (`0.1.0`, `0.2.0`); older ones run adapted.
    pub wit_version: WitVersion,
}

/// Why a configuration was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// No enabled module has this id.
    #[error("unknown module")]
    UnknownModule,
    /// The configuration breaks the module's schema; every problem is listed.
    #[error("configuration does not match the module's schema")]
    Invalid(Vec<ConfigProblem>),
}

/// One way a configuration breaks its schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConfigProblem {
    /// JSON Pointer to the offending value (empty for the whole document).
    pub path: String,
    /// What is wrong with it.
    pub message: String,
}
