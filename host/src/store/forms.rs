use sqlx::Row;
use sqlx::any::AnyRow;
use time::OffsetDateTime;

use super::keyset::{BindKeyset, Keyset};
use super::{Db, StoreError, StoreResult, from_millis, to_millis};

/// A stored form configuration; the document is the validated JSON as text.
#[derive(Clone, Debug)]
pub struct StoredConfiguration {
    pub configuration_id: String,
    pub owner_id: String,
    pub state: String,
    pub document: String,
    /// JSON array of handles that may update the configuration besides its owner.
    pub editors: String,
    pub revision: i64,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

pub struct NewConfiguration<'a> {
    pub configuration_id: &'a str,
    pub owner_id: &'a str,
    pub document: &'a str,
    pub editors: &'a str,
    pub languages: &'a [String],
}

pub struct ConfigurationChange<'a> {
    pub state: &'a str,
    pub document: &'a str,
    pub editors: &'a str,
    pub languages: &'a [String],
    /// The revision the change was computed from; a later one means somebody else won.
    pub expected_revision: i64,
}

/// Which configurations a list shows.
pub struct ConfigurationFilter<'a> {
    pub viewer_id: &'a str,
    pub viewer_handle: &'a str,
    pub language: Option<&'a str>,
    pub states: &'a [String],
}

const CONFIGURATION_COLUMNS: &str =
    "c.configuration_id, c.owner_id, c.state, c.document, c.editors, c.revision, c.created_at, c.updated_at";

fn configuration_from_row(row: &AnyRow) -> Result<StoredConfiguration, sqlx::Error> {
    Ok(StoredConfiguration {
        configuration_id: row.try_get("configuration_id")?,
        owner_id: row.try_get("owner_id")?,
        state: row.try_get("state")?,
        document: row.try_get("document")?,
        editors: row.try_get("editors")?,
        revision: row.try_get("revision")?,
        created_at: from_millis(row.try_get("created_at")?),
        updated_at: from_millis(row.try_get("updated_at")?),
    })
}

/// The repository of form configurations.
#[derive(Clone, Debug)]
pub struct FormRepo {
    db: Db,
}

impl FormRepo {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    /// Inserts an ACTIVE configuration with its languages; a taken id is `Conflict`.
    #[tracing::instrument(skip_all, fields(configuration_id = new.configuration_id))]
    pub async fn insert_configuration(
        &self,
        new: &NewConfiguration<'_>,
        now: OffsetDateTime,
    ) -> StoreResult<StoredConfiguration> {
        let mut tx = self.db.writer.begin().await?;
        let row = sqlx::query(
            "insert into form_configuration (configuration_id, owner_id, state, document, editors, revision, created_at, updated_at) \
             values ($1, $2, 'ACTIVE', $3, $4, 1, $5, $5) \
             returning configuration_id, owner_id, state, document, editors, revision, created_at, updated_at",
        )
        .bind(new.configuration_id.to_owned())
        .bind(new.owner_id.to_owned())
        .bind(new.document.to_owned())
        .bind(new.editors.to_owned())
        .bind(to_millis(now))
        .fetch_one(&mut *tx)
        .await?;
        for language in new.languages {
            sqlx::query("insert into form_configuration_language (configuration_id, language) values ($1, $2)")
                .bind(new.configuration_id.to_owned())
                .bind(language.clone())
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(configuration_from_row(&row)?)
    }

    #[tracing::instrument(skip_all, fields(configuration_id))]
    pub async fn configuration(&self, configuration_id: &str) -> StoreResult<Option<StoredConfiguration>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select {CONFIGURATION_COLUMNS} from form_configuration c where c.configuration_id = $1"
        )))
        .bind(configuration_id.to_owned())
        .fetch_optional(&self.db.pool)
        .await?;
        Ok(row.map(|row| configuration_from_row(&row)).transpose()?)
    }

    /// Replaces document, editors, state and languages when the revision still matches;
    /// `Conflict` when another update came first.
    #[tracing::instrument(skip_all, fields(configuration_id))]
    pub async fn update_configuration(
        &self,
        configuration_id: &str,
        change: &ConfigurationChange<'_>,
        now: OffsetDateTime,
    ) -> StoreResult<StoredConfiguration> {
        let mut tx = self.db.writer.begin().await?;
        let row = sqlx::query(
            "update form_configuration set state = $2, document = $3, editors = $4, revision = revision + 1, updated_at = $5 \
             where configuration_id = $1 and revision = $6 \
             returning configuration_id, owner_id, state, document, editors, revision, created_at, updated_at",
        )
        .bind(configuration_id.to_owned())
        .bind(change.state.to_owned())
        .bind(change.document.to_owned())
        .bind(change.editors.to_owned())
        .bind(to_millis(now))
        .bind(change.expected_revision)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or_else(|| StoreError::Conflict("form_configuration.revision".into()))?;
        sqlx::query("delete from form_configuration_language where configuration_id = $1")
            .bind(configuration_id.to_owned())
            .execute(&mut *tx)
            .await?;
        for language in change.languages {
            sqlx::query("insert into form_configuration_language (configuration_id, language) values ($1, $2)")
                .bind(configuration_id.to_owned())
                .bind(language.clone())
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(configuration_from_row(&row)?)
    }

    /// Configurations the viewer may read (ACTIVE ones, and archived ones it owns or edits),
    /// newest first, after the `(created_at, id)` key of the previous page.
    #[tracing::instrument(skip_all)]
    pub async fn list_configurations(
        &self,
        filter: &ConfigurationFilter<'_>,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> StoreResult<Vec<StoredConfiguration>> {
        let keyset = Keyset::newest_first(after);
        let states = states_list(filter.states);
        // Editors are stored as a JSON array of handles; handles are [a-z0-9_] so a quoted
        // substring match is exact.
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select {CONFIGURATION_COLUMNS} from form_configuration c \
             where (c.state = 'ACTIVE' or c.owner_id = $1 or c.editors like $2 escape '\\') \
               and ($3 = '' or exists (select 1 from form_configuration_language l where l.configuration_id = c.configuration_id and l.language = $3)) \
               and ($4 = '' or $4 like '%,' || c.state || ',%') \
               and {after} \
             {order} limit $7",
            after = keyset.after("c.created_at", "c.configuration_id", 5),
            order = keyset.order_by("c.created_at", "c.configuration_id"),
        )))
        .bind(filter.viewer_id.to_owned())
        .bind(format!("%\"{}\"%", filter.viewer_handle.replace('_', "\\_")))
        .bind(filter.language.unwrap_or_default().to_owned())
        .bind(states)
        .bind_keyset(keyset)
        .bind(limit)
        .fetch_all(&self.db.pool)
        .await?;
        Ok(rows.iter().map(configuration_from_row).collect::<Result<_, _>>()?)
    }
}

/// `",A,B,"` for a `like '%,STATE,%'` membership test, or `""` for no filter.
pub(super) fn states_list(states: &[String]) -> String {
    if states.is_empty() { String::new() } else { format!(",{},", states.join(",")) }
}
