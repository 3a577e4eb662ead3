//! The `trellis` administration commands, run as the real binary over a temporary data directory.

use crate::support::command;

use std::path::Path;
use std::process::Output;

use time::OffsetDateTime;
use trellis::store::{NewUser, Store};

/// Runs `trellis <args> --data-dir <dir>` from inside `dir`, so no `trellis.toml` or `TRELLIS_*`
/// variable of the surroundings leaks in.
fn trellis(dir: &Path, args: &[&str]) -> Output {
    let data = dir.join("data");
    let args: Vec<&str> = args.iter().copied().chain(["--data-dir", data.to_str().unwrap()]).collect();
    command::trellis(dir, &args, &[])
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// Issues a key on `plan`; answers it.
fn issue(dir: &Path, plan: &str) -> String {
    let output = trellis(dir, &["license", "issue", "--plan", plan]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    stdout(&output).trim().to_owned()
}

/// `license list` as rows of tab-separated columns: id, plan, state, created.
fn list(dir: &Path) -> Vec<Vec<String>> {
    let output = trellis(dir, &["license", "list"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    stdout(&output).lines().map(|line| line.split('\t').map(str::to_owned).collect()).collect()
}

#[test]
fn license_issue_prints_the_new_key_alone_on_standard_output() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    // Act
    let output = trellis(dir.path(), &["license", "issue", "--plan", "default"]);
    // Assert
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let printed = stdout(&output);
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines.len(), 1, "{printed:?}");
    assert!(lines[0].starts_with("trk_") && !lines[0].contains(char::is_whitespace), "{printed:?}");
}

#[test]
fn license_issue_without_a_plan_uses_the_default_plan() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    // Act
    let output = trellis(dir.path(), &["license", "issue"]);
    // Assert
    assert!(output.status.success());
    assert_eq!(list(dir.path())[0][1], "default");
}

#[test]
fn every_issued_key_is_different() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    // Act
    let first = issue(dir.path(), "default");
    let second = issue(dir.path(), "default");
    // Assert
    assert_ne!(first, second);
}

#[test]
fn license_list_shows_each_license_with_its_plan_and_state_but_never_the_key() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    let first = issue(dir.path(), "default");
    let second = issue(dir.path(), "default");
    // Act
    let output = trellis(dir.path(), &["license", "list"]);
    // Assert
    assert!(output.status.success());
    let printed = stdout(&output);
    assert!(!printed.contains(&first) && !printed.contains(&second), "keys are stored only hashed");
    let rows = list(dir.path());
    assert_eq!(rows.len(), 2);
    for row in rows {
        assert_eq!(row.len(), 4, "{row:?}");
        assert!(uuid::Uuid::parse_str(&row[0]).is_ok(), "{row:?}");
        assert_eq!((row[1].as_str(), row[2].as_str()), ("default", "active"));
    }
}

#[test]
fn license_revoke_by_key_marks_that_license_revoked() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    let kept = issue(dir.path(), "default");
    let revoked = issue(dir.path(), "default");
    // Act
    let output = trellis(dir.path(), &["license", "revoke", &revoked]);
    // Assert
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let mut states: Vec<String> = list(dir.path()).into_iter().map(|row| row[2].clone()).collect();
    states.sort();
    assert_eq!(states, ["active", "revoked"]);
    assert_ne!(kept, revoked);
}

#[test]
fn license_revoke_by_license_id_works_too() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    issue(dir.path(), "default");
    let id = list(dir.path())[0][0].clone();
    // Act
    let output = trellis(dir.path(), &["license", "revoke", &id]);
    // Assert
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(list(dir.path())[0][2], "revoked");
}

#[test]
fn revoking_an_unknown_or_already_revoked_key_fails() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    let key = issue(dir.path(), "default");
    assert!(trellis(dir.path(), &["license", "revoke", &key]).status.success());
    for target in [key.as_str(), "trk_unknown", "no-such-id"] {
        // Act
        let output = trellis(dir.path(), &["license", "revoke", target]);
        // Assert
        assert!(!output.status.success(), "{target}");
    }
}

#[test]
fn issuing_on_an_unknown_plan_fails_and_prints_no_key() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    // Act
    let output = trellis(dir.path(), &["license", "issue", "--plan", "gold"]);
    // Assert
    assert!(!output.status.success());
    assert!(stdout(&output).is_empty());
    assert!(String::from_utf8_lossy(&output.stderr).contains("gold"));
    assert!(list(dir.path()).is_empty());
}

#[test]
fn a_config_file_with_a_plans_table_makes_that_plan_issuable() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("gold.toml");
    std::fs::write(&config, "[plans.gold]\n\"messaging.perDay\" = 5\n").unwrap();
    let config = config.to_str().unwrap();
    // Act
    let output = trellis(dir.path(), &["license", "issue", "--plan", "gold", "--config", config]);
    // Assert
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout(&output).trim().starts_with("trk_"));
    assert_eq!(list(dir.path())[0][1], "gold");
}

#[test]
fn a_trellis_toml_in_the_working_directory_is_read_without_a_flag() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("trellis.toml"), "[plans.silver]\n\"spaces.publishedAssets.perDay\" = 3\n").unwrap();
    // Act
    let output = trellis(dir.path(), &["license", "issue", "--plan", "silver"]);
    // Assert
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

#[test]
fn a_config_file_naming_an_unknown_entitlement_is_refused() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("bad.toml");
    std::fs::write(&config, "[plans.gold]\n\"uploads.perYear\" = 5\n").unwrap();
    // Act
    let output = trellis(dir.path(), &["license", "issue", "--plan", "gold", "--config", config.to_str().unwrap()]);
    // Assert
    assert!(!output.status.success());
    assert!(stdout(&output).is_empty());
    assert!(String::from_utf8_lossy(&output.stderr).contains("uploads.perYear"));
}

#[test]
fn migrate_succeeds_on_an_empty_data_directory_and_again_afterwards() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    // Act
    let first = trellis(dir.path(), &["migrate"]);
    let second = trellis(dir.path(), &["migrate"]);
    // Assert
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    assert!(second.status.success(), "{}", String::from_utf8_lossy(&second.stderr));
    assert!(dir.path().join("data").join("trellis.db").exists());
    assert!(stdout(&first).is_empty());
}

#[test]
fn admin_grant_operator_on_an_unknown_handle_fails() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    // Act
    let output = trellis(dir.path(), &["admin", "grant-operator", "nobody"]);
    // Assert
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("nobody"));
}

#[tokio::test]
async fn admin_grant_operator_on_a_known_handle_makes_the_user_an_operator() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    assert!(trellis(dir.path(), &["migrate"]).status.success());
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("data").join("trellis.db").display());
    let store = Store::connect(&url, 1).await.unwrap();
    let user = NewUser {
        email: "ann@example.org",
        handle: "ann",
        full_name: "Ann",
        display_name: "Ann",
        password_hash: "unused",
    };
    store.users.insert_user(&user, OffsetDateTime::now_utc()).await.unwrap();
    // Act
    let output = tokio::task::spawn_blocking({
        let dir = dir.path().to_owned();
        move || trellis(&dir, &["admin", "grant-operator", "ann"])
    })
    .await
    .unwrap();
    // Assert
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let (user, _) = store.users.user_for_login("ann").await.unwrap().unwrap();
    assert!(user.operator);
    store.close().await;
}
