-- Channels: their members (the owner too), the spaces connected to them and their invites.
-- Every list is served in index order: a user's channels and a channel's members by join time,
-- an invitee's pending invites by creation time, newest first, ties broken by id.

create table channel (
    channel_id  text primary key,
    owner_id    text not null references app_user (user_id) on delete cascade,
    name        text not null,
    description text not null default '',
    created_at  bigint not null,
    updated_at  bigint not null
);
-- Counts the channels a user owns (a bounded number).
create index channel_owner on channel (owner_id);

-- The owner has a row too (role 'owner'), so membership is one lookup.
create table channel_member (
    channel_id text not null references channel (channel_id) on delete cascade,
    user_id    text not null references app_user (user_id) on delete cascade,
    role       text not null check (role in ('owner', 'inviter', 'member')),
    created_at bigint not null,
    primary key (channel_id, user_id)
);
create index channel_member_user on channel_member (user_id, created_at, channel_id);
create index channel_member_joined on channel_member (channel_id, created_at, user_id);

-- The connected set, replaced whole by PUT /v0/channels/{channelId}/spaces, in the order given.
create table channel_space (
    channel_id text not null references channel (channel_id) on delete cascade,
    space_id   text not null references space (space_id) on delete cascade,
    position   bigint not null,
    primary key (channel_id, space_id)
);
create unique index channel_space_position on channel_space (channel_id, position);
-- Whether a user reads a space through some channel: from the space to its channels.
create index channel_space_space on channel_space (space_id, channel_id);

-- One row per (channel, invitee): inviting again after a decision replaces the decided invite
-- with a new one (a new id), so a channel holds at most one invite per user.
create table channel_invite (
    invite_id  text primary key,
    channel_id text not null references channel (channel_id) on delete cascade,
    invitee_id text not null references app_user (user_id) on delete cascade,
    invited_by text not null references app_user (user_id) on delete cascade,
    state      text not null check (state in ('PENDING', 'ACCEPTED', 'DECLINED', 'CANCELLED')),
    created_at bigint not null,
    updated_at bigint not null,
    unique (channel_id, invitee_id)
);
-- The invitee's inbox (pending invites, newest first).
create index channel_invite_inbox on channel_invite (invitee_id, state, created_at, invite_id);
-- Counts a channel's pending invites (a bounded number).
create index channel_invite_state on channel_invite (channel_id, state);
