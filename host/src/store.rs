//! The repository layer: every SQL statement of the service lives below this module, one
//! repository per aggregate (users, sessions, challenges, licenses, quotas, forms, instances,
//! workflows, workflow items, spaces, comments, published assets, media, module deliveries, module key-value), each in its own
//! file and each holding the shared [`Db`]. [`Store`] is only the set of them. A new aggregate
//! (channels, messages, jobs) is a new file with its repository and one field here.
//!
//! One implementation serves SQLite and PostgreSQL through sqlx's `Any` driver. The queries are
//! written once in the SQL both engines share (`$n` placeholders, `on conflict ... do update`,
//! `returning`), with ids as text, times as epoch milliseconds and flags as integers, because the
//! `Any` driver maps only those types identically on both. Where the engines truly differ, a
//! method matches on [`Engine`]. Each engine has its own migration folder, numbered alike.

mod assets;
mod audit;
mod backup;
mod batch;
mod blobs;
mod challenges;
mod channels;
mod comments;
mod export;
mod forms;
mod instances;
mod jobs;
mod keyset;
mod licenses;
pub mod live;
mod locks;
mod marketplace;
mod media;
mod messages;
mod migrations;
mod module_deliveries;
mod module_kv;
mod outbox;
mod quotas;
mod registrations;
mod sessions;
mod spaces;
mod uploads;
mod users;
mod workflow_items;
mod workflows;

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyPool, Executor, Row};

pub use assets::{AssetFilter, NewAssetRow, StoredAsset, WaitingBound};
pub use backup::snapshot_contents;
pub use challenges::{Challenge, NewChallenge};
pub use channels::{
    ChannelMember, ConnectedSpace, ConnectedSpacesPage, ConnectedSpacesState, InviteOutcome, InviteWrite,
    MemberChannel, NewChannelRow, NewInvitee, STALE_CHANNEL_SPACES, StoredChannel, StoredInvite,
};
pub use comments::{NewComment, StoredComment};
pub use export::{ExportFilter, ExportRepo, ItemScope};
pub use forms::{ConfigurationChange, ConfigurationFilter, NewConfiguration, StoredConfiguration};
pub use instances::{InstanceContent, InstanceEvent, InstanceFilter, NewEvent, StoredInstance};
pub use jobs::{Claim, ClaimedRow, JobDepth, NewJobRow, StoredJob};
pub use licenses::License;
pub use marketplace::{ListedSpace, ListingRow, ListingSignals, StoredListing};
pub use media::{AttachRefusal, StoredAttachment, StoredAvatar};
pub use messages::{Correspondent, NewMessageRow, StoredMessage, StoredThread};
pub use module_deliveries::Delivery;
pub use outbox::Outbox;
pub use registrations::{NewRegistration, StoredRegistration};
pub use sessions::SessionUser;
pub use spaces::{MemberSpace, NewSpaceRow, STALE_SPACE, STALE_SPACE_MODULES, SpaceChange, SpaceModule, StoredSpace};
pub use uploads::{OpenUploadBounds, OpenUploadRefusal, StoredUpload, UPLOAD_KIND, UploadAdvance, UploadRepo};
pub use users::{NewUser, ProfileState, STALE_PROFILE, User};
pub use workflow_items::{ListedItem, NewWorkflowEvent, StoredItem, WorkflowEvent};
pub use workflows::{Grant, Grants, STALE_GRANTS, StoredWorkflow};

/// Failures the domain distinguishes; everything else is `Other` and becomes INTERNAL.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("no such row")]
    NotFound,
    #[error("unique constraint violated: {0}")]
    Conflict(String),
    /// The database cannot be reached for now (down, restarting, out of connections): the
    /// request may be tried again, unlike `Other`.
    #[error("the database is unavailable: {0}")]
    Unavailable(String),
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

impl StoreError {
    /// What a write conditioned on a revision means when it matched no row: with a revision checked
    /// (`checked`), the row moved on since (`Conflict(stale)`); without, there is no such row.
    pub(crate) fn stale_or_missing(checked: bool, stale: &str) -> Self {
        if checked { Self::Conflict(stale.to_owned()) } else { Self::NotFound }
    }
}

impl From<sqlx::Error> for StoreError {
    fn from(error: sqlx::Error) -> Self {
        match error {
            sqlx::Error::RowNotFound => Self::NotFound,
            sqlx::Error::Database(db) if db.is_unique_violation() => Self::Conflict(db.message().to_owned()),
            sqlx::Error::Io(_)
            | sqlx::Error::Tls(_)
            | sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::WorkerCrashed => Self::Unavailable(error.to_string()),
            sqlx::Error::Database(ref db) if db.code().as_deref().is_some_and(is_unavailable_state) => {
                Self::Unavailable(error.to_string())
            }
            other => Self::Other(other.into()),
        }
    }
}

