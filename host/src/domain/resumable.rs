//! Resumable uploads (tus 1.0.0, conventions section 14): what the protocol's headers may say.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use crate::domain::file_names;
use crate::domain::problems::Problems;

/// The protocol version spoken, the only one accepted in `Tus-Resumable`.
pub const TUS_VERSION: &str = "1.0.0";
/// The extensions served, as `OPTIONS` announces them.
pub const TUS_EXTENSIONS: &str = "creation,creation-with-upload,termination,expiration";
/// The content type of every `PATCH` (and of a creation that carries bytes).
pub const OFFSET_OCTET_STREAM: &str = "application/offset+octet-stream";
/// The longest `Upload-Metadata` header kept (it is echoed on every `HEAD`).
pub const MAX_METADATA_BYTES: usize = 4096;

/// What `Upload-Metadata` tells of the file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UploadMetadata {
    pub filename: Option<String>,
    pub content_type: Option<String>,
}

/// Reads `Upload-Metadata`: comma-separated pairs of a key and a base64 value (the value may be
/// missing). `filename` and `contentType` (or `filetype`, as tus-js-client names it) are kept;
/// other keys are allowed and ignored. A problem is listed at `header.Upload-Metadata`.
pub fn parse_metadata(header: &str, problems: &mut Problems) -> UploadMetadata {
    const AT: &str = "header.Upload-Metadata";
    let mut metadata = UploadMetadata::default();
    if header.len() > MAX_METADATA_BYTES {
        problems.push(AT, "TOO_LONG", format!("is longer than {MAX_METADATA_BYTES} bytes"));
        return metadata;
    }
    let mut seen: Vec<&str> = Vec::new();
    for pair in header.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let mut words = pair.split(' ').filter(|w| !w.is_empty());
        let (Some(key), value, None) = (words.next(), words.next(), words.next()) else {
            problems.push(AT, "MALFORMED", "pairs are a key and a base64 value, separated by one space");
            return metadata;
        };
        if seen.contains(&key) {
            problems.push(AT, "REPEATED_KEY", format!("names {key} twice"));
            return metadata;
        }
        seen.push(key);
        let decoded = match value.map(|v| STANDARD.decode(v)) {
            None => Some(String::new()),
            Some(Ok(bytes)) => String::from_utf8(bytes).ok(),
            Some(Err(_)) => None,
        };
        let Some(decoded) = decoded else {
            problems.push(AT, "MALFORMED", format!("the value of {key} is not base64 of UTF-8 text"));
            return metadata;
        };
        match key {
            "filename" => metadata.filename = Some(decoded),
            "contentType" => metadata.content_type = Some(decoded),
            "filetype" if metadata.content_type.is_none() => metadata.content_type = Some(decoded),
            _ => {}
        }
    }
    if metadata.filename.as_deref().is_some_and(file_names::disguises) {
        problems.push(AT, file_names::CODE, format!("filename {}", file_names::MESSAGE));
    }
    metadata.content_type = metadata.content_type.filter(|t| !t.trim().is_empty());
    metadata
}

/// A byte count header (`Upload-Length`, `Upload-Offset`): digits only, as the protocol says.
pub fn parse_count(value: Option<&str>) -> Option<u64> {
    let value = value?;
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    value.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(header: &str) -> (UploadMetadata, Problems) {
        let mut problems = Problems::new();
        (parse_metadata(header, &mut problems), problems)
    }

    #[test]
    fn metadata_pairs_are_read() {
        let (metadata, problems) = parse("filename c2Nhbi5wZGY=,contentType YXBwbGljYXRpb24vcGRm,is_confidential");
        assert!(problems.is_empty());
        assert_eq!(metadata.filename.as_deref(), Some("scan.pdf"));
        assert_eq!(metadata.content_type.as_deref(), Some("application/pdf"));
        let (metadata, _) = parse("filetype aW1hZ2UvcG5n");
        assert_eq!(metadata.content_type.as_deref(), Some("image/png"));
    }

    #[test]
    fn malformed_metadata_is_a_problem() {
        for bad in ["filename !!!", "filename a b", "filename YQ==,filename Yg==", "filename /w=="] {
            assert!(!parse(bad).1.is_empty(), "{bad}");
        }
        // "invoice\u{202e}fdp.exe"
        let disguised = STANDARD.encode("invoice\u{202e}fdp.exe");
        assert!(parse(&format!("filename {disguised}")).1.has_code(file_names::CODE));
    }

    #[test]
    fn counts_are_plain_digits() {
        assert_eq!(parse_count(Some("42")), Some(42));
        for bad in [None, Some(""), Some("-1"), Some("+4"), Some("1e3"), Some(" 4"), Some("99999999999999999999999")] {
            assert_eq!(parse_count(bad), None, "{bad:?}");
        }
    }
}
