//! Published assets of a space (conventions 4, 12, 13): metadata, the one upload of their bytes,
//! the owner's decisions, reading them back, and the events and analysis the decisions start.
//!
//! Members propose (metadata, then bytes) and see published assets and their own proposals; the
//! owner sees and decides everything. Strangers find no space at all.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use time::OffsetDateTime;

use crate::domain::assets::{self, AssetState, MAX_WAITING_PER_PROPOSER, NewAsset, StateChange};
use crate::domain::entitlement::{Entitlement, Plan, QuotaSubject};
use crate::domain::jobs::{AnalyseAsset, SpaceEventKind};
use crate::domain::live::LiveEvent;
use crate::domain::problems::Parsed;
use crate::domain::spaces::Role;
use crate::error::{Error, Result};
use crate::infra::media::objects::MediaObjects;
use crate::infra::media::{Object, SniffOutcome, judge_type};
use crate::infra::quotas;
use crate::services::licenses::Caller;
use crate::services::reanalysis;
use crate::services::space_events::{SpaceEvents, items};
use crate::services::spaces::Spaces;
use crate::services::uploads::{PartSource, receive_file_part, wrong_type};
use crate::store::{AssetFilter, NewAssetRow, Outbox, SessionUser, Store, StoredAsset, WaitingBound};

/// A published asset as the asset use cases answer it.
#[derive(Clone, Debug)]
pub struct Asset {
    pub asset_id: String,
    pub space_id: String,
    pub proposed_by: String,
    pub proposer_handle: String,
    pub title: String,
    pub filename: String,
    pub content_type: String,
    pub state: String,
    /// `None` until the upload commits.
    pub bytes: Option<i64>,
    /// `QUEUED`, `RUNNING`, `SUCCEEDED` or `FAILED`; `None` until analysis is first queued.
    pub analysis_state: Option<String>,
    /// The analysis result as JSON text.
    pub analysis: Option<String>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    /// Where the bytes are; only [`Assets::bytes`] reads it.
    storage_key: Option<String>,
    /// The content's address (`None` before the upload, and until bytes stored before content
    /// addressing are read).
    pub sha256: Option<String>,
}

impl From<StoredAsset> for Asset {
    fn from(a: StoredAsset) -> Self {
        Self {
            asset_id: a.asset_id,
            space_id: a.space_id,
            proposed_by: a.proposed_by,
            proposer_handle: a.proposer_handle,
            title: a.title,
            filename: a.filename,
            content_type: a.content_type,
            state: a.state,
            bytes: a.bytes,
            analysis_state: a.analysis_state,
            analysis: a.analysis,
            created_at: a.created_at,
            updated_at: a.updated_at,
            storage_key: a.storage_key,
            sha256: a.sha256,
        }
    }
}

/// Room for the multipart framing around an asset's one file.
const FRAMING_BYTES: u64 = 64 * 1024;

pub struct Assets {
    store: Store,
    spaces: Arc<Spaces>,
    objects: MediaObjects,
    events: Arc<SpaceEvents>,
    max_bytes: u64,
    /// How long an announcement waits for its upload before the server rejects it.
    upload_window: Duration,
}

/// The one part of an asset's bytes that exists.
pub const BASE_PART: &str = "base";

fn not_found() -> Error {
    Error::not_found("asset")
}

impl Assets {
    pub fn new(
        store: Store,
        spaces: Arc<Spaces>,
        objects: MediaObjects,
        events: Arc<SpaceEvents>,
        max_bytes: u64,
        upload_window: Duration,
    ) -> Self {
        Self { store, spaces, objects, events, max_bytes, upload_window }
    }

    /// Rejects every announcement whose upload window has passed; answers how many.
    pub async fn expire_announcements(&self) -> Result<u64> {
        let now = OffsetDateTime::now_utc();
        Ok(self.store.assets.expire_announcements(now - self.upload_window, now).await?)
    }

    /// The largest asset this deployment accepts, in bytes.
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// The most an upload request may carry: one file and its framing.
    pub fn request_cap(&self) -> u64 {
        self.max_bytes.saturating_add(FRAMING_BYTES)
    }

