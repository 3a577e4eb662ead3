//! Live updates (conventions section 14, issue 29): `GET /v0/events` as Server-Sent Events, read with a
//! maintained client. Each event kind reaches its audience at the moment of the event and nobody else
//! (a stranger, a removed member, a reader without the slot); replay with `Last-Event-ID` and
//! `event: reset`; single-use tickets; the bounds (streams per user and per server, slow clients,
//! keep-alives); streams that end with the session or the license; the metrics; and several servers
//! on one PostgreSQL.
//!
//! A negative ("bob hears nothing of it") is proved by a later event bob does hear, a message to him:
//! it must be the first thing his stream delivers (`support::live::probe`).

mod assets;
mod bounds;
mod comments;
mod endings;
mod invites_and_registrations;
mod messages;
mod replay;
mod replay_cost;
mod several_servers;
mod tickets;
mod workflow;
