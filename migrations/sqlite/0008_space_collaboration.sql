-- Comments (on spaces, and on channels later through the same table) and the published assets of
-- spaces with their life cycle (conventions 4 and 12).

-- One table for every place a comment can be made: `scope` names the kind of place and
-- `scope_id` the place, so comments have one implementation whatever they are attached to.
create table comment (
    comment_id text primary key,
    scope      text not null check (scope in ('space', 'channel')),
    scope_id   text not null,
    author_id  text not null references app_user (user_id),
    body       text not null,
    created_at bigint not null
);
-- A page of a place's comments, newest first, is one range of this index.
create index comment_by_scope on comment (scope, scope_id, created_at desc, comment_id desc);

-- An asset is announced by its metadata, then receives its bytes once, then is decided on by the
-- space's owner. `bytes` and `storage_key` are null until the upload commits.
create table published_asset (
    asset_id       text primary key,
    space_id       text not null references space (space_id) on delete cascade,
    proposed_by    text not null references app_user (user_id),
    title          text not null,
    filename       text not null,
    content_type   text not null,
    state          text not null check (state in
                       ('AWAITING_UPLOAD', 'AWAITING_APPROVAL', 'APPROVED', 'REJECTED', 'ENABLED', 'DISABLED')),
    bytes          bigint,
    storage_key    text unique,
    -- Null until analysis is first queued (the first move to APPROVED or ENABLED); then QUEUED,
    -- RUNNING, SUCCEEDED or FAILED, with the result as JSON text.
    analysis_state text check (analysis_state in ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED')),
    analysis       text,
    created_at     bigint not null,
    updated_at     bigint not null
);
create index published_asset_by_space on published_asset (space_id, created_at desc, asset_id desc);
create index published_asset_by_state on published_asset (space_id, state, created_at desc, asset_id desc);
