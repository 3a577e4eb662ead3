-- Accounts, sessions, PIN challenges, license keys and quota counters.
-- Times are milliseconds since the Unix epoch; ids are UUID strings. Flags are integers 0/1 so one
-- portable query set serves both engines (see host/src/store.rs).

create table app_user (
    user_id       text primary key,
    email         text not null unique,
    handle        text not null unique,
    full_name     text not null,
    display_name  text not null,
    password_hash text not null,
    operator      bigint not null default 0,
    created_at    bigint not null,
    updated_at    bigint not null
);

-- Revoking a session deletes its row; only the token's digest is stored.
create table session (
    token_digest text primary key,
    user_id      text not null references app_user (user_id) on delete cascade,
    created_at   bigint not null,
    expires_at   bigint not null
);
create index session_user_id on session (user_id);

-- A pending sign-up or password reset: the token the client holds and the PIN mailed to the user.
create table pin_challenge (
    token_digest text primary key,
    purpose      text not null check (purpose in ('signup', 'reset')),
    pin_digest   text not null,
    email        text not null,
    user_id      text references app_user (user_id) on delete cascade,
    handle       text,
    full_name    text,
    display_name text,
    tries     bigint not null default 0,
    resends      bigint not null default 0,
    verified_at  bigint,
    expires_at   bigint not null,
    created_at   bigint not null
);
create index pin_challenge_expires_at on pin_challenge (expires_at);

create table license_key (
    license_id text primary key,
    key_digest text not null unique,
    plan       text not null,
    created_at bigint not null,
    revoked_at bigint
);

create table quota_usage (
    subject     text not null,
    entitlement text not null,
    day         bigint not null,
    used        bigint not null,
    primary key (subject, entitlement, day)
);
