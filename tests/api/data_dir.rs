//! What the server keeps on disk is for its own user only (issue 11, finding 11): the data
//! directory, the outbox whose mails hold PINs, the media folder and the SQLite database.

#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use trellis_tests::spawn_app_with;

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap_or_else(|err| panic!("{}: {err}", path.display())).permissions().mode() & 0o777
}

#[tokio::test]
async fn the_data_directory_and_what_it_holds_are_private() {
    // Arrange: a data directory the server has to create itself.
    let app = spawn_app_with(|config| config.data_dir = config.data_dir.join("deployment")).await;
    // Act: a sign-up writes a PIN mail into the outbox.
    app.sign_up("ann").await;
    // Assert
    let data_dir = &app.config.data_dir;
    assert_eq!(mode(data_dir), 0o700);
    assert_eq!(mode(&data_dir.join("outbox")), 0o700);
    assert_eq!(mode(&data_dir.join("license.key")), 0o600);
    if app.config.database.url.is_empty() {
        assert_eq!(mode(&data_dir.join("trellis.db")), 0o600);
    }
    let media = data_dir.join("media");
    if media.exists() {
        assert_eq!(mode(&media), 0o700);
    }
    app.stop().await;
}
