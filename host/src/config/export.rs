//! The `[export]` table: streaming exports (`GET /v0/forms/export`, `GET /v0/workflows/items/export`,
//! conventions section 14).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Bounds of the streaming exports. An export holds a database connection for each page it reads
/// and keeps a core busy while its client reads fast, so how many run at once is bounded.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ExportConfig {
    /// Exports this server runs at once; one more answers 503 with `Retry-After`.
    pub max_running: usize,
    /// Exports one user runs at once on this server; one more answers 429 with `Retry-After`.
    pub max_running_per_user: usize,
    /// Rows read from the database per page (one statement each). The memory an export holds is
    /// about one page of rows, whatever the number of rows it sends.
    pub page_rows: u32,
}

impl Default for ExportConfig {
    fn default() -> Self {
        Self { max_running: 8, max_running_per_user: 2, page_rows: 500 }
    }
}

impl ExportConfig {
    /// The page size actually used: at least 1, at most 5,000.
    pub fn page_rows(&self) -> i64 {
        i64::from(self.page_rows.clamp(1, 5_000))
    }
}
