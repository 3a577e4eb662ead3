//! Entity tags and the `If-Match` precondition of an update (conventions section 1), free of HTTP:
//! the edge reads the header into a [`Precondition`], a use case checks it against the resource's
//! current [`EntityTag`] and then writes only if the resource is still at the state it checked.

/// A strong entity tag: the quoted, opaque name of one state of one resource (RFC 9110 8.8.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntityTag(String);

impl EntityTag {
    /// The tag of a state named by counters that move on with every change (revisions).
    pub fn of_revisions(revisions: &[i64]) -> Self {
        let parts: Vec<String> = revisions.iter().map(i64::to_string).collect();
        Self(format!("\"{}\"", parts.join(".")))
    }

    /// The tag of a state each reader sees differently (a space shows the reader's role): the
    /// revisions, then the reader's kind (letters and digits only).
    pub fn qualified(revisions: &[i64], reader: &str) -> Self {
        let Self(tag) = Self::of_revisions(revisions);
        let reader: String = reader.chars().filter(char::is_ascii_alphanumeric).collect();
        Self(format!("{}-{reader}\"", &tag[..tag.len() - 1]))
    }

    /// The tag as sent, quotes included.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What an update asked of the resource's current state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Precondition {
    /// No `If-Match`: the update applies to whatever state it finds.
    #[default]
    None,
    /// `If-Match: *`: any current state (the resource exists).
    Any,
    /// `If-Match` with tags: the current state must have one of these strong tags. A weak tag
    /// (`W/"..."`) never matches (RFC 9110 13.1.1: `If-Match` uses the strong comparison), so
    /// one given alone leaves an empty list, which nothing matches.
    OneOf(Vec<String>),
}

impl Precondition {
    /// Reads the value of `If-Match` (its field lines joined with commas), if one was sent.
    pub fn if_match(header: Option<&str>) -> Self {
        let Some(header) = header.map(str::trim) else { return Self::None };
        if header == "*" {
            return Self::Any;
        }
        Self::OneOf(list_tags(header).filter(|tag| !tag.starts_with("W/")).map(str::to_owned).collect())
    }

    /// Whether the client named the states it may change: a lost race then answers 412, not 409.
    /// (`*` names none: any state will do, so it changes nothing about a race.)
    pub fn is_given(&self) -> bool {
        matches!(self, Self::OneOf(_))
    }

    /// Whether the resource, now at `current`, may be changed.
    pub fn admits(&self, current: &EntityTag) -> bool {
        match self {
            Self::None | Self::Any => true,
            Self::OneOf(tags) => tags.iter().any(|tag| tag == current.as_str()),
        }
    }
}

/// Whether an `If-None-Match` value names `current`; the weak comparison (RFC 9110 13.1.2), so a
/// weak form of the tag names it too.
pub fn none_match_names(header: &str, current: &str) -> bool {
    let header = header.trim();
    let current = current.strip_prefix("W/").unwrap_or(current);
    header == "*" || list_tags(header).any(|tag| tag.strip_prefix("W/").unwrap_or(tag) == current)
}

/// The entity tags of a comma-separated list (a tag's opaque part holds no comma or space).
fn list_tags(header: &str) -> impl Iterator<Item = &str> {
    header.split(',').map(str::trim).filter(|tag| !tag.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_match_admits_the_current_strong_tag_only() {
        let current = EntityTag::of_revisions(&[3, 7]);
        assert_eq!(current.as_str(), "\"3.7\"");
        assert_eq!(EntityTag::qualified(&[4], "owner").as_str(), "\"4-owner\"");
        for (header, admitted) in [
            (None, true),
            (Some("*"), true),
            (Some("\"3.7\""), true),
            (Some("\"1.1\", \"3.7\""), true),
            (Some("\"3.6\""), false),
            (Some("W/\"3.7\""), false),
            (Some(""), false),
        ] {
            assert_eq!(Precondition::if_match(header).admits(&current), admitted, "{header:?}");
        }
        assert!(!Precondition::if_match(None).is_given());
        assert!(!Precondition::if_match(Some("*")).is_given());
        assert!(Precondition::if_match(Some("W/\"3.7\"")).is_given());
    }

    #[test]
    fn if_none_match_compares_weakly() {
        assert!(none_match_names("\"3.7\"", "\"3.7\""));
        assert!(none_match_names("W/\"3.7\"", "\"3.7\""));
        assert!(none_match_names("\"1\", \"3.7\"", "\"3.7\""));
        assert!(none_match_names("*", "\"3.7\""));
        assert!(!none_match_names("\"3.6\"", "\"3.7\""));
    }
}
