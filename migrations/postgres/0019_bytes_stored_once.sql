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

-- Rows now share objects: a storage key is no longer one row's. The SHA-256 (lowercase hex) of the
-- bytes each row names is null for rows written before this migration until the start-up step
-- (`media::addressing`) has read their bytes.
alter table form_attachment drop constraint form_attachment_storage_key_key;
alter table user_avatar drop constraint user_avatar_storage_key_key;
alter table published_asset drop constraint published_asset_storage_key_key;
alter table form_attachment add column sha256 text;
alter table user_avatar add column sha256 text;
alter table published_asset add column sha256 text;
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
