//! Group commit for SQLite: concurrent write jobs queue up, and the single writer runs as many as
//! are waiting in one transaction. A commit writes every changed page to the log once, so sharing
//! it among many inserts is what lets the embedded default take thousands of writes per second.
//!
//! A job is a closure over the connection that can run more than once: when any job of a batch
//! fails, the batch is rolled back and each job is run again in a transaction of its own, so one
//! bad job never fails its neighbours and nothing half-written remains.

use std::sync::Mutex;

use futures::future::BoxFuture;
use sqlx::{AnyConnection, AnyPool, Connection};
use tokio::sync::{mpsc, oneshot};

use super::{StoreError, StoreResult};

/// Jobs run together in one transaction at the most.
const MAX_BATCH: usize = 128;

/// A type-erased job: runs, then delivers its result or its failure to the waiting caller.
trait Job: Send + Sync {
    fn run<'c>(&'c self, conn: &'c mut AnyConnection) -> BoxFuture<'c, StoreResult<()>>;
    fn deliver(self: Box<Self>);
    fn fail(self: Box<Self>, error: StoreError);
}

struct TypedJob<T, F> {
    work: F,
    output: Mutex<Option<T>>,
    reply: oneshot::Sender<StoreResult<T>>,
}

impl<T, F> Job for TypedJob<T, F>
where
    T: Send + 'static,
    F: for<'c> Fn(&'c mut AnyConnection) -> BoxFuture<'c, StoreResult<T>> + Send + Sync + 'static,
{
    fn run<'c>(&'c self, conn: &'c mut AnyConnection) -> BoxFuture<'c, StoreResult<()>> {
        Box::pin(async move {
            let value = (self.work)(conn).await?;
            *self.output.lock().expect("job output lock") = Some(value);
            Ok(())
        })
    }

    fn deliver(self: Box<Self>) {
        let value = self.output.lock().expect("job output lock").take();
        let result = value.ok_or_else(|| StoreError::Other(anyhow::anyhow!("batched job delivered without output")));
        let _ = self.reply.send(result);
    }

    fn fail(self: Box<Self>, error: StoreError) {
        let _ = self.reply.send(Err(error));
    }
}

/// The queue in front of the writer connection.
#[derive(Clone, Debug)]
pub struct Batcher {
    queue: mpsc::UnboundedSender<Box<dyn Job>>,
}

impl Batcher {
    /// Starts the task that drains the queue into `writer` (a pool of one connection).
    pub fn start(writer: AnyPool) -> Self {
        let (queue, jobs) = mpsc::unbounded_channel();
        tokio::spawn(drain(writer, jobs));
        Self { queue }
    }

    /// Runs `work` inside a transaction shared with whatever other jobs are waiting.
    pub async fn run<T, F>(&self, work: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: for<'c> Fn(&'c mut AnyConnection) -> BoxFuture<'c, StoreResult<T>> + Send + Sync + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let job = Box::new(TypedJob { work, output: Mutex::new(None), reply });
        self.queue.send(job).map_err(|_| StoreError::Other(anyhow::anyhow!("the write queue is closed")))?;
        answer.await.map_err(|_| StoreError::Other(anyhow::anyhow!("the write queue dropped a job")))?
    }
}

async fn drain(writer: AnyPool, mut queue: mpsc::UnboundedReceiver<Box<dyn Job>>) {
    while let Some(first) = queue.recv().await {
        let mut jobs = vec![first];
        while jobs.len() < MAX_BATCH {
            match queue.try_recv() {
                Ok(job) => jobs.push(job),
                Err(_) => break,
            }
        }
        let mut conn = match writer.acquire().await {
            Ok(conn) => conn,
            Err(error) => {
                let message = error.to_string();
                for job in jobs {
                    job.fail(StoreError::Other(anyhow::anyhow!("acquiring the writer: {message}")));
                }
                continue;
            }
        };
        if jobs.len() > 1 && run_together(&mut conn, &jobs).await.is_ok() {
            jobs.into_iter().for_each(|job| job.deliver());
            continue;
        }
        for job in jobs {
            match run_alone(&mut conn, job.as_ref()).await {
                Ok(()) => job.deliver(),
                Err(error) => job.fail(error),
            }
        }
    }
}

async fn run_together(conn: &mut AnyConnection, jobs: &[Box<dyn Job>]) -> StoreResult<()> {
    let mut tx = conn.begin().await?;
    for job in jobs {
        job.run(&mut tx).await?;
    }
    tx.commit().await?;
    Ok(())
}

async fn run_alone(conn: &mut AnyConnection, job: &dyn Job) -> StoreResult<()> {
    let mut tx = conn.begin().await?;
    job.run(&mut tx).await?;
    tx.commit().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use time::OffsetDateTime;

    use crate::store::{InstanceContent, NewConfiguration, NewUser, Store, StoreError};

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failing_job_fails_alone_and_its_batch_neighbours_are_stored() {
        // Arrange
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("t.db").display());
        let store = Store::connect(&url, 4).await.unwrap();
        store.migrate().await.unwrap();
        let now = OffsetDateTime::now_utc();
        let user = store
            .users
            .insert_user(
                &NewUser {
                    email: "a@example.org",
                    handle: "ann",
                    full_name: "A",
                    display_name: "A",
                    password_hash: "x",
                },
                now,
            )
            .await
            .unwrap();
        let configuration_id = uuid::Uuid::new_v4().to_string();
        let new = NewConfiguration {
            configuration_id: &configuration_id,
            owner_id: &user.user_id,
            document: "{}",
            editors: "[]",
            languages: &[],
        };
        store.forms.insert_configuration(&new, now).await.unwrap();
        // Act: 60 concurrent inserts; every third names a configuration that does not exist.
        let mut tasks = Vec::new();
        for i in 0..60 {
            let (store, owner) = (store.clone(), user.user_id.clone());
            let configuration = if i % 3 == 0 { uuid::Uuid::new_v4().to_string() } else { configuration_id.clone() };
            tasks.push(tokio::spawn(async move {
                let content = InstanceContent {
                    state: "DRAFT",
                    language: "en",
                    answers: "{}",
                    metadata: None,
                    integrations: None,
                    space_id: None,
                };
                let form_id = uuid::Uuid::new_v4().to_string();
                let outbox = std::sync::Arc::default();
                let now = OffsetDateTime::now_utc();
                store
                    .instances
                    .insert_instance(&form_id, &configuration, &owner, &content, None, &outbox, None, now)
                    .await
            }));
        }
        let results: Vec<_> = futures::future::join_all(tasks).await.into_iter().map(Result::unwrap).collect();
        // Assert
        let (ok, failed): (Vec<_>, Vec<_>) = results.into_iter().partition(Result::is_ok);
        assert_eq!(ok.len(), 40);
        assert_eq!(failed.len(), 20);
        assert!(failed.iter().all(|r| matches!(r, Err(StoreError::Other(_)))));
        let filter = crate::store::InstanceFilter {
            owner_id: &user.user_id,
            configuration_id: None,
            space_id: None,
            states: &[],
        };
        assert_eq!(store.instances.list_instances(&filter, None, 200).await.unwrap().len(), 40);
    }
}
