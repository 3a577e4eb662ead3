//! The one way a time is written for a client: RFC 3339 in UTC with exactly three fractional digits
//! (milliseconds, the precision every stored time has), so a time read back from the store and one
//! just made look alike. Use as `#[serde(with = "crate::domain::timestamp")]` (or `::option`).

use serde::{Deserialize, Deserializer, Serializer};
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{OffsetDateTime, UtcOffset};

/// `2026-11-26T18:58:49.123Z`.
pub fn format(at: OffsetDateTime) -> String {
    let at = at.to_offset(UtcOffset::UTC);
    let at = at.replace_nanosecond(at.nanosecond() / 1_000_000 * 1_000_000).unwrap_or(at);
    at.format(format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"))
        .unwrap_or_default()
}

pub fn serialize<S: Serializer>(at: &OffsetDateTime, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&format(*at))
}

pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<OffsetDateTime, D::Error> {
    let text = String::deserialize(deserializer)?;
    OffsetDateTime::parse(&text, &Rfc3339).map_err(serde::de::Error::custom)
}

/// The same for a time that may be absent (`null`).
pub mod option {
    use super::*;

    pub fn serialize<S: Serializer>(at: &Option<OffsetDateTime>, serializer: S) -> Result<S::Ok, S::Error> {
        match at {
            Some(at) => super::serialize(at, serializer),
            None => serializer.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<OffsetDateTime>, D::Error> {
        Option::<String>::deserialize(deserializer)?
            .map(|text| OffsetDateTime::parse(&text, &Rfc3339).map_err(serde::de::Error::custom))
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_have_three_fractional_digits_in_utc() {
        let nanos = OffsetDateTime::parse("2026-11-26T19:58:49.123456789+01:00", &Rfc3339).unwrap();
        assert_eq!(format(nanos), "2026-11-26T18:58:49.123Z");
        let whole = OffsetDateTime::parse("2026-11-26T18:58:49Z", &Rfc3339).unwrap();
        assert_eq!(format(whole), "2026-11-26T18:58:49.000Z");
    }
}
