-- Whose license key (or gateway subscriber) created a resumable upload (Security III, finding 7):
-- unused uploads are bounded per key and server-wide as well as per user. Uploads created before
-- count server-wide only.
alter table media_upload add column subject text;
create index media_upload_by_subject on media_upload (subject, expires_at);
