//! A fresh database for one test: a SQLite file in a temporary folder, or a fresh PostgreSQL
//! database (on `TEST_POSTGRES_URL`, default the local server) when `TEST_DATABASE=postgres`.

// Each test binary that includes this uses only part of it.
#![allow(dead_code)]

use sqlx::Connection;
use trellis::store::Store;

pub struct TestDatabase {
    pub url: String,
    /// The throwaway PostgreSQL database, dropped by `remove`.
    postgres: Option<String>,
    pub dir: tempfile::TempDir,
}

fn admin_url() -> String {
    std::env::var("TEST_POSTGRES_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

impl TestDatabase {
    pub async fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        if std::env::var("TEST_DATABASE").is_ok_and(|db| db == "postgres") {
            let admin = admin_url();
            let name = format!("trellis_test_{}", uuid::Uuid::new_v4().simple());
            let mut conn = sqlx::PgConnection::connect(&admin).await.expect("connecting to PostgreSQL");
            sqlx::raw_sql(sqlx::AssertSqlSafe(format!("create database {name}")))
                .execute(&mut conn)
                .await
                .expect("creating a test database");
            let (base, _) = admin.rsplit_once('/').expect("a database url ends in /name");
            Self { url: format!("{base}/{name}"), postgres: Some(name), dir }
        } else {
            let url = format!("sqlite://{}?mode=rwc", dir.path().join("jobs.db").display());
            Self { url, postgres: None, dir }
        }
    }

    /// A connected store over the database, migrated.
    pub async fn store(&self) -> Store {
        let store = Store::connect(&self.url, 4).await.expect("connecting the store");
        store.migrate().await.expect("migrating");
        store
    }

    /// Drops the PostgreSQL database (the SQLite file goes with the folder).
    pub async fn remove(self) {
        if let Some(name) = self.postgres {
            let mut conn = sqlx::PgConnection::connect(&admin_url()).await.expect("connecting to PostgreSQL");
            sqlx::raw_sql(sqlx::AssertSqlSafe(format!("drop database if exists {name} with (force)")))
                .execute(&mut conn)
                .await
                .expect("dropping the test database");
        }
    }
}
