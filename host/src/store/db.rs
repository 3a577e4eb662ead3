//! The database connection every repository shares: the engine, the pools, the group commit in front
//! of SQLite's one writer, and what a commit wakes.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyPool, Executor, Row};

use super::outbox::Outbox;
use super::{StoreResult, batch, live, migrations};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    Sqlite,
    Postgres,
}

/// The database connection every repository shares.
///
/// Writes go through `writer`. On SQLite that is a pool of one connection: SQLite admits one
/// writer at a time, and queueing writers in the pool (first come, first served) beats letting
/// them collide on the file lock and back off in SQLite's busy handler, which sleeps in steps of
/// milliseconds and made tail latency under concurrent writes ten times worse. On PostgreSQL
/// both names are the same pool.
#[derive(Clone, Debug)]
pub struct Db {
    pub(super) pool: AnyPool,
    pub(super) writer: AnyPool,
    /// Group commit in front of the SQLite writer; `None` on PostgreSQL.
    pub(super) batcher: Option<batch::Batcher>,
    pub(super) engine: Engine,
    /// Wakes this process's job workers when a commit queued jobs (other servers' workers poll).
    pub(super) job_wake: Arc<tokio::sync::Notify>,
    /// Wakes this process's live-event dispatcher when events can be sent: on SQLite a commit
    /// wrote them, on PostgreSQL the sequencer numbered them (other servers hear of them by `NOTIFY`).
    pub(super) live_wake: Arc<tokio::sync::Notify>,
    /// Wakes this process's live-event sequencer when a commit wrote events (PostgreSQL only; see
    /// `store::live`).
    pub(super) sequencer_wake: Arc<tokio::sync::Notify>,
    /// The passes of this process's sequencer task (`jobs::live_sequencer`), if it runs one,
    /// which a commit that wrote events waits for.
    pub(super) sequencer_passes: Arc<live::Passes>,
}

/// Write-ahead log frames (pages of 4 KiB: 256 MiB) past which a checkpoint makes the log start over. Each
/// start-over holds the writer for its sync (and for readers to leave): at 64 MiB that came every 3 s of
/// steady writing, and the p99 of transitions went from 23 to 56 ms.
const WAL_RESTART_FRAMES: i64 = 65_536;
/// How long that checkpoint holds the writer waiting for readers to leave the log (200 ms); it tries
/// again a second later when they have not. Then the connection's usual wait is set back.
const WAL_RESTART_WAIT: &str = "pragma busy_timeout = 200";
const BUSY_TIMEOUT: &str = "pragma busy_timeout = 10000";

/// Every SQLite connection's settings. WAL lets readers run beside the writer; NORMAL sync is durable
/// in WAL mode except for the last transactions before a power cut. A statement waits up to 10 s for
/// a lock. Checkpoints run in the background (see [`Db::checkpoint`]), not inside whichever request's
/// commit crosses the threshold: they fsync and took ~300 ms. A log that starts over is cut back to
/// 256 MiB (`journal_size_limit`), so the disk it holds stays bounded.
const SQLITE_PRAGMAS: &str = "pragma journal_mode = wal; pragma synchronous = normal; pragma foreign_keys = on; \
     pragma busy_timeout = 10000; pragma wal_autocheckpoint = 0; pragma journal_size_limit = 268435456;";

