//! Use cases: what a client (or a background job) can ask of the service, combining domain rules,
//! the store and outside effects (mail, media, modules). They know nothing of HTTP: they answer
//! with [`crate::error::Error`], and the HTTP edge decides statuses and wire locations.

pub mod accounts;
pub mod analysis;
pub mod assets;
pub mod attachments;
pub mod avatars;
pub mod channels;
pub mod comments;
pub mod export;
pub mod form_configurations;
pub mod form_instances;
pub mod instance_access;
pub mod licenses;
pub mod live;
pub mod marketplace;
pub mod messages;
pub mod modules;
pub mod operators;
pub mod readiness;
pub mod reanalysis;
pub mod resumable;
pub mod space_events;
pub mod spaces;
pub mod uploads;
pub mod users;
pub mod workflow_configurations;
pub mod workflow_items;
