//! Running modules: the engine, the calls the host crate makes (`calls.rs`), and one invocation's life (here):
//! a store with its deadline and memory cap (`state.rs`), the bounded call, and the verdict (`failure.rs`).

pub(crate) mod admission;
pub(crate) mod analysis;
pub(crate) mod calls;
pub(crate) mod clock;
pub(crate) mod engine;
pub(crate) mod failure;
pub(crate) mod guests;
pub(crate) mod metrics;
pub(crate) mod output;
pub(crate) mod replays;
pub(crate) mod state;

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use wasmtime::{Store, UpdateDeadline};

use crate::capabilities::key_value::CommitRefused;
use crate::invoke::clock::GuestClock;
use crate::invoke::failure::{DeadlineExceeded, ModuleFailure, WallClockExceeded};
use crate::invoke::state::{Capabilities, HostVerdict, StoreState};
use crate::load::LoadedModule;

/// How often the outer timeout looks again while the clocks stand still (a capability call).
const PAUSED_RECHECK: Duration = Duration::from_millis(50);

/// Sets the memory cap and the budgets of a fresh store.
///
/// Both budgets (see `clock.rs`) are checked at every epoch tick: while guest time and wall time are left,
/// the guest yields to tokio once per tick (so a long analysis step does not hold a worker thread, and the
/// wait until it is polled again is not its time); once either is spent, the guest traps.
pub(crate) fn configure_store(store: &mut Store<StoreState>) {
    store.limiter(|state| &mut state.limiter);
    store.set_epoch_deadline(1);
    store.epoch_deadline_callback(|mut ctx| {
        let clock = &ctx.data().clock;
        let verdict = if clock.guest_left().is_zero() {
            HostVerdict::Deadline
        } else if Instant::now() >= clock.wall_deadline() {
            HostVerdict::WallClock
        } else {
            return Ok(UpdateDeadline::Yield(1));
        };
        ctx.data_mut().verdict.get_or_insert(verdict);
        Err(DeadlineExceeded.into())
    });
}

pub(crate) fn new_store(
    engine: &wasmtime::Engine,
    caps: &Arc<Capabilities>,
    space_id: String,
    clock: Arc<GuestClock>,
    memory_limit: usize,
) -> Store<StoreState> {
    let mut store = Store::new(engine, StoreState::new(caps.clone(), space_id, clock, memory_limit));
    configure_store(&mut store);
    store
}

/// Runs `call` (instantiate + one export) under the store's budgets: its polls are the guest's time, and the
/// outer timeout ends it at the wall deadline, also when it waits inside a host call that ignores the
/// budgets (a WASI sleep, say). Capability calls stop both clocks and are bounded by the host itself.
pub(crate) async fn bounded<T>(
    clock: Arc<GuestClock>,
    call: impl Future<Output = wasmtime::Result<T>>,
) -> wasmtime::Result<T> {
    let mut call = std::pin::pin!(call);
    let mut metered = std::pin::pin!(std::future::poll_fn(|cx| {
        let _run = clock.run();
        call.as_mut().poll(cx)
    }));
    loop {
        let mut until = clock.wall_deadline();
        if clock.is_paused() {
            until = until.max(Instant::now() + PAUSED_RECHECK);
        }
        match tokio::time::timeout_at(until.into(), &mut metered).await {
            Ok(outcome) => return outcome,
            Err(_) if !clock.is_paused() && clock.wall_deadline() <= Instant::now() => {
                return Err(WallClockExceeded.into());
            }
            Err(_) => continue,
        }
    }
}

/// How long committing a call's key-value writes may wait for the database.
const COMMIT_TIMEOUT: Duration = Duration::from_secs(5);

/// Commits the key-value writes of an attempt that answered well (`key_value/txn.rs`). A conflict is
/// [`ModuleFailure::Conflict`], not recorded: [`replays::until_committed`] runs the call again.
pub(crate) async fn commit(module: &LoadedModule, store: &mut Store<StoreState>) -> Result<(), ModuleFailure> {
    let state = store.data_mut();
    let writes = state.kv_txn.take_writes();
    if writes.is_empty() {
        return Ok(());
    }
    let Some(kv) = state.caps.key_value.clone() else {
        return Err(record(module, ModuleFailure::Host("key-value writes without the key-value grant".into())));
    };
    match tokio::time::timeout(COMMIT_TIMEOUT, kv.commit(&state.scope, &writes)).await {
        Ok(Ok(Ok(()))) => Ok(()),
        Ok(Ok(Err(CommitRefused::Conflict))) => Err(ModuleFailure::Conflict { attempts: 1 }),
        Ok(Ok(Err(CommitRefused::Quota(why)))) => Err(record(module, ModuleFailure::KvQuota(why))),
        Ok(Err(err)) => Err(record(module, ModuleFailure::Host(format!("committing key-value writes: {err:#}")))),
        Err(_) => Err(record(module, ModuleFailure::Host("committing key-value writes timed out".into()))),
    }
}

/// Logs and counts a failure of `module`, then hands it back.
pub(crate) fn record(module: &LoadedModule, failure: ModuleFailure) -> ModuleFailure {
    if let Some(kind) = failure.kind() {
        module.failures.record(kind);
        tracing::warn!(
            module = %module.manifest.id,
            version = %module.manifest.version,
            kind = kind.as_str(),
            error = %failure,
            "module invocation failed"
        );
    }
    failure
}

/// The verdict on a finished call: its value, or the classified, logged and counted failure. What the guest
/// wrote to stdout and stderr goes to the logs first; a trap is named by the guest's panic message, if any.
pub(crate) fn settle<T>(
    module: &LoadedModule,
    store: &Store<StoreState>,
    outcome: wasmtime::Result<T>,
) -> Result<T, ModuleFailure> {
    let state = store.data();
    module.failures.record_call(state.started.elapsed(), state.limiter.peak as u64);
    let stderr = state.stderr.take();
    let (module_id, space) = (state.caps.module_id.as_str(), state.scope.space_id.as_str());
    if let Some((text, dropped)) = state.stdout.take() {
        output::emit(output::Stream::Stdout, &text, dropped, module_id, space, &state.caps.log_budget);
    }
    if let Some((text, dropped)) = &stderr {
        output::emit(output::Stream::Stderr, text, *dropped, module_id, space, &state.caps.log_budget);
    }
    outcome.map_err(|err| {
        let failure = match ModuleFailure::from_wasmtime(&err, state) {
            ModuleFailure::Trap(trap) => {
                let panic = stderr.as_ref().and_then(|(text, _)| output::panic_message(text));
                ModuleFailure::Trap(panic.map_or(trap, |panic| failure::truncate(panic, 512)))
            }
            failure => failure,
        };
        record(module, failure)
    })
}

/// A JSON body or nothing, within the size cap.
pub(crate) fn check_body(body: &str) -> Result<(), String> {
    if body.len() > crate::api::MAX_RESPONSE_BODY_BYTES {
        return Err(format!("body is larger than {} bytes", crate::api::MAX_RESPONSE_BODY_BYTES));
    }
    if body.is_empty() {
        return Ok(());
    }
    serde_json::from_str::<serde::de::IgnoredAny>(body).map(|_| ()).map_err(|err| format!("body is not JSON: {err}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_must_be_empty_or_json() {
        assert!(check_body("").is_ok());
        assert!(check_body(r#"{"a":[1,2]}"#).is_ok());
        assert!(check_body("not json").is_err());
        assert!(check_body(r#"{"a":1} trailing"#).is_err());
    }
}
