//! What the integration tests share: running the binary, a fresh database, a server.

pub mod command;
pub mod database;
pub mod server;
