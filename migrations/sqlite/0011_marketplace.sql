-- The marketplace (conventions 4, 6, 12 and 13): a space's listing preparation, the text the operator
-- approved last, and registrations to join listed spaces.

-- One row per space whose owner saved marketplace settings. `title`, `summary` and `categories` are the
-- preparation the owner edits; `listed_*` is the text the operator approved last, which the marketplace
-- shows (null until the first approval). A space is listed while `listed_at` is set.
create table listing (
    space_id          text primary key references space (space_id) on delete cascade,
    title             text not null,
    summary           text not null,
    -- A JSON array of strings.
    categories        text not null,
    membership        text not null check (membership in ('OPEN', 'APPROVAL', 'CLOSED')),
    -- The owner's registration rules for the deployment's rule module, a JSON object.
    rules             text not null,
    state             text not null check (state in ('DRAFT', 'SUBMITTED', 'APPROVED', 'REJECTED')),
    -- The operator's reason of the last decision.
    reason            text,
    submitted_at      bigint,
    decided_at        bigint,
    listed_title      text,
    listed_summary    text,
    listed_categories text,
    listed_at         bigint,
    created_at        bigint not null,
    updated_at        bigint not null
);
-- The operator's queue: listings by state, newest change first.
create index listing_by_state on listing (state, updated_at desc, space_id desc);
create index listing_by_update on listing (updated_at desc, space_id desc);
create index listing_listed on listing (listed_at) where listed_at is not null;

create table registration (
    registration_id text primary key,
    space_id        text not null references space (space_id) on delete cascade,
    user_id         text not null references app_user (user_id) on delete cascade,
    note            text not null,
    state           text not null check (state in ('PENDING', 'APPROVED', 'REJECTED')),
    -- What the rule module suggested for a registration it left to the owner (`APPROVE`/`REJECT`).
    suggestion      text,
    created_at      bigint not null,
    decided_at      bigint,
    -- The owner who decided; null when the membership policy or a rule decided.
    decided_by      text references app_user (user_id) on delete set null
);
-- At most one pending registration per user and space: a second one answers the first.
create unique index registration_pending on registration (space_id, user_id) where state = 'PENDING';
-- The owner's list of pending registrations, newest first, and the counts for the ranking.
create index registration_by_space on registration (space_id, state, created_at desc, registration_id desc);
create index registration_by_user on registration (user_id, state);
create index registration_recent on registration (created_at, space_id);
