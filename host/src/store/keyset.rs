//! Keyset paging, the one way a list query pages: rows sort by a `(time, id)` key and a page
//! continues strictly after the key of the previous page's last row. The caller fetches one row
//! more than it shows, to learn whether a next page exists (`http/list.rs` does both ends).

use sqlx::Any;
use sqlx::any::AnyArguments;
use sqlx::query::Query;

/// Where a page starts in a list sorted by `(time, id)`.
pub(super) struct Keyset {
    at: i64,
    id: String,
    newest_first: bool,
}

type AnyQuery<'q> = Query<'q, Any, AnyArguments>;

impl Keyset {
    /// Newest first, after `after`; every stored time is below `i64::MAX`, so the first page's key
    /// needs no id.
    pub(super) fn newest_first(after: Option<(i64, String)>) -> Self {
        let (at, id) = after.unwrap_or((i64::MAX, String::new()));
        Self { at, id, newest_first: true }
    }

    /// Oldest first, after `after`; every stored time is above `i64::MIN`.
    pub(super) fn oldest_first(after: Option<(i64, String)>) -> Self {
        let (at, id) = after.unwrap_or((i64::MIN, String::new()));
        Self { at, id, newest_first: false }
    }

    /// The condition that keeps the rows after the key, its two values bound at `$first` and
    /// `$first + 1`: a row-value comparison, so both engines seek an index on the two columns and
    /// a deep page costs what the first does.
    pub(super) fn after(&self, at: &str, id: &str, first: usize) -> String {
        let op = if self.newest_first { "<" } else { ">" };
        format!("({at}, {id}) {op} (${first}, ${})", first + 1)
    }

    /// The `order by` the key follows.
    pub(super) fn order_by(&self, at: &str, id: &str) -> String {
        let direction = if self.newest_first { " desc" } else { "" };
        format!("order by {at}{direction}, {id}{direction}")
    }
}

/// Binds a [`Keyset`]'s two values, in the order [`Keyset::after`] numbers them.
pub(super) trait BindKeyset {
    fn bind_keyset(self, keyset: Keyset) -> Self;
}

impl BindKeyset for AnyQuery<'_> {
    fn bind_keyset(self, keyset: Keyset) -> Self {
        self.bind(keyset.at).bind(keyset.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_first_seeks_below_the_key_and_oldest_first_above_it() {
        let newest = Keyset::newest_first(None);
        assert_eq!(newest.after("m.created_at", "m.id", 2), "(m.created_at, m.id) < ($2, $3)");
        assert_eq!(newest.order_by("m.created_at", "m.id"), "order by m.created_at desc, m.id desc");
        assert_eq!(newest.at, i64::MAX);
        let oldest = Keyset::oldest_first(Some((5, "x".to_owned())));
        assert_eq!(oldest.after("e.at", "e.event_id", 2), "(e.at, e.event_id) > ($2, $3)");
        assert_eq!(oldest.order_by("e.at", "e.event_id"), "order by e.at, e.event_id");
        assert_eq!((oldest.at, oldest.id.as_str()), (5, "x"));
    }
}
