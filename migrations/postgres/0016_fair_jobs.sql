-- Fair turns in the job queue: a worker claims the next job of the key it served least recently
-- (e.g. the proposer of an asset to analyse), so one key's many jobs cannot hold back everybody else's.
alter table job add column fair_key text;
-- When each key was last served: claimed (RUNNING) or finished jobs by key and time.
create index job_fair_turn on job (fair_key, updated_at) where state in ('RUNNING', 'SUCCEEDED', 'FAILED');
