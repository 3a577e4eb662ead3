//! The durable job queue seen from outside: what the owner's decisions and members' changes put
//! on it (read from the database the server uses, as the module delivery tests do).

use serde_json::{Value, json};
use sqlx::Row;
use trellis_tests::{TestApp, spawn_app};

use crate::support::assets::{moved_through, proposed};
use crate::support::spaces::{add_member, created_space, id};

/// (kind, dedupe key, payload, state) of every job, oldest first.
async fn jobs(app: &TestApp) -> Vec<(String, Option<String>, Value, String)> {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&app.config.database_url()).await.unwrap();
    let rows =
        sqlx::query("select kind, dedupe_key, payload, state from job order by job_id").fetch_all(&pool).await.unwrap();
    pool.close().await;
    rows.iter()
        .map(|row| {
            let payload: String = row.get("payload");
            (row.get("kind"), row.get("dedupe_key"), serde_json::from_str(&payload).unwrap(), row.get("state"))
        })
        .collect()
}

#[tokio::test]
async fn approving_and_enabling_an_asset_again_and_again_queues_one_analysis_job() {
    // Arrange: a space without connected modules, so its events queue nothing.
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let space_id = id(&created_space(&app, &ann, "gallery").await);
    add_member(&app, &space_id, &bob).await;
    let asset_id = proposed(&app, &bob.token, &space_id, "a.png", 100).await;
    let before = jobs(&app).await;
    // Act
    moved_through(&app, &ann.token, &space_id, &asset_id, &["APPROVED", "ENABLED", "DISABLED", "ENABLED"]).await;
    // Assert
    assert_eq!(before, [], "an asset awaiting approval is not analysed");
    let queued = jobs(&app).await;
    assert_eq!(queued.len(), 1, "{queued:?}");
    let (kind, dedupe_key, payload, _) = &queued[0];
    assert_eq!(kind, "analysis");
    assert_eq!(dedupe_key.as_deref(), Some(format!("analysis:{asset_id}").as_str()));
    assert_eq!(*payload, json!({"assetId": asset_id, "proposerId": bob.user_id}));
    app.stop().await;
}

#[tokio::test]
async fn the_analysis_queue_takes_proposers_in_turn() {
    // Issue 28: the worker ran assets in arrival order, so one user's many self-approved assets
    // (up to about 35 s each) held back everybody's. This server analyses nothing; the test claims
    // as the analysis worker does, from the database the server wrote.
    // Arrange: ann approves three assets in her space, then bob one in his.
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let anns = id(&created_space(&app, &ann, "anns").await);
    let bobs = id(&created_space(&app, &bob, "bobs").await);
    let mut queued = Vec::new();
    for (user, space, name) in [(&ann, &anns, "a1"), (&ann, &anns, "a2"), (&ann, &anns, "a3"), (&bob, &bobs, "b1")] {
        let asset_id = proposed(&app, &user.token, space, &format!("{name}.png"), 100).await;
        moved_through(&app, &user.token, space, &asset_id, &["APPROVED"]).await;
        queued.push((asset_id, name));
    }
    let store = trellis::store::Store::connect(&app.config.database_url(), 1).await.unwrap();
    // Act: claim and finish one at a time.
    let mut order = Vec::new();
    for _ in 0..4 {
        let now = time::OffsetDateTime::now_utc();
        let row =
            store.jobs.claim(&["analysis"], "test", now + time::Duration::minutes(1), now).await.unwrap().unwrap();
        let payload: Value = serde_json::from_str(&row.payload).unwrap();
        order.push(queued.iter().find(|(id, _)| payload["assetId"] == **id).unwrap().1);
        let claim = trellis::store::Claim { job_id: row.job_id, worker: "test", attempts: row.attempts };
        assert!(store.jobs.succeed(claim, time::OffsetDateTime::now_utc()).await.unwrap());
    }
    store.close().await;
    // Assert: bob's one asset comes second, not after all of ann's.
    assert_eq!(order, ["a1", "b1", "a2", "a3"]);
    app.stop().await;
}
