//! Upgrades keep data. A database is built by the migrations as they stood at `FROM_VERSION` and filled
//! with the rows that release wrote (`tests/upgrade/at_0011.sql`: every table, made by
//! `make_upgrade_fixture` below), then today's server starts on it, migrates it forward and answers
//! every row back through `/v0`; no table loses a row. On SQLite and on PostgreSQL.

use std::collections::BTreeMap;

use reqwest::{Method, StatusCode};
use serde_json::json;
use sqlx::{Connection, Row};
use trellis::store::Store;
use trellis_tests::{PASSWORD, TestApp, body, spawn_app, spawn_app_with};

use crate::support::assets::proposed;
use crate::support::channels::{created_channel, invited, put_spaces};
use crate::support::forms::{created_config, created_form, get_ok, sample, sample_config};
use crate::support::marketplace::{listed_space, registered};
use crate::support::media::{Upload, multipart, pdf, png};
use crate::support::messages::sent;
use crate::support::modules::{connect, counts_path, tagged_payload, wait_until};
use crate::support::spaces::{created_space, id};
use crate::support::workflow::{created_workflow, grant, sample_workflow, started, wf};

/// The schema version the fixture's rows were written at.
const FROM_VERSION: i64 = 11;
const FIXTURE: &str = include_str!("../upgrade/at_0011.sql");

/// A value the fixture's header records (`-- name: value`), such as the license key or an id.
fn recorded(name: &str) -> String {
    let prefix = format!("-- {name}: ");
    FIXTURE
        .lines()
        .find_map(|line| line.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("the fixture records no {name}"))
        .to_owned()
}

/// The fixture for this engine: SQLite writes blobs as `X'..'`, PostgreSQL reads `'\x..'` as bytea.
fn fixture_for(url: &str) -> String {
    if url.starts_with("postgres") {
        FIXTURE.replace(", X'", ", '\\x").replace("(X'", "('\\x")
    } else {
        FIXTURE.to_owned()
    }
}

/// Rows per table of the database at `url`, for the tables the fixture fills.
async fn row_counts(url: &str) -> BTreeMap<String, i64> {
    sqlx::any::install_default_drivers();
    let mut conn = sqlx::AnyConnection::connect(url).await.unwrap();
    let mut counts = BTreeMap::new();
    for table in fixture_tables() {
        let sql = format!("select count(*) from {table}");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql)).fetch_one(&mut conn).await.unwrap();
        counts.insert(table, row.get::<i64, _>(0));
    }
    conn.close().await.unwrap();
    counts
}

fn fixture_tables() -> Vec<String> {
    let mut tables: Vec<String> = FIXTURE
        .lines()
        .filter_map(|line| line.strip_prefix("insert into "))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(str::to_owned)
        .collect();
    tables.dedup();
    tables
}

/// An empty database for the old schema: its URL, and its name on PostgreSQL (dropped at the end).
async fn old_database(app_dir: &std::path::Path) -> (String, Option<String>) {
    if std::env::var("TEST_DATABASE").is_ok_and(|db| db == "postgres") {
        let (url, name) = trellis_tests::empty_postgres_database().await;
        (url, Some(name))
    } else {
        (format!("sqlite://{}?mode=rwc", app_dir.join("old.db").display()), None)
    }
}

