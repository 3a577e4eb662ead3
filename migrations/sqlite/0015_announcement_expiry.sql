-- Announcements still awaiting their upload, oldest first: the server rejects those whose upload
-- window has passed (conventions section 12), every sweep interval, without reading the rest.
create index published_asset_awaiting_upload on published_asset (created_at) where state = 'AWAITING_UPLOAD';
