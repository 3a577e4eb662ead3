-- Direct messages (conventions 7): threads between two participants, their messages, and what
-- each participant's thread list and unread indicator show, kept in step on every send and read.
--
-- The handle `system` has no account: a null sender (or a null other participant) is `system`,
-- the platform's notices, which start a thread each and take no replies.

create table message_thread (
    thread_id  text primary key,
    -- The first message's subject.
    subject    text not null,
    created_at bigint not null
);

-- One row per participant with an account: the thread as that participant's list shows it. The
-- list, newest activity first, is one range of `thread_participant_activity`; `unread` counts the
-- thread's messages to this participant not yet fetched.
create table thread_participant (
    thread_id       text not null references message_thread (thread_id) on delete cascade,
    user_id         text not null references app_user (user_id) on delete cascade,
    -- The other participant; null is `system`.
    other_id        text references app_user (user_id) on delete cascade,
    unread          bigint not null default 0,
    last_message_at bigint not null,
    primary key (thread_id, user_id)
);
create index thread_participant_activity on thread_participant (user_id, last_message_at desc, thread_id desc);

create table message (
    message_id   text primary key,
    thread_id    text not null references message_thread (thread_id) on delete cascade,
    -- Null is `system`.
    sender_id    text references app_user (user_id) on delete cascade,
    recipient_id text not null references app_user (user_id) on delete cascade,
    subject      text not null,
    body         text not null,
    created_at   bigint not null,
    -- Set when the recipient first fetches the message.
    read_at      bigint
);
-- A page of a thread's messages, newest first, is one range of this index.
create index message_by_thread on message (thread_id, created_at desc, message_id desc);

-- The unread indicator, polled by clients: one row per user who ever received a message, so
-- `GET /v0/messages/unread` is one primary-key read however many messages wait.
create table message_inbox (
    user_id text primary key references app_user (user_id) on delete cascade,
    unread  bigint not null default 0
);
