use std::sync::Arc;

use sqlx::Row;
use time::OffsetDateTime;

use super::{Db, StoreResult, from_millis, to_millis};

/// The outcome of delivering one event to one module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// The event (its job) delivered; a module takes an event once.
    pub event_id: Option<i64>,
    pub space_id: String,
    pub module_id: String,
    /// `form-instance-created`, `form-instance-updated`, ...
    pub event_kind: String,
    pub item_id: String,
    /// `DELIVERED` or `FAILED`.
    pub state: String,
    /// Why it failed.
    pub error: Option<String>,
    pub created_at: OffsetDateTime,
}

/// The repository of outcomes of space events delivered to modules.
#[derive(Clone, Debug)]
pub struct ModuleDeliveryRepo {
    db: Db,
}

impl ModuleDeliveryRepo {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    /// Whether `module_id` already took event `event_id` (a run of the event's job before this one).
    pub async fn delivered(&self, event_id: i64, module_id: &str) -> StoreResult<bool> {
        let row = sqlx::query("select 1 as one from module_delivery where event_id = $1 and module_id = $2")
            .bind(event_id)
            .bind(module_id.to_owned())
            .fetch_optional(&self.db.pool)
            .await?;
        Ok(row.is_some())
    }

    /// Records a delivery outcome, once per event and module; on SQLite in a commit shared with
    /// other waiting writes.
    #[tracing::instrument(skip_all, fields(space_id = delivery.space_id, module_id = delivery.module_id))]
    pub async fn insert_module_delivery(&self, delivery: Delivery) -> StoreResult<()> {
        let delivery = Arc::new((uuid::Uuid::now_v7().to_string(), delivery));
        self.db.write(move |conn| {
            let delivery = delivery.clone();
            Box::pin(async move {
                let (id, d) = &*delivery;
                sqlx::query(
                    "insert into module_delivery (delivery_id, space_id, module_id, event_kind, item_id, state, error, created_at, \
                     event_id) values ($1, $2, $3, $4, $5, $6, $7, $8, $9) on conflict do nothing",
                )
                .bind(id.clone())
                .bind(d.space_id.clone())
                .bind(d.module_id.clone())
                .bind(d.event_kind.clone())
                .bind(d.item_id.clone())
                .bind(d.state.clone())
                .bind(d.error.clone())
                .bind(to_millis(d.created_at))
                .bind(d.event_id)
                .execute(&mut *conn)
                .await?;
                Ok(())
            })
        })
        .await
    }

    /// The deliveries of events about one item, oldest first.
    #[tracing::instrument(skip_all, fields(item_id))]
    pub async fn module_deliveries(&self, item_id: &str) -> StoreResult<Vec<Delivery>> {
        let rows = sqlx::query(
            "select event_id, space_id, module_id, event_kind, item_id, state, error, created_at from module_delivery \
             where item_id = $1 order by created_at, delivery_id",
        )
        .bind(item_id.to_owned())
        .fetch_all(&self.db.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(Delivery {
                    event_id: row.try_get("event_id")?,
                    space_id: row.try_get("space_id")?,
                    module_id: row.try_get("module_id")?,
                    event_kind: row.try_get("event_kind")?,
                    item_id: row.try_get("item_id")?,
                    state: row.try_get("state")?,
                    error: row.try_get("error")?,
                    created_at: from_millis(row.try_get("created_at")?),
                })
            })
            .collect()
    }
}
