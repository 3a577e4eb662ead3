//! Reading UUIDs from documents and bodies, so every rule accepts and refuses the same spellings.

use uuid::Uuid;

/// A UUID v4 in its hyphenated form (either case).
pub(crate) fn parse_uuid_v4(text: &str) -> Option<Uuid> {
    if text.len() != 36 {
        return None;
    }
    Uuid::try_parse(text).ok().filter(|id| id.get_version_num() == 4 && id.get_variant() == uuid::Variant::RFC4122)
}

/// Any UUID in its hyphenated form (either case). Field ids in answers are looked up, not
/// minted, so their version is not checked here: an unknown one is reported as unknown.
pub(crate) fn parse_hyphenated_uuid(text: &str) -> Option<Uuid> {
    Uuid::try_parse(text).ok().filter(|_| text.len() == 36)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_hyphenated_uuid_v4_is_accepted() {
        assert!(parse_uuid_v4("6f1c6a3e-2b7d-4c1e-9f0a-3d2b1c4e5f60").is_some());
        assert!(parse_uuid_v4("6F1C6A3E-2B7D-4C1E-9F0A-3D2B1C4E5F60").is_some());
        for text in [
            "6f1c6a3e2b7d4c1e9f0a3d2b1c4e5f60",
            "{6f1c6a3e-2b7d-4c1e-9f0a-3d2b1c4e5f6}",
            "6f1c6a3e-2b7d-1c1e-9f0a-3d2b1c4e5f60",
            "6f1c6a3e-2b7d-4c1e-cf0a-3d2b1c4e5f60",
            "00000000-0000-0000-0000-000000000000",
            "not-a-uuid",
        ] {
            assert!(parse_uuid_v4(text).is_none(), "{text}");
        }
    }

    #[test]
    fn hyphenated_uuids_of_any_version_are_read() {
        assert!(parse_hyphenated_uuid("6f1c6a3e-2b7d-1c1e-9f0a-3d2b1c4e5f60").is_some());
        assert!(parse_hyphenated_uuid("00000000-0000-0000-0000-000000000000").is_some());
        assert!(parse_hyphenated_uuid("6f1c6a3e2b7d4c1e9f0a3d2b1c4e5f60").is_none());
        assert!(parse_hyphenated_uuid("urn:uuid:6f1c6a3e-2b7d-4c1e-9f0a-3d2b1c4e5f60").is_none());
    }
}
