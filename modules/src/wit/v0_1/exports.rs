//! The 0.2.0 arguments of space and marketplace exports in the types of the frozen 0.1.0 bindings: the
//! records are the same, field by field, under other Rust types.

use crate::wit::latest::marketplace::exports::trellis::module::marketplace_hooks as mh;
use crate::wit::latest::space::exports::trellis::module::space_hooks as sh;
use crate::wit::latest::types::Context;
use crate::wit::v0_1::marketplace::exports::trellis::module::marketplace_hooks as mh1;
use crate::wit::v0_1::space::exports::trellis::module::space_hooks as sh1;
use crate::wit::v0_1::types::Context as Context1;

pub(crate) fn context(ctx: &Context) -> Context1 {
    Context1 { space_id: ctx.space_id.clone(), config: ctx.config.clone() }
}

pub(crate) fn request(request: &sh::Request) -> sh1::Request {
    sh1::Request {
        method: match request.method {
            sh::Method::Get => sh1::Method::Get,
            sh::Method::Post => sh1::Method::Post,
            sh::Method::Put => sh1::Method::Put,
            sh::Method::Patch => sh1::Method::Patch,
            sh::Method::Delete => sh1::Method::Delete,
        },
        path: request.path.clone(),
        query: request.query.clone(),
        body: request.body.clone(),
        caller_user_id: request.caller_user_id.clone(),
        caller_handle: request.caller_handle.clone(),
        caller_role: match request.caller_role {
            sh::CallerRole::Owner => sh1::CallerRole::Owner,
            sh::CallerRole::Member => sh1::CallerRole::Member,
        },
    }
}

/// The event in 0.1.0's terms; `None` for the kinds 0.1.0 does not know (comments).
pub(crate) fn event(event: &sh::Event) -> Option<sh1::Event> {
    let kind = match event.kind {
        sh::EventKind::FormInstanceCreated => sh1::EventKind::FormInstanceCreated,
        sh::EventKind::FormInstanceUpdated => sh1::EventKind::FormInstanceUpdated,
        sh::EventKind::AssetStateChanged => sh1::EventKind::AssetStateChanged,
        sh::EventKind::CommentCreated => return None,
    };
    Some(sh1::Event { kind, item_id: event.item_id.clone() })
}

pub(crate) fn listing(stats: &mh::ListingStats) -> mh1::ListingStats {
    mh1::ListingStats {
        space_id: stats.space_id.clone(),
        members: stats.members,
        assets: stats.assets,
        comments_last_week: stats.comments_last_week,
        registrations_last_week: stats.registrations_last_week,
        age_days: stats.age_days,
    }
}

pub(crate) fn registration(registration: &mh::Registration) -> mh1::Registration {
    mh1::Registration {
        space_id: registration.space_id.clone(),
        user_id: registration.user_id.clone(),
        handle: registration.handle.clone(),
        note: registration.note.clone(),
        membership: registration.membership.clone(),
    }
}

pub(crate) fn decision(decision: mh1::Decision) -> mh::Decision {
    match decision {
        mh1::Decision::Approve => mh::Decision::Approve,
        mh1::Decision::Reject => mh::Decision::Reject,
        mh1::Decision::DeferToOwner => mh::Decision::DeferToOwner,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comment_events_have_no_0_1_form_and_the_others_keep_their_item() {
        let event = |kind| sh::Event { kind, item_id: "i1".into() };
        assert!(super::event(&event(sh::EventKind::CommentCreated)).is_none());
        let adapted = super::event(&event(sh::EventKind::FormInstanceUpdated)).unwrap();
        assert!(matches!(adapted.kind, sh1::EventKind::FormInstanceUpdated));
        assert_eq!(adapted.item_id, "i1");
    }
}
