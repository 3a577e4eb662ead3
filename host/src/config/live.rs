//! The `[live]` table: Server-Sent Event streams (`GET /v0/events`, conventions section 14).

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Bounds and timings of the live-update streams.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct LiveConfig {
    /// Streams this server holds open at once; one more answers 503 with `Retry-After`.
    pub max_streams: usize,
    /// Streams one user holds open at once on this server; one more answers 429 with `Retry-After`.
    pub max_streams_per_user: usize,
    /// Events waiting to be written to one stream. A client that does not read while this many
    /// queue up is dropped (it reconnects with `Last-Event-ID` and gets them replayed), so a slow
    /// reader costs a bounded amount of memory.
    pub stream_buffer: usize,
    /// Seconds an event can be replayed to a client reconnecting with `Last-Event-ID`; rows
    /// older than this are deleted.
    pub replay_seconds: u64,
    /// Events replayed at most on a reconnection; further back the client gets `event: reset`.
    pub replay_max_events: usize,
    /// Seconds between keep-alive comments on an idle stream.
    pub keep_alive_seconds: u64,
    /// Milliseconds between checks that a stream's session and license are still valid: a
    /// logout or a revoked key ends the stream within this time.
    pub recheck_ms: u64,
    /// Seconds a ticket from `POST /v0/events/ticket` can be redeemed.
    pub ticket_seconds: u64,
    /// Seconds one stream stays open at most; then it ends and the client reconnects with
    /// `Last-Event-ID`, missing nothing. Bounds what one connection holds, and lets a load balancer
    /// spread long-lived clients again.
    pub max_stream_seconds: u64,
}

impl Default for LiveConfig {
    fn default() -> Self {
        Self {
            max_streams: 10_000,
            max_streams_per_user: 5,
            stream_buffer: 256,
            replay_seconds: 300,
            replay_max_events: 1_000,
            keep_alive_seconds: 15,
            recheck_ms: 2_000,
            ticket_seconds: 60,
            max_stream_seconds: 3_600,
        }
    }
}

impl LiveConfig {
    pub fn keep_alive(&self) -> Duration {
        Duration::from_secs(self.keep_alive_seconds.clamp(1, 15))
    }

    pub fn recheck(&self) -> Duration {
        Duration::from_millis(self.recheck_ms.clamp(50, 5_000))
    }

    pub fn replay_window(&self) -> Duration {
        Duration::from_secs(self.replay_seconds.max(1))
    }

    pub fn max_stream_lifetime(&self) -> Duration {
        Duration::from_secs(self.max_stream_seconds.clamp(1, 86_400))
    }

    pub fn ticket_lifetime(&self) -> Duration {
        Duration::from_secs(self.ticket_seconds.clamp(1, 600))
    }
}
