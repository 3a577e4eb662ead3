//! `/v0/spaces/{spaceId}/assets`: announcing published assets, the owner's decisions and reading
//! them. Their bytes go up and come down through `/v0/media/spaces/...` (see `http::media`).

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use crate::domain::assets::{StateChange, parse_states};
use crate::http::error::{ApiResult, ErrorEnvelope};
use crate::http::extract::{ApiBody, AuthUser};
use crate::http::list::{ListEnvelope, ListQuery, Paged, cursor_millis};
use crate::services::assets::{Asset, Assets, BASE_PART};
use crate::services::licenses::Caller;

/// Who proposed an asset.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Proposer {
    user_id: String,
    handle: String,
}

/// What the background analysis found. Its `description` is composed by the service from what the
/// analysis steps found, not written by a person.
#[derive(Serialize, Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct AssetAnalysis {
    /// `QUEUED`, `RUNNING`, `SUCCEEDED` or `FAILED`.
    #[schema(pattern = "^(QUEUED|RUNNING|SUCCEEDED|FAILED)$")]
    state: String,
    tags: Vec<String>,
    description: Option<String>,
    transcript: Option<String>,
    /// Printed English text read in the asset's pictures (or a video's frames), lines joined by `\n`;
    /// null when none was found. The step in `steps` that read it names the model.
    text: Option<String>,
    /// Why the analysis failed, when it did: each failed step by its module id, with its message.
    error: Option<String>,
    /// Provenance: every step that ran, in order, with what it found and the model behind each
    /// finding. `tags`, `description`, `transcript` and `text` above are composed from these.
    steps: Vec<AnalysisStepView>,
}

/// One analysis step's part in an asset's analysis.
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnalysisStepView {
    /// The analysis-step module's id.
    module: String,
    /// Its version.
    version: String,
    /// `SUCCEEDED` or `FAILED`.
    #[schema(pattern = "^(SUCCEEDED|FAILED)$")]
    state: String,
    tags: Vec<FindingView>,
    /// The step's sentences of the description, in order.
    sentences: Vec<FindingView>,
    transcript: Option<FindingView>,
    /// The printed text the step read, lines joined by `\n`, and the model that read it.
    #[serde(default)]
    text: Option<FindingView>,
    /// The step's failure, when it failed.
    error: Option<String>,
    /// Wall-clock milliseconds the step took.
    millis: u64,
}

/// A tag, sentence, transcript or text and the model (name and version) that produced it, if a model did.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct FindingView {
    text: String,
    model: Option<String>,
}

/// A published asset.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssetView {
    asset_id: String,
    space_id: String,
    title: String,
    filename: String,
    /// The announced type; the uploaded bytes were checked against it.
    content_type: String,
    /// Null until the bytes are uploaded.
    bytes: Option<i64>,
    /// `AWAITING_UPLOAD`, `AWAITING_APPROVAL`, `APPROVED`, `REJECTED`, `ENABLED` or `DISABLED`.
    #[schema(pattern = "^(AWAITING_UPLOAD|AWAITING_APPROVAL|APPROVED|REJECTED|ENABLED|DISABLED)$")]
    state: String,
    /// Null until analysis is first queued (the first move to APPROVED or ENABLED).
    analysis: Option<AssetAnalysis>,
    proposed_by: Proposer,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    updated_at: OffsetDateTime,
}

impl From<Asset> for AssetView {
    fn from(asset: Asset) -> Self {
        let analysis = asset.analysis_state.map(|state| {
            let found: AssetAnalysis =
                asset.analysis.as_deref().and_then(|json| serde_json::from_str(json).ok()).unwrap_or_default();
            AssetAnalysis { state, ..found }
        });
        Self {
            asset_id: asset.asset_id,
            space_id: asset.space_id,
            title: asset.title,
            filename: asset.filename,
            content_type: asset.content_type,
            bytes: asset.bytes,
            state: asset.state,
            analysis,
            proposed_by: Proposer { user_id: asset.proposed_by, handle: asset.proposer_handle },
            created_at: asset.created_at,
            updated_at: asset.updated_at,
        }
    }
}

/// `{newPublishedAssetId}`: the answer to an announcement.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssetCreated {
    new_published_asset_id: String,
}

/// The descriptor of an asset's uploaded part, as the owner's approval queue shows it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssetPart {
    asset_id: String,
    /// Always `base`: the part the download route serves.
    part: String,
    content_type: String,
    bytes: i64,
    filename: String,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
}