/// SQLSTATEs of a server that is going away or cannot take the connection: connection
/// exceptions (class 08), shutdowns and start-up (57P01 to 57P03), too many connections (53300).
fn is_unavailable_state(state: &str) -> bool {
    state.starts_with("08") || matches!(state, "57P01" | "57P02" | "57P03" | "53300")
}

pub type StoreResult<T> = Result<T, StoreError>;

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
    pool: AnyPool,
    writer: AnyPool,
    /// Group commit in front of the SQLite writer; `None` on PostgreSQL.
    batcher: Option<batch::Batcher>,
    engine: Engine,
    /// Wakes this process's job workers when a commit queued jobs (other servers' workers poll).
    job_wake: Arc<tokio::sync::Notify>,
    /// Wakes this process's live-event dispatcher when events can be sent: on SQLite a commit
    /// wrote them, on PostgreSQL the sequencer numbered them (other servers hear of them by `NOTIFY`).
    live_wake: Arc<tokio::sync::Notify>,
    /// Wakes this process's live-event sequencer when a commit wrote events (PostgreSQL only; see
    /// `store::live`).
    sequencer_wake: Arc<tokio::sync::Notify>,
    /// The passes of this process's sequencer task (`jobs::live_sequencer`), if it runs one,
    /// which a commit that wrote events waits for.
    sequencer_passes: Arc<live::Passes>,
}

pub use assets::AssetRepo;
pub use blobs::{Adopted, BlobRepo, Unaddressed};
pub use challenges::ChallengeRepo;
pub use channels::ChannelRepo;
pub use comments::CommentRepo;
pub use forms::FormRepo;
pub use instances::InstanceRepo;
pub use jobs::JobRepo;
pub use licenses::LicenseRepo;
pub use live::{LiveRepo, StoredLiveEvent, TicketRow};
pub use marketplace::ListingRepo;
pub use media::MediaRepo;
pub use messages::MessageRepo;
pub use module_deliveries::ModuleDeliveryRepo;
pub use module_kv::{KvQuota, ModuleKv};
pub use quotas::{QuotaRepo, QuotaTake};
pub use registrations::RegistrationRepo;
pub use sessions::SessionRepo;
pub use spaces::SpaceRepo;
pub use users::UserRepo;
pub use workflow_items::WorkflowItemRepo;
pub use workflows::WorkflowRepo;

/// The service's database: its repositories over one shared [`Db`]. Cloned on every request
/// (it sits in the handlers' state), so it is one `Arc`, not a clone of each repository.
#[derive(Clone, Debug)]
pub struct Store(Arc<Repositories>);

impl std::ops::Deref for Store {
    type Target = Repositories;

    fn deref(&self) -> &Repositories {
        &self.0
    }
}

/// One repository per aggregate.
#[derive(Debug)]
pub struct Repositories {
    db: Db,
    pub users: UserRepo,
    pub sessions: SessionRepo,
    pub challenges: ChallengeRepo,
    pub licenses: LicenseRepo,
    pub quotas: QuotaRepo,
    pub forms: FormRepo,
    pub instances: InstanceRepo,
    pub workflows: WorkflowRepo,
    pub workflow_items: WorkflowItemRepo,
    pub spaces: SpaceRepo,
    pub channels: ChannelRepo,
    pub comments: CommentRepo,
    pub assets: AssetRepo,
    pub listings: ListingRepo,
    pub registrations: RegistrationRepo,
    pub media: MediaRepo,
    pub blobs: BlobRepo,
    pub messages: MessageRepo,
    pub module_deliveries: ModuleDeliveryRepo,
    pub module_kv: ModuleKv,
    pub jobs: JobRepo,
    pub live: LiveRepo,
    pub export: ExportRepo,
    pub uploads: UploadRepo,
}

impl Store {
    /// Connects (creating the SQLite file when needed); does not migrate.
    pub async fn connect(url: &str, max_connections: u32) -> anyhow::Result<Self> {
        Ok(Self::over(Db::connect(url, max_connections).await?))
    }

    /// Every repository over `db`.
    pub fn over(db: Db) -> Self {
        Self(Arc::new(Repositories {
            users: UserRepo::new(db.clone()),
            sessions: SessionRepo::new(db.clone()),
            challenges: ChallengeRepo::new(db.clone()),
            licenses: LicenseRepo::new(db.clone()),
            quotas: QuotaRepo::new(db.clone()),
            forms: FormRepo::new(db.clone()),
            instances: InstanceRepo::new(db.clone()),
            workflows: WorkflowRepo::new(db.clone()),
            workflow_items: WorkflowItemRepo::new(db.clone()),
            spaces: SpaceRepo::new(db.clone()),
            channels: ChannelRepo::new(db.clone()),
            comments: CommentRepo::new(db.clone()),
            assets: AssetRepo::new(db.clone()),
            listings: ListingRepo::new(db.clone()),
            registrations: RegistrationRepo::new(db.clone()),
            media: MediaRepo::new(db.clone()),
            blobs: BlobRepo::new(db.clone()),
            messages: MessageRepo::new(db.clone()),
            module_deliveries: ModuleDeliveryRepo::new(db.clone()),
            module_kv: ModuleKv::new(db.clone()),
            jobs: JobRepo::new(db.clone()),
            live: LiveRepo::new(db.clone()),
            export: ExportRepo::new(db.clone()),
            uploads: UploadRepo::new(db.clone()),
            db,
        }))
    }

