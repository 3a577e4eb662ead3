-- Workflow configurations, who holds which permission slots, the items running through them,
-- and their audit trail.

create table workflow_configuration (
    workflow_configuration_id text primary key,
    owner_id                  text not null references app_user (user_id),
    document                  text not null,
    revision                  bigint not null,
    created_at                bigint not null,
    updated_at                bigint not null
);

create table workflow_grant (
    workflow_configuration_id text not null references workflow_configuration (workflow_configuration_id) on delete cascade,
    user_id                   text not null references app_user (user_id) on delete cascade,
    slot                      bigint not null,
    primary key (workflow_configuration_id, user_id, slot)
);
create index workflow_grant_user on workflow_grant (user_id);

-- An item sits in one workflow at a time; it is the form instance of the same id.
create table workflow_item (
    item_id                   text primary key references form_instance (form_id) on delete cascade,
    item_type                 text not null,
    workflow_configuration_id text not null references workflow_configuration (workflow_configuration_id),
    workbasket_id             text not null,
    revision                  bigint not null,
    started_by                text not null references app_user (user_id),
    created_at                bigint not null,
    updated_at                bigint not null
);
create index workflow_item_listing on workflow_item (workflow_configuration_id, created_at desc, item_id desc);
create index workflow_item_workbasket on workflow_item (workflow_configuration_id, workbasket_id, created_at desc, item_id desc);

create table workflow_event (
    event_id                  text primary key,
    item_id                   text not null references workflow_item (item_id) on delete cascade,
    workflow_configuration_id text not null,
    actor_id                  text not null references app_user (user_id),
    action                    text not null,
    from_workbasket_id        text,
    to_workbasket_id          text,
    transition_id             text,
    changed_fields            text not null default '[]',
    at                        bigint not null
);
create index workflow_event_item on workflow_event (item_id, at, event_id);
