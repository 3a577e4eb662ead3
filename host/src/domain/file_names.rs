//! What a file name may not hold (conventions section 8): characters that make it show another
//! name than it has. `invoice\u{202e}fdp.exe` shows as "invoiceexe.pdf" and downloads as `.exe`;
//! a zero-width space hides between a name and its extension. Such a name is refused, never
//! cleaned, so the name a person sees is the name the file keeps.

/// The code of the problem, at the name's pointer.
pub const CODE: &str = "INVALID_FILENAME";

/// The problem's message.
pub const MESSAGE: &str =
    "must not hold control, bidirectional or zero-width characters, which can disguise its extension";

/// The characters [`disguises`] looks for, as a JSON Schema (ECMA-262) character class body.
const DISGUISING_CLASS: &str =
    "\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff";

/// A plain file name as a pattern: no folder separators, no character that disguises it, no
/// spaces at either end (what an announced asset's `filename` must match).
pub fn pattern() -> String {
    let refused = format!("/\\\\{DISGUISING_CLASS}");
    format!("^[^\\s{refused}](?:[^{refused}]*[^\\s{refused}])?$")
}

/// Whether `name` holds a character that can disguise it.
pub fn disguises(name: &str) -> bool {
    name.chars().any(disguising)
}

fn disguising(c: char) -> bool {
    c.is_control()
        // Bidirectional embeddings, overrides and isolates, and the marks that steer them.
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
        // Zero-width and invisible characters.
        || matches!(c, '\u{200B}'..='\u{200D}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}' | '\u{180E}')
}

/// The name to keep: the last path segment (some browsers send a whole path), at most 255
/// characters. A name with characters that disguise it was refused before.
pub fn clean(raw: &str) -> String {
    let last = raw.rsplit(['/', '\\']).next().unwrap_or("");
    let cleaned: String = last.chars().filter(|c| !c.is_control()).take(255).collect();
    let cleaned = cleaned.trim();
    if cleaned.is_empty() || cleaned == "." || cleaned == ".." { "file".into() } else { cleaned.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_show_another_extension_are_caught_and_plain_ones_pass() {
        for bad in
            ["invoice\u{202E}fdp.exe", "a\u{2066}b.pdf", "report\u{200B}.pdf", "x\u{FEFF}.png", "a\tb.txt", "a\u{7f}"]
        {
            assert!(disguises(bad), "{bad:?}");
        }
        for good in ["invoice.pdf", "Übersicht 2026.xlsx", "写真.jpg", "مرحبا.png", "a b (1).tar.gz"] {
            assert!(!disguises(good), "{good:?}");
        }
    }

    #[test]
    fn the_pattern_refuses_what_the_check_refuses() {
        let pattern = regex::Regex::new(&pattern()).unwrap();
        let every_char = (0u32..0x3000).chain(0xFE00..0xFF00).filter_map(char::from_u32);
        for c in every_char.filter(|c| !c.is_whitespace() && !['/', '\\'].contains(c)) {
            let name = format!("a{c}b");
            assert_eq!(pattern.is_match(&name), !disguises(&name), "U+{:04X}", c as u32);
        }
        assert!(!pattern.is_match("a/b") && !pattern.is_match(" a") && !pattern.is_match("a\\b"));
    }

    #[test]
    fn kept_names_lose_paths_and_control_characters() {
        assert_eq!(clean("../../etc/passwd"), "passwd");
        assert_eq!(clean("C:\\Users\\me\\scan.pdf"), "scan.pdf");
        assert_eq!(clean("a\r\nb.txt"), "ab.txt");
        assert_eq!(clean(".."), "file");
        assert_eq!(clean(""), "file");
        assert_eq!(clean(&"x".repeat(300)).len(), 255);
    }
}
