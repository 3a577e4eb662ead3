//! Black-box tests: each test starts the real server and talks HTTP to it. One module per resource
//! holds its tests; what they share (documents, route calls, the media backends) is in `support`.

mod analysis;
mod assets;
mod auth;
mod avatars;
mod channel_spaces;
mod channels;
mod comments;
mod connections;
mod conventions;
mod data_dir;
mod entitlements;
mod existence;
mod form_configuration_rules;
mod form_configurations;
mod form_instance_updates;
mod form_instances;
mod impossible_text;
mod jobs;
mod licenses;
mod login_limits;
mod marketplace;
mod media;
mod media_access;
mod messages;
mod module_containment;
mod modules;
mod multipart_limits;
mod password_reset;
mod smoke;
mod spaces;
mod support;
mod users;
mod workflow_configurations;
mod workflow_items;
