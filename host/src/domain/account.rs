//! Account rules: handles, e-mail addresses, display names and passwords.

use std::sync::LazyLock;

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString, rand_core::OsRng};
use argon2::{Algorithm, Argon2, Version};
use regex::Regex;
use time::OffsetDateTime;

use super::problems::{FromBody, Problems};
use super::text::{Blank, Rule, Words};

/// What every authenticated request needs: who, and until when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionUser {
    pub user_id: String,
    pub handle: String,
    /// As the session was read: what a new comment shows of its author without reading the
    /// profile again (lists read it afresh).
    pub display_name: String,
    pub avatar_pic_id: Option<String>,
    pub operator: bool,
    pub expires_at: OffsetDateTime,
}

/// How long a failed PIN check counts against its e-mail address (and is kept).
pub const PIN_FAILURE_WINDOW: std::time::Duration = std::time::Duration::from_secs(3600);

/// A handle, as a pattern both Rust's `regex` and JSON Schema read alike.
pub const HANDLE_PATTERN: &str = "^[a-z0-9_]{3,30}$";

static HANDLE: LazyLock<Regex> = LazyLock::new(|| Regex::new(HANDLE_PATTERN).expect("valid regex"));

/// Longest accepted display or full name, in characters.
pub const MAX_NAME_CHARS: usize = 100;
/// Longest accepted e-mail address (RFC 5321 path limit).
pub const MAX_EMAIL_CHARS: usize = 254;
/// Shortest accepted new password.
pub const MIN_PASSWORD_CHARS: usize = 8;
/// Longest accepted password; argon2 hashes any length, this only bounds the work per request.
pub const MAX_PASSWORD_CHARS: usize = 1024;
/// Digits of a mailed PIN.
pub const PIN_DIGITS: usize = 6;

/// Handles no account may take: `system` signs the platform's notices (`domain/messages.rs`).
/// Kept short on purpose: each name here is one nobody can sign up with.
pub const RESERVED_HANDLES: &[&str] = &["system"];

/// A handle: `^[a-z0-9_]{3,30}$`, unique per deployment, not one of [`RESERVED_HANDLES`].
pub fn check_handle(problems: &mut Problems, path: &str, handle: Option<&str>) -> Option<String> {
    let handle = problems.required(path, handle)?;
    if !HANDLE.is_match(handle) {
        problems.push(path, "INVALID_HANDLE", "must be 3 to 30 characters of a-z, 0-9 and _");
        None
    } else if RESERVED_HANDLES.contains(&handle) {
        problems.push(path, "RESERVED_HANDLE", "is reserved for the platform");
        None
    } else {
        Some(handle.to_owned())
    }
}

/// An e-mail address, stored lower-cased so uniqueness is case-insensitive.
pub fn check_email(problems: &mut Problems, path: &str, email: Option<&str>) -> Option<String> {
    let email = problems.required(path, email)?;
    let valid = email.chars().count() <= MAX_EMAIL_CHARS
        && !email.chars().any(|c| c.is_whitespace() || c.is_control())
        && match email.rsplit_once('@') {
            Some((local, domain)) => {
                !local.is_empty()
                    && domain.contains('.')
                    && !domain.starts_with('.')
                    && !domain.ends_with('.')
                    && !domain.contains('@')
            }
            None => false,
        }
        // What the mailer cannot address is refused here, before anything is stored or sent.
        && email.parse::<lettre::Address>().is_ok();
    if valid {
        Some(email.to_lowercase())
    } else {
        problems.push(path, "INVALID_EMAIL", "is not an e-mail address");
        None
    }
}

/// A display or full name: required, trimmed, at most [`MAX_NAME_CHARS`], no control characters.
pub const NAME: Rule = Rule::line(MAX_NAME_CHARS, Blank::Refused).worded(Words::SETTINGS);

/// Checks a display or full name by [`NAME`]; a missing one is `REQUIRED` like a blank one.
pub fn check_name(problems: &mut Problems, path: &str, name: Option<&str>) -> Option<String> {
    NAME.check(problems, path, name.unwrap_or_default())
}

/// A display name: a name, and not the platform's own (`Trellis`, the sender of its notices) in
/// any case, spacing or punctuation, so no user can pass for the platform in a thread.
pub fn check_display_name(problems: &mut Problems, path: &str, name: Option<&str>) -> Option<String> {
    let name = check_name(problems, path, name)?;
    let platform =
        |text: &str| -> String { text.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect() };
    if platform(&name) == platform(super::messages::SYSTEM_DISPLAY_NAME) {
        problems.push(path, "RESERVED_NAME", "is reserved for the platform");
        return None;
    }
    Some(name)
}

