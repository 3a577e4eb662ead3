//! Who hears an asset or an item event, as pure rules: the dispatcher (`services/live/audience.rs`)
//! and the replay (`services/live/replay.rs`) read the facts in their own ways (for the listening
//! users, or batched for one reconnecting user) and both decide with these.

use std::collections::HashSet;

use uuid::Uuid;

use crate::domain::assets::{self, AssetState};
use crate::domain::spaces::Role;
use crate::domain::workflows::View;

/// The two states an asset event is judged by: the asset's now, and the one the event tells of
/// (`None` in events written before it was kept). A reader hears the event only if they may see
/// the asset in both: the news of a state a user could not see does not reach them because the
/// asset moved on before the event was sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AssetHearing {
    now: AssetState,
    told: Option<AssetState>,
}

impl AssetHearing {
    /// `None` when either state is not one this build knows: nobody hears such an event.
    pub fn new(now: &str, told: Option<&str>) -> Option<Self> {
        let now = AssetState::parse(now)?;
        let told = match told {
            Some(told) => Some(AssetState::parse(told)?),
            None => None,
        };
        Some(Self { now, told })
    }

    /// Whether a reader of the space with this stored role (`None` or unknown: a plain reader)
    /// who did or did not propose the asset hears the event.
    pub fn heard_by(&self, role: Option<&str>, proposed: bool) -> bool {
        let role = role.and_then(Role::parse).unwrap_or(Role::Reader);
        assets::visible_to(role, proposed, self.now)
            && self.told.is_none_or(|told| assets::visible_to(role, proposed, told))
    }
}

/// Who hears an item event: the item's creator, the workflow's owner (who reaches every item
/// without a view), and holders of the slot of a view that shows one of the item's workbaskets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemHearing<'a> {
    creator_id: &'a str,
    owner_id: &'a str,
    /// The permission slots of the views that show one of the workbaskets.
    slots: HashSet<i64>,
}

impl<'a> ItemHearing<'a> {
    pub fn new(creator_id: &'a str, owner_id: &'a str, views: &[View], workbasket_ids: &[String]) -> Self {
        let workbaskets: Vec<Uuid> = workbasket_ids.iter().filter_map(|id| Uuid::try_parse(id).ok()).collect();
        let slots = views
            .iter()
            .filter(|view| workbaskets.iter().any(|workbasket| view.shows_workbasket(workbasket)))
            .map(|view| i64::from(view.permission_slot))
            .collect();
        Self { creator_id, owner_id, slots }
    }

    /// Whether anybody beyond the creator and the owner can hear it: only then are grants worth reading.
    pub fn reaches_grant_holders(&self) -> bool {
        !self.slots.is_empty()
    }

    /// Whether `user_id`, who holds these permission slots of the workflow, hears the event.
    pub fn heard_by(&self, user_id: &str, held_slots: &[i64]) -> bool {
        user_id == self.creator_id
            || user_id == self.owner_id
            || held_slots.iter().any(|slot| self.slots.contains(slot))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_asset_event_reaches_a_member_only_if_both_states_are_visible_to_them() {
        let approved_now_told_waiting = AssetHearing::new("APPROVED", Some("AWAITING_APPROVAL")).unwrap();
        assert!(approved_now_told_waiting.heard_by(Some("owner"), false));
        assert!(approved_now_told_waiting.heard_by(Some("member"), true), "the proposer sees their own");
        assert!(!approved_now_told_waiting.heard_by(Some("member"), false));
        assert!(!approved_now_told_waiting.heard_by(None, false));
        let published = AssetHearing::new("ENABLED", Some("APPROVED")).unwrap();
        assert!(published.heard_by(None, false));
        let before_states_were_kept = AssetHearing::new("APPROVED", None).unwrap();
        assert!(before_states_were_kept.heard_by(Some("member"), false));
        assert_eq!(AssetHearing::new("LATER", None), None);
        assert_eq!(AssetHearing::new("APPROVED", Some("LATER")), None);
    }

    #[test]
    fn an_item_event_reaches_its_creator_the_owner_and_holders_of_a_view_showing_its_workbasket() {
        let (shown, hidden) = (Uuid::new_v4(), Uuid::new_v4());
        let view = |slot: u32, workbasket: Uuid| View {
            id: Uuid::new_v4(),
            label: "$.label".into(),
            description: None,
            workbasket_ids: vec![workbasket],
            permission_slot: slot,
            forms: Default::default(),
        };
        let views = [view(1, shown), view(2, hidden)];
        let hearing = ItemHearing::new("creator", "owner", &views, &[shown.to_string(), "not-a-uuid".into()]);
        assert!(hearing.reaches_grant_holders());
        assert!(hearing.heard_by("creator", &[]));
        assert!(hearing.heard_by("owner", &[]));
        assert!(hearing.heard_by("holder", &[2, 1]));
        assert!(!hearing.heard_by("holder", &[2]), "slot 2's view does not show the workbasket");
        let nobody_else = ItemHearing::new("creator", "owner", &views, &[Uuid::new_v4().to_string()]);
        assert!(!nobody_else.reaches_grant_holders());
        assert!(!nobody_else.heard_by("holder", &[1, 2]));
    }
}
