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
mod db;
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

use std::sync::Arc;

use sqlx::AnyPool;

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
pub use workflow_items::{ListedItem, NewItemStart, NewWorkflowEvent, OnStarted, StoredItem, WorkflowEvent};
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

pub use assets::AssetRepo;
pub use blobs::{Adopted, BlobRepo, Unaddressed};
pub use challenges::ChallengeRepo;
pub use channels::ChannelRepo;
pub use comments::CommentRepo;
pub use db::{Db, Engine};
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
