//! What an event's item shows modules of each kind of thing (the `item_json` of a delivered event).

use serde_json::{Value, json};

use crate::domain::forms::stored_object;

use crate::store::{InstanceContent, StoredAsset, StoredComment, StoredInstance};

/// What a module is told of an instance in an event: `{formId, configurationId, state, payload: {language,
/// fields, metadata, integrations}}`.
pub fn instance(stored: &StoredInstance) -> Value {
    instance_content(
        &stored.form_id,
        &stored.configuration_id,
        &InstanceContent {
            state: &stored.state,
            language: &stored.language,
            answers: &stored.answers,
            metadata: stored.metadata.as_deref(),
            integrations: stored.integrations.as_deref(),
            space_id: stored.space_id.as_deref(),
        },
    )
}

/// An instance as its event shows it, from the content a change writes.
pub fn instance_content(form_id: &str, configuration_id: &str, content: &InstanceContent<'_>) -> Value {
    json!({
        "formId": form_id,
        "configurationId": configuration_id,
        "state": content.state,
        "payload": {
            "language": content.language,
            "fields": stored_object(Some(content.answers)),
            "metadata": stored_object(content.metadata),
            "integrations": stored_object(content.integrations),
        },
    })
}

/// What an `asset-state-changed` event's item read shows modules of an asset.
pub fn asset(asset: &StoredAsset) -> Value {
    json!({
        "assetId": asset.asset_id,
        "spaceId": asset.space_id,
        "title": asset.title,
        "filename": asset.filename,
        "contentType": asset.content_type,
        "bytes": asset.bytes,
        "state": asset.state,
        "proposedBy": asset.proposed_by,
    })
}

/// What a `comment-created` event's item read shows modules of a comment on a space.
pub fn comment(space_id: &str, comment: &StoredComment) -> Value {
    json!({
        "commentId": comment.comment_id,
        "spaceId": space_id,
        "body": comment.body,
        "authorId": comment.author_id,
        "authorHandle": comment.author_handle,
        "createdAt": crate::domain::timestamp::format(comment.created_at),
    })
}
