//! The host's integration tests, in one binary (one link, and what they share compiled once): the
//! administration commands and `trellis module` run as the real binary, the job store and workers,
//! crash drills, the S3 store, backup. Each file is a module named after what it tests; `support`
//! holds what they share.

mod analysis_crash;
mod backup;
mod cli;
mod config_cli;
mod job_store;
mod job_workers;
mod media_crash;
mod module_cli;
mod module_events_crash;
mod module_kv_atomics;
mod s3_store;
mod support;
