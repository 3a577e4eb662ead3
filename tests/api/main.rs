//! Black-box tests: each test starts the real server and talks HTTP to it.

mod auth;
mod avatars;
mod conventions;
mod entitlements;
mod form_configuration_rules;
mod form_configurations;
mod form_instance_updates;
mod form_instances;
mod forms_support;
mod impossible_text;
mod licenses;
mod media;
mod media_access;
mod media_support;
mod module_containment;
mod modules;
mod modules_support;
mod password_reset;
mod smoke;
mod spaces;
mod spaces_support;
mod users;
mod workflow_configurations;
mod workflow_items;
mod workflow_support;
