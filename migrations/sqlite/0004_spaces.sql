-- Spaces, their members, the modules connected to them, the modules' key-value state and the
-- outcome of each event delivered to a module.

create table space (
    space_id     text primary key,
    owner_id     text not null references app_user (user_id),
    name         text not null unique,
    display_name text not null,
    summary      text not null default '',
    created_at   bigint not null,
    updated_at   bigint not null
);

-- The owner has a row too (role 'owner'), so membership is one lookup.
create table space_member (
    space_id   text not null references space (space_id) on delete cascade,
    user_id    text not null references app_user (user_id) on delete cascade,
    role       text not null check (role in ('owner', 'member')),
    created_at bigint not null,
    primary key (space_id, user_id)
);
create index space_member_user on space_member (user_id, space_id);

-- The connected set, replaced whole by PUT /v0/spaces/{spaceId}/modules; config is JSON text.
create table space_module (
    space_id  text not null references space (space_id) on delete cascade,
    module_id text not null,
    config    text not null,
    position  bigint not null,
    primary key (space_id, module_id)
);

-- State a module keeps per space. It outlives a disconnect, so reconnecting finds it again.
create table module_kv (
    space_id  text not null references space (space_id) on delete cascade,
    module_id text not null,
    key       text not null,
    value     blob not null,
    primary key (space_id, module_id, key)
);

create table module_delivery (
    delivery_id text primary key,
    space_id    text not null references space (space_id) on delete cascade,
    module_id   text not null,
    event_kind  text not null,
    item_id     text not null,
    state       text not null check (state in ('DELIVERED', 'FAILED')),
    error       text,
    created_at  bigint not null
);
create index module_delivery_item on module_delivery (item_id, created_at);