#[tokio::test]
async fn a_database_written_at_0011_reads_back_through_v0_after_the_upgrade() {
    // Arrange: the schema of 0011, and the rows that release wrote.
    let dir = tempfile::tempdir().unwrap();
    let (url, postgres) = old_database(dir.path()).await;
    let old = Store::connect(&url, 1).await.unwrap();
    old.migrate_up_to(FROM_VERSION).await.unwrap();
    old.close().await;
    let mut conn = sqlx::AnyConnection::connect(&url).await.unwrap();
    sqlx::raw_sql(sqlx::AssertSqlSafe(fixture_for(&url))).execute(&mut conn).await.expect("the fixture loads");
    conn.close().await.unwrap();
    let before = row_counts(&url).await;
    assert!(before.len() >= 30 && before.values().all(|n| *n > 0), "every table has rows: {before:?}");

    // Act: today's server on that database.
    let app = spawn_app_with(|config| config.database.url = url.clone()).await;

    // Assert: every row is there, and reads back through /v0. Housekeeping may already have removed
    // what it removes by age (expired sessions and PIN challenges, PIN failures older than an hour,
    // swept pending uploads): the fixture's rows are as old as the fixture.
    let pruned_by_age = ["session", "pin_challenge", "pin_failure", "media_pending"];
    let kept = |counts: BTreeMap<String, i64>| -> BTreeMap<String, i64> {
        counts.into_iter().filter(|(table, _)| !pruned_by_age.contains(&table.as_str())).collect()
    };
    let after = row_counts(&url).await;
    assert_eq!(kept(after), kept(before.clone()), "no table lost or gained a row");
    let key = recorded("license-key");
    let login = |handle: &str| {
        let (app, key) = (&app, key.clone());
        let handle = handle.to_owned();
        async move {
            let response = app
                .client
                .post(app.url("/v0/auth/login"))
                .header("X-License-Key", &key)
                .json(&json!({"login": handle, "password": PASSWORD}))
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), StatusCode::OK);
            body(response).await["sessionToken"].as_str().unwrap().to_owned()
        }
    };
    let get = |token: String, path: String| {
        let (app, key) = (&app, key.clone());
        async move {
            let response = app.client.get(app.url(&path)).header("X-License-Key", &key).bearer_auth(&token).send();
            let response = response.await.unwrap();
            let status = response.status();
            let answer = body(response).await;
            assert_eq!(status, StatusCode::OK, "{path}: {answer}");
            answer
        }
    };
    let ann = login("ann").await;
    let bob = login("bob").await;
    let (form, space, market, channel) = (recorded("form"), recorded("space"), recorded("market"), recorded("channel"));

    assert!(!get(ann.clone(), "/v0/users/me".into()).await["avatar"].is_null(), "the avatar survives");
    assert_eq!(
        get(ann.clone(), format!("/v0/forms/configurations/{}", sample::CONFIG_ID)).await["id"],
        sample::CONFIG_ID
    );
    let instance = get(ann.clone(), format!("/v0/forms/{form}")).await;
    assert!(instance.to_string().contains(&recorded("part-key")), "the attachment descriptor survives: {instance}");
    let item = get(ann.clone(), format!("/v0/workflows/items/{form}?workflowConfigurationId={}", wf::ID)).await;
    assert_eq!(item["itemId"], form.as_str());
    let grants = get(ann.clone(), format!("/v0/workflows/configurations/{}/permissions", wf::ID)).await;
    assert!(grants.to_string().contains("bob"), "{grants}");
    let spaces = get(ann.clone(), "/v0/spaces".into()).await;
    assert!(spaces.to_string().contains(&space) && spaces.to_string().contains(&market), "{spaces}");
    assert_eq!(get(ann.clone(), format!("/v0/spaces/{space}/modules")).await["modules"][0]["moduleId"], "tags");
    assert_eq!(get(ann.clone(), counts_path(&space)).await["counts"]["red"], 1, "the module's key-value rows survive");
    assert_eq!(get(ann.clone(), format!("/v0/spaces/{space}/comments")).await["items"][0]["body"], "First!");
    assert_eq!(get(ann.clone(), format!("/v0/spaces/{space}/assets")).await["items"].as_array().unwrap().len(), 1);
    let members = get(ann.clone(), format!("/v0/channels/{channel}/members")).await;
    assert!(members.to_string().contains("ann"), "{members}");
    assert!(get(bob.clone(), "/v0/channels/invites/pending".into()).await.to_string().contains(&channel));
    assert!(get(bob.clone(), "/v0/messages/unread".into()).await["unread"].as_i64().unwrap() >= 1);
    assert_eq!(get(bob.clone(), "/v0/messages/threads".into()).await["items"].as_array().unwrap().len(), 1);
    assert_eq!(get(bob.clone(), format!("/v0/marketplace/listings/{market}")).await["spaceId"], market.as_str());
    let pending = get(ann.clone(), format!("/v0/spaces/{market}/users/pending")).await;
    assert!(pending.to_string().contains("bob"), "{pending}");
    app.stop().await;
    if let Some(name) = postgres {
        trellis_tests::drop_postgres_database(&name).await;
    }
}

