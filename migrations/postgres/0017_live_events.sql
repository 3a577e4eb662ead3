-- Live updates (conventions section 14): each event a committed change caused, written in that
-- change's transaction and kept for the replay window. `audience` names who may hear it, checked
-- against each listener when the event is sent; `data` is the event's JSON.
create table live_event (
    event_id   bigint generated always as identity primary key,
    kind       text not null,
    audience   text not null,
    data       text not null,
    created_at bigint not null
);
create index live_event_created_at on live_event (created_at);

-- Single-use tickets for browsers' EventSource, which cannot send headers. The stream a ticket
-- opens re-checks the session (and the license key, when one was used) it was issued under.
create table live_ticket (
    ticket_digest  text primary key,
    user_id        text not null references app_user (user_id) on delete cascade,
    session_digest text not null,
    license_digest text,
    expires_at     bigint not null
);
create index live_ticket_expires_at on live_ticket (expires_at);