impl Db {
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
        Ok(Self {
            pool,
            writer,
            batcher,
            engine,
            job_wake: Arc::new(tokio::sync::Notify::new()),
            live_wake: Arc::new(tokio::sync::Notify::new()),
            sequencer_wake: Arc::new(tokio::sync::Notify::new()),
            sequencer_passes: Arc::default(),
        })
    }

    pub(super) fn pool_options(engine: Engine, max: u32) -> AnyPoolOptions {
        AnyPoolOptions::new()
            .max_connections(max)
            .min_connections(1)
            // SQLite cannot be away, so a wait for a connection is a queue behind the one writer;
            // a PostgreSQL that is away answers no connect, and a request should hear 503 with
            // Retry-After soon rather than hang.
            .acquire_timeout(match engine {
                Engine::Sqlite => Duration::from_secs(30),
                Engine::Postgres => Duration::from_secs(5),
            })
            // A ping before every acquire would double the round trips of short queries; a
            // broken connection fails its query and is replaced anyway.
            .test_before_acquire(false)
            .after_connect(move |conn, _meta| {
                Box::pin(async move {
                    if engine == Engine::Sqlite {
                        conn.execute(SQLITE_PRAGMAS).await?;
                    }
                    Ok(())
                })
            })
    }

    pub async fn migrate(&self) -> anyhow::Result<()> {
        self.migrate_up_to(i64::MAX).await
    }

    pub(super) async fn migrate_up_to(&self, version: i64) -> anyhow::Result<()> {
        let migrator =
            migrations::migrator_up_to(self.engine, version).await.context("reading the embedded migrations")?;
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

    /// Call after the commit of a write that wrote `outbox`: its jobs can be claimed now.
    /// Its live events go out first, so that what a job's worker then writes follows them.
    pub(super) async fn committed(&self, outbox: &Outbox) {
        self.committed_with(outbox, false).await;
    }

    /// As [`Db::committed`], for a write that also wrote live events of its own (`wrote_live`):
    /// they are numbered in the same wait as the outbox's.
    pub(super) async fn committed_with(&self, outbox: &Outbox, wrote_live: bool) {
        if wrote_live || outbox.has_live() {
            self.live_committed().await;
        }
        if outbox.has_jobs() {
            self.job_wake.notify_waiters();
        }
    }

    /// Call after the commit of a write that wrote live events. On PostgreSQL it returns once they
    /// are numbered, so they are visible (and a stream opened next starts after them) when the
    /// request answers: by this process's sequencer, whose next pass it waits for (one pass numbers
    /// what many commits wrote), or, in a process that runs none (a command, a program using the
    /// store), by a pass of its own.
    pub(super) async fn live_committed(&self) {
        match self.engine {
            Engine::Sqlite => self.live_wake.notify_one(),
            Engine::Postgres if self.sequencer_passes.running() => {
                let passed = self.sequencer_passes.after_now();
                self.sequencer_wake.notify_one();
                // Bounded: when numbering fails, the events go out later and the request still answers.
                let _ = tokio::time::timeout(std::time::Duration::from_secs(1), passed).await;
            }
            Engine::Postgres => {
                if let Err(error) = live::number_committed(self).await {
                    // A server's sequencer numbers them within a second.
                    tracing::warn!(%error, "live events: numbering committed events failed");
                }
            }
        }
    }

    /// Copies the SQLite write-ahead log into the database file without blocking writers; the
    /// server calls it every second. A no-op on PostgreSQL.
    ///
    /// A passive checkpoint never lets the log start over while reads and writes keep coming: in a
    /// soak it grew by 19 MB a second (5 GB in 4.5 minutes), its index mapped into every
    /// connection. Past [`WAL_RESTART_FRAMES`] a RESTART checkpoint, on the writer connection so
    /// that no write waits on its lock, copies what the passive one left and waits (at most
    /// [`WAL_RESTART_WAIT`]) for readers to leave the log; the next write then starts it from the
    /// beginning, cut back to `journal_size_limit`.
    pub async fn checkpoint(&self) -> StoreResult<()> {
        if self.engine != Engine::Sqlite {
            return Ok(());
        }
        let row = sqlx::query("pragma wal_checkpoint(passive)").fetch_one(&self.pool).await?;
        let frames: i64 = row.try_get("log")?;
        if frames < WAL_RESTART_FRAMES {
            return Ok(());
        }
        let mut writer = self.writer.acquire().await?;
        writer.execute(WAL_RESTART_WAIT).await?;
        let restarted = sqlx::query("pragma wal_checkpoint(restart)").fetch_one(&mut *writer).await;
        writer.execute(BUSY_TIMEOUT).await?;
        if restarted?.try_get::<i64, _>("busy")? != 0 {
            tracing::debug!(
                frames,
                "the write-ahead log could not start over yet; trying again at the next checkpoint"
            );
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
    let path = std::path::Path::new(path);
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    }
    crate::infra::private_files::private_file(path).with_context(|| format!("creating {}", path.display()))
}
