//! `validation` patterns: Rust `regex` syntax, anchored to the whole answer, bounded in size.
//!
//! The `regex` crate matches in time linear in the answer, so no pattern backtracks without end;
//! what remains is memory, bounded per pattern by [`REGEX_SIZE_LIMIT`] plus its lazy-DFA caches
//! of [`REGEX_DFA_CACHE_BYTES`] each, and per document by [`REGEX_DOCUMENT_BUDGET`] and
//! [`MAX_DISTINCT_PATTERNS`].

use std::collections::HashMap;
use std::fmt;

use regex::{Regex, RegexBuilder};

use super::limits::{
    MAX_DISTINCT_PATTERNS, MAX_PATTERN_CHARS, REGEX_DFA_CACHE_BYTES, REGEX_DOCUMENT_BUDGET, REGEX_SIZE_LIMIT,
};

/// Size limits tried in turn; the first that fits is what the pattern is charged.
const PROBES: [usize; 3] = [16 * 1024, 128 * 1024, REGEX_SIZE_LIMIT];
/// Deepest nesting of groups and repetitions.
const NEST_LIMIT: u32 = 64;
/// Lazy-DFA caches charged per pattern: a forward and a reverse one, for each of two threads
/// matching at once (the crate keeps a cache per thread that uses the pattern).
const DFA_CACHES_CHARGED: usize = 4;

/// A field's `validation`, compiled once with the configuration.
#[derive(Clone)]
pub struct AnswerPattern {
    source: String,
    regex: Regex,
}

impl AnswerPattern {
    /// The pattern as written in the configuration.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether the whole answer matches.
    pub fn is_match(&self, answer: &str) -> bool {
        self.regex.is_match(answer)
    }
}

impl fmt::Debug for AnswerPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("AnswerPattern").field(&self.source).finish()
    }
}

/// Compiles the patterns of one document, sharing identical ones and keeping their total in budget.
#[derive(Default)]
pub(crate) struct PatternCompiler {
    cache: HashMap<String, Regex>,
    spent: usize,
}

impl PatternCompiler {
    /// Compiles `source` anchored at both ends, or says why it cannot be used.
    pub(crate) fn compile(&mut self, source: &str) -> Result<AnswerPattern, String> {
        if source.chars().count() > MAX_PATTERN_CHARS {
            return Err(format!("must be at most {MAX_PATTERN_CHARS} characters"));
        }
        if let Some(regex) = self.cache.get(source) {
            return Ok(AnswerPattern { source: source.to_owned(), regex: regex.clone() });
        }
        if self.cache.len() >= MAX_DISTINCT_PATTERNS {
            return Err(format!("a configuration may hold at most {MAX_DISTINCT_PATTERNS} distinct patterns"));
        }
        if self.spent >= REGEX_DOCUMENT_BUDGET {
            return Err("the document's patterns are too big together; share or simplify them".into());
        }
        check_syntax(source)?;
        let anchored = format!(r"\A(?:{source})\z");
        let mut last_error = None;
        for limit in PROBES {
            match builder(&anchored, limit).build() {
                Ok(regex) => {
                    self.spent += limit + DFA_CACHES_CHARGED * REGEX_DFA_CACHE_BYTES;
                    if self.spent > REGEX_DOCUMENT_BUDGET {
                        return Err("the document's patterns are too big together; share or simplify them".into());
                    }
                    self.cache.insert(source.to_owned(), regex.clone());
                    return Ok(AnswerPattern { source: source.to_owned(), regex });
                }
                Err(regex::Error::CompiledTooBig(_)) => last_error = Some(too_big()),
                Err(other) => return Err(describe(&other)),
            }
        }
        Err(last_error.unwrap_or_else(too_big))
    }

    /// The memory charged for the document's patterns so far.
    pub(crate) fn spent(&self) -> usize {
        self.spent
    }
}

fn builder(pattern: &str, size_limit: usize) -> RegexBuilder {
    let mut builder = RegexBuilder::new(pattern);
    builder.size_limit(size_limit).dfa_size_limit(REGEX_DFA_CACHE_BYTES).nest_limit(NEST_LIMIT);
    builder
}

