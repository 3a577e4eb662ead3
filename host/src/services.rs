//! Use cases that combine domain rules, the store and outside effects (mail, clocks, limits).
//! Handlers call these; they know nothing of HTTP beyond answering with `Error`.

pub mod accounts;
pub mod attachments;
pub mod avatars;
pub mod form_configurations;
pub mod form_instances;
pub mod licenses;
pub mod limits;
pub mod mail;
pub mod media_objects;
pub mod module_events;
pub mod modules;
pub mod quotas;
pub mod revision_cache;
pub mod session_cache;
pub mod spaces;
pub mod ttl_cache;
pub mod workflow_configurations;
pub mod workflow_items;
