//! The rules every free text of the service follows (comments, messages, listings, titles, names,
//! summaries): trimmed, bounded in characters, and free of control characters, which a line may not
//! hold at all and a block only as line breaks and tabs. One place, so every route words a problem
//! alike, and so the OpenAPI document states each rule as it is checked ([`Rule::pattern`]).

use super::problems::Problems;

/// Whether an empty text (after trimming) is a problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blank {
    Refused,
    Allowed,
}

/// A single line, or a block that may hold line breaks and tabs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Line,
    Block,
}

/// How a family words two of the problems. The account, space and channel families answered
/// with their own words before this module existed, and the contract keeps every answer as it
/// is: a blank name is `REQUIRED` there, and their refused characters are named more briefly.
/// The codes of length and characters (`TOO_LONG`, `INVALID_CHARACTERS`) are the same for all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Words {
    /// The code and message of a blank text where [`Blank::Refused`].
    pub blank: (&'static str, &'static str),
    /// The message of `INVALID_CHARACTERS` in a line.
    pub line_refused: &'static str,
    /// The message of `INVALID_CHARACTERS` in a block.
    pub block_refused: &'static str,
}

impl Words {
    /// Comments, messages, listings and asset titles.
    pub const TEXT: Words = Words {
        blank: ("BLANK", "must not be blank"),
        line_refused: "must not contain control characters, line breaks included",
        block_refused: "must not contain control characters other than line breaks and tabs",
    };
    /// The names of accounts, spaces and channels, space summaries and channel descriptions.
    pub const SETTINGS: Words = Words {
        blank: ("REQUIRED", "is required"),
        line_refused: "must not contain control characters",
        block_refused: "must not contain control characters other than line breaks",
    };
}

/// One free text's rule: its kind, its longest length in characters, whether it may be blank, and
/// the words of its problems.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    pub kind: Kind,
    pub max: usize,
    pub blank: Blank,
    pub words: Words,
}

/// The characters a line refuses (`char::is_control`, the Unicode category Cc), as a class body of
/// an ECMA-262 pattern.
const LINE_REFUSED: &str = r"\u0000-\u001f\u007f-\u009f";
/// The characters a block refuses: those of a line but `\t`, `\n` and `\r`.
const BLOCK_REFUSED: &str = r"\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f";

impl Rule {
    pub const fn line(max: usize, blank: Blank) -> Self {
        Self { kind: Kind::Line, max, blank, words: Words::TEXT }
    }

    pub const fn block(max: usize, blank: Blank) -> Self {
        Self { kind: Kind::Block, max, blank, words: Words::TEXT }
    }

    /// The same rule, its problems worded as `words` say.
    pub const fn worded(self, words: Words) -> Self {
        Self { words, ..self }
    }

    /// Checks `text`; answers it trimmed, or adds one problem at `path` and answers `None`.
    pub fn check(&self, problems: &mut Problems, path: &str, text: &str) -> Option<String> {
        let text = text.trim();
        if text.is_empty() && self.blank == Blank::Refused {
            problems.push(path, self.words.blank.0, self.words.blank.1);
        } else if text.chars().count() > self.max {
            problems.push(path, "TOO_LONG", format!("must be at most {} characters", self.max));
        } else if text.chars().any(|c| self.refuses(c)) {
            let message = match self.kind {
                Kind::Line => self.words.line_refused,
                Kind::Block => self.words.block_refused,
            };
            problems.push(path, "INVALID_CHARACTERS", message);
        } else {
            return Some(text.to_owned());
        }
        None
    }

    fn refuses(&self, c: char) -> bool {
        match self.kind {
            Kind::Line => c.is_control(),
            Kind::Block => c.is_control() && !matches!(c, '\n' | '\r' | '\t'),
        }
    }

    /// The characters and the blank rule as a JSON Schema (ECMA-262) pattern: no refused character,
    /// and, where a blank text is refused, one that is not white space.
    pub fn pattern(&self) -> String {
        let refused = match self.kind {
            Kind::Line => LINE_REFUSED,
            Kind::Block => BLOCK_REFUSED,
        };
        match self.blank {
            Blank::Allowed => format!("^[^{refused}]*$"),
            Blank::Refused => format!(r"^[^{refused}]*[^\s{LINE_REFUSED}][^{refused}]*$"),
        }
    }

    /// The least length in characters a valid text has: one where a blank text is refused.
    pub fn min(&self) -> usize {
        match self.blank {
            Blank::Refused => 1,
            Blank::Allowed => 0,
        }
    }
}

/// A single line: trimmed, at most `max` characters, no control characters (line breaks included).
pub fn line(problems: &mut Problems, path: &str, text: &str, max: usize, blank: Blank) -> Option<String> {
    Rule::line(max, blank).check(problems, path, text)
}

/// A block of text: trimmed, at most `max` characters, line breaks and tabs but no other control
/// characters.
pub fn block(problems: &mut Problems, path: &str, text: &str, max: usize, blank: Blank) -> Option<String> {
    Rule::block(max, blank).check(problems, path, text)
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

    #[test]
    fn the_settings_families_keep_their_words() {
        let problem = |rule: Rule, text: &str| {
            let mut problems = Problems::new();
            assert_eq!(rule.check(&mut problems, "/x", text), None);
            let problem = problems.into_vec().remove(0);
            (problem.code, problem.message)
        };
        let name = Rule::line(5, Blank::Refused).worded(Words::SETTINGS);
        assert_eq!(problem(name, " \t "), ("REQUIRED".into(), "is required".into()));
        assert_eq!(
            problem(name, "a\u{1}"),
            ("INVALID_CHARACTERS".into(), "must not contain control characters".into())
        );
        let summary = Rule::block(5, Blank::Allowed).worded(Words::SETTINGS);
        assert_eq!(
            problem(summary, "a\u{1}"),
            ("INVALID_CHARACTERS".into(), "must not contain control characters other than line breaks".into())
        );
        assert_eq!(problem(summary, "abcdef"), ("TOO_LONG".into(), "must be at most 5 characters".into()));
    }

    #[test]
    fn the_patterns_say_what_the_checks_refuse() {
        for rule in [
            Rule::line(50, Blank::Refused),
            Rule::line(50, Blank::Allowed),
            Rule::block(50, Blank::Refused),
            Rule::block(50, Blank::Allowed),
        ] {
            let pattern = regex::Regex::new(&rule.pattern()).unwrap();
            for text in ["a", " a b ", "", "  ", "a\nb", "a\tb", "\n", "a\u{0}", "a\u{7f}b", "a\u{9f}"] {
                let checked = rule.check(&mut Problems::new(), "/x", text).is_some();
                // The check trims first; the pattern reads the text as it is sent.
                assert_eq!(pattern.is_match(text.trim()), checked, "{rule:?} {text:?}");
            }
        }
    }
}
