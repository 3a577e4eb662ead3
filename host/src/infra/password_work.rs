//! Argon2 hashing and verification, bounded: each costs ~19 MiB and a core for tens of
//! milliseconds, so at most `auth.max_parallel_hashes` run at once and at most
//! `auth.max_waiting_hashes` wait; beyond that a request is refused with RATE_LIMITED at once
//! (64 parallel logins once cost +735 MiB and 43 threads).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use tokio::sync::Semaphore;

use crate::domain::account::{self, PasswordCost};
use crate::error::{Error, Result};

pub struct PasswordWork {
    running: Semaphore,
    waiting: AtomicUsize,
    max_waiting: usize,
    cost: PasswordCost,
    /// The decoy a login naming no account is verified against, hashed at `cost` on first use.
    decoy: Arc<OnceLock<String>>,
}

impl PasswordWork {
    pub fn new(max_parallel: usize, max_waiting: usize, cost: PasswordCost) -> Self {
        Self {
            running: Semaphore::new(max_parallel.max(1)),
            waiting: AtomicUsize::new(0),
            max_waiting,
            cost,
            decoy: Arc::default(),
        }
    }

    /// Hashes `password` at the configured cost, once a place is free.
    pub async fn hash(&self, password: String) -> Result<String> {
        let cost = self.cost;
        self.run(move || account::hash_password(&password, cost)).await?.map_err(Error::internal)
    }

    /// Whether `password` matches `stored`, or (with no stored hash: the login named no account)
    /// as long a check against a decoy, which never matches.
    pub async fn verify(&self, password: String, stored: Option<String>) -> Result<bool> {
        let (cost, decoy) = (self.cost, self.decoy.clone());
        self.run(move || match stored {
            Some(stored) => Ok(account::verify_password(&password, &stored)),
            None => {
                // A decoy that could not be made fails the login: checking against nothing would
                // answer at once and tell that the account does not exist.
                let decoy = match decoy.get() {
                    Some(decoy) => decoy.clone(),
                    None => {
                        let hashed = account::decoy_hash(cost).map_err(Error::internal)?;
                        decoy.get_or_init(|| hashed).clone()
                    }
                };
                account::verify_password(&password, &decoy);
                Ok(false)
            }
        })
        .await?
    }

    /// Runs `work` on a blocking thread once a place is free.
    pub async fn run<T: Send + 'static>(&self, work: impl FnOnce() -> T + Send + 'static) -> Result<T> {
        if self.waiting.fetch_add(1, Ordering::AcqRel) >= self.max_waiting {
            self.waiting.fetch_sub(1, Ordering::AcqRel);
            return Err(Error::RateLimited { retry_after_seconds: 1 });
        }
        let permit = self.running.acquire().await;
        self.waiting.fetch_sub(1, Ordering::AcqRel);
        let _permit = permit.map_err(Error::internal)?;
        tokio::task::spawn_blocking(work).await.map_err(Error::internal)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn beyond_the_waiting_places_work_is_refused_at_once() {
        let work = Arc::new(PasswordWork::new(1, 1, PasswordCost::RECOMMENDED));
        let slow = || std::thread::sleep(Duration::from_millis(300));
        let running = tokio::spawn({
            let work = work.clone();
            async move { work.run(slow).await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        let waiting = tokio::spawn({
            let work = work.clone();
            async move { work.run(slow).await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        let refused = work.run(|| ()).await;
        assert!(matches!(refused, Err(Error::RateLimited { .. })));
        assert!(running.await.unwrap().is_ok() && waiting.await.unwrap().is_ok());
        assert!(work.run(|| ()).await.is_ok(), "places free up again");
    }
}