/// Wrote `tests/upgrade/at_0011.sql`: every table of schema 0011 filled through `/v0` (0012 added the
/// job table and changed none of these), dumped as portable inserts. Kept as the record of how the
/// fixture was made; the committed file is what the test reads, and it stays as it is when later
/// migrations change the schema (that is the point). To make a fixture of a newer schema, set
/// `FROM_VERSION` and run `TEST_DATABASE=sqlite cargo test -p trellis-tests --test api make_upgrade_fixture -- --ignored`.
#[tokio::test]
#[ignore = "writes the fixture; run by hand"]
async fn make_upgrade_fixture() {
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    // A wrong PIN leaves a pending challenge and a failure behind.
    let carol = app
        .post_json(
            "/v0/auth/sign-up/start",
            json!({"email": "carol@example.org", "handle": "carol",
        "fullName": "Carol Full", "displayName": "carol"}),
        )
        .await;
    let carol = body(carol).await["signupToken"].as_str().unwrap().to_owned();
    let wrong = app.post_json("/v0/auth/sign-up/verify-pin", json!({"signupToken": carol, "pin": "000000"})).await;
    assert_eq!(wrong.status(), StatusCode::BAD_REQUEST);
    let operator = app.grant_operator(&ann).await;

    created_config(&app, &ann.token, sample_config()).await;
    created_workflow(&app, &ann.token, sample_workflow()).await;
    let space = id(&created_space(&app, &ann, "garden").await);
    connect(&app, &ann, &space, json!([{"moduleId": "tags"}])).await;
    let form =
        created_form(&app, &ann.token, &tagged_payload(&space, "red")).await["formId"].as_str().unwrap().to_owned();
    wait_until(&app, &ann.token, &counts_path(&space), |b| b["counts"]["red"] == 1).await;
    let parts = vec![
        Upload::FieldId(sample::DOCUMENTS.into()),
        Upload::File { name: "report.pdf".into(), mime: Some("application/pdf".into()), bytes: pdf(2048) },
    ];
    let uploaded = app
        .authed(Method::POST, &format!("/v0/media/forms/{form}/attachments"), &ann.token)
        .multipart(multipart(parts))
        .send()
        .await
        .unwrap();
    assert_eq!(uploaded.status(), StatusCode::CREATED);
    let part_key = body(uploaded).await["attachments"][0]["partKey"].as_str().unwrap().to_owned();
    started(&app, &ann.token, &form).await;
    grant(&app, &ann.token, json!([{"handle": "bob", "slots": [1]}])).await;
    let comment = app.authed(Method::POST, &format!("/v0/spaces/{space}/comments"), &ann.token);
    assert_eq!(comment.json(&json!({"body": "First!"})).send().await.unwrap().status(), StatusCode::CREATED);
    proposed(&app, &ann.token, &space, "photo.png", 512).await;
    let avatar = reqwest::multipart::Form::new()
        .part("file", reqwest::multipart::Part::bytes(png(256)).file_name("me.png").mime_str("image/png").unwrap());
    let avatar =
        app.authed(Method::POST, "/v0/media/users/me/avatar", &ann.token).multipart(avatar).send().await.unwrap();
    assert_eq!(avatar.status(), StatusCode::CREATED);
    let channel = created_channel(&app, &ann, "news").await["channelId"].as_str().unwrap().to_owned();
    assert_eq!(put_spaces(&app, &ann.token, &channel, &json!([space])).await.status(), StatusCode::OK);
    invited(&app, &ann.token, &channel, &["bob"]).await;
    sent(&app, &ann, "bob", "Hello", "Welcome to the garden").await;
    let market = listed_space(&app, &ann, &operator, "market", "APPROVAL").await;
    registered(&app, &bob, &market, json!({"note": "let me in"}), StatusCode::CREATED).await;
    let _ = get_ok(&app, &ann.token, "/v0/users/me").await;

    let header = [
        ("license-key", app.license_key.clone()),
        ("form", form),
        ("part-key", part_key),
        ("space", space),
        ("market", market),
        ("channel", channel),
    ];
    // An upload whose row never committed leaves its key noted for the sweeper.
    let mut live = sqlx::SqliteConnection::connect(&app.config.database_url()).await.unwrap();
    sqlx::query("insert into media_pending (storage_key, noted_at) values ($1, $2)")
        .bind(format!("forms/{}", uuid::Uuid::now_v7()))
        .bind(time::OffsetDateTime::now_utc().unix_timestamp() * 1000)
        .execute(&mut live)
        .await
        .unwrap();
    live.close().await.unwrap();
    let sql = dump(&app, &header).await;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("upgrade/at_0011.sql");
    std::fs::write(&path, sql).unwrap();
    eprintln!("wrote {}", path.display());
    app.stop().await;
}

