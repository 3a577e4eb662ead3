//! Row locks that make a count taken before an insert stay true.

use sqlx::AnyConnection;

use super::{Engine, StoreResult};

/// On PostgreSQL, locks the row `select_for_update` names until the transaction ends, so a count
/// taken before an insert stays true under concurrent requests. SQLite runs one write
/// transaction at a time, which serializes them already.
pub(super) async fn lock_row(
    conn: &mut AnyConnection,
    engine: Engine,
    select_for_update: &'static str,
    id: &str,
) -> StoreResult<()> {
    if engine == Engine::Postgres {
        sqlx::query(select_for_update).bind(id.to_owned()).fetch_optional(&mut *conn).await?;
    }
    Ok(())
}
