//! Black-box tests: each test starts the real server and talks HTTP to it.

mod auth;
mod conventions;
mod entitlements;
mod licenses;
mod password_reset;
mod smoke;
mod users;
