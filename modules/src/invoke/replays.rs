//! Calls whose key-value writes lost a commit race are run again ([`until_committed`]). The replays of
//! one module in one space take turns: a replay then races only first attempts, which end, so a burst of
//! calls on one shared document (a poll kept as one JSON value) ends with every call committed instead
//! of some giving up after a few lost races. Each lost race is another call's commit, so a call in its turn
//! loses only while others progress; one that loses [`MAX_ATTEMPTS`] times gives up with
//! [`ModuleFailure::Conflict`], which the host answers with 409 and `Retry-After`.

use std::future::Future;
use std::hash::BuildHasher;

use tokio::sync::{Mutex, MutexGuard};

use crate::invoke::failure::ModuleFailure;

/// Turns are kept in this many stripes; two scopes that share a stripe only take turns needlessly.
const STRIPES: usize = 64;
/// Attempts of one call at most. Each is bounded by the call's deadline and `max_call_wait_ms`.
pub(crate) const MAX_ATTEMPTS: u32 = 32;

/// One turn per stripe of (module, space).
pub(crate) struct ReplayTurns {
    stripes: Box<[Mutex<()>]>,
    hasher: std::collections::hash_map::RandomState,
}

impl ReplayTurns {
    pub(crate) fn new() -> Self {
        Self { stripes: (0..STRIPES).map(|_| Mutex::new(())).collect(), hasher: Default::default() }
    }

    async fn turn(&self, module_id: &str, space_id: &str) -> MutexGuard<'_, ()> {
        self.stripes[self.hasher.hash_one((module_id, space_id)) as usize % STRIPES].lock().await
    }
}

/// Runs `attempt` until it does not end in a commit conflict. Each attempt is a fresh instance on a
/// fresh store whose writes were discarded, so running it again is safe for everything but outbound HTTP
/// requests (the guides say so). After the first lost race the call waits for its scope's turn (waiting
/// while others progress: only admitted calls wait, `max_calls_per_space` long at most) and runs again in
/// it, at most [`MAX_ATTEMPTS`] attempts in all.
pub(crate) async fn until_committed<T, F>(
    turns: &ReplayTurns,
    (module_id, space_id): (&str, &str),
    mut attempt: impl FnMut() -> F,
) -> Result<T, ModuleFailure>
where
    F: Future<Output = Result<T, ModuleFailure>>,
{
    match attempt().await {
        Err(ModuleFailure::Conflict { .. }) => {}
        done => return done,
    }
    let _turn = turns.turn(module_id, space_id).await;
    for attempts in 2..=MAX_ATTEMPTS {
        match attempt().await {
            Err(ModuleFailure::Conflict { .. }) if attempts < MAX_ATTEMPTS => {}
            Err(ModuleFailure::Conflict { .. }) => break,
            done => return done,
        }
    }
    let failure = ModuleFailure::Conflict { attempts: MAX_ATTEMPTS };
    tracing::warn!(module = module_id, space = space_id, error = %failure, "module call gave up");
    Err(failure)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;

    #[tokio::test]
    async fn a_call_that_keeps_losing_gives_up_after_its_attempts() {
        let turns = ReplayTurns::new();
        let runs = AtomicU32::new(0);
        let lost = until_committed(&turns, ("m", "s"), || async {
            runs.fetch_add(1, Ordering::SeqCst);
            Err::<(), _>(ModuleFailure::Conflict { attempts: 1 })
        })
        .await;
        assert!(matches!(lost, Err(ModuleFailure::Conflict { attempts: MAX_ATTEMPTS })));
        assert_eq!(runs.load(Ordering::SeqCst), MAX_ATTEMPTS);
    }

    #[tokio::test]
    async fn replays_of_one_scope_take_turns() {
        let turns = Arc::new(ReplayTurns::new());
        let inside = Arc::new(AtomicU32::new(0));
        let most = Arc::new(AtomicU32::new(0));
        let calls = (0..8).map(|_| {
            let (turns, inside, most) = (turns.clone(), inside.clone(), most.clone());
            tokio::spawn(async move {
                let mut first = true;
                until_committed(&turns, ("m", "s"), || {
                    let lose = std::mem::replace(&mut first, false);
                    let (inside, most) = (inside.clone(), most.clone());
                    async move {
                        if lose {
                            return Err(ModuleFailure::Conflict { attempts: 1 });
                        }
                        most.fetch_max(inside.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
                        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                        inside.fetch_sub(1, Ordering::SeqCst);
                        Ok(())
                    }
                })
                .await
            })
        });
        for call in calls.collect::<Vec<_>>() {
            call.await.unwrap().unwrap();
        }
        assert_eq!(most.load(Ordering::SeqCst), 1);
    }
}
