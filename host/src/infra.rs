//! Infrastructure every layer above the domain uses: the one bounded cache type, what a change made
//! stale in every server's caches, mail, metrics, plan quotas, attempt limits, the bounded password
//! hashing pool, files only the server's user reads, and media bytes.

pub mod cache;
pub mod mail;
pub mod media;
pub mod metrics;
pub mod password_work;
pub mod private_files;
pub mod quotas;
pub mod rate_limits;
pub mod stale;