    /// Announces an asset from `{title, filename, contentType}` (state AWAITING_UPLOAD); owner and
    /// members may. Takes one unit of `spaces.publishedAssets.perDay`. Answers the new asset's id.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id))]
    pub async fn create(
        &self,
        user: &SessionUser,
        caller: &Caller,
        space_id: &str,
        body: Parsed<NewAsset>,
    ) -> Result<String> {
        let (space_id, _) = self.spaces.writer_role(user, space_id).await?;
        let new = body?;
        let caller = &caller.spending(&user.user_id);
        quotas::take(&self.store, caller, Entitlement::PublishedAssets, 1).await?;
        let asset_id = uuid::Uuid::new_v4().to_string();
        let row = NewAssetRow {
            asset_id: asset_id.clone(),
            space_id: space_id.clone(),
            proposed_by: user.user_id.clone(),
            title: new.title,
            filename: new.filename,
            content_type: new.content_type,
        };
        let now = OffsetDateTime::now_utc();
        let waiting =
            WaitingBound { max_per_proposer: MAX_WAITING_PER_PROPOSER, announced_before: now - self.upload_window };
        let inserted = self.store.assets.insert_asset(row, waiting, now).await;
        if !quotas::settle(&self.store, caller, Entitlement::PublishedAssets, 1, inserted).await? {
            return Err(Error::Conflict(Cow::Owned(format!(
                "you have {MAX_WAITING_PER_PROPOSER} assets in this space awaiting their upload or the owner's \
                 decision; upload or wait for a decision first"
            ))));
        }
        Ok(asset_id)
    }

    /// The assets of a space the caller may see, newest first, only those in `states` when any are
    /// given.
    pub async fn list(
        &self,
        user: &SessionUser,
        space_id: &str,
        states: &[AssetState],
        after: Option<(i64, String)>,
        limit: i64,
    ) -> Result<Vec<Asset>> {
        let (space_id, role) = self.spaces.member_role(user, space_id).await?;
        let names: Vec<&'static str> = states.iter().map(|s| s.as_str()).collect();
        let published = assets::PUBLISHED.map(AssetState::as_str);
        let member = (role != Role::Owner).then_some((user.user_id.as_str(), published.as_slice()));
        let filter = AssetFilter { states: &names, member };
        let rows = self.store.assets.assets(&space_id, &filter, after, limit).await?;
        Ok(rows.into_iter().map(Asset::from).collect())
    }

