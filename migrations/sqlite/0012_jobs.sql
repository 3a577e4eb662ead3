-- The durable job queue: background work (module events, asset analysis) that survives restarts.
-- A worker claims the oldest due job of its kinds (QUEUED, or RUNNING with its lease run out: a
-- dead worker's), and jobs sharing an order_key run one at a time in job_id order.

create table job (
    -- Ordered: insertion order is claim order.
    job_id      integer primary key autoincrement,
    kind        text not null,
    -- Enqueueing a second job with the same key is a no-op (nulls never collide).
    dedupe_key  text unique,
    -- Null, or e.g. a space id: jobs with the same key run strictly one at a time, in id order.
    order_key   text,
    -- JSON text, read only by the kind's handler.
    payload     text not null,
    state       text not null check (state in ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED')),
    -- Claims so far, the running one included.
    attempts    bigint not null default 0,
    -- When a QUEUED job is due (later than created_at while it waits for a retry).
    run_at      bigint not null,
    -- A RUNNING job whose lease ran out is taken again by another worker.
    lease_until bigint,
    -- The server process that claimed it last.
    worker      text,
    last_error  text,
    created_at  bigint not null,
    updated_at  bigint not null
);
-- The claim: unfinished jobs of a kind in id order.
create index job_unfinished on job (kind, job_id) where state in ('QUEUED', 'RUNNING');
-- The head-of-line check and the per-key bound: unfinished jobs of an order_key.
create index job_unfinished_order on job (order_key, job_id) where state in ('QUEUED', 'RUNNING');
-- Housekeeping drops finished jobs after a while.
create index job_finished on job (updated_at) where state in ('SUCCEEDED', 'FAILED');

-- Assets marked for analysis before the queue existed get their job now.
insert into job (kind, dedupe_key, order_key, payload, state, attempts, run_at, created_at, updated_at)
select 'analysis', 'analysis:' || asset_id, null, '{"assetId":"' || asset_id || '"}', 'QUEUED', 0, updated_at,
       updated_at, updated_at
from published_asset where analysis_state = 'QUEUED' order by updated_at, asset_id;