/// The pattern must parse on its own, so that wrapping it cannot change its meaning (`a)|(b`
/// would otherwise escape the anchors). A zero size limit stops right after parsing.
fn check_syntax(source: &str) -> Result<(), String> {
    match builder(source, 0).build() {
        Ok(_) | Err(regex::Error::CompiledTooBig(_)) => Ok(()),
        Err(other) => Err(describe(&other)),
    }
}

fn too_big() -> String {
    format!(
        "compiles to more than {} KiB; repeated Unicode classes such as \\w{{1,100}} are large, \
         prefer minLength/maxLength or (?-u:\\w)",
        REGEX_SIZE_LIMIT / 1024
    )
}

/// The last line of the crate's message ("error: unclosed group"), without the echo of the pattern.
fn describe(error: &regex::Error) -> String {
    let text = error.to_string();
    let last = text.lines().rev().find(|line| !line.trim().is_empty()).unwrap_or("does not compile");
    let last = last.trim().trim_start_matches("error: ");
    format!("is not a valid regular expression: {}", last.chars().take(200).collect::<String>())
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    fn compile(source: &str) -> Result<AnswerPattern, String> {
        PatternCompiler::default().compile(source)
    }

    #[test]
    fn patterns_match_the_whole_answer() {
        let pattern = compile("[0-9]{5}").unwrap();
        assert!(pattern.is_match("12345"));
        assert!(!pattern.is_match("123456"));
        assert!(!pattern.is_match("a12345"));
        let pattern = compile("a|ab").unwrap();
        assert!(pattern.is_match("ab"));
    }

    #[test]
    fn a_pattern_cannot_escape_its_anchors() {
        let err = compile("a)|(b").unwrap_err();
        assert!(err.starts_with("is not a valid regular expression"), "{err}");
        let pattern = compile("(?m)a$").unwrap();
        assert!(!pattern.is_match("a\nb"));
    }

    #[test]
    fn syntax_errors_are_described_without_the_echo() {
        let err = compile("(abc").unwrap_err();
        assert!(err.contains("unclosed group"), "{err}");
        assert!(!err.contains('\n'));
        assert!(compile("(?<=a)b").is_err());
        assert!(compile(r"(a)\1").is_err());
    }

    #[test]
    fn long_and_huge_patterns_are_refused() {
        assert!(compile(&"a".repeat(MAX_PATTERN_CHARS + 1)).unwrap_err().contains("at most"));
        assert!(compile(r"\w{1,100}").unwrap_err().contains("KiB"));
        assert!(compile("a{1000}{1000}").unwrap_err().contains("KiB"));
        let nested = format!("{}a{}", "(".repeat(200), ")".repeat(200));
        assert!(compile(&nested).is_err());
    }

    #[test]
    fn evil_patterns_run_in_linear_time() {
        let answer = "a".repeat(64 * 1024 - 1) + "!";
        for source in ["(a+)+$", "(a|aa)*b", "(a*)*b", "(.*a){20}"] {
            let pattern = compile(source).unwrap();
            let started = Instant::now();
            assert!(!pattern.is_match(&answer));
            assert!(started.elapsed() < Duration::from_secs(2), "{source} took {:?}", started.elapsed());
        }
    }

    #[test]
    fn identical_patterns_are_shared_and_the_document_has_a_budget() {
        let mut compiler = PatternCompiler::default();
        for _ in 0..1000 {
            compiler.compile(r"\w+\s\w+").unwrap();
        }
        let mut refused = false;
        for i in 0..200 {
            if compiler.compile(&format!(r"(?:\w+\s?){{1,30}}x{i}")).is_err() {
                refused = true;
                break;
            }
        }
        assert!(refused, "32 MiB of patterns must not all be accepted");
    }

    #[test]
    fn distinct_patterns_are_capped() {
        let mut compiler = PatternCompiler::default();
        for i in 0..MAX_DISTINCT_PATTERNS {
            compiler.compile(&format!("x{i}")).unwrap();
        }
        assert!(compiler.compile("y").unwrap_err().contains("distinct patterns"));
        assert!(compiler.compile("x1").is_ok(), "a pattern already compiled is shared, not counted again");
        assert!(compiler.spent() >= MAX_DISTINCT_PATTERNS * DFA_CACHES_CHARGED * REGEX_DFA_CACHE_BYTES);
    }
}
