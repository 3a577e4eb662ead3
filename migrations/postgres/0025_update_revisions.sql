-- Conditional requests on the remaining updates (conventions section 1): the own profile, a space's
-- connected modules, a channel's connected spaces and a workflow's grants each carry a revision that
-- every change of them moves on. Their entity tags are made of it, and an update sent with `If-Match`
-- writes only while the row is still at the revision it checked. Moving the revision first also
-- orders two replacements of one set on PostgreSQL (the row lock), so they cannot interleave.
alter table app_user add column revision bigint not null default 1;
alter table space add column modules_revision bigint not null default 1;
alter table channel add column spaces_revision bigint not null default 1;
alter table workflow_configuration add column grants_revision bigint not null default 1;
