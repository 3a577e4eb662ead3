-- Deliveries name the event (the job) they deliver, so a job run again after a crash or a lease
-- that ran out skips the modules that already took the event: each module takes an event once,
-- unless its server dies between the module's answer and this row.
alter table module_delivery add column event_id bigint;
create unique index module_delivery_event on module_delivery (event_id, module_id) where event_id is not null;
