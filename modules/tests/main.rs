//! Runs the real components built from `plugins/` (found through the `trellis-plugins-build` dev-dependency) in
//! one shared, precompiled host.
//! Cranelift in a debug build is slow, so every test that can share that host does.

mod analysis;
mod analysis_limits;
mod backend;
mod cache;
mod config;
mod grants;
mod guest_time;
mod hostile;
mod inspect;
mod kv_commit;
mod support;
mod tags;
