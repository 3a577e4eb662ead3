//! The replay a client reconnecting with `Last-Event-ID` gets: the events it missed, in order.
//!
//! Its cost is bounded by the user's own events, not by everybody's (Security III, finding 3):
//! the store reads only events whose reach keys are the user's (`Audience::reach`), and the
//! exact audience of a page of them is decided with a few batched queries, not one per event. A
//! replay that would scan more than `replay_max_events` × [`REPLAY_SCAN_FACTOR`] candidates, or
//! send more than `replay_max_events`, answers `reset`; and replays per user are rate limited.

use std::collections::{BTreeSet, HashMap, HashSet};

use time::OffsetDateTime;

use super::{Live, PAGE, Replay, outgoing};
use crate::domain::account::SessionUser;
use crate::domain::live::hearing::{AssetHearing, ItemHearing};
use crate::domain::live::{Audience, parse_event_id};
use crate::error::Result;
use crate::services::workflow_configurations::Workflow;
use crate::store::StoredLiveEvent;

/// A replay reads at most this many candidate events (times `replay_max_events`) looking for the
/// user's own before it answers `reset` instead.
const REPLAY_SCAN_FACTOR: usize = 50;

impl Live {
    pub(super) async fn replay(&self, user: &SessionUser, last_event_id: &str) -> Result<Replay> {
        let reset = || async { Ok(Replay::Reset { latest: self.store.live.latest_id().await? }) };
        let Some(last) = parse_event_id(last_event_id) else { return reset().await };
        let since = OffsetDateTime::now_utc() - self.config.replay_window();
        if !self.store.live.resumable(last, since).await? {
            return reset().await;
        }
        let max = self.config.replay_max_events;
        let scan_limit = max.saturating_mul(REPLAY_SCAN_FACTOR).max(PAGE as usize);
        let (mut after, mut scanned, mut missed) = (last, 0usize, Vec::new());
        loop {
            let page = self.store.live.reachable_after(&user.user_id, after, PAGE).await?;
            let Some(newest) = page.last().map(|e| e.event_id) else { break };
            scanned += page.len();
            let heard = self.heard_by(&user.user_id, &page).await?;
            missed.extend(page.iter().zip(heard).filter(|(_, heard)| *heard).map(|(event, _)| outgoing(event)));
            if missed.len() > max || scanned > scan_limit {
                return reset().await;
            }
            after = newest;
            if page.len() < PAGE as usize {
                break;
            }
        }
        Ok(Replay::Events(missed))
    }

    /// Whether `user_id` may hear each event of `page` now, by the rules of `audience.rs`, read with
    /// one query per kind of thing the page names (spaces, channels, assets, workflow grants).
    /// Unlike the dispatcher's checks, a failed read fails the replay: the client retries rather
    /// than silently missing an event.
    async fn heard_by(&self, user_id: &str, page: &[StoredLiveEvent]) -> Result<Vec<bool>> {
        let mut named = Named::default();
        for event in page {
            named.add(&event.audience);
        }
        let mut roles: HashMap<String, Vec<Option<String>>> = HashMap::new();
        for (space_id, role) in self.store.live.spaces_read_by(user_id, &named.list(&named.spaces)).await? {
            roles.entry(space_id).or_default().push(role);
        }
        let channels: HashSet<String> =
            self.store.live.channels_of(user_id, &named.list(&named.channels)).await?.into_iter().collect();
        let assets = self.store.live.asset_access(&named.list(&named.assets)).await?;
        let grants = self.store.live.grants_of(user_id, &named.list(&named.workflows)).await?;
        let mut workflows: HashMap<&str, Option<Workflow>> = HashMap::new();
        for id in &named.workflows {
            workflows.insert(id, self.workflows.load(id, false).await?);
        }
        let heard = page
            .iter()
            .map(|event| match &event.audience {
                Audience::Users(ids) => ids.iter().any(|id| id == user_id),
                Audience::SpaceMembers { space_id } => roles.contains_key(space_id),
                Audience::ChannelMembers { channel_id } => channels.contains(channel_id),
                Audience::AssetReaders { space_id, asset_id, state: told } => {
                    let Some(asset) = assets.get(asset_id).filter(|asset| asset.space_id == *space_id) else {
                        return false;
                    };
                    let Some(hearing) = AssetHearing::new(&asset.state, told.as_deref()) else { return false };
                    let proposed = asset.proposed_by == user_id;
                    roles.get(space_id).into_iter().flatten().any(|role| hearing.heard_by(role.as_deref(), proposed))
                }
                Audience::WorkbasketViewers { creator_id, workflow_configuration_id, workbasket_ids } => {
                    let Some(Some(workflow)) = workflows.get(workflow_configuration_id.as_str()) else { return false };
                    let hearing = ItemHearing::new(
                        creator_id,
                        &workflow.stored.owner_id,
                        workflow.parsed.views(),
                        workbasket_ids,
                    );
                    hearing.heard_by(user_id, grants.get(workflow_configuration_id).map_or(&[][..], Vec::as_slice))
                }
            })
            .collect();
        Ok(heard)
    }
}

/// The ids a page of events names, each once.
#[derive(Default)]
struct Named {
    spaces: BTreeSet<String>,
    channels: BTreeSet<String>,
    assets: BTreeSet<String>,
    workflows: BTreeSet<String>,
}

impl Named {
    fn add(&mut self, audience: &Audience) {
        match audience {
            Audience::Users(_) => {}
            Audience::SpaceMembers { space_id } => {
                self.spaces.insert(space_id.clone());
            }
            Audience::ChannelMembers { channel_id } => {
                self.channels.insert(channel_id.clone());
            }
            Audience::AssetReaders { space_id, asset_id, .. } => {
                self.spaces.insert(space_id.clone());
                self.assets.insert(asset_id.clone());
            }
            Audience::WorkbasketViewers { workflow_configuration_id, .. } => {
                self.workflows.insert(workflow_configuration_id.clone());
            }
        }
    }

    fn list(&self, ids: &BTreeSet<String>) -> Vec<String> {
        ids.iter().cloned().collect()
    }
}
