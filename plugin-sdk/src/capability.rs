use std::fmt;

/// Why an inference capability ([`media`](crate::media), [`vision`](crate::vision),
/// [`speech`](crate::speech)) gave no answer, in the host's words: e.g. "models not installed: run
/// `trellis models install`" or "ffmpeg is not installed: ...". Shown as is, so a step that passes it on
/// with `?` gives the asset's analysis error that message.
///
/// ```
/// use trellis_plugin_sdk::CapabilityError;
///
/// let error = CapabilityError("models not installed: run `trellis models install`".into());
/// let passed_on: trellis_plugin_sdk::Error = error.into();
/// assert_eq!(passed_on.to_string(), "models not installed: run `trellis models install`");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapabilityError(pub String);

impl fmt::Display for CapabilityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CapabilityError {}
