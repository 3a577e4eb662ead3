-- Form configurations (the validated JSON document, kept whole) and form instances.

create table form_configuration (
    configuration_id text primary key,
    owner_id         text not null references app_user (user_id),
    state            text not null check (state in ('ACTIVE', 'ARCHIVED')),
    document         text not null,
    editors          text not null default '[]',
    revision         bigint not null,
    created_at       bigint not null,
    updated_at       bigint not null
);
create index form_configuration_listing on form_configuration (created_at desc, configuration_id desc);

-- The languages a configuration holds a bundle for, for the `language` list filter.
create table form_configuration_language (
    configuration_id text not null references form_configuration (configuration_id) on delete cascade,
    language         text not null,
    primary key (language, configuration_id)
);

create table form_instance (
    form_id          text primary key,
    configuration_id text not null references form_configuration (configuration_id),
    owner_id         text not null references app_user (user_id),
    state            text not null check (state in ('DRAFT', 'SUBMITTED')),
    language         text not null,
    answers          text not null,
    metadata         text,
    integrations     text,
    space_id         text,
    revision         bigint not null,
    created_at       bigint not null,
    updated_at       bigint not null
);
create index form_instance_owner_listing on form_instance (owner_id, created_at desc, form_id desc);
create index form_instance_configuration on form_instance (configuration_id);

-- The audit trail of instances whose configuration enables logging.
create table form_instance_event (
    event_id       text primary key,
    form_id        text not null references form_instance (form_id) on delete cascade,
    actor_id       text not null references app_user (user_id),
    action         text not null,
    changed_fields text not null,
    state          text not null,
    at             bigint not null
);
create index form_instance_event_form on form_instance_event (form_id, at, event_id);