impl From<Asset> for AssetPart {
    fn from(asset: Asset) -> Self {
        Self {
            asset_id: asset.asset_id,
            part: BASE_PART.to_owned(),
            content_type: asset.content_type,
            bytes: asset.bytes.unwrap_or(0),
            filename: asset.filename,
            created_at: asset.created_at,
        }
    }
}

/// An announcement; read as a map so every unknown property can be named. Documents the body.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct NewAsset {
    /// 1 to 200 characters.
    title: String,
    /// A file name without folders, at most 255 characters, with no control, bidirectional or
    /// zero-width character (which could disguise its extension); downloads carry it.
    filename: String,
    /// A MIME type such as `image/png`; the uploaded bytes must agree with it.
    content_type: String,
}

/// The owner's decision.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct AssetStateChange {
    #[schema(format = Uuid)]
    asset_id: String,
    /// The state to move to: from AWAITING_UPLOAD to REJECTED, from AWAITING_APPROVAL to APPROVED
    /// or REJECTED, from APPROVED to ENABLED or DISABLED, between ENABLED and DISABLED.
    #[schema(pattern = "^(AWAITING_UPLOAD|AWAITING_APPROVAL|APPROVED|REJECTED|ENABLED|DISABLED)$")]
    state: String,
}

/// Paging and the `states` filter of the asset list.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AssetQuery {
    #[param(value_type = Option<u32>, minimum = 1, maximum = 200)]
    limit: Option<String>,
    cursor: Option<String>,
    /// Comma-separated states, e.g. `APPROVED,ENABLED`.
    #[param(
        pattern = "^\\s*(?:(?:AWAITING_UPLOAD|AWAITING_APPROVAL|APPROVED|REJECTED|ENABLED|DISABLED)\\s*)?(?:,\\s*(?:(?:AWAITING_UPLOAD|AWAITING_APPROVAL|APPROVED|REJECTED|ENABLED|DISABLED)\\s*)?)*$"
    )]
    states: Option<String>,
}

impl Paged for AssetQuery {
    fn paging(&self) -> (Option<&str>, Option<&str>) {
        (self.limit.as_deref(), self.cursor.as_deref())
    }
}

fn asset_key(asset: &Asset) -> (i64, String) {
    (cursor_millis(asset.created_at), asset.asset_id.clone())
}

/// Announces an asset by its metadata (state AWAITING_UPLOAD); its bytes follow through the media
/// route. Owner and members may; counts against `spaces.publishedAssets.perDay`.
#[utoipa::path(post, path = "/v0/spaces/{spaceId}/assets", tag = "assets", params(("spaceId" = String, Path)),
    request_body = NewAsset, security(("session" = [], "license" = [])),
    responses((status = 201, body = AssetCreated),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED with every problem"),
        (status = 403, body = ErrorEnvelope, description = "ENTITLEMENT_LIMIT_EXCEEDED: spaces.publishedAssets.perDay; FORBIDDEN: the caller reads the space through a channel"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such space, or the caller is not a member"),
        (status = 409, body = ErrorEnvelope, description = "CONFLICT: the caller holds 100 assets of this space awaiting an upload or a decision")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id))]
pub async fn create_asset(
    State(assets): State<Arc<Assets>>,
    AuthUser(user): AuthUser,
    caller: Caller,
    Path(space_id): Path<String>,
    ApiBody(body): ApiBody<crate::domain::assets::NewAsset>,
) -> ApiResult<(StatusCode, Json<AssetCreated>)> {
    let asset_id = assets.create(&user, &caller, &space_id, body).await?;
    Ok((StatusCode::CREATED, Json(AssetCreated { new_published_asset_id: asset_id })))
}

/// The space's assets the caller may see, newest first: the owner every asset, members the
/// APPROVED and ENABLED ones and their own proposals.
#[utoipa::path(get, path = "/v0/spaces/{spaceId}/assets", tag = "assets", params(("spaceId" = String, Path), AssetQuery),
    security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<AssetView>),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: limit, cursor or states"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such space, or the caller is not a member")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id))]
