//! Space modules: events from the spaces they are connected to, and requests to their own routes.

use crate::wit::space::exports::trellis::module::space_hooks as wit;
use crate::{Context, Manifest, Request, Response, Result};

/// A module connected to spaces. Export it with [`export_space_module!`](crate::export_space_module).
///
/// Every call runs in a fresh instance, so the hooks are associated functions with no `self`: anything that
/// must outlive one call belongs in [`kv`](crate::kv).
///
/// ```
/// use trellis_plugin_sdk::{Context, Event, Manifest, Method, Request, Response, Result, SpaceModule};
///
/// struct Hello;
///
/// impl SpaceModule for Hello {
///     fn manifest() -> Manifest {
///         Manifest::new("hello", "Hello", "0.1.0")
///     }
///
///     fn handle_request(_ctx: &Context, request: &Request) -> Result<Response> {
///         Ok(match (request.method(), request.segments().as_slice()) {
///             (Method::Get, ["hello", name]) => Response::ok(&serde_json::json!({"hello": name})),
///             _ => Response::not_found(),
///         })
///     }
/// }
///
/// let response = Hello::handle_request(&Context::default(), &Request::get("/hello/ada")).unwrap();
/// assert_eq!(response.body(), r#"{"hello":"ada"}"#);
/// ```
pub trait SpaceModule {
    /// What the module says about itself.
    fn manifest() -> Manifest;

    /// Something happened in a connected space. An error is recorded as a failed delivery.
    /// The default ignores every event.
    fn on_event(ctx: &Context, event: &Event) -> Result<()> {
        let _ = (ctx, event);
        Ok(())
    }

    /// Serves a request to `/v0/spaces/{spaceId}/modules/{moduleId}/...`. An error answers 502 MODULE_FAILED,
    /// so answer client mistakes with a 4xx [`Response`] instead. The default answers 404 to everything.
    fn handle_request(ctx: &Context, request: &Request) -> Result<Response> {
        let _ = (ctx, request);
        Ok(Response::not_found())
    }
}

/// What happened in the space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// A form instance was created in the space.
    FormInstanceCreated,
    /// A form instance in the space changed.
    FormInstanceUpdated,
    /// An asset in the space changed state.
    AssetStateChanged,
    /// A comment was posted on the space; the item is
    /// `{commentId, spaceId, body, authorId, authorHandle, createdAt}`. New in WIT 0.2.0.
    CommentCreated,
}

/// An event from a connected space. [`item::current`](crate::item::current) reads the item it is about.
///
/// ```
/// use trellis_plugin_sdk::{Event, EventKind};
///
/// let event = Event::new(EventKind::FormInstanceCreated, "instance-7");
/// assert_eq!(event.item_id(), "instance-7");
/// assert!(event.is_form_instance());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    kind: EventKind,
    item_id: String,
}

impl Event {
    /// An event of `kind` about `item_id` (also how tests build one).
    pub fn new(kind: EventKind, item_id: impl Into<String>) -> Self {
        Self { kind, item_id: item_id.into() }
    }

    /// What happened.
    pub fn kind(&self) -> EventKind {
        self.kind
    }

    /// The form instance id, asset id or comment id the event is about.
    pub fn item_id(&self) -> &str {
        &self.item_id
    }

    /// Whether a form instance was created or updated.
    pub fn is_form_instance(&self) -> bool {
        matches!(self.kind, EventKind::FormInstanceCreated | EventKind::FormInstanceUpdated)
    }
}

impl From<wit::Event> for Event {
    fn from(event: wit::Event) -> Self {
        let kind = match event.kind {
            wit::EventKind::FormInstanceCreated => EventKind::FormInstanceCreated,
            wit::EventKind::FormInstanceUpdated => EventKind::FormInstanceUpdated,
            wit::EventKind::AssetStateChanged => EventKind::AssetStateChanged,
            wit::EventKind::CommentCreated => EventKind::CommentCreated,
        };
        Self { kind, item_id: event.item_id }
    }
}
