//! The migrations of each engine, embedded in the binary.
//!
//! Listed here instead of through sqlx's `migrate!` macro: that macro needs sqlx's `macros`
//! feature, which compiles both database drivers (SQLite's C source included) a second time for the
//! proc-macro, just to read one folder. `Migration::new` computes the same checksum the macro
//! records, so databases migrated by either way agree. A test keeps this list equal to the folders.

use std::borrow::Cow;

use futures::future::BoxFuture;
use sqlx::SqlStr;
use sqlx::error::BoxDynError;
use sqlx::migrate::{Migration, MigrationSource, MigrationType, Migrator};

use super::Engine;

/// Version, file name and SQL of one migration file.
type Embedded = (i64, &'static str, &'static str);

macro_rules! embed {
    ($engine:literal: $($version:literal $file:literal),+ $(,)?) => {
        &[$(($version, $file, include_str!(concat!("../../../migrations/", $engine, "/", $file)))),+]
    };
}

const SQLITE: &[Embedded] = embed!("sqlite":
    1 "0001_foundation.sql",
    2 "0002_forms.sql",
    3 "0003_workflows.sql",
    4 "0004_spaces.sql",
    5 "0005_media.sql",
    6 "0006_pin_failures.sql",
    7 "0007_module_kv_usage.sql",
    8 "0008_space_collaboration.sql",
    9 "0009_channels.sql",
    10 "0010_messages.sql",
    11 "0011_marketplace.sql",
    12 "0012_jobs.sql",
    13 "0013_delivery_event.sql",
    14 "0014_revisions.sql",
    15 "0015_announcement_expiry.sql",
    16 "0016_fair_jobs.sql",
    17 "0017_live_events.sql",
    18 "0018_resumable_uploads.sql",
    19 "0019_bytes_stored_once.sql",
    20 "0020_live_event_numbers.sql",
    21 "0021_upload_writer.sql",
    22 "0022_live_event_reach.sql",
    23 "0023_system_handle.sql",
    24 "0024_upload_subject.sql",
    25 "0025_update_revisions.sql",
);

const POSTGRES: &[Embedded] = embed!("postgres":
    1 "0001_foundation.sql",
    2 "0002_forms.sql",
    3 "0003_workflows.sql",
    4 "0004_spaces.sql",
    5 "0005_media.sql",
    6 "0006_pin_failures.sql",
    7 "0007_module_kv_usage.sql",
    8 "0008_space_collaboration.sql",
    9 "0009_channels.sql",
    10 "0010_messages.sql",
    11 "0011_marketplace.sql",
    12 "0012_jobs.sql",
    13 "0013_delivery_event.sql",
    14 "0014_revisions.sql",
    15 "0015_announcement_expiry.sql",
    16 "0016_fair_jobs.sql",
    17 "0017_live_events.sql",
    18 "0018_resumable_uploads.sql",
    19 "0019_bytes_stored_once.sql",
    20 "0020_live_event_numbers.sql",
    21 "0021_upload_writer.sql",
    22 "0022_live_event_reach.sql",
    23 "0023_system_handle.sql",
    24 "0024_upload_subject.sql",
    25 "0025_update_revisions.sql",
);

/// The version of the newest migration this binary carries.
pub fn latest(engine: Engine) -> i64 {
    files(engine).last().map_or(0, |(version, _, _)| *version)
}

/// The engine's migrations up to `version`, ready to run.
pub async fn migrator_up_to(engine: Engine, version: i64) -> Result<Migrator, sqlx::migrate::MigrateError> {
    let files = files(engine);
    let count = files.iter().take_while(|(v, _, _)| *v <= version).count();
    Migrator::new(Source(&files[..count])).await
}

fn files(engine: Engine) -> &'static [Embedded] {
    match engine {
        Engine::Sqlite => SQLITE,
        Engine::Postgres => POSTGRES,
    }
}

#[derive(Debug)]
struct Source(&'static [Embedded]);

impl<'s> MigrationSource<'s> for Source {
    fn resolve(self) -> BoxFuture<'s, Result<Vec<Migration>, BoxDynError>> {
        let migrations = self.0.iter().map(|&(version, file, sql)| {
            Migration::new(version, description(file), MigrationType::Simple, SqlStr::from_static(sql), false)
        });
        Box::pin(std::future::ready(Ok(migrations.collect())))
    }
}

/// `0004_spaces.sql` → `spaces`, as sqlx names a migration after its file.
fn description(file: &str) -> Cow<'static, str> {
    let stem = file.trim_end_matches(".sql");
    let words = stem.split_once('_').map_or("", |(_, words)| words);
    Cow::Owned(words.replace('_', " "))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn every_migration_file_is_embedded_in_order() {
        for (engine, folder) in [(Engine::Sqlite, "sqlite"), (Engine::Postgres, "postgres")] {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../migrations").join(folder);
            let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|entry| entry.unwrap().file_name().into_string().unwrap())
                .filter(|name| name.ends_with(".sql"))
                .collect();
            on_disk.sort();
            let embedded: Vec<String> = files(engine).iter().map(|(_, file, _)| (*file).to_owned()).collect();
            assert_eq!(embedded, on_disk, "migrations/{folder} and the embedded list differ");
            for (version, file, _) in files(engine) {
                let number: i64 = file.split('_').next().unwrap().parse().unwrap();
                assert_eq!(*version, number, "{file}");
            }
        }
    }

    #[test]
    fn descriptions_follow_the_file_names() {
        assert_eq!(description("0001_foundation.sql"), "foundation");
        assert_eq!(description("0007_asset_analysis.sql"), "asset analysis");
    }
}
