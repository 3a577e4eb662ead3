-- Bytes stored once (conventions section 14, "Stored bytes"). `media_blob` names each distinct
-- content by its SHA-256: the one object that holds it (`storage_key`) and how many rows name it
-- (`refs`: attachments, avatars, assets). A row that names bytes already held takes the blob's key
-- and its own freshly written copy is queued for removal, in the transaction that adds the row; a
-- row that goes away takes one reference, and the last one queues the object (`media_pending`)
-- and deletes the blob, so a later upload of the same bytes starts a blob of its own and the sweep
-- never races it.
create table media_blob (
    sha256      text primary key,
    storage_key text not null unique,
    bytes       bigint not null,
    refs        bigint not null
);

-- Rows now share objects: a storage key is no longer one row's. SQLite cannot drop a column's
-- UNIQUE, so the three tables are rebuilt without it, with a `sha256` column: the SHA-256
-- (lowercase hex) of the bytes the row names, null for rows written before this migration until
-- the start-up step (`media::addressing`) has read their bytes.
create table form_attachment_new (
    part_key     text primary key,
    form_id      text not null references form_instance (form_id) on delete cascade,
    field_id     text not null,
    content_type text not null,
    bytes        bigint not null,
    filename     text not null,
    storage_key  text not null,
    uploaded_by  text not null references app_user (user_id),
    created_at   bigint not null,
    sha256       text
);
insert into form_attachment_new (part_key, form_id, field_id, content_type, bytes, filename, storage_key,
                                 uploaded_by, created_at)
select part_key, form_id, field_id, content_type, bytes, filename, storage_key, uploaded_by, created_at
from form_attachment;
drop table form_attachment;
alter table form_attachment_new rename to form_attachment;
create index form_attachment_by_form on form_attachment (form_id, field_id);

create table user_avatar_new (
    user_id      text primary key references app_user (user_id) on delete cascade,
    pic_id       text not null unique,
    content_type text not null,
    bytes        bigint not null,
    storage_key  text not null,
    created_at   bigint not null,
    sha256       text
);
insert into user_avatar_new (user_id, pic_id, content_type, bytes, storage_key, created_at)
select user_id, pic_id, content_type, bytes, storage_key, created_at from user_avatar;
drop table user_avatar;
alter table user_avatar_new rename to user_avatar;

create table published_asset_new (
    asset_id       text primary key,
    space_id       text not null references space (space_id) on delete cascade,
    proposed_by    text not null references app_user (user_id),
    title          text not null,
    filename       text not null,
    content_type   text not null,
    state          text not null check (state in
                       ('AWAITING_UPLOAD', 'AWAITING_APPROVAL', 'APPROVED', 'REJECTED', 'ENABLED', 'DISABLED')),
    bytes          bigint,
    storage_key    text,
    analysis_state text check (analysis_state in ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED')),
    analysis       text,
    created_at     bigint not null,
    updated_at     bigint not null,
    sha256         text
);
insert into published_asset_new (asset_id, space_id, proposed_by, title, filename, content_type, state, bytes,
                                 storage_key, analysis_state, analysis, created_at, updated_at)
select asset_id, space_id, proposed_by, title, filename, content_type, state, bytes, storage_key,
       analysis_state, analysis, created_at, updated_at
from published_asset;
drop table published_asset;
alter table published_asset_new rename to published_asset;
create index published_asset_by_space on published_asset (space_id, created_at desc, asset_id desc);
create index published_asset_by_state on published_asset (space_id, state, created_at desc, asset_id desc);
create index published_asset_awaiting_upload on published_asset (created_at) where state = 'AWAITING_UPLOAD';

create index form_attachment_unaddressed on form_attachment (storage_key) where sha256 is null;
create index user_avatar_unaddressed on user_avatar (storage_key) where sha256 is null;
create index published_asset_unaddressed on published_asset (storage_key)
    where sha256 is null and storage_key is not null;
-- Releasing a reference finds the rows (and the blob) of an object by its key.
create index form_attachment_by_key on form_attachment (storage_key);
create index user_avatar_by_key on user_avatar (storage_key);
create index published_asset_by_key on published_asset (storage_key) where storage_key is not null;

-- A resumable upload hashes its bytes as they become durable: `hash_state` is the hasher's state
-- after `received` bytes (hex), so a write resumed after a crash goes on from there, and `sha256`
-- is the digest once the upload is whole.
alter table media_upload add column hash_state text;
alter table media_upload add column sha256 text;
