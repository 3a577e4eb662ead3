//! The framework's floor for `bench/read_path.sh`: an axum hello world on tokio's default multi-threaded
//! runtime, with nothing of Trellis in it. The read path's targets are measured against this in the same run.
//!
//!   hello ADDRESS     e.g. hello 127.0.0.1:18182

use axum::Router;
use axum::routing::get;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let address = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:18182".to_owned());
    let app = Router::new().route("/", get(|| async { "Hello, World!" }));
    let listener = tokio::net::TcpListener::bind(&address).await?;
    axum::serve(listener, app).await?;
    Ok(())
}