/// The interface's rule: at least 8 characters with a letter and a number.
pub fn check_password(problems: &mut Problems, path: &str, password: Option<&str>) -> Option<String> {
    let Some(password) = password.filter(|p| !p.is_empty()) else {
        problems.push(path, "REQUIRED", "is required");
        return None;
    };
    let chars = password.chars().count();
    if !(MIN_PASSWORD_CHARS..=MAX_PASSWORD_CHARS).contains(&chars) {
        problems.push(
            path,
            "WEAK_PASSWORD",
            format!("must be {MIN_PASSWORD_CHARS} to {MAX_PASSWORD_CHARS} characters"),
        );
        None
    } else if !password.chars().any(char::is_alphabetic) || !password.chars().any(char::is_numeric) {
        problems.push(path, "WEAK_PASSWORD", "must include a letter and a number");
        None
    } else {
        Some(password.to_owned())
    }
}

/// A 6-digit PIN as typed; anything else can never match.
pub fn is_pin_shaped(pin: &str) -> bool {
    pin.len() == PIN_DIGITS && pin.bytes().all(|b| b.is_ascii_digit())
}

/// What one password hash costs: argon2id's memory and passes (one lane). The cost of a stored hash
/// is written in it, so verifying needs no setting and a changed cost applies to new hashes only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PasswordCost {
    pub memory_kib: u32,
    pub iterations: u32,
}

impl PasswordCost {
    /// OWASP's minimum for argon2id (19 MiB, two passes), and the argon2 crate's default.
    pub const RECOMMENDED: Self = Self { memory_kib: 19_456, iterations: 2 };

    /// The argon2 parameters; an error names what argon2 refuses (less than 8 KiB, no pass).
    pub fn params(self) -> Result<argon2::Params, argon2::Error> {
        argon2::Params::new(self.memory_kib, self.iterations, 1, None)
    }

    /// Whether a stolen hash would be cheaper to guess at than the recommendation allows.
    pub fn is_below_recommended(self) -> bool {
        self.memory_kib < Self::RECOMMENDED.memory_kib || self.iterations < Self::RECOMMENDED.iterations
    }
}

/// Hashes a password with argon2id (memory-hard) at `cost`. CPU-heavy: call off the async runtime.
pub fn hash_password(password: &str, cost: PasswordCost) -> anyhow::Result<String> {
    let params = cost.params().map_err(|e| anyhow::anyhow!("password hash cost: {e}"))?;
    let salt = SaltString::generate(&mut OsRng);
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|e| anyhow::anyhow!("hashing password: {e}"))
}

/// Checks a password against a stored hash, at the cost the hash records. CPU-heavy: call off the
/// async runtime.
pub fn verify_password(password: &str, stored: &str) -> bool {
    PasswordHash::new(stored).is_ok_and(|hash| Argon2::default().verify_password(password.as_bytes(), &hash).is_ok())
}

/// A hash of a random password at `cost`, verified against when a login names no account, so that
/// the answer takes as long as for a real account and timing tells nothing.
pub fn decoy_hash(cost: PasswordCost) -> anyhow::Result<String> {
    hash_password(&super::secret::new_token("decoy"), cost)
}

/// What `PATCH /v0/users/me` may change: the names; the handle, e-mail and ids are read-only.
#[derive(Debug, Default)]
pub struct ProfileChange {
    pub display_name: Option<String>,
    pub full_name: Option<String>,
}

/// Reads a profile change, listing every member that is read-only, unknown or breaks its rule.
pub fn parse_profile_change(body: &serde_json::Map<String, serde_json::Value>) -> Result<ProfileChange, Problems> {
    use serde_json::Value;
    let mut problems = Problems::new();
    let mut change = ProfileChange::default();
    for (key, value) in body {
        let path = format!("/{key}");
        let name = |problems: &mut Problems, check: fn(&mut Problems, &str, Option<&str>) -> Option<String>| match value
        {
            Value::String(s) => check(problems, &path, Some(s)),
            Value::Null => check(problems, &path, None),
            _ => {
                problems.push(path.clone(), "INVALID_TYPE", "must be a string");
                None
            }
        };
        match key.as_str() {
            "displayName" => change.display_name = name(&mut problems, check_display_name),
            "fullName" => change.full_name = name(&mut problems, check_name),
            "handle" | "email" | "userId" | "avatar" | "createdAt" | "updatedAt" => {
                problems.push(path, "READ_ONLY", "cannot be changed here")
            }
            _ => problems.push(path, "UNKNOWN_FIELD", "is not a profile field"),
        }
    }
    problems.finish(change)
}

impl FromBody for ProfileChange {
    fn from_body(body: &serde_json::Map<String, serde_json::Value>) -> Result<Self, Problems> {
        parse_profile_change(body)
    }
}

/// A handle search prefix.
#[derive(Debug, PartialEq, Eq)]
pub enum HandlePrefix {
    /// Lower-cased, without a leading `@`.
    Prefix(String),
    /// Holds characters no handle has.
    MatchesNothing,
}

