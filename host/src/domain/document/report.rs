//! Gathering problems under a cap, and building the JSON Pointers they are reported at, so every
//! document rule reports the same way and no hostile document can make an error body huge.

use std::collections::HashSet;

use crate::domain::problems::Problems;

use super::codes;
use super::limits::MAX_PROBLEMS;

/// Problems found so far. Past [`MAX_PROBLEMS`] the rest are dropped behind one
/// `TOO_MANY_PROBLEMS`, so a hostile document cannot make the error body huge; a repeated
/// (path, code) pair is kept once.
#[derive(Default)]
pub(crate) struct Report {
    problems: Problems,
    seen: HashSet<(String, &'static str)>,
    count: usize,
}

impl Report {
    pub(crate) fn push(&mut self, path: impl Into<String>, code: &'static str, message: impl Into<String>) {
        let path = path.into();
        if self.count > MAX_PROBLEMS || !self.seen.insert((path.clone(), code)) {
            return;
        }
        self.count += 1;
        if self.count > MAX_PROBLEMS {
            self.problems.push(
                "",
                codes::TOO_MANY_PROBLEMS,
                format!("more than {MAX_PROBLEMS} problems; fix these first"),
            );
        } else {
            self.problems.push(path, code, message);
        }
    }

    /// Problems kept so far (repeats are not counted).
    pub(crate) fn len(&self) -> usize {
        self.count
    }

    /// Whether a problem has already been reported at `path`.
    pub(crate) fn has_problem_at(&self, path: &str) -> bool {
        self.seen.iter().any(|(seen, _)| seen == path)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.count == 0
    }

    pub(crate) fn finish<T>(self, value: impl FnOnce() -> T) -> Result<T, Problems> {
        if self.is_empty() { Ok(value()) } else { Err(self.problems) }
    }

    pub(crate) fn into_problems(self) -> Problems {
        self.problems
    }
}

/// `base` followed by one escaped reference token (RFC 6901: `~` as `~0`, `/` as `~1`).
pub(crate) fn join(base: &str, token: impl std::fmt::Display) -> String {
    let token = token.to_string();
    let mut out = String::with_capacity(base.len() + token.len() + 1);
    out.push_str(base);
    out.push('/');
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_escapes_tilde_and_slash() {
        assert_eq!(join("/payload/fields", "a/b~c"), "/payload/fields/a~1b~0c");
        assert_eq!(join("", 3), "/3");
    }

    #[test]
    fn report_keeps_one_of_each_path_and_code_and_caps_the_rest() {
        let mut report = Report::default();
        report.push("/a", codes::REQUIRED, "x");
        report.push("/a", codes::REQUIRED, "y");
        report.push("/a", codes::INVALID_TYPE, "z");
        assert_eq!(report.into_problems().into_vec().len(), 2);

        let mut report = Report::default();
        for i in 0..MAX_PROBLEMS + 50 {
            report.push(join("", i), codes::REQUIRED, "x");
        }
        let problems = report.into_problems().into_vec();
        assert_eq!(problems.len(), MAX_PROBLEMS + 1);
        assert_eq!(problems.last().map(|p| p.code.as_str()), Some(codes::TOO_MANY_PROBLEMS));
    }
}
