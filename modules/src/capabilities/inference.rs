//! What every inference capability call (media, vision, speech) goes through: the grant, the guest's
//! clock stopped for the call, the host's own time bounds, and errors cut to size.

use std::future::Future;
use std::sync::Arc;

use crate::analysis::MediaAnalysis;
use crate::api::MAX_MODULE_ERROR_BYTES;
use crate::capabilities::Grant;
use crate::invoke::failure::truncate;
use crate::invoke::state::{HostVerdict, StoreState};

/// Longest name (label, colour, orientation) handed to a guest, in bytes.
pub(crate) const MAX_NAME_BYTES: usize = 200;

impl StoreState {
    /// Runs one capability call for the guest. Refused with a trap (a host bug: the import is linked only
    /// when granted) without the grant; bounded by `call_timeout` (the guest gets an error) and by what is
    /// left of the invocation's capability budget (the invocation ends as over its deadline).
    pub(crate) async fn capability<T, F>(
        &mut self,
        what: &str,
        grant: Grant,
        call: impl FnOnce(Arc<dyn MediaAnalysis>) -> F,
    ) -> wasmtime::Result<Result<T, String>>
    where
        F: Future<Output = Result<T, String>>,
    {
        let access = self.caps.inference;
        let media = match (self.caps.has(grant), self.media.clone()) {
            (true, Some(media)) => media,
            _ => return Err(self.fail(HostVerdict::Host(format!("{what} called without its grant or an asset")))),
        };
        let left = access.invocation_budget.saturating_sub(self.clock.paused_total());
        if left.is_zero() {
            return Err(self.fail(HostVerdict::Deadline));
        }
        let limit = access.call_timeout.min(left);
        let pause = self.clock.pause();
        let outcome = tokio::time::timeout(limit, call(media)).await;
        drop(pause);
        match outcome {
            Ok(Ok(answer)) => Ok(Ok(answer)),
            Ok(Err(message)) => Ok(Err(truncate(message, MAX_MODULE_ERROR_BYTES))),
            Err(_) if limit < access.call_timeout => Err(self.fail(HostVerdict::Deadline)),
            Err(_) => Ok(Err(format!("{what} did not answer within {} ms", limit.as_millis()))),
        }
    }
}

/// A score as a probability: NaN reads as 0, and the rest is clamped to 0..=1.
pub(crate) fn unit(score: f32) -> f32 {
    if score.is_nan() { 0.0 } else { score.clamp(0.0, 1.0) }
}

/// A name or model string within `max` bytes.
pub(crate) fn clip(text: String, max: usize) -> String {
    truncate(text, max)
}
