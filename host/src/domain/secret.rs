//! Random tokens and their stored digests. Tokens carry 256 bits of entropy, so a fast hash
//! (SHA-256) is enough at rest; passwords use argon2 instead (see `account`).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use sha2::{Digest, Sha256};

/// Longest sign-up or reset token a request may carry, as the OpenAPI document states it. Tokens
/// are a short prefix and 43 base64url characters; a longer one is not refused by length but names
/// no token, which is answered like any unknown one.
pub const MAX_TOKEN_CHARS: usize = 200;

/// A new random token: `prefix` followed by 43 base64url characters.
pub fn new_token(prefix: &str) -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    format!("{prefix}{}", URL_SAFE_NO_PAD.encode(bytes))
}

/// Whether `text` has the shape of a token [`new_token`] made with `prefix`: the prefix, then 43
/// characters of URL-safe base64. What fails this is refused before any lookup.
pub fn is_token_shaped(text: &str, prefix: &str) -> bool {
    text.strip_prefix(prefix).is_some_and(|rest| {
        rest.len() == 43 && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    })
}

/// The digest under which a token is stored and looked up.
pub fn digest(token: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()))
}

/// A 6-digit PIN, uniformly drawn.
pub fn new_pin() -> String {
    use rand::Rng;
    format!("{:06}", rand::rng().random_range(0..1_000_000u32))
}

/// A PIN's stored digest, salted with the digest of the token it belongs to.
pub fn pin_digest(token_digest: &str, pin: &str) -> String {
    digest(&format!("{token_digest}:{pin}"))
}

/// Constant-time equality for secrets compared in memory.
pub fn same(a: &str, b: &str) -> bool {
    use subtle::ConstantTimeEq;
    a.len() == b.len() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_unique_and_prefixed() {
        let a = new_token("ses_");
        assert!(a.starts_with("ses_") && a.len() == 47);
        assert_ne!(a, new_token("ses_"));
    }

    #[test]
    fn only_what_new_token_makes_is_token_shaped() {
        let token = new_token("evt_");
        assert!(is_token_shaped(&token, "evt_"));
        assert!(!is_token_shaped(&token, "ses_"), "another prefix");
        assert!(!is_token_shaped(&token[..token.len() - 1], "evt_"), "one character short");
        assert!(!is_token_shaped(&format!("{token}A"), "evt_"), "one character long");
        assert!(!is_token_shaped(&format!("evt_{}", "+".repeat(43)), "evt_"), "not URL-safe base64");
        assert!(!is_token_shaped("", "evt_"));
    }

    #[test]
    fn pins_have_six_digits() {
        for _ in 0..100 {
            let pin = new_pin();
            assert!(pin.len() == 6 && pin.bytes().all(|b| b.is_ascii_digit()));
        }
    }

    #[test]
    fn pin_digests_depend_on_the_token() {
        assert_ne!(pin_digest("a", "123456"), pin_digest("b", "123456"));
        assert!(same(&pin_digest("a", "1"), &pin_digest("a", "1")));
    }
}
