//! The Tags module's state, all in its key-value store:
//!
//! - `counts`: `{"counts": {tag: n}}`, exactly the body of `GET /counts`, so that route is one read and no
//!   parsing;
//! - `item/{item}`: the item's tags, a JSON array;
//! - `tag/{tag}/{item}`: an empty value per (tag, item), listed by prefix to page through a tag's items.
//!
//! Tags and item ids are written into keys with `%` and `/` escaped, so one tag's prefix never matches another.
//! Concurrent events of one space update the state with compare-and-swap (WIT 0.2.0), so none is lost.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use trellis_plugin_sdk::{Error, Result, kv};

const COUNTS: &str = "counts";
/// Distinct tags one space may use: the counts document holds them all and must stay far below the
/// host's value cap (1 MiB; a tag takes up to ~320 bytes there), or no tag could be added any more.
pub const MAX_DISTINCT_TAGS: usize = 2_000;

#[derive(Serialize, Deserialize, Default)]
struct CountsDoc {
    counts: BTreeMap<String, u64>,
}

/// The `GET /counts` body.
pub fn counts_body() -> String {
    kv::get(COUNTS).and_then(|bytes| String::from_utf8(bytes).ok()).unwrap_or_else(|| r#"{"counts":{}}"#.to_owned())
}

/// The tags of `item`, in the order they were added.
pub fn item_tags(item: &str) -> Result<Vec<String>> {
    Ok(kv::get_json(item_key(item))?.unwrap_or_default())
}

/// Makes `tags` the tags of `item`, updating the index and the counts for what changed. Events run
/// concurrently, so the item's tags are swapped atomically (the swap says what they replaced) and the
/// counts document is updated with compare-and-swap, never read and written back.
pub fn set_item_tags(item: &str, tags: &[String]) -> Result<()> {
    let key = item_key(item);
    let new_bytes = if tags.is_empty() { None } else { Some(serde_json::to_vec(tags)?) };
    let old: Vec<String> = loop {
        let old_bytes = kv::get(&key);
        let old: Vec<String> = match &old_bytes {
            None => Vec::new(),
            Some(bytes) => serde_json::from_slice(bytes)?,
        };
        if old == tags {
            return Ok(());
        }
        // Checked before anything is written, so a refused change leaves no half of itself behind.
        let counts: CountsDoc = kv::get_json(COUNTS)?.unwrap_or_default();
        let new_distinct =
            tags.iter().filter(|tag| !old.contains(tag) && !counts.counts.contains_key(tag.as_str())).count();
        if new_distinct > 0 && counts.counts.len() + new_distinct > MAX_DISTINCT_TAGS {
            return Err(Error::new(format!("a space uses at most {MAX_DISTINCT_TAGS} distinct tags")));
        }
        if kv::compare_and_swap(&key, old_bytes.as_deref(), new_bytes.as_deref())? {
            break old;
        }
    };
    let removed: Vec<&String> = old.iter().filter(|tag| !tags.contains(tag)).collect();
    let added: Vec<&String> = tags.iter().filter(|tag| !old.contains(tag)).collect();
    if removed.is_empty() && added.is_empty() {
        return Ok(()); // only the order changed
    }
    for tag in &removed {
        kv::delete(index_key(tag, item));
    }
    for tag in &added {
        kv::set(index_key(tag, item), [])?;
    }
    kv::update_json(COUNTS, |doc: Option<CountsDoc>| {
        let mut doc = doc.unwrap_or_default();
        for tag in &removed {
            if let Some(count) = doc.counts.get_mut(tag.as_str()) {
                *count = count.saturating_sub(1);
                if *count == 0 {
                    doc.counts.remove(tag.as_str());
                }
            }
        }
        for tag in &added {
            *doc.counts.entry((*tag).clone()).or_default() += 1;
        }
        Some(doc)
    })?;
    Ok(())
}

/// One page of the items tagged `tag`, after the item `cursor` when given, and the cursor of the next page.
pub fn tag_items(tag: &str, cursor: Option<&str>, limit: u32) -> (Vec<String>, Option<String>) {
    let prefix = format!("tag/{}/", encode(tag));
    let start_after = cursor.map(|item| format!("{prefix}{}", encode(item)));
    let mut keys = kv::list_keys(&prefix, start_after.as_deref(), limit + 1);
    let more = keys.len() > limit as usize;
    keys.truncate(limit as usize);
    let items: Vec<String> = keys.iter().map(|key| decode(&key[prefix.len()..])).collect();
    let next = if more { items.last().cloned() } else { None };
    (items, next)
}

/// How many bytes `c` takes in a key.
pub fn encoded_len(c: char) -> usize {
    if matches!(c, '%' | '/') { 3 } else { c.len_utf8() }
}

/// Whether `item` can be stored: item ids, unlike tags, come in whole, so an oversized one is refused.
pub fn item_id_fits(item: &str) -> bool {
    !item.is_empty() && item.chars().map(encoded_len).sum::<usize>() <= 180
}

fn item_key(item: &str) -> String {
    format!("item/{}", encode(item))
}

fn index_key(tag: &str, item: &str) -> String {
    format!("tag/{}/{}", encode(tag), encode(item))
}

fn encode(text: &str) -> String {
    text.replace('%', "%25").replace('/', "%2F")
}

fn decode(text: &str) -> String {
    text.replace("%2F", "/").replace("%25", "%")
}

#[cfg(test)]
mod tests {
    use super::*;
    use trellis_plugin_sdk::testing::TestHost;

    fn tags(list: &[&str]) -> Vec<String> {
        list.iter().map(|tag| tag.to_string()).collect()
    }

    #[test]
    fn set_item_tags_keeps_index_and_counts_in_step() {
        // Arrange
        let host = TestHost::new();
        set_item_tags("i1", &tags(&["red", "blue"])).unwrap();
        set_item_tags("i2", &tags(&["red"])).unwrap();

        // Act
        set_item_tags("i1", &tags(&["blue", "green"])).unwrap();

        // Assert
        assert_eq!(counts_body(), r#"{"counts":{"blue":1,"green":1,"red":1}}"#);
        assert_eq!(item_tags("i1").unwrap(), ["blue", "green"]);
        assert_eq!(tag_items("red", None, 10), (vec!["i2".to_owned()], None));
        assert!(host.kv_keys().contains(&"tag/green/i1".to_owned()));
        assert!(!host.kv_keys().contains(&"tag/red/i1".to_owned()));
    }

    #[test]
    fn new_distinct_tags_beyond_the_cap_are_refused_and_nothing_is_written() {
        let host = TestHost::new();
        for i in 0..MAX_DISTINCT_TAGS {
            set_item_tags(&format!("i{i}"), &[format!("t{i}")]).unwrap();
        }
        let keys_before = host.kv_keys().len();
        assert!(set_item_tags("new", &tags(&["brand-new"])).is_err());
        assert_eq!(host.kv_keys().len(), keys_before, "nothing of the refused change was written");
        set_item_tags("new", &tags(&["t1"])).expect("existing tags can still be used");
    }

    #[test]
    fn clearing_the_last_tag_removes_the_item_and_the_count() {
        let host = TestHost::new();
        set_item_tags("i1", &tags(&["red"])).unwrap();
        set_item_tags("i1", &[]).unwrap();
        assert_eq!(counts_body(), r#"{"counts":{}}"#);
        assert_eq!(host.kv_keys(), ["counts"]);
    }

    #[test]
    fn tag_items_pages_with_a_cursor_and_escapes_slashes() {
        // Arrange
        let _host = TestHost::new();
        for item in ["a", "b/1", "c"] {
            set_item_tags(item, &tags(&["x/y"])).unwrap();
        }
        set_item_tags("z", &tags(&["x"])).unwrap();

        // Act
        let first = tag_items("x/y", None, 2);
        let second = tag_items("x/y", first.1.as_deref(), 2);

        // Assert
        assert_eq!(first, (vec!["a".to_owned(), "b/1".to_owned()], Some("b/1".to_owned())));
        assert_eq!(second, (vec!["c".to_owned()], None));
        assert_eq!(tag_items("x", None, 10).0, ["z"]);
    }
}
