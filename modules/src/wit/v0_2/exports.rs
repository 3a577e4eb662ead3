//! The 0.3.0 arguments of exports in the types of the frozen 0.2.0 bindings, and 0.2.0's answers in 0.3.0's:
//! the records are the same, field by field, under other Rust types, except that a 0.2.0 analysis step
//! answers no `text`.

use crate::wit::latest::analysis::exports::trellis::module::analysis_hooks as ah;
use crate::wit::latest::marketplace::exports::trellis::module::marketplace_hooks as mh;
use crate::wit::latest::space::exports::trellis::module::space_hooks as sh;
use crate::wit::latest::types::Context;
use crate::wit::v0_2::analysis::exports::trellis::module::analysis_hooks as ah2;
use crate::wit::v0_2::marketplace::exports::trellis::module::marketplace_hooks as mh2;
use crate::wit::v0_2::space::exports::trellis::module::space_hooks as sh2;
use crate::wit::v0_2::types::Context as Context2;

pub(crate) fn context(ctx: &Context) -> Context2 {
    Context2 { space_id: ctx.space_id.clone(), config: ctx.config.clone() }
}

pub(crate) fn request(request: &sh::Request) -> sh2::Request {
    sh2::Request {
        method: match request.method {
            sh::Method::Get => sh2::Method::Get,
            sh::Method::Post => sh2::Method::Post,
            sh::Method::Put => sh2::Method::Put,
            sh::Method::Patch => sh2::Method::Patch,
            sh::Method::Delete => sh2::Method::Delete,
        },
        path: request.path.clone(),
        query: request.query.clone(),
        body: request.body.clone(),
        caller_user_id: request.caller_user_id.clone(),
        caller_handle: request.caller_handle.clone(),
        caller_role: match request.caller_role {
            sh::CallerRole::Owner => sh2::CallerRole::Owner,
            sh::CallerRole::Member => sh2::CallerRole::Member,
        },
    }
}

pub(crate) fn response(response: sh2::Response) -> sh::Response {
    sh::Response { status: response.status, body: response.body }
}

pub(crate) fn event(event: &sh::Event) -> sh2::Event {
    let kind = match event.kind {
        sh::EventKind::FormInstanceCreated => sh2::EventKind::FormInstanceCreated,
        sh::EventKind::FormInstanceUpdated => sh2::EventKind::FormInstanceUpdated,
        sh::EventKind::AssetStateChanged => sh2::EventKind::AssetStateChanged,
        sh::EventKind::CommentCreated => sh2::EventKind::CommentCreated,
    };
    sh2::Event { kind, item_id: event.item_id.clone() }
}

pub(crate) fn listing(stats: &mh::ListingStats) -> mh2::ListingStats {
    mh2::ListingStats {
        space_id: stats.space_id.clone(),
        members: stats.members,
        assets: stats.assets,
        comments_last_week: stats.comments_last_week,
        registrations_last_week: stats.registrations_last_week,
        age_days: stats.age_days,
    }
}

pub(crate) fn registration(registration: &mh::Registration) -> mh2::Registration {
    mh2::Registration {
        space_id: registration.space_id.clone(),
        user_id: registration.user_id.clone(),
        handle: registration.handle.clone(),
        note: registration.note.clone(),
        membership: registration.membership.clone(),
    }
}

pub(crate) fn decision(decision: mh2::Decision) -> mh::Decision {
    match decision {
        mh2::Decision::Approve => mh::Decision::Approve,
        mh2::Decision::Reject => mh::Decision::Reject,
        mh2::Decision::DeferToOwner => mh::Decision::DeferToOwner,
    }
}

pub(crate) fn asset(asset: &ah::AssetInfo) -> ah2::AssetInfo {
    ah2::AssetInfo {
        asset_id: asset.asset_id.clone(),
        filename: asset.filename.clone(),
        content_type: asset.content_type.clone(),
        bytes: asset.bytes,
    }
}

/// A 0.2.0 step's answer in 0.3.0's shape: no text.
pub(crate) fn analysis_result(found: ah2::AnalysisResult) -> ah::AnalysisResult {
    let finding = |f: ah2::Finding| ah::Finding { text: f.text, model: f.model };
    ah::AnalysisResult {
        tags: found.tags.into_iter().map(finding).collect(),
        sentences: found.sentences.into_iter().map(finding).collect(),
        transcript: found.transcript.map(finding),
        text: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_0_2_answer_keeps_its_findings_and_has_no_text() {
        let found = ah2::AnalysisResult {
            tags: vec![ah2::Finding { text: "cat".into(), model: Some("m 1".into()) }],
            sentences: vec![ah2::Finding { text: "A cat.".into(), model: None }],
            transcript: None,
        };

        let adapted = analysis_result(found);

        assert_eq!(adapted.tags.len(), 1);
        assert_eq!(adapted.tags[0].model.as_deref(), Some("m 1"));
        assert_eq!(adapted.sentences[0].text, "A cat.");
        assert!(adapted.text.is_none());
    }

    #[test]
    fn comment_events_keep_their_kind_and_item() {
        let adapted = event(&sh::Event { kind: sh::EventKind::CommentCreated, item_id: "c1".into() });
        assert!(matches!(adapted.kind, sh2::EventKind::CommentCreated));
        assert_eq!(adapted.item_id, "c1");
    }
}
