//! Who hears an event: of the users listening, those who may read what it is about at this
//! moment, by the same rules the read routes apply (read from the database, not from the caches,
//! and for the listening users only).

use std::collections::{HashMap, HashSet};

use super::Live;
use crate::domain::live::Audience;
use crate::domain::live::hearing::{AssetHearing, ItemHearing};

impl Live {
    /// The users of `listening` who may hear an event for `audience`. A check that fails (the
    /// database is away, say) counts as "may not": an event is never sent on a guess.
    pub(super) async fn audience(&self, audience: &Audience, listening: &[String]) -> Vec<String> {
        match audience {
            Audience::Users(ids) => listening.iter().filter(|user| ids.contains(user)).cloned().collect(),
            Audience::SpaceMembers { space_id } => match self.store.live.space_readers(space_id, listening).await {
                Ok(readers) => {
                    let readers: HashSet<String> = readers.into_iter().map(|(user_id, _)| user_id).collect();
                    readers.into_iter().collect()
                }
                Err(error) => {
                    tracing::warn!(%error, "live events: reading a space's readers failed");
                    Vec::new()
                }
            },
            Audience::ChannelMembers { channel_id } => {
                match self.store.live.channel_members(channel_id, listening).await {
                    Ok(members) => members,
                    Err(error) => {
                        tracing::warn!(%error, "live events: reading a channel's members failed");
                        Vec::new()
                    }
                }
            }
            Audience::AssetReaders { space_id, asset_id, state } => {
                self.asset_readers(space_id, asset_id, state.as_deref(), listening).await
            }
            Audience::WorkbasketViewers { creator_id, workflow_configuration_id, workbasket_ids } => {
                self.workbasket_viewers(creator_id, workflow_configuration_id, workbasket_ids, listening).await
            }
        }
    }

    async fn asset_readers(
        &self,
        space_id: &str,
        asset_id: &str,
        told: Option<&str>,
        listening: &[String],
    ) -> Vec<String> {
        let asset = match self.store.assets.asset(space_id, asset_id).await {
            Ok(Some(asset)) => asset,
            Ok(None) => return Vec::new(),
            Err(error) => {
                tracing::warn!(%error, "live events: reading an asset failed");
                return Vec::new();
            }
        };
        let Some(hearing) = AssetHearing::new(&asset.state, told) else { return Vec::new() };
        let readers = match self.store.live.space_readers(space_id, listening).await {
            Ok(readers) => readers,
            Err(error) => {
                tracing::warn!(%error, "live events: reading a space's readers failed");
                return Vec::new();
            }
        };
        let heard: HashSet<String> = readers
            .into_iter()
            .filter(|(user_id, role)| hearing.heard_by(role.as_deref(), asset.proposed_by == *user_id))
            .map(|(user_id, _)| user_id)
            .collect();
        heard.into_iter().collect()
    }

    /// The listening users who hear an item event (`ItemHearing`).
    async fn workbasket_viewers(
        &self,
        creator_id: &str,
        workflow_configuration_id: &str,
        workbasket_ids: &[String],
        listening: &[String],
    ) -> Vec<String> {
        let workflow = match self.workflows.load(workflow_configuration_id, false).await {
            Ok(Some(workflow)) => workflow,
            Ok(None) => return Vec::new(),
            Err(error) => {
                tracing::warn!(%error, "live events: loading a workflow failed");
                return Vec::new();
            }
        };
        let hearing = ItemHearing::new(creator_id, &workflow.stored.owner_id, workflow.parsed.views(), workbasket_ids);
        let grants: HashMap<String, Vec<i64>> = if hearing.reaches_grant_holders() {
            match self.store.live.workflow_grants(workflow_configuration_id, listening).await {
                Ok(grants) => grants,
                Err(error) => {
                    tracing::warn!(%error, "live events: reading a workflow's grants failed");
                    HashMap::new()
                }
            }
        } else {
            HashMap::new()
        };
        listening
            .iter()
            .filter(|user_id| hearing.heard_by(user_id, grants.get(*user_id).map_or(&[][..], Vec::as_slice)))
            .cloned()
            .collect()
    }
}