    pub async fn migrate(&self) -> anyhow::Result<()> {
        self.db.migrate().await
    }

    /// Applies the migrations up to `version` only: a database as an older release left it, for the
    /// tests that upgrade one.
    pub async fn migrate_up_to(&self, version: i64) -> anyhow::Result<()> {
        self.db.migrate_up_to(version).await
    }

    pub fn engine(&self) -> Engine {
        self.db.engine()
    }

    /// Cheap round trip for readiness checks.
    pub async fn ping(&self) -> StoreResult<()> {
        self.db.ping().await
    }

    /// Copies the SQLite write-ahead log into the database file without blocking writers; the
    /// server calls it every second. A no-op on PostgreSQL.
    pub async fn checkpoint(&self) -> StoreResult<()> {
        self.db.checkpoint().await
    }

    pub async fn close(&self) {
        self.db.close().await;
    }

    /// Sends `payload` to every server listening on `channel` (PostgreSQL `NOTIFY`, delivered once
    /// the statement commits); nothing on SQLite, which one server uses alone.
    pub async fn notify(&self, channel: &str, payload: &str) -> StoreResult<()> {
        if self.db.engine == Engine::Postgres {
            sqlx::query("select pg_notify($1, $2)").bind(channel).bind(payload).execute(&self.db.pool).await?;
        }
        Ok(())
    }

    /// Connections per pool, for metrics: `(pool, open, idle, max)`; on PostgreSQL the one pool is `reader`.
    pub fn pool_use(&self) -> Vec<(&'static str, u32, u32, u32)> {
        let usage = |pool: &AnyPool| {
            let idle = u32::try_from(pool.num_idle()).unwrap_or(u32::MAX);
            (pool.size(), idle, pool.options().get_max_connections())
        };
        let (open, idle, max) = usage(&self.db.pool);
        let mut pools = vec![("reader", open, idle, max)];
        if self.db.engine == Engine::Sqlite {
            let (open, idle, max) = usage(&self.db.writer);
            pools.push(("writer", open, idle, max));
        }
        pools
    }
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

    fn pool_options(engine: Engine, max: u32) -> AnyPoolOptions {
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

    async fn migrate_up_to(&self, version: i64) -> anyhow::Result<()> {
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
    async fn committed(&self, outbox: &Outbox) {
        self.committed_with(outbox, false).await;
    }

    /// As [`Db::committed`], for a write that also wrote live events of its own (`wrote_live`):
    /// they are numbered in the same wait as the outbox's.
    async fn committed_with(&self, outbox: &Outbox, wrote_live: bool) {
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
    async fn live_committed(&self) {
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
    crate::private_files::private_file(path).with_context(|| format!("creating {}", path.display()))
}

/// `$first, $first+1, ...` for `count` values bound in order: an `in (...)` list of a filter; only
/// placeholders are generated, never values.
fn placeholders(first: usize, count: usize) -> String {
    (first..first + count).map(|n| format!("${n}")).collect::<Vec<_>>().join(", ")
}

/// Values bound in one `in (...)` list at most: well under SQLite's (32,766) and PostgreSQL's
/// (65,535) limits on a statement's parameters.
const IN_LIST_CHUNK: usize = 500;

/// The rows of `sql(list)` for every chunk of `values`: `list` is the chunk's placeholders, from
/// `$2` when `first` is bound at `$1`, else from `$1`. A query over any number of ids, in bounded
/// statements.
async fn rows_in_chunks(
    db: &Db,
    first: Option<&str>,
    values: &[String],
    sql: impl Fn(&str) -> String,
) -> Result<Vec<sqlx::any::AnyRow>, sqlx::Error> {
    let offset = 1 + usize::from(first.is_some());
    let mut rows = Vec::new();
    for chunk in values.chunks(IN_LIST_CHUNK) {
        let text = sql(&placeholders(offset, chunk.len()));
        let mut query = sqlx::query(sqlx::AssertSqlSafe(text));
        if let Some(first) = first {
            query = query.bind(first.to_owned());
        }
        for value in chunk {
            query = query.bind(value.clone());
        }
        rows.extend(query.fetch_all(&db.pool).await?);
    }
    Ok(rows)
}

/// The schema version of the newest migration this binary carries.
pub fn latest_schema_version() -> i64 {
    migrations::latest(Engine::Sqlite)
}

/// Milliseconds since the epoch, the unit every time column uses.
pub fn to_millis(at: time::OffsetDateTime) -> i64 {
    (at.unix_timestamp_nanos() / 1_000_000) as i64
}

pub fn from_millis(millis: i64) -> time::OffsetDateTime {
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(millis) * 1_000_000)
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH)
}