/// Reads the search parameter `q` (problems at `q`, added to those already found): required,
/// at most as long as a handle, case-insensitive, a leading `@` ignored.
pub fn parse_handle_prefix(q: Option<&str>, mut problems: Problems) -> Result<HandlePrefix, Problems> {
    let prefix = q.map(|q| q.trim().trim_start_matches('@').to_lowercase()).unwrap_or_default();
    if prefix.is_empty() {
        problems.push("q", "REQUIRED", "is required");
    } else if prefix.chars().count() > 30 {
        problems.push("q", "TOO_LONG", "must be at most 30 characters");
    }
    problems.finish(())?;
    if prefix.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_') {
        Ok(HandlePrefix::Prefix(prefix))
    } else {
        Ok(HandlePrefix::MatchesNothing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems_of(f: impl FnOnce(&mut Problems)) -> Vec<String> {
        let mut problems = Problems::new();
        f(&mut problems);
        problems.into_vec().into_iter().map(|p| p.code).collect()
    }

    #[test]
    fn handles_follow_the_pattern() {
        assert!(problems_of(|p| assert!(check_handle(p, "/h", Some("ann_01")).is_some())).is_empty());
        for bad in ["an", "Ann", "a-b", "x".repeat(31).as_str(), "a nn", "ännä"] {
            assert_eq!(
                problems_of(|p| assert!(check_handle(p, "/h", Some(bad)).is_none())),
                ["INVALID_HANDLE"],
                "{bad}"
            );
        }
        assert_eq!(problems_of(|p| assert!(check_handle(p, "/h", None).is_none())), ["REQUIRED"]);
        assert_eq!(problems_of(|p| assert!(check_handle(p, "/h", Some("system")).is_none())), ["RESERVED_HANDLE"]);
        for platform in ["Trellis", "trellis", " TRELLIS ", "Trel lis", "Trellis.", "T.r.e.l.l.i.s"] {
            let found = problems_of(|p| assert!(check_display_name(p, "/d", Some(platform)).is_none()));
            assert_eq!(found, ["RESERVED_NAME"], "{platform:?}");
        }
        for fine in ["Trellis fan", "Ann of Trellis", "Treliss"] {
            assert_eq!(check_display_name(&mut Problems::new(), "/d", Some(fine)).as_deref(), Some(fine));
        }
        assert!(problems_of(|p| assert!(check_handle(p, "/h", Some("systems")).is_some())).is_empty());
    }

    #[test]
    fn emails_are_lowercased_and_checked() {
        let mut problems = Problems::new();
        assert_eq!(check_email(&mut problems, "/e", Some(" Ann@Example.ORG ")).as_deref(), Some("ann@example.org"));
        for bad in ["ann", "@x.org", "ann@x", "ann@.org", "a b@x.org"] {
            assert_eq!(problems_of(|p| assert!(check_email(p, "/e", Some(bad)).is_none())), ["INVALID_EMAIL"], "{bad}");
        }
    }

    #[test]
    fn passwords_need_eight_characters_a_letter_and_a_number() {
        for good in ["abcdefg1", "pässwört9", "12345678a"] {
            assert!(problems_of(|p| assert!(check_password(p, "/p", Some(good)).is_some())).is_empty(), "{good}");
        }
        for bad in ["abc123", "abcdefgh", "12345678", ""] {
            assert!(!problems_of(|p| assert!(check_password(p, "/p", Some(bad)).is_none())).is_empty(), "{bad}");
        }
    }

    #[test]
    fn password_hashes_verify_only_the_same_password() {
        let hash = hash_password("correct horse 1", PasswordCost::RECOMMENDED).unwrap();
        assert!(hash.starts_with("$argon2id$"));
        assert!(verify_password("correct horse 1", &hash));
        assert!(!verify_password("correct horse 2", &hash));
        assert!(!verify_password("x", "not a hash"));
    }
}

#[cfg(test)]
mod mailer_addresses {
    use super::*;

    #[test]
    fn addresses_the_mailer_refuses_are_refused() {
        for address in
            ["a<b@example.org", "a\"b@example.org", "a,b@example.org", "ann@exa mple.org", "ann@ex(a)mple.org"]
        {
            let mut problems = Problems::new();
            assert_eq!(check_email(&mut problems, "/email", Some(address)), None, "{address}");
        }
        let mut problems = Problems::new();
        assert_eq!(
            check_email(&mut problems, "/email", Some("Ann.B+x@Example.org")).as_deref(),
            Some("ann.b+x@example.org")
        );
    }
}

/// What an e-mailed PIN confirms: a sign-up or a password reset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChallengePurpose {
    Signup,
    Reset,
}

impl ChallengePurpose {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Signup => "signup",
            Self::Reset => "reset",
        }
    }
}
