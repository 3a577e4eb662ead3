-- Media: attachment descriptors of form instances, user avatars, and objects not yet (or no
-- longer) referenced by a row, which the sweeper removes once they are older than its grace time.

create table form_attachment (
    part_key     text primary key,
    form_id      text not null references form_instance (form_id) on delete cascade,
    field_id     text not null,
    content_type text not null,
    bytes        bigint not null,
    filename     text not null,
    storage_key  text not null unique,
    uploaded_by  text not null references app_user (user_id),
    created_at   bigint not null
);
create index form_attachment_by_form on form_attachment (form_id, field_id);

create table user_avatar (
    user_id      text primary key references app_user (user_id) on delete cascade,
    pic_id       text not null unique,
    content_type text not null,
    bytes        bigint not null,
    storage_key  text not null unique,
    created_at   bigint not null
);

-- An object the store may hold without a row pointing at it: written before its row commits,
-- or orphaned by a delete. The sweeper removes it once `noted_at` is older than its grace time
-- (0 for orphans of deletes: at once).
create table media_pending (
    storage_key text primary key,
    noted_at    bigint not null
);
create index media_pending_by_noted on media_pending (noted_at);
