use std::fmt;

/// The error a module hook returns. The host records its message as a failed delivery or answers
/// 502 MODULE_FAILED, so a message should say what went wrong without leaking secrets.
///
/// Any `std::error::Error` converts into it, so `?` works on serde, key-value and HTTP errors:
///
/// ```
/// use trellis_plugin_sdk::{Error, Result};
///
/// fn parse(text: &str) -> Result<u32> {
///     let n: u32 = serde_json::from_str(text)?;
///     if n == 0 {
///         return Err(Error::new("zero is not allowed"));
///     }
///     Ok(n)
/// }
/// assert!(parse("7").is_ok());
/// assert_eq!(parse("0").unwrap_err().to_string(), "zero is not allowed");
/// ```
pub struct Error {
    message: String,
}

/// `Result` with [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self { message: message.into() }
    }

    /// The message the host will see.
    pub fn message(&self) -> &str {
        &self.message
    }
}

// Like anyhow, `Error` itself is not a `std::error::Error`: that is what allows this blanket conversion.
impl<E: std::error::Error> From<E> for Error {
    fn from(error: E) -> Self {
        Self::new(error.to_string())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({:?})", self.message)
    }
}
