//! The repository layer: every SQL statement of the service lives below this module.
//!
//! One implementation serves SQLite and PostgreSQL through sqlx's `Any` driver. The queries are
//! written once in the SQL both engines share (`$n` placeholders, `on conflict ... do update`,
//! `returning`), with ids as text, times as epoch milliseconds and flags as integers, because the
//! `Any` driver maps only those types identically on both. Where the engines truly differ, a
//! method matches on [`Engine`]. Each engine has its own migration folder, numbered alike.

mod batch;
mod challenges;
mod forms;
mod instances;
mod licenses;
mod media;
mod migrations;
mod module_deliveries;
mod module_kv;
mod quotas;
mod sessions;
mod spaces;
mod users;
mod workflow_items;
mod workflows;

use std::str::FromStr;
use std::time::Duration;

use anyhow::Context;
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyPool, Executor};

pub use challenges::{Challenge, ChallengePurpose, NewChallenge};
pub use forms::{ConfigurationChange, ConfigurationFilter, NewConfiguration, StoredConfiguration};
pub use instances::{InstanceContent, InstanceEvent, InstanceFilter, NewEvent, StoredInstance};
pub use licenses::License;
pub use media::{AttachRefusal, StoredAttachment, StoredAvatar};
pub use module_deliveries::Delivery;
pub use module_kv::ModuleKv;
pub use sessions::SessionUser;
pub use spaces::{MemberSpace, NewSpaceRow, SpaceChange, SpaceModule, StoredSpace};
pub use users::{NewUser, User};
pub use workflow_items::{ListedItem, NewWorkflowEvent, StoredItem, WorkflowEvent};
pub use workflows::{Grant, StoredWorkflow};

/// Failures the domain distinguishes; everything else is `Other` and becomes INTERNAL.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("no such row")]
    NotFound,
    #[error("unique constraint violated: {0}")]
    Conflict(String),
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

impl From<sqlx::Error> for StoreError {
    fn from(error: sqlx::Error) -> Self {
        match error {
            sqlx::Error::RowNotFound => Self::NotFound,
            sqlx::Error::Database(db) if db.is_unique_violation() => Self::Conflict(db.message().to_owned()),
            other => Self::Other(other.into()),
        }
    }
}

pub type StoreResult<T> = Result<T, StoreError>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    Sqlite,
    Postgres,
}

/// The service's database.
///
/// Writes go through `writer`. On SQLite that is a pool of one connection: SQLite admits one
/// writer at a time, and queueing writers in the pool (first come, first served) beats letting
/// them collide on the file lock and back off in SQLite's busy handler, which sleeps in steps of
/// milliseconds and made tail latency under concurrent writes ten times worse. On PostgreSQL
/// both names are the same pool.
#[derive(Clone, Debug)]
pub struct Store {
    pool: AnyPool,
    writer: AnyPool,
    /// Group commit in front of the SQLite writer; `None` on PostgreSQL.
    batcher: Option<batch::Batcher>,
    engine: Engine,
}

impl Store {
    /// Connects (creating the SQLite file when needed); does not migrate.
    pub async fn connect(url: &str, max_connections: u32) -> anyhow::Result<Self> {
        sqlx::any::install_default_drivers();
        let engine = if url.starts_with("sqlite:") {
            Engine::Sqlite
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Engine::Postgres
        } else {
            anyhow::bail!("database url must start with sqlite: or postgres:");
        };
        if engine == Engine::Sqlite {
            create_sqlite_parent(url)?;
        }
        let options = AnyConnectOptions::from_str(url).context("parsing the database url")?;
        let max = match (max_connections, engine) {
            (0, Engine::Sqlite) => 8,
            (0, Engine::Postgres) => 16,
            (n, _) => n,
        };
        let pool = Self::pool_options(engine, max)
            .connect_with(options.clone())
            .await
            .context("connecting to the database")?;
        let writer = match engine {
            Engine::Sqlite => {
                Self::pool_options(engine, 1).connect_with(options).await.context("connecting to the database")?
            }
            Engine::Postgres => pool.clone(),
        };
        let batcher = (engine == Engine::Sqlite).then(|| batch::Batcher::start(writer.clone()));
        Ok(Self { pool, writer, batcher, engine })
    }

    fn pool_options(engine: Engine, max: u32) -> AnyPoolOptions {
        AnyPoolOptions::new()
            .max_connections(max)
            .min_connections(1)
            .acquire_timeout(Duration::from_secs(30))
            // A ping before every acquire would double the round trips of short queries; a
            // broken connection fails its query and is replaced anyway.
            .test_before_acquire(false)
            .after_connect(move |conn, _meta| {
                Box::pin(async move {
                    if engine == Engine::Sqlite {
                        // WAL lets readers run beside the writer; NORMAL sync is durable in WAL mode
                        // except for the last transactions before a power cut.
                        // Checkpoints run in the background (see `checkpoint`), not inside whichever
                        // request's commit crosses the threshold: they fsync and took ~300 ms.
                        conn.execute("pragma journal_mode = wal; pragma synchronous = normal; pragma foreign_keys = on; pragma busy_timeout = 10000; pragma wal_autocheckpoint = 0;").await?;
                    }
                    Ok(())
                })
            })
    }

    pub async fn migrate(&self) -> anyhow::Result<()> {
        let migrator = migrations::migrator(self.engine).await.context("reading the embedded migrations")?;
        migrator.run(&self.writer).await.context("applying migrations")
    }

    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// Cheap round trip for readiness checks.
    pub async fn ping(&self) -> StoreResult<()> {
        sqlx::query("select 1").execute(&self.pool).await?;
        Ok(())
    }

    /// Runs `work` in a write transaction: on SQLite through the group-commit queue (so `work`
    /// may run twice, see `batch`), on PostgreSQL in a transaction of its own.
    pub(crate) async fn write<T, F>(&self, work: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: for<'c> Fn(&'c mut sqlx::AnyConnection) -> futures::future::BoxFuture<'c, StoreResult<T>>
            + Send
            + Sync
            + 'static,
    {
        match &self.batcher {
            Some(batcher) => batcher.run(work).await,
            None => {
                let mut tx = self.writer.begin().await?;
                let value = work(&mut tx).await?;
                tx.commit().await?;
                Ok(value)
            }
        }
    }

    /// Copies the SQLite write-ahead log into the database file without blocking writers; the
    /// server calls it every second. A no-op on PostgreSQL.
    pub async fn checkpoint(&self) -> StoreResult<()> {
        if self.engine == Engine::Sqlite {
            sqlx::query("pragma wal_checkpoint(passive)").execute(&self.pool).await?;
        }
        Ok(())
    }

    pub async fn close(&self) {
        self.pool.close().await;
        self.writer.close().await;
    }
}

fn create_sqlite_parent(url: &str) -> anyhow::Result<()> {
    let path = url.trim_start_matches("sqlite://").trim_start_matches("sqlite:");
    let path = path.split('?').next().unwrap_or_default();
    if path.is_empty() || path == ":memory:" {
        return Ok(());
    }
    if let Some(parent) = std::path::Path::new(path).parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    }
    Ok(())
}

/// Milliseconds since the epoch, the unit every time column uses.
pub fn to_millis(at: time::OffsetDateTime) -> i64 {
    (at.unix_timestamp_nanos() / 1_000_000) as i64
}

pub fn from_millis(millis: i64) -> time::OffsetDateTime {
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(millis) * 1_000_000)
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH)
}
