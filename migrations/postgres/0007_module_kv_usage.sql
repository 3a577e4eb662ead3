-- What each module stores in each space, kept in step with module_kv by every write, so the
-- per-(space, module) quota is checked without counting rows.
create table module_kv_usage (
    space_id  text not null references space (space_id) on delete cascade,
    module_id text not null,
    keys      bigint not null,
    bytes     bigint not null,
    primary key (space_id, module_id)
);

insert into module_kv_usage (space_id, module_id, keys, bytes)
select space_id, module_id, count(*), coalesce(sum(octet_length(key) + octet_length(value)), 0)
from module_kv group by space_id, module_id;
