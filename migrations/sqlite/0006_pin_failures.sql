-- Failed PIN checks per purpose and e-mail address: after 10 within an hour that address's
-- reset (or sign-up) is locked until the hour has passed (conventions section 5). Keyed by the
-- address, not the account, so a known and an unknown address behave alike.
create table pin_failure (
    purpose   text not null,
    email     text not null,
    failed_at bigint not null
);
create index pin_failure_email on pin_failure (purpose, email, failed_at);
