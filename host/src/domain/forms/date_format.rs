//! Date field formats: the tokens `YYYY MM DD HH mm ss` joined by separators.

use std::fmt;

use time::{Date, Month, Time};

/// Longest accepted format string, in bytes.
const MAX_FORMAT_BYTES: usize = 64;

/// A parsed date `format`. `YYYY`, `MM` and `DD` appear exactly once; `HH`, `mm` and `ss` at most
/// once, each only with the one before it. Separators are spaces, ASCII punctuation and `T`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DateFormat {
    source: String,
    parts: Vec<Part>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Separator(char),
}

const TOKENS: [(&str, Part); 6] = [
    ("YYYY", Part::Year),
    ("MM", Part::Month),
    ("DD", Part::Day),
    ("HH", Part::Hour),
    ("mm", Part::Minute),
    ("ss", Part::Second),
];

impl Part {
    fn width(self) -> usize {
        match self {
            Part::Year => 4,
            Part::Separator(_) => 1,
            _ => 2,
        }
    }
}

impl DateFormat {
    /// The format of a date field that names none.
    pub const DEFAULT: &'static str = "YYYY-MM-DD";

    /// Parses a format, or says what is wrong with it.
    pub fn parse(source: &str) -> Result<Self, String> {
        if source.is_empty() {
            return Err("must not be empty".into());
        }
        if source.len() > MAX_FORMAT_BYTES {
            return Err(format!("must be at most {MAX_FORMAT_BYTES} characters"));
        }
        let mut parts = Vec::new();
        let mut rest = source;
        while let Some(c) = rest.chars().next() {
            if let Some((token, part)) = TOKENS.iter().find(|(token, _)| rest.starts_with(token)) {
                if parts.contains(part) {
                    return Err(format!("repeats the token {token}"));
                }
                parts.push(*part);
                rest = &rest[token.len()..];
            } else if c == ' ' || c == 'T' || c.is_ascii_punctuation() {
                parts.push(Part::Separator(c));
                rest = &rest[c.len_utf8()..];
            } else {
                return Err(format!(
                    "has '{c}' at position {}; use the tokens YYYY MM DD HH mm ss and separators",
                    source.len() - rest.len()
                ));
            }
        }
        for (token, part) in &TOKENS[..3] {
            if !parts.contains(part) {
                return Err(format!("must contain {token}"));
            }
        }
        if parts.contains(&Part::Minute) && !parts.contains(&Part::Hour) {
            return Err("uses mm without HH".into());
        }
        if parts.contains(&Part::Second) && !parts.contains(&Part::Minute) {
            return Err("uses ss without mm".into());
        }
        Ok(Self { source: source.to_owned(), parts })
    }

    /// The format as written in the configuration.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether the format carries a time of day.
    pub fn has_time(&self) -> bool {
        self.parts.contains(&Part::Hour)
    }

    /// Checks that `value` is written in this format and names a real calendar date and time.
    pub fn check(&self, value: &str) -> Result<(), String> {
        let (mut year, mut month, mut day, mut hour, mut minute, mut second) = (0, 0, 0, 0, 0, 0);
        let mut rest = value;
        for part in &self.parts {
            let width = part.width();
            let Some(chunk) = rest.get(..width) else {
                return Err(format!("must be written as {}", self.source));
            };
            rest = &rest[width..];
            if let Part::Separator(c) = part {
                if !chunk.starts_with(*c) {
                    return Err(format!("must be written as {}", self.source));
                }
                continue;
            }
            if !chunk.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!("must be written as {}", self.source));
            }
            let number: u16 = chunk.parse().map_err(|_| format!("must be written as {}", self.source))?;
            match part {
                Part::Year => year = number,
                Part::Month => month = number,
                Part::Day => day = number,
                Part::Hour => hour = number,
                Part::Minute => minute = number,
                Part::Second => second = number,
                Part::Separator(_) => {}
            }
        }
        if !rest.is_empty() {
            return Err(format!("must be written as {}", self.source));
        }
        let real_date = year >= 1
            && u8::try_from(month)
                .ok()
                .and_then(|m| Month::try_from(m).ok())
                .zip(u8::try_from(day).ok())
                .is_some_and(|(m, d)| Date::from_calendar_date(i32::from(year), m, d).is_ok());
        if !real_date {
            return Err("is not a real calendar date".into());
        }
        let as_u8 = |n: u16| u8::try_from(n).unwrap_or(u8::MAX);
        if Time::from_hms(as_u8(hour), as_u8(minute), as_u8(second)).is_err() {
            return Err("is not a real time of day".into());
        }
        Ok(())
    }
}

impl fmt::Display for DateFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_only_and_full_formats_parse() {
        for format in
            ["YYYY-MM-DD", "YYYY-MM-DD HH:mm:ss", "DD.MM.YYYY", "MM/DD/YYYY HH:mm", "YYYYMMDD", "YYYY-MM-DDTHH:mm"]
        {
            assert!(DateFormat::parse(format).is_ok(), "{format}");
        }
    }

    #[test]
    fn bad_formats_are_refused() {
        for format in [
            "",
            "YYYY-MM",
            "YY-MM-DD",
            "YYYY-MM-DD-DD",
            "YYYY-MM-DD mm",
            "YYYY-MM-DD HH:ss",
            "YYYY-MM-DDé",
            "yyyy-MM-dd",
            "Q",
        ] {
            assert!(DateFormat::parse(format).is_err(), "{format}");
        }
        assert!(DateFormat::parse(&"-".repeat(100)).is_err());
    }

    #[test]
    fn values_must_follow_the_format() {
        let format = DateFormat::parse("YYYY-MM-DD").unwrap();
        assert!(format.check("2024-02-29").is_ok());
        for value in ["2024-2-29", "2024/02/29", "2024-02-29 ", "24-02-29", "２０２４-02-29", "abcd-ef-gh", ""] {
            assert!(format.check(value).is_err(), "{value}");
        }
    }

    #[test]
    fn values_must_be_real_dates_and_times() {
        let format = DateFormat::parse("DD.MM.YYYY HH:mm:ss").unwrap();
        assert!(format.check("31.12.1999 23:59:59").is_ok());
        for value in ["29.02.2023 10:00:00", "31.04.2024 10:00:00", "00.01.2024 10:00:00", "01.13.2024 10:00:00"] {
            assert_eq!(format.check(value).unwrap_err(), "is not a real calendar date", "{value}");
        }
        assert_eq!(format.check("01.01.0000 10:00:00").unwrap_err(), "is not a real calendar date");
        assert_eq!(format.check("01.01.2024 24:00:00").unwrap_err(), "is not a real time of day");
        assert_eq!(format.check("01.01.2024 10:60:00").unwrap_err(), "is not a real time of day");
    }

    #[test]
    fn multibyte_input_does_not_panic() {
        let format = DateFormat::parse("YYYY-MM-DD").unwrap();
        for value in ["ééééé-é-é", "2024-0é-01", "🎉🎉🎉"] {
            assert!(format.check(value).is_err());
        }
    }
}
