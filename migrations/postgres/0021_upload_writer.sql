-- The request writing a resumable upload, across every server on the database (Security III, finding
-- 1): a writer claims the row at the offset it writes from (`received` must still be that offset)
-- before any byte reaches the media store, renews the claim while it writes, and names it in each
-- advance; a PATCH that read a stale offset, or a second writer anywhere, is refused before it can
-- touch acknowledged bytes. A claim whose server died ends at `writer_until` (epoch milliseconds).
alter table media_upload add column writer text;
alter table media_upload add column writer_until bigint;
