-- Resumable uploads (tus, conventions section 14). A row is the truth of what was acknowledged:
-- `received` bytes are stored, and the backend's own record of them (`backend_state`: the part
-- file's name, or the S3 multipart upload and its parts) says where. Bytes the store holds past
-- `received` (a write cut off by a crash) are never read and are overwritten by the next write.
-- The attachment or asset that uses a finished upload deletes its row in the same transaction
-- and takes over `storage_key`; the sweeper removes what expired unused.
create table media_upload (
    upload_id     text primary key,
    owner_id      text not null references app_user (user_id),
    length        bigint not null,
    received      bigint not null,
    metadata      text not null,
    filename      text not null,
    content_type  text,
    storage_key   text not null unique,
    backend_state text not null,
    finished_at   bigint,
    created_at    bigint not null,
    expires_at    bigint not null
);
create index media_upload_by_owner on media_upload (owner_id);
create index media_upload_by_expiry on media_upload (expires_at);
