//! Validated types and rules, free of HTTP and of the database engine.

pub mod account;
pub mod analysis;
pub mod assets;
pub mod channels;
pub mod comments;
pub mod document;
pub mod entitlement;
pub mod export;
pub mod file_names;
pub mod forms;
pub mod jobs;
pub mod live;
pub mod marketplace;
pub mod messages;
pub mod precondition;
pub mod problems;
pub mod resumable;
pub mod secret;
pub mod spaces;
pub mod text;
pub mod timestamp;
pub mod workflows;
