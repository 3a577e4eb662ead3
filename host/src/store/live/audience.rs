//! The reads that decide who hears an event (`services::live::audience` and the replay): each is
//! limited to the users listening, or to one reconnecting user and the ids a page of events names,
//! in chunks, so an event costs queries in proportion to its listeners, never to the size of a
//! space or channel, and a replayed page costs a few queries whatever its length.

use std::collections::HashMap;

use sqlx::Row;

use super::LiveRepo;
use crate::store::{StoreResult, rows_in_chunks};

/// Who may hear an event (`services::live`): the reads its audience needs, each limited to the
/// users listening (in chunks), so an event costs queries in proportion to its listeners, never
/// to the size of a space or channel.
impl LiveRepo {
    /// Of `candidates`, those who read the space, with their stored role (`owner`, `member`;
    /// `None` for a reader through a connected channel). A user may come twice.
    pub async fn space_readers(
        &self,
        space_id: &str,
        candidates: &[String],
    ) -> StoreResult<Vec<(String, Option<String>)>> {
        let rows = rows_in_chunks(&self.db, Some(space_id), candidates, |list| {
            format!(
                "select user_id, role from space_member where space_id = $1 and user_id in ({list}) \
                 union all \
                 select m.user_id, cast(null as text) as role from channel_space cs \
                 join channel_member m on m.channel_id = cs.channel_id \
                 where cs.space_id = $1 and m.user_id in ({list})"
            )
        })
        .await?;
        let readers = rows
            .iter()
            .map(|row| Ok((row.try_get("user_id")?, row.try_get("role")?)))
            .collect::<Result<_, sqlx::Error>>()?;
        Ok(readers)
    }

    /// Of `candidates`, the members of a channel.
    pub async fn channel_members(&self, channel_id: &str, candidates: &[String]) -> StoreResult<Vec<String>> {
        let rows = rows_in_chunks(&self.db, Some(channel_id), candidates, |list| {
            format!("select user_id from channel_member where channel_id = $1 and user_id in ({list})")
        })
        .await?;
        let members = rows.iter().map(|row| row.try_get("user_id")).collect::<Result<_, _>>()?;
        Ok(members)
    }

    /// Of `candidates`, the grants of a workflow's permission slots, by user.
    pub async fn workflow_grants(
        &self,
        workflow_configuration_id: &str,
        candidates: &[String],
    ) -> StoreResult<HashMap<String, Vec<i64>>> {
        let rows = rows_in_chunks(&self.db, Some(workflow_configuration_id), candidates, |list| {
            format!(
                "select user_id, slot from workflow_grant where workflow_configuration_id = $1 and user_id in ({list})"
            )
        })
        .await?;
        let mut grants = HashMap::<String, Vec<i64>>::new();
        for row in &rows {
            grants.entry(row.try_get("user_id")?).or_default().push(row.try_get("slot")?);
        }
        Ok(grants)
    }
}

/// One reconnecting user's access to what a page of replayed events names (`services::live::replay`).
impl LiveRepo {
    /// Of `space_ids`, those `user_id` reads, with the stored role (`owner`, `member`; `None` for a
    /// reader through a connected channel). A space may come twice.
    pub async fn spaces_read_by(
        &self,
        user_id: &str,
        space_ids: &[String],
    ) -> StoreResult<Vec<(String, Option<String>)>> {
        let rows = rows_in_chunks(&self.db, Some(user_id), space_ids, |list| {
            format!(
                "select space_id, role from space_member where user_id = $1 and space_id in ({list}) \
                 union all \
                 select cs.space_id, cast(null as text) as role from channel_space cs \
                 join channel_member m on m.channel_id = cs.channel_id \
                 where m.user_id = $1 and cs.space_id in ({list})"
            )
        })
        .await?;
        let spaces = rows
            .iter()
            .map(|row| Ok((row.try_get("space_id")?, row.try_get("role")?)))
            .collect::<Result<_, sqlx::Error>>()?;
        Ok(spaces)
    }

    /// Of `channel_ids`, those `user_id` is a member of.
    pub async fn channels_of(&self, user_id: &str, channel_ids: &[String]) -> StoreResult<Vec<String>> {
        let rows = rows_in_chunks(&self.db, Some(user_id), channel_ids, |list| {
            format!("select channel_id from channel_member where user_id = $1 and channel_id in ({list})")
        })
        .await?;
        let channels = rows.iter().map(|row| row.try_get("channel_id")).collect::<Result<_, _>>()?;
        Ok(channels)
    }

    /// The permission slots `user_id` holds in each of `workflow_ids`.
    pub async fn grants_of(&self, user_id: &str, workflow_ids: &[String]) -> StoreResult<HashMap<String, Vec<i64>>> {
        let rows = rows_in_chunks(&self.db, Some(user_id), workflow_ids, |list| {
            format!(
                "select workflow_configuration_id, slot from workflow_grant \
                 where user_id = $1 and workflow_configuration_id in ({list})"
            )
        })
        .await?;
        let mut grants = HashMap::<String, Vec<i64>>::new();
        for row in &rows {
            grants.entry(row.try_get("workflow_configuration_id")?).or_default().push(row.try_get("slot")?);
        }
        Ok(grants)
    }

    /// The state and proposer of each of `asset_ids` that still exists, with its space.
    pub async fn asset_access(&self, asset_ids: &[String]) -> StoreResult<HashMap<String, AssetAccess>> {
        let rows = rows_in_chunks(&self.db, None, asset_ids, |list| {
            format!("select asset_id, space_id, state, proposed_by from published_asset where asset_id in ({list})")
        })
        .await?;
        let mut assets = HashMap::new();
        for row in &rows {
            let access = AssetAccess {
                space_id: row.try_get("space_id")?,
                state: row.try_get("state")?,
                proposed_by: row.try_get("proposed_by")?,
            };
            assets.insert(row.try_get("asset_id")?, access);
        }
        Ok(assets)
    }
}

/// What deciding an asset's readers needs of it.
#[derive(Clone, Debug)]
pub struct AssetAccess {
    pub space_id: String,
    pub state: String,
    pub proposed_by: String,
}