/// Every row of every table of schema `FROM_VERSION` in `app`'s SQLite database, as insert statements
/// (SQLite's `quote()` writes each value as a literal), tables in the order the migrations made them.
async fn dump(app: &TestApp, header: &[(&str, String)]) -> String {
    let scratch = tempfile::tempdir().unwrap();
    let old_url = format!("sqlite://{}?mode=rwc", scratch.path().join("old.db").display());
    let old = Store::connect(&old_url, 1).await.unwrap();
    old.migrate_up_to(FROM_VERSION).await.unwrap();
    old.close().await;
    let mut old = sqlx::SqliteConnection::connect(&old_url).await.unwrap();
    let tables = texts(
        &mut old,
        "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '_sqlx%' \
         order by rowid"
            .into(),
    )
    .await;
    let mut live = sqlx::SqliteConnection::connect(&app.config.database_url()).await.unwrap();
    let mut out = format!(
        "-- Every table of schema version {FROM_VERSION}, filled through /v0 (tests/api/upgrade.rs, \
         make_upgrade_fixture). Users ann and bob sign in with the tests' password.\n"
    );
    for (name, value) in header {
        out.push_str(&format!("-- {name}: {value}\n"));
    }
    let mut empty = Vec::new();
    for table in tables {
        let columns = texts(&mut old, format!("select name from pragma_table_info('{table}')")).await;
        let values = columns.iter().map(|c| format!("quote({c})")).collect::<Vec<_>>().join(" || ', ' || ");
        let rows = texts(&mut live, format!("select {values} from {table} order by rowid")).await;
        if rows.is_empty() {
            empty.push(table.clone());
        }
        for values in rows {
            out.push_str(&format!("insert into {table} ({}) values ({values});\n", columns.join(", ")));
        }
    }
    assert!(empty.is_empty(), "the fixture must fill every table; empty: {empty:?}");
    out
}

/// The first column of every row `sql` answers, as text.
async fn texts(conn: &mut sqlx::SqliteConnection, sql: String) -> Vec<String> {
    let rows = sqlx::query(sqlx::AssertSqlSafe(sql)).fetch_all(conn).await.unwrap();
    rows.iter().map(|row| row.get(0)).collect()
}

/// An account that took the handle `system` before 0010 reserved it for the platform cannot pass for
/// it after the upgrade (Security III, finding 9): it is renamed, and still signs in by e-mail.
#[tokio::test]
async fn an_account_named_system_before_0010_is_renamed_by_the_upgrade() {
    let dir = tempfile::tempdir().unwrap();
    let (url, postgres) = old_database(dir.path()).await;
    let old = Store::connect(&url, 1).await.unwrap();
    old.migrate_up_to(9).await.unwrap();
    old.close().await;
    let ann = FIXTURE
        .lines()
        .find(|line| line.starts_with("insert into app_user ") && line.contains("'ann@example.org', 'ann'"))
        .expect("the fixture has ann");
    let user_id = "5f0c2a7e-9b1d-4c3e-8f6a-2d4b6c8e0a1f";
    let impostor = ann
        .replace(&recorded_user_id(ann), user_id)
        .replace("'ann@example.org', 'ann', 'ann Full', 'ann'", "'sys@example.org', 'system', 'Trellis', 'Trellis'");
    let mut conn = sqlx::AnyConnection::connect(&url).await.unwrap();
    sqlx::raw_sql(sqlx::AssertSqlSafe(impostor)).execute(&mut conn).await.expect("the old account loads");
    conn.close().await.unwrap();

    let app = spawn_app_with(|config| config.database.url = url.clone()).await;

    let login = |login: &'static str| app.post_json("/v0/auth/login", json!({"login": login, "password": PASSWORD}));
    assert_eq!(login("system").await.status(), StatusCode::UNAUTHORIZED, "nobody holds the handle now");
    let signed_in = login("sys@example.org").await;
    assert_eq!(signed_in.status(), StatusCode::OK);
    let token = body(signed_in).await["sessionToken"].as_str().unwrap().to_owned();
    let me = body(app.get_authed("/v0/users/me", &token).await).await;
    assert_eq!(me["handle"], "system_5f0c2a7e9b1d4c3e8f6a2d4", "{me}");
    app.stop().await;
    if let Some(name) = postgres {
        trellis_tests::drop_postgres_database(&name).await;
    }
}

/// The `user_id` an `insert into app_user` line of the fixture writes (its first quoted value).
fn recorded_user_id(line: &str) -> String {
    line.split('\'').nth(1).expect("a quoted user id").to_owned()
}