    /// The owner's queue: assets awaiting approval, newest first.
    pub async fn awaiting_approval(
        &self,
        user: &SessionUser,
        space_id: &str,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> Result<Vec<Asset>> {
        let space_id = self.spaces.require_owner(user, space_id).await?;
        let filter = AssetFilter { states: &[AssetState::AwaitingApproval.as_str()], member: None };
        let rows = self.store.assets.assets(&space_id, &filter, after, limit).await?;
        Ok(rows.into_iter().map(Asset::from).collect())
    }

    /// One asset the caller may see, with the caller's role in its space.
    pub async fn get(&self, user: &SessionUser, space_id: &str, asset_id: &str) -> Result<Asset> {
        Ok(self.visible(user, space_id, asset_id).await?.0.into())
    }

    async fn visible(&self, user: &SessionUser, space_id: &str, asset_id: &str) -> Result<(StoredAsset, Role)> {
        let (space_id, role) = self.spaces.member_role(user, space_id).await?;
        let asset_id = uuid::Uuid::try_parse(asset_id).map_err(|_| not_found())?.to_string();
        let asset = self.store.assets.asset(&space_id, &asset_id).await?.ok_or_else(not_found)?;
        let state = state_of(&asset)?;
        if !assets::visible_to(role, asset.proposed_by == user.user_id, state) {
            return Err(not_found());
        }
        Ok((asset, role))
    }

    /// The owner's decision `{assetId, state}`: only the moves of conventions 12; anything else
    /// is INVALID_TRANSITION. APPROVED or ENABLED queues the analysis the first time.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id))]
    pub async fn change_state(&self, user: &SessionUser, space_id: &str, body: Parsed<StateChange>) -> Result<Asset> {
        let space_id = self.spaces.require_owner(user, space_id).await?;
        let StateChange { asset_id, state: next } = body?;
        let asset = self.store.assets.asset(&space_id, &asset_id).await?.ok_or_else(not_found)?;
        let current = state_of(&asset)?;
        if !current.may_move_to(next) {
            return Err(Error::InvalidTransition(Cow::Owned(format!(
                "an asset cannot move from {} to {}",
                current.as_str(),
                next.as_str()
            ))));
        }
        let now = OffsetDateTime::now_utc();
        // The asset as the move leaves it: the move is guarded by the state it was read in.
        let analysis = next.starts_analysis().then(|| AnalyseAsset::first(&asset_id, &asset.proposed_by));
        // A move that starts the first analysis queues it (`move_state`).
        let analysis_state = match (&asset.analysis_state, &analysis) {
            (None, Some(_)) => Some("QUEUED".to_owned()),
            (state, _) => state.clone(),
        };
        let moved_asset = StoredAsset { state: next.as_str().to_owned(), updated_at: now, analysis_state, ..asset };
        let outbox = self.outbox(&moved_asset).await;
        let moved = self
            .store
            .assets
            .move_state(&asset_id, current.as_str(), next.as_str(), analysis.as_ref(), &outbox, now)
            .await?;
        if !moved {
            return Err(Error::InvalidTransition(Cow::Borrowed("the asset changed state meanwhile; read it again")));
        }
        self.events.committed(&outbox);
        let asset = self.store.assets.asset(&space_id, &asset_id).await?.ok_or_else(not_found)?;
        Ok(asset.into())
    }

    /// The owner queues the asset's analysis again, once its last analysis has ended; each owner
    /// may do so `spaces.assets.reanalysisPerDay` times a day (counted for the user whatever key
    /// they use; a refusal costs nothing). The last result stays readable until the new one.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id, asset_id))]
    pub async fn reanalyse(&self, user: &SessionUser, plan: &Plan, space_id: &str, asset_id: &str) -> Result<Asset> {
        let space_id = self.spaces.require_owner(user, space_id).await?;
        let asset_id = uuid::Uuid::try_parse(asset_id).map_err(|_| not_found())?.to_string();
        let asset = self.store.assets.asset(&space_id, &asset_id).await?.ok_or_else(not_found)?;
        if !reanalysis::has_ended(&asset) {
            return Err(analysis_not_ended(&asset));
        }
        let owner = Caller::new(QuotaSubject::user(&user.user_id), plan.clone());
        quotas::take(&self.store, &owner, Entitlement::Reanalyses, 1).await?;
        let now = OffsetDateTime::now_utc();
        let queued = reanalysis::requeue(&self.store, &asset, now).await;
        if !quotas::settle(&self.store, &owner, Entitlement::Reanalyses, 1, queued).await? {
            return Err(analysis_not_ended(&asset));
        }
        // The answer is the asset as this request left it, not read again: a worker may have
        // taken the job already.
        Ok(StoredAsset { analysis_state: Some("QUEUED".to_owned()), updated_at: now, ..asset }.into())
    }

    /// Stores the request's one `file` part as the asset's bytes: only its proposer may, only
    /// once, and only bytes of the announced type. The bytes count in the daily upload-bytes
    /// quota, as an attachment's do. All or nothing.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id, asset_id))]
    pub async fn upload(
        &self,
        user: &SessionUser,
        caller: &Caller,
        space_id: &str,
        asset_id: &str,
        source: &mut dyn PartSource,
    ) -> Result<Asset> {
        let (asset, role) = self.visible(user, space_id, asset_id).await?;
        if asset.proposed_by != user.user_id || !role.may_write() {
            return Err(Error::Forbidden(Cow::Borrowed("only the member who proposed the asset uploads its bytes")));
        }
        if asset.storage_key.is_some() || state_of(&asset)? != AssetState::AwaitingUpload {
            return Err(already_uploaded());
        }
        // The edge capped the request at the deployment's limit; an asset takes one file.
        source.limit_to(self.request_cap())?;
        let staged = self.objects.staging();
        let judge = |declared: Option<&str>, filename: &str, head: &[u8]| check_type(&asset, declared, filename, head);
        let file = receive_file_part(&self.objects, &staged, source, "assets", self.max_bytes, judge).await?;
        // Refused, the staged bytes are removed when `staged` is dropped.
        let caller = &caller.spending(&user.user_id);
        quotas::take(&self.store, caller, Entitlement::FormUploadBytes, file.bytes).await?;
        let bytes = i64::try_from(file.bytes).unwrap_or(i64::MAX);
        let now = OffsetDateTime::now_utc();
        // What attach_bytes writes, without reading the row again.
        let asset = StoredAsset {
            state: AssetState::AwaitingApproval.as_str().to_owned(),
            bytes: Some(bytes),
            storage_key: Some(file.key.as_str().to_owned()),
            sha256: Some(file.sha256.clone()),
            updated_at: now,
            ..asset
        };
        let outbox = self.outbox(&asset).await;
        let attached =
            self.store.assets.attach_bytes(&asset.asset_id, file.key.as_str(), &file.sha256, bytes, &outbox, now).await;
        let adopted = attached.as_ref().ok().and_then(Option::clone);
        let attached = attached.map(|adopted| adopted.is_some());
        if !quotas::settle(&self.store, caller, Entitlement::FormUploadBytes, file.bytes, attached).await? {
            return Err(already_uploaded());
        }
        staged.adopted();
        let Some(adopted) = adopted else { return Err(already_uploaded()) };
        let asset = StoredAsset { storage_key: Some(adopted.storage_key), ..asset };
        self.objects.discard_freed_later(adopted.freed);
        self.events.committed(&outbox);
        Ok(asset.into())
    }

    /// An asset whose bytes the caller may read; only the `base` part exists.
    pub async fn open(&self, user: &SessionUser, space_id: &str, asset_id: &str, part: Option<&str>) -> Result<Asset> {
        if let Some(part) = part.filter(|p| *p != BASE_PART) {
            return Err(Error::invalid("part", "UNKNOWN_PART", format!("{part:?} is not a part; only base exists")));
        }
        let (asset, _) = self.visible(user, space_id, asset_id).await?;
        if asset.storage_key.is_none() {
            return Err(Error::NotFound(Cow::Borrowed("the asset's bytes have not been uploaded")));
        }
        Ok(asset.into())
    }

    pub async fn bytes(&self, asset: &Asset, range: Option<std::ops::Range<u64>>) -> Result<Object> {
        let key = asset.storage_key.as_deref().ok_or_else(not_found)?;
        self.objects.read(key, range).await
    }

    /// The event that tells the space's modules that an asset changed state, written with the change.
    /// Readers of the asset hear of the change live.
    async fn outbox(&self, asset: &StoredAsset) -> Arc<Outbox> {
        let item = items::asset(asset);
        let outbox =
            self.events.outbox(&asset.space_id, SpaceEventKind::AssetStateChanged, &asset.asset_id, item).await;
        let live =
            LiveEvent::asset_changed(&asset.space_id, &asset.asset_id, &asset.state, asset.analysis_state.as_deref());
        Arc::new(outbox.live(live))
    }
}

/// Why an asset's analysis cannot be queued again now (as read before the refusal).
fn analysis_not_ended(asset: &StoredAsset) -> Error {
    Error::Conflict(Cow::Borrowed(match asset.analysis_state {
        None => "the asset has not been analysed yet: its analysis starts when it is approved or enabled",
        Some(_) => "the asset's analysis is queued or running; queue it again once it has ended",
    }))
}

fn state_of(asset: &StoredAsset) -> Result<AssetState> {
    AssetState::parse(&asset.state)
        .ok_or_else(|| Error::internal(anyhow::anyhow!("asset {} has an unknown state", asset.asset_id)))
}

fn already_uploaded() -> Error {
    Error::Conflict(Cow::Borrowed("the asset's bytes were uploaded already"))
}

/// The bytes must agree with what the part declares and with the asset's announced type and name;
/// the announced type is kept.
fn check_type(asset: &StoredAsset, declared: Option<&str>, filename: &str, head: &[u8]) -> Result<String> {
    if let SniffOutcome::Mismatch { claimed, sniffed } = judge_type(declared, filename, head) {
        let found = sniffed.as_deref().unwrap_or("no known signature");
        return Err(wrong_type("TYPE_MISMATCH", format!("claims {claimed} but its bytes show {found}")));
    }
    match judge_type(Some(&asset.content_type), &asset.filename, head) {
        SniffOutcome::Agreed(_) => Ok(asset.content_type.clone()),
        SniffOutcome::Mismatch { claimed, sniffed } => {
            let found = sniffed.as_deref().unwrap_or("no known signature");
            let message = format!("the asset was announced as {claimed} but the bytes show {found}");
            Err(wrong_type("TYPE_MISMATCH", message))
        }
    }
}
