//! Throwaway PostgreSQL databases for the tests: each a copy of one migrated template.

use std::path::PathBuf;

use sqlx::Connection;

fn postgres_admin_url() -> String {
    std::env::var("TEST_POSTGRES_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

/// A new PostgreSQL database with every migration applied: its URL and name. Cloned from a migrated
/// template (`CREATE DATABASE ... TEMPLATE`), which costs a file copy instead of running every
/// migration again for each test.
pub async fn fresh_postgres_database() -> (String, String) {
    let template = migrated_template().await;
    create_postgres_database(Some(&template)).await
}

/// A new, empty PostgreSQL database (no schema): its URL and name.
pub async fn empty_postgres_database() -> (String, String) {
    create_postgres_database(None).await
}

async fn create_postgres_database(template: Option<&str>) -> (String, String) {
    let admin_url = postgres_admin_url();
    let name = format!("trellis_test_{}", uuid::Uuid::new_v4().simple());
    let mut conn = sqlx::PgConnection::connect(&admin_url).await.expect("connecting to PostgreSQL");
    let from = template.map(|template| format!(" template {template}")).unwrap_or_default();
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("create database {name}{from}")))
        .execute(&mut conn)
        .await
        .expect("creating a test database");
    (database_url(&admin_url, &name), name)
}

fn database_url(admin_url: &str, name: &str) -> String {
    let base = admin_url.rsplit_once('/').map(|(base, _)| base).unwrap_or(admin_url);
    format!("{base}/{name}")
}

/// The name of a database holding today's schema and nothing else, made once per set of migrations
/// (its name carries their digest, so a changed migration makes a new one) and shared by every test
/// process: the first one builds it under an advisory lock, under a temporary name it renames when
/// done, so no test ever clones a half-migrated template. Nobody stays connected to it, which
/// `CREATE DATABASE ... TEMPLATE` requires. `scripts/drop-test-databases` removes old ones.
async fn migrated_template() -> String {
    static NAME: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
    NAME.get_or_init(|| async {
        let name = format!("trellis_test_template_{}", migrations_digest());
        let admin_url = postgres_admin_url();
        let mut conn = sqlx::PgConnection::connect(&admin_url).await.expect("connecting to PostgreSQL");
        sqlx::query("select pg_advisory_lock(hashtext('trellis_test_template'))")
            .execute(&mut conn)
            .await
            .expect("taking the template lock");
        let exists: Option<i32> = sqlx::query_scalar("select 1 from pg_database where datname = $1")
            .bind(&name)
            .fetch_optional(&mut conn)
            .await
            .expect("looking for the template");
        if exists.is_none() {
            let building = format!("{name}_building");
            // One statement each: PostgreSQL runs several sent together as one transaction, which
            // neither may run in.
            for statement in
                [format!("drop database if exists {building} with (force)"), format!("create database {building}")]
            {
                sqlx::raw_sql(sqlx::AssertSqlSafe(statement))
                    .execute(&mut conn)
                    .await
                    .expect("creating the template database");
            }
            let store = trellis::store::Store::connect(&database_url(&admin_url, &building), 1)
                .await
                .expect("connecting to the template database");
            store.migrate().await.expect("migrating the template database");
            store.close().await;
            sqlx::raw_sql(sqlx::AssertSqlSafe(format!("alter database {building} rename to {name}")))
                .execute(&mut conn)
                .await
                .expect("naming the template database");
        }
        sqlx::query("select pg_advisory_unlock(hashtext('trellis_test_template'))")
            .execute(&mut conn)
            .await
            .expect("releasing the template lock");
        name
    })
    .await
    .clone()
}

/// A short digest of the PostgreSQL migrations' names and contents.
fn migrations_digest() -> String {
    use sha2::Digest;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../migrations/postgres");
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(&dir).expect("reading migrations/postgres").map(|entry| entry.unwrap().path()).collect();
    files.sort();
    let mut digest = sha2::Sha256::new();
    for file in files {
        digest.update(file.file_name().unwrap().as_encoded_bytes());
        digest.update(std::fs::read(&file).expect("reading a migration"));
    }
    digest.finalize().iter().take(8).map(|byte| format!("{byte:02x}")).collect()
}

/// Drops a database made by [`fresh_postgres_database`].
pub async fn drop_postgres_database(name: &str) {
    let mut conn = sqlx::PgConnection::connect(&postgres_admin_url()).await.expect("connecting to PostgreSQL");
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("drop database if exists {name} with (force)")))
        .execute(&mut conn)
        .await
        .expect("dropping the test database");
}
