//! The threads inference runs on: a few of the server's own, at the lowest scheduling priority, so
//! decoding and models take what the request threads leave and never run on the request executor.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::oneshot;

type Work = Box<dyn FnOnce() + Send>;

/// A fixed set of low-priority threads fed through a channel. Work waits for a free thread.
#[derive(Clone)]
pub struct InferencePool {
    sender: mpsc::Sender<Work>,
}

/// Why a piece of work gave no answer.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PoolError {
    #[error("took longer than {0} ms")]
    TimedOut(u128),
    #[error("the inference thread failed: {0}")]
    Panicked(String),
}

impl InferencePool {
    /// Starts `threads` threads (at least one) named `inference-N`.
    pub fn new(threads: usize) -> Self {
        Self::named("inference", threads)
    }

    /// Starts `threads` threads (at least one) named `NAME-N`.
    pub fn named(name: &str, threads: usize) -> Self {
        let (sender, receiver) = mpsc::channel::<Work>();
        let receiver = Arc::new(Mutex::new(receiver));
        for index in 0..threads.max(1) {
            let receiver = receiver.clone();
            std::thread::Builder::new()
                .name(format!("{name}-{index}"))
                .spawn(move || {
                    lower_priority();
                    loop {
                        let next = receiver.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).recv();
                        match next {
                            Ok(work) => work(),
                            Err(_) => return,
                        }
                    }
                })
                .expect("starting an inference thread");
        }
        Self { sender }
    }

    /// Runs `work` on a pool thread and waits at most `timeout` (queueing included) for its answer.
    /// Work that runs over keeps its thread until it ends, so at most `threads` such pieces run at once.
    pub async fn run<T: Send + 'static>(
        &self,
        timeout: Duration,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, PoolError> {
        let (answer, answered) = oneshot::channel();
        let wrapped: Work = Box::new(move || {
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
            let _ = answer.send(outcome.map_err(|panic| panic_text(&*panic)));
        });
        self.sender.send(wrapped).map_err(|_| PoolError::Panicked("the pool has stopped".into()))?;
        match tokio::time::timeout(timeout, answered).await {
            Err(_) => Err(PoolError::TimedOut(timeout.as_millis())),
            Ok(Err(_)) => Err(PoolError::Panicked("the work was dropped".into())),
            Ok(Ok(outcome)) => outcome.map_err(PoolError::Panicked),
        }
    }
}

/// Nice 19 for this thread (Linux sets niceness per thread; threads and programs it starts inherit it).
fn lower_priority() {
    #[cfg(target_os = "linux")]
    if let Err(error) = rustix::process::setpriority_process(Some(rustix::thread::gettid()), 19) {
        tracing::warn!(%error, "could not lower the priority of an inference thread");
    }
}

fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panicked".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn work_answers_and_panics_and_timeouts_are_reported() {
        let pool = InferencePool::new(1);

        assert_eq!(pool.run(Duration::from_secs(5), || 2 + 2).await, Ok(4));
        // Generous: the panic hook prints a backtrace from a thread at the lowest priority, which a busy
        // test machine may leave waiting for seconds; what is tested is that the panic is reported.
        let panicked = pool.run(Duration::from_secs(60), || -> u8 { panic!("boom") }).await;
        assert_eq!(panicked, Err(PoolError::Panicked("boom".into())));
        let slow = pool.run(Duration::from_millis(20), || std::thread::sleep(Duration::from_millis(300))).await;
        assert_eq!(slow, Err(PoolError::TimedOut(20)));
        // The pool still works after a panic and a timeout.
        assert_eq!(pool.run(Duration::from_secs(5), || "ok").await, Ok("ok"));
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn pool_threads_run_at_the_lowest_priority() {
        let pool = InferencePool::new(1);
        let nice = pool.run(Duration::from_secs(5), || rustix::process::getpriority_process(None)).await.unwrap();

        assert_eq!(nice.unwrap(), 19);
    }
}
