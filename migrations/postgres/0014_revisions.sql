-- Conditional requests (conventions section 1): a space's general settings and a listing's
-- preparation carry a revision that every change of them moves on. Their entity tags are made of it,
-- and an update sent with `If-Match` writes only while the row is still at the revision it checked.
alter table space add column revision bigint not null default 1;
alter table listing add column revision bigint not null default 1;
