//! Judging a file's type from its bytes as well as from what the client declared.
//!
//! A client declares a type (the part's `Content-Type`) and a name (its extension implies a type).
//! The first bytes of the file are sniffed for a known signature. They must agree: a text file
//! named `.png` or declared `image/png` is refused, and so is a PNG declared `text/plain`.

use bytes::{Bytes, BytesMut};
use futures::StreamExt;

use super::ByteStream;

/// Bytes of the file's start that sniffing looks at (signatures sit in the first few hundred).
pub const SNIFF_BYTES: usize = 8192;

/// Reads the first [`SNIFF_BYTES`] of a stream (or all of it when shorter) and hands back the rest.
pub async fn read_head(mut body: ByteStream) -> std::io::Result<(Bytes, ByteStream)> {
    let mut head = BytesMut::new();
    while head.len() < SNIFF_BYTES {
        match body.next().await {
            Some(chunk) => head.extend_from_slice(&chunk?),
            None => break,
        }
    }
    Ok((head.freeze(), body))
}

#[derive(Debug, PartialEq, Eq)]
pub enum SniffOutcome {
    /// The type to store and judge `file.accept` by.
    Agreed(String),
    /// The declared type or the name's type does not match the bytes.
    Mismatch { claimed: String, sniffed: Option<String> },
}

/// Judges `head` (the file's first bytes) against the declared type and the file name.
pub fn judge_type(declared: Option<&str>, filename: &str, head: &[u8]) -> SniffOutcome {
    let declared = declared
        .map(|t| t.split(';').next().unwrap_or("").trim().to_ascii_lowercase())
        .filter(|t| !t.is_empty() && t != "application/octet-stream");
    // `application/octet-stream` says nothing about the bytes, whether declared or implied by a
    // name such as `.bin` (and `infer` files EOT fonts under it, so it must not count as a claim).
    let named =
        mime_guess::from_path(filename).first_raw().filter(|t| *t != "application/octet-stream").map(str::to_owned);
    let sniffed = infer::get(head).map(|kind| (kind.mime_type().to_owned(), kind.extension()));
    let claims = declared.iter().chain(named.iter());
    match &sniffed {
        Some((mime, extension)) => {
            for claim in claims {
                // The name's type only counts against the bytes when it has a signature of its own
                // (a `.txt` holding a PNG is judged by its declared type instead).
                let from_name = Some(claim) == named.as_ref() && Some(claim) != declared.as_ref();
                if from_name && !has_signature(claim) {
                    continue;
                }
                if !agrees(claim, mime, extension) {
                    return SniffOutcome::Mismatch { claimed: claim.clone(), sniffed: Some(mime.clone()) };
                }
            }
            SniffOutcome::Agreed(mime.clone())
        }
        None => {
            if let Some(claim) = claims.into_iter().find(|claim| has_signature(claim)) {
                return SniffOutcome::Mismatch { claimed: claim.clone(), sniffed: None };
            }
            SniffOutcome::Agreed(declared.or(named).unwrap_or_else(|| "application/octet-stream".into()))
        }
    }
}

/// Whether files of this type always start with a signature the sniffer knows. Text formats are
/// left out: HTML or XML may start with anything.
fn has_signature(mime: &str) -> bool {
    infer::is_mime_supported(mime) && !mime.starts_with("text/") && !mime.ends_with("xml") && !mime.ends_with("json")
}

fn agrees(claimed: &str, sniffed: &str, sniffed_extension: &str) -> bool {
    claimed == sniffed
        || canonical(claimed) == canonical(sniffed)
        || mime_guess::get_mime_extensions_str(claimed).is_some_and(|exts| exts.contains(&sniffed_extension))
}

fn canonical(mime: &str) -> &str {
    match mime {
        "image/jpg" | "image/pjpeg" => "image/jpeg",
        "audio/wav" | "audio/wave" | "audio/vnd.wave" => "audio/x-wav",
        "application/x-zip-compressed" => "application/zip",
        "audio/mp3" => "audio/mpeg",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";
    const PDF: &[u8] = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n";

    #[test]
    fn a_png_declared_and_named_as_png_passes() {
        assert_eq!(judge_type(Some("image/png"), "a.png", PNG), SniffOutcome::Agreed("image/png".into()));
    }

    #[test]
    fn undeclared_types_come_from_the_bytes() {
        assert_eq!(judge_type(None, "scan", PDF), SniffOutcome::Agreed("application/pdf".into()));
        assert_eq!(judge_type(Some("application/octet-stream"), "x", PNG), SniffOutcome::Agreed("image/png".into()));
    }

    #[test]
    fn text_named_png_is_refused() {
        assert!(matches!(judge_type(Some("text/plain"), "notes.png", b"hello"), SniffOutcome::Mismatch { .. }));
        assert!(matches!(judge_type(Some("image/png"), "notes.png", b"hello"), SniffOutcome::Mismatch { .. }));
        assert!(matches!(judge_type(None, "notes.png", b"hello"), SniffOutcome::Mismatch { .. }));
    }

    #[test]
    fn a_png_declared_as_text_is_refused() {
        assert!(matches!(judge_type(Some("text/plain"), "a.txt", PNG), SniffOutcome::Mismatch { .. }));
        assert!(matches!(judge_type(Some("application/pdf"), "a.pdf", PNG), SniffOutcome::Mismatch { .. }));
    }

    #[test]
    fn plain_text_keeps_its_declared_type() {
        assert_eq!(
            judge_type(Some("text/csv; charset=utf-8"), "a.csv", b"a,b\n1,2\n"),
            SniffOutcome::Agreed("text/csv".into())
        );
        assert_eq!(judge_type(None, "a.txt", b"hello"), SniffOutcome::Agreed("text/plain".into()));
        assert_eq!(judge_type(None, "blob", b"hello"), SniffOutcome::Agreed("application/octet-stream".into()));
    }

    #[test]
    fn octet_stream_names_claim_nothing() {
        assert_eq!(
            judge_type(Some("application/octet-stream"), "scan.bin", b"\x80\x81\xfe"),
            SniffOutcome::Agreed("application/octet-stream".into())
        );
        assert_eq!(judge_type(None, "dump.bin", PNG), SniffOutcome::Agreed("image/png".into()));
    }

    #[test]
    fn aliases_agree() {
        let jpeg = b"\xff\xd8\xff\xe0\0\x10JFIF\0";
        assert_eq!(judge_type(Some("image/jpg"), "a.jpg", jpeg), SniffOutcome::Agreed("image/jpeg".into()));
    }
}
