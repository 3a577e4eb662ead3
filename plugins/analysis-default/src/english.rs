//! Small pieces of English: articles, numbers, durations and lists, so composed sentences read as if
//! written.

/// `a kite`, `an eagle`, `an hour glass`, `a unicorn`.
pub fn with_article(phrase: &str) -> String {
    format!("{} {phrase}", article(phrase))
}

fn article(phrase: &str) -> &'static str {
    let word = phrase.trim_start().to_lowercase();
    if let Some(number) = word.split(|c: char| !c.is_ascii_digit()).next().filter(|n| !n.is_empty()) {
        return if number_sounds_like_vowel(number) { "an" } else { "a" };
    }
    let vowel_sound_exceptions = ["hour", "honest", "honour", "heir"];
    let consonant_sound_exceptions = ["uni", "use", "usu", "uti", "eu", "one", "ewe", "ure"];
    if vowel_sound_exceptions.iter().any(|w| word.starts_with(w)) {
        return "an";
    }
    if consonant_sound_exceptions.iter().any(|w| word.starts_with(w)) {
        return "a";
    }
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" }
}

/// Whether a number, said aloud, starts with a vowel: 8, 11, 18, 80-89, 800-899, 11,000, ...
fn number_sounds_like_vowel(digits: &str) -> bool {
    let digits = digits.trim_start_matches('0');
    if digits.starts_with('8') {
        return true;
    }
    // 11 and 18 are said "eleven", "eighteen" when they lead a group of three digits.
    (digits.starts_with("11") || digits.starts_with("18")) && digits.len() % 3 == 2
}

/// `one`, `two`, ... `ten`, then digits.
pub fn number(n: usize) -> String {
    const WORDS: [&str; 11] = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
    WORDS.get(n).map_or_else(|| n.to_string(), |w| (*w).to_owned())
}

/// The same with a capital first letter, to open a sentence.
pub fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// `12-second`, `75-second`, `3-minute`, `2-hour`; `None` when the length is unknown (0).
pub fn duration(ms: u64) -> Option<String> {
    let seconds = (ms + 500) / 1000;
    Some(match seconds {
        0 if ms == 0 => return None,
        0 => "1-second".to_owned(),
        1..120 => format!("{seconds}-second"),
        120..7200 => format!("{}-minute", (seconds + 30) / 60),
        _ => format!("{}-hour", (seconds + 1800) / 3600),
    })
}

/// `blue`, `blue and white`, `blue, white and green`.
pub fn list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn articles_follow_the_sound() {
        assert_eq!(with_article("kite"), "a kite");
        assert_eq!(with_article("eagle"), "an eagle");
        assert_eq!(with_article("umbrella"), "an umbrella");
        assert_eq!(with_article("unicorn"), "a unicorn");
        assert_eq!(with_article("hourglass"), "an hourglass");
        assert_eq!(with_article("8-second video"), "an 8-second video");
        assert_eq!(with_article("11-second video"), "an 11-second video");
        assert_eq!(with_article("12-second video"), "a 12-second video");
        assert_eq!(with_article("18-minute video"), "an 18-minute video");
        assert_eq!(with_article("110-second video"), "a 110-second video");
    }

    #[test]
    fn durations_round_to_a_natural_unit() {
        assert_eq!(duration(0), None);
        assert_eq!(duration(300), Some("1-second".into()));
        assert_eq!(duration(12_400), Some("12-second".into()));
        assert_eq!(duration(75_000), Some("75-second".into()));
        assert_eq!(duration(200_000), Some("3-minute".into()));
        assert_eq!(duration(3 * 3_600_000), Some("3-hour".into()));
    }

    #[test]
    fn lists_and_numbers_read_naturally() {
        assert_eq!(list(&["blue"]), "blue");
        assert_eq!(list(&["blue", "white"]), "blue and white");
        assert_eq!(list(&["blue", "white", "green"]), "blue, white and green");
        assert_eq!(number(2), "two");
        assert_eq!(number(23), "23");
        assert_eq!(capitalised("two faces"), "Two faces");
    }
}
