-- Who could hear a live event, coarsely (Security III, finding 3): up to two keys naming the users,
-- space, channel or workflow its audience derives from (`u:`, `s:`, `c:`, `w:` and the id). A
-- replay reads only the events whose keys are among the reconnecting user's own (their spaces,
-- channels, workflows and themselves), so other people's events cost it nothing; the exact audience
-- is still decided per event. Events written before keep no keys and stay everyone's candidates.
alter table live_event add column reach1 text;
alter table live_event add column reach2 text;
create index live_event_reach1 on live_event (reach1, event_id);
create index live_event_reach2 on live_event (reach2, event_id) where reach2 is not null;
-- The owner's reach: the workflows they own.
create index workflow_configuration_owner on workflow_configuration (owner_id);
