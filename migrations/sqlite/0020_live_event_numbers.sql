-- Nothing to change on SQLite: one writer commits at a time, so a live event's row id already
-- follows commit order and stays its public id. (PostgreSQL's 0020 numbers events after their
-- commit instead; the versions stay the same on both engines.)
select 1;
