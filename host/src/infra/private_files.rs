//! Folders and files other local users must not read: the data directory (database, media, the
//! outbox whose mails hold PINs, the first license key) is 0700, a database file 0600.

use std::io;
use std::path::Path;

/// Creates `path` (and missing parents) readable by this user only, and tightens it if it exists.
/// A folder this user does not own keeps its mode (a warning says so): the deployer chose it.
pub fn private_dir(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(path)?;
        if let Err(err) = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700)) {
            tracing::warn!(path = %path.display(), error = %err, "could not make the folder private (0700)");
        }
        Ok(())
    }
    #[cfg(not(unix))]
    std::fs::create_dir_all(path)
}

/// Creates an empty `path` readable by this user only, unless it exists. SQLite gives its journal
/// files the mode of the database file, so this covers them too.
pub fn private_file(path: &Path) -> io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(err) => Err(err),
    }
}
