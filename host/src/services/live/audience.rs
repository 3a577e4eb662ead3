//! Who hears an event: of the users listening, those who may read what it is about at this
//! moment, by the same rules the read routes apply (read from the database, not from the caches,
//! and for the listening users only).

use std::collections::{HashMap, HashSet};

use uuid::Uuid;

use super::Live;
use crate::domain::assets::{self, AssetState};
use crate::domain::live::Audience;
use crate::domain::spaces::Role;

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
        let Some(state) = AssetState::parse(&asset.state) else { return Vec::new() };
        // The state the event tells of; unknown in events written before it was kept.
        let told = match told {
            Some(told) => match AssetState::parse(told) {
                Some(told) => Some(told),
                None => return Vec::new(),
            },
            None => None,
        };
        let readers = match self.store.live.space_readers(space_id, listening).await {
            Ok(readers) => readers,
            Err(error) => {
                tracing::warn!(%error, "live events: reading a space's readers failed");
                return Vec::new();
            }
        };
        let mut hearing = HashSet::new();
        for (user_id, role) in readers {
            let role = role.as_deref().and_then(Role::parse).unwrap_or(Role::Reader);
            let proposed = asset.proposed_by == user_id;
            if assets::visible_to(role, proposed, state)
                && told.is_none_or(|told| assets::visible_to(role, proposed, told))
            {
                hearing.insert(user_id);
            }
        }
        hearing.into_iter().collect()
    }

    /// The item's creator, the workflow's owner (who reaches every item without a view), and
    /// holders of the slot of a view that shows one of the workbaskets.
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
        let workbaskets: Vec<Uuid> = workbasket_ids.iter().filter_map(|id| Uuid::try_parse(id).ok()).collect();
        let slots: HashSet<i64> = workflow
            .parsed
            .views()
            .iter()
            .filter(|view| workbaskets.iter().any(|wb| view.shows_workbasket(wb)))
            .map(|view| i64::from(view.permission_slot))
            .collect();
        let grants: HashMap<String, Vec<i64>> = if slots.is_empty() {
            HashMap::new()
        } else {
            match self.store.live.workflow_grants(workflow_configuration_id, listening).await {
                Ok(grants) => grants,
                Err(error) => {
                    tracing::warn!(%error, "live events: reading a workflow's grants failed");
                    HashMap::new()
                }
            }
        };
        let owner = &workflow.stored.owner_id;
        listening
            .iter()
            .filter(|user_id| {
                *user_id == creator_id
                    || *user_id == owner
                    || grants.get(*user_id).is_some_and(|held| held.iter().any(|slot| slots.contains(slot)))
            })
            .cloned()
            .collect()
    }
}
