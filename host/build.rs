// `sqlx::migrate!` embeds the migration folders; rebuild when a migration is added or changed.
fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
