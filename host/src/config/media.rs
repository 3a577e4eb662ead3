//! Where media bytes live and how uploads are bounded.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct MediaConfig {
    /// `local` (files under `<data-dir>/media`, the default) or `s3`.
    pub backend: MediaBackend,
    /// The S3-compatible store, when `backend = "s3"`.
    pub s3: S3Config,
    /// Largest file accepted on a file field that sets no `file.maxBytes`.
    pub default_max_file_bytes: u64,
    /// Largest file accepted at all, whatever a field's `file.maxBytes` says.
    pub max_file_bytes: u64,
    /// Largest published asset of a space (never above `max_file_bytes`).
    pub max_asset_bytes: u64,
    /// Largest whole upload request, all parts together.
    pub max_request_bytes: u64,
    /// Most files in one upload request.
    pub max_files_per_request: usize,
    /// Seconds between sweeps for bytes whose database row never committed.
    pub sweep_interval_seconds: u64,
    /// An unfinished upload older than this many seconds is considered dead by the sweeper.
    /// Must exceed the longest upload a deployment expects.
    pub sweep_grace_seconds: u64,
    /// An announced asset still awaiting its upload this many seconds after it was announced is
    /// moved to REJECTED by the server (conventions section 12).
    pub asset_upload_window_seconds: u64,
    /// Name of this deployment's storage shard; avatar URLs carry a hash of it (`dbHash`).
    pub shard: String,
    /// `Retry-After` seconds sent with MEDIA_UNAVAILABLE.
    pub retry_after_seconds: u64,
    /// A resumable upload (`/v0/media/uploads`) expires this many seconds after its last byte
    /// arrived (or after its creation); the sweeper then removes its bytes.
    pub upload_expiry_seconds: u64,
    /// Most resumable uploads one user may hold at once, finished or not, until they are used,
    /// ended or expire.
    pub max_open_uploads_per_user: u64,
    /// Most bytes (declared lengths) one user's held resumable uploads may add up to.
    pub max_open_upload_bytes_per_user: u64,
    /// Most bytes the held resumable uploads made with one license key (or by one gateway
    /// subscriber) may add up to, whoever made them; one more is 429.
    pub max_open_upload_bytes_per_license: u64,
    /// Most bytes every held resumable upload on the database may add up to; one more is 503 with
    /// `Retry-After`. Keep it below the free space of the media store.
    pub max_open_upload_bytes: u64,
}

impl Default for MediaConfig {
    fn default() -> Self {
        Self {
            backend: MediaBackend::Local,
            s3: S3Config::default(),
            default_max_file_bytes: 100 * 1024 * 1024,
            max_file_bytes: 1024 * 1024 * 1024,
            max_asset_bytes: 100 * 1024 * 1024,
            max_request_bytes: 8 * 1024 * 1024 * 1024,
            max_files_per_request: 100,
            sweep_interval_seconds: 600,
            sweep_grace_seconds: 6 * 3600,
            asset_upload_window_seconds: 24 * 3600,
            shard: "default".into(),
            retry_after_seconds: 5,
            upload_expiry_seconds: 24 * 3600,
            max_open_uploads_per_user: 16,
            max_open_upload_bytes_per_user: 4 * 1024 * 1024 * 1024,
            max_open_upload_bytes_per_license: 64 * 1024 * 1024 * 1024,
            max_open_upload_bytes: 256 * 1024 * 1024 * 1024,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum MediaBackend {
    #[default]
    Local,
    S3,
}

/// An S3-compatible object store.
#[derive(Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct S3Config {
    /// For example `https://s3.eu-west-1.amazonaws.com` or `http://127.0.0.1:3900`.
    pub endpoint: String,
    /// The store's region.
    pub region: String,
    /// The bucket that holds the media objects.
    pub bucket: String,
    /// Access key id.
    pub access_key: String,
    /// Secret access key.
    pub secret_key: String,
    /// Path-style addressing (`endpoint/bucket/key`), which most self-hosted stores need;
    /// false for virtual-host style (`bucket.endpoint/key`).
    pub path_style: bool,
    /// Seconds a single request to the store may take before it counts as unreachable.
    pub timeout_seconds: u64,
}

impl Default for S3Config {
    fn default() -> Self {
        Self {
            endpoint: String::new(),
            region: "us-east-1".into(),
            bucket: String::new(),
            access_key: String::new(),
            secret_key: String::new(),
            path_style: true,
            timeout_seconds: 30,
        }
    }
}

impl fmt::Debug for S3Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("S3Config")
            .field("endpoint", &self.endpoint)
            .field("region", &self.region)
            .field("bucket", &self.bucket)
            .field("path_style", &self.path_style)
            .finish_non_exhaustive()
    }
}
