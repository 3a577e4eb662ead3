//! The rules every free text of the service follows (comments, messages, listings, titles): trimmed,
//! bounded in characters, and free of control characters, which a line may not hold at all and a
//! block only as line breaks and tabs. One place, so every route words a problem alike.

use super::problems::Problems;

/// Whether an empty text (after trimming) is a problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blank {
    Refused,
    Allowed,
}

/// A single line: trimmed, at most `max` characters, no control characters (line breaks included).
pub fn line(problems: &mut Problems, path: &str, text: &str, max: usize, blank: Blank) -> Option<String> {
    checked(
        problems,
        path,
        text,
        max,
        blank,
        char::is_control,
        "must not contain control characters, line breaks included",
    )
}

/// A block of text: trimmed, at most `max` characters, line breaks and tabs but no other control
/// characters.
pub fn block(problems: &mut Problems, path: &str, text: &str, max: usize, blank: Blank) -> Option<String> {
    checked(
        problems,
        path,
        text,
        max,
        blank,
        |c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'),
        "must not contain control characters other than line breaks and tabs",
    )
}

fn checked(
    problems: &mut Problems,
    path: &str,
    text: &str,
    max: usize,
    blank: Blank,
    refused: impl Fn(char) -> bool,
    refused_message: &str,
) -> Option<String> {
    let text = text.trim();
    if text.is_empty() && blank == Blank::Refused {
        problems.push(path, "BLANK", "must not be blank");
    } else if text.chars().count() > max {
        problems.push(path, "TOO_LONG", format!("must be at most {max} characters"));
    } else if text.chars().any(refused) {
        problems.push(path, "INVALID_CHARACTERS", refused_message);
    } else {
        return Some(text.to_owned());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(check: impl Fn(&mut Problems) -> Option<String>) -> (Option<String>, Vec<String>) {
        let mut problems = Problems::new();
        let value = check(&mut problems);
        (value, problems.into_vec().into_iter().map(|p| p.code).collect())
    }

    #[test]
    fn a_line_is_trimmed_bounded_and_single() {
        assert_eq!(codes(|p| line(p, "/t", "  hi  ", 5, Blank::Refused)), (Some("hi".into()), vec![]));
        assert_eq!(codes(|p| line(p, "/t", "   ", 5, Blank::Refused)).1, ["BLANK"]);
        assert_eq!(codes(|p| line(p, "/t", "   ", 5, Blank::Allowed)), (Some(String::new()), vec![]));
        assert_eq!(codes(|p| line(p, "/t", "héllo!", 5, Blank::Refused)).1, ["TOO_LONG"]);
        assert_eq!(codes(|p| line(p, "/t", "a\nb", 5, Blank::Refused)).1, ["INVALID_CHARACTERS"]);
    }

    #[test]
    fn a_block_keeps_line_breaks_and_tabs_only() {
        assert_eq!(codes(|p| block(p, "/b", "a\n\tb", 9, Blank::Refused)), (Some("a\n\tb".into()), vec![]));
        assert_eq!(codes(|p| block(p, "/b", "a\u{7}b", 9, Blank::Refused)).1, ["INVALID_CHARACTERS"]);
    }
}