pub async fn list_assets(
    State(assets): State<Arc<Assets>>,
    AuthUser(user): AuthUser,
    Path(space_id): Path<String>,
    list: ListQuery<(i64, String), AssetQuery>,
) -> ApiResult<Json<ListEnvelope<AssetView>>> {
    let ListQuery { page, after, params: query, mut problems } = list;
    let states = query.states.as_deref().map(|raw| parse_states(raw, &mut problems)).unwrap_or_default();
    problems.finish(())?;
    let rows = assets.list(&user, &space_id, &states, after, page.fetch_limit()).await?;
    Ok(Json(ListEnvelope::from_rows(rows, &page, asset_key, AssetView::from)))
}

/// One asset the caller may see.
#[utoipa::path(get, path = "/v0/spaces/{spaceId}/assets/{assetId}", tag = "assets",
    params(("spaceId" = String, Path), ("assetId" = String, Path)), security(("session" = [], "license" = [])),
    responses((status = 200, body = AssetView),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such space or asset, or one the caller may not see")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id, asset_id))]
pub async fn get_asset(
    State(assets): State<Arc<Assets>>,
    AuthUser(user): AuthUser,
    Path((space_id, asset_id)): Path<(String, String)>,
) -> ApiResult<Json<AssetView>> {
    Ok(Json(assets.get(&user, &space_id, &asset_id).await?.into()))
}

/// The owner's decision on an asset; only the moves the description of `state` lists.
#[utoipa::path(patch, path = "/v0/spaces/{spaceId}/assets", tag = "assets", params(("spaceId" = String, Path)),
    request_body = AssetStateChange, security(("session" = [], "license" = [])),
    responses((status = 200, body = AssetView),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED with every problem"),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN: a member who is not the owner"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such space or asset"),
        (status = 409, body = ErrorEnvelope, description = "INVALID_TRANSITION: a move the life cycle does not allow")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id))]
pub async fn change_asset_state(
    State(assets): State<Arc<Assets>>,
    AuthUser(user): AuthUser,
    Path(space_id): Path<String>,
    ApiBody(body): ApiBody<StateChange>,
) -> ApiResult<Json<AssetView>> {
    Ok(Json(assets.change_state(&user, &space_id, body).await?.into()))
}

/// The owner's queue of assets awaiting approval, newest first, as part descriptors.
#[utoipa::path(get, path = "/v0/spaces/{spaceId}/assets/awaiting-approval", operation_id = "list_assets_awaiting_approval", tag = "assets",
    params(("spaceId" = String, Path), crate::http::list::PageQuery), security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<AssetPart>),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: limit or cursor"),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN: a member who is not the owner"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such space, or the caller is not a member")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id))]
pub async fn awaiting_approval(
    State(assets): State<Arc<Assets>>,
    AuthUser(user): AuthUser,
    Path(space_id): Path<String>,
    list: ListQuery<(i64, String)>,
) -> ApiResult<Json<ListEnvelope<AssetPart>>> {
    let (page, after) = list.finish()?;
    let rows = assets.awaiting_approval(&user, &space_id, after, page.fetch_limit()).await?;
    Ok(Json(ListEnvelope::from_rows(rows, &page, asset_key, AssetPart::from)))
}

/// The owner queues the asset's analysis again (for example after the models were installed, or
/// to run steps connected since): every analysis step runs over its bytes once more. Its last
/// analysis must have ended; the last result stays readable until the new one replaces it. Each
/// owner may do so `spaces.assets.reanalysisPerDay` times a day.
#[utoipa::path(post, path = "/v0/spaces/{spaceId}/assets/{assetId}/analysis", operation_id = "reanalyse_asset", tag = "assets",
    params(("spaceId" = String, Path), ("assetId" = String, Path)), security(("session" = [], "license" = [])),
    responses((status = 202, body = AssetView, description = "The analysis is queued: the asset with `analysis.state` QUEUED"),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN: a member who is not the owner; ENTITLEMENT_LIMIT_EXCEEDED: spaces.assets.reanalysisPerDay"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such space or asset, or the caller is not a member"),
        (status = 409, body = ErrorEnvelope, description = "CONFLICT: the asset has not been analysed yet, or its analysis is queued or running")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id, asset_id))]
pub async fn reanalyse_asset(
    State(assets): State<Arc<Assets>>,
    AuthUser(user): AuthUser,
    caller: Caller,
    Path((space_id, asset_id)): Path<(String, String)>,
) -> ApiResult<(StatusCode, Json<AssetView>)> {
    let asset = assets.reanalyse(&user, &caller.plan, &space_id, &asset_id).await?;
    Ok((StatusCode::ACCEPTED, Json(asset.into())))
}
