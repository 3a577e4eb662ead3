//! The S3-compatible server of the media tests: its settings from the `S3_*` variables, a client to
//! look at what a server stored, and a server of its own bucket.

use s3::creds::Credentials;
use s3::{Bucket, BucketConfiguration, Region};
use trellis::config::Config;
use trellis::config::media::{MediaBackend, S3Config};

use crate::{TestApp, in_ci, note_skip, spawn_app_with};

/// The S3-compatible server the `S3_*` variables name (`scripts/test` starts a Garage and sets
/// them; `eval "$(scripts/s3-server start)"` does the same by hand). Without `S3_ENDPOINT`, a CI
/// run fails here and a local run notes that `test` was skipped and answers `None`.
pub fn s3_settings(test: &str) -> Option<S3Config> {
    let Ok(endpoint) = std::env::var("S3_ENDPOINT") else {
        assert!(
            !in_ci(),
            "{test}: CI is set but S3_ENDPOINT is not, so the S3 tests cannot run (scripts/test starts Garage and \
             sets the S3_* variables)"
        );
        note_skip(test, "S3_ENDPOINT is not set (eval \"$(scripts/s3-server start)\" sets the S3_* variables)");
        return None;
    };
    let var = |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("S3_ENDPOINT is set but {name} is not"));
    Some(S3Config {
        endpoint,
        region: var("S3_REGION"),
        bucket: var("S3_BUCKET"),
        access_key: var("S3_ACCESS_KEY"),
        secret_key: var("S3_SECRET_KEY"),
        path_style: true,
        timeout_seconds: 30,
    })
}

pub(crate) fn s3_region(config: &S3Config) -> Region {
    Region::Custom { region: config.region.clone(), endpoint: config.endpoint.clone() }
}

pub(crate) fn s3_credentials(config: &S3Config) -> Credentials {
    Credentials::new(Some(&config.access_key), Some(&config.secret_key), None, None, None).expect("S3 credentials")
}

/// A client of the bucket `config` names, beside the server's own, to look at what it stored.
pub fn s3_bucket(config: &S3Config) -> Box<Bucket> {
    Bucket::new(&config.bucket, s3_region(config), s3_credentials(config)).expect("an S3 client").with_path_style()
}

/// The keys of every object in `bucket`, sorted.
pub async fn s3_object_keys(bucket: &Bucket) -> Vec<String> {
    let pages = bucket.list(String::new(), None).await.expect("listing the bucket");
    let mut keys: Vec<String> = pages.into_iter().flat_map(|page| page.contents).map(|object| object.key).collect();
    keys.sort();
    keys
}

/// The keys of the multipart uploads in `bucket` that were neither completed nor aborted, sorted.
pub async fn s3_unfinished_uploads(bucket: &Bucket) -> Vec<String> {
    let pages = bucket.list_multiparts_uploads(None, None).await.expect("listing the multipart uploads");
    let mut keys: Vec<String> = pages.into_iter().flat_map(|page| page.uploads).map(|upload| upload.key).collect();
    keys.sort();
    keys
}

/// Starts a server after `customize`, its media on a new, empty bucket of its own on the S3
/// server `settings` names (the test key may create buckets), so a test sees exactly what this
/// server stored however many others share the S3 server. `stop` empties and removes the bucket.
pub async fn spawn_app_on_s3(settings: &S3Config, customize: impl FnOnce(&mut Config)) -> TestApp {
    let media = S3Config { bucket: format!("trellis-test-{}", uuid::Uuid::new_v4().simple()), ..settings.clone() };
    Bucket::create_with_path_style(
        &media.bucket,
        s3_region(&media),
        s3_credentials(&media),
        BucketConfiguration::default(),
    )
    .await
    .unwrap_or_else(|error| panic!("creating the test bucket {}: {error}", media.bucket));
    let mut app = spawn_app_with(|config| {
        config.media.backend = MediaBackend::S3;
        config.media.s3 = media;
        customize(config);
    })
    .await;
    app.own_bucket = true;
    app
}

/// Empties a test bucket (objects and unfinished uploads) and removes it.
pub(crate) async fn remove_bucket(bucket: &Bucket) {
    for key in s3_object_keys(bucket).await {
        bucket.delete_object(&key).await.expect("removing an object of the test bucket");
    }
    let pages = bucket.list_multiparts_uploads(None, None).await.expect("listing the multipart uploads");
    for upload in pages.into_iter().flat_map(|page| page.uploads) {
        bucket.abort_upload(&upload.key, &upload.id).await.expect("aborting an upload in the test bucket");
    }
    bucket.delete().await.expect("removing the test bucket");
}
