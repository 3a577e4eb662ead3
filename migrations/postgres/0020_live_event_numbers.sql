-- Live events get their public id after their commit (`seq`, given by the sequencer in
-- `store::live` from the counter below), so writers no longer hold one lock through their commits
-- to keep ids in commit order. Events written before keep their row id as their public id.
alter table live_event add column seq bigint;
update live_event set seq = event_id;
create unique index live_event_seq on live_event (seq);
-- What the sequencer looks for: committed events not numbered yet.
create index live_event_unnumbered on live_event (event_id) where seq is null;
-- The last number given (one row), kept apart from the events, which the prune deletes.
create table live_event_numbering (last bigint not null);
insert into live_event_numbering (last) select coalesce(max(event_id), 0) from live_event;
