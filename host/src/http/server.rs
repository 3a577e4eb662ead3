//! The connection loop: accepts TCP connections within the connection caps, serves each with hyper
//! under the header, body and write timeouts, and on shutdown lets in-flight requests finish within
//! the grace period before cutting them.
//!
//! `axum::serve` has none of these bounds (a half-sent header stayed open for minutes), so the
//! server drives hyper itself.

use std::collections::HashMap;
use std::net::IpAddr;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Request;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_io_timeout::TimeoutStream;
use tokio_util::sync::CancellationToken;
use tower::ServiceBuilder;
use tower_http::timeout::{RequestBodyTimeoutLayer, TimeoutBody};

use crate::config::HttpConfig;
use crate::infra::rate_limits::client_key;

/// What a connection over a cap is told before it is closed: the contract's envelope, with a
/// request id of its own (no request was read).
fn over_capacity() -> String {
    let request_id = uuid::Uuid::new_v4();
    let body = serde_json::json!({"error": {
        "code": "RATE_LIMITED",
        "numeric": 813,
        "message": "too many open connections; retry shortly",
        "requestId": request_id.to_string(),
    }})
    .to_string();
    format!(
        "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nretry-after: 1\r\nx-request-id: {request_id}\r\n\
         connection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// The bounds of the connection loop, from the deployment's `http` settings.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionLimits {
    pub header_timeout: Duration,
    pub body_idle_timeout: Duration,
    pub write_timeout: Duration,
    pub max_connections: usize,
    pub max_connections_per_address: usize,
    pub shutdown_grace: Duration,
}

impl From<&HttpConfig> for ConnectionLimits {
    fn from(config: &HttpConfig) -> Self {
        Self {
            header_timeout: Duration::from_secs(config.header_timeout_seconds.max(1)),
            body_idle_timeout: Duration::from_secs(config.body_idle_timeout_seconds.max(1)),
            write_timeout: Duration::from_secs(config.write_timeout_seconds.max(1)),
            max_connections: config.max_connections.max(1),
            max_connections_per_address: config.max_connections_per_address.max(1),
            shutdown_grace: Duration::from_secs(config.shutdown_grace_seconds),
        }
    }
}

/// Serves `router` on `listener` until `shutdown` completes, then drains within the grace period.
pub async fn serve(
    router: Router,
    listener: TcpListener,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let open = Arc::new(Semaphore::new(limits.max_connections));
    let per_address = Arc::new(AddressCounts::default());
    let mut http = hyper::server::conn::http1::Builder::new();
    // The timer drives the header timeout, which also closes kept-alive connections left idle.
    http.timer(TokioTimer::new()).header_read_timeout(limits.header_timeout);
    let graceful = GracefulShutdown::new();
    // Cancelled when the grace period is over: connections still open then are dropped.
    let cut = CancellationToken::new();
    let mut shutdown = pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    // Out of descriptors and the like: wait a moment instead of spinning.
                    tracing::warn!(error = %err, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Some(slot) = admit(&open, &per_address, &limits, peer.ip()) else {
            tokio::spawn(refuse(stream));
            continue;
        };
        let _ = stream.set_nodelay(true);
        let mut io = TimeoutStream::new(stream);
        // Only writes time out here: the header timeout covers waiting for requests, and a
        // request body's stalls are bounded by the body timeout layer.
        io.set_write_timeout(Some(limits.write_timeout));
        // A request body that stalls fails its request instead of holding the connection.
        let service = ServiceBuilder::new()
            .layer(RequestBodyTimeoutLayer::new(limits.body_idle_timeout))
            .map_request(move |request: Request<TimeoutBody<Incoming>>| {
                let mut request = request.map(Body::new);
                request.extensions_mut().insert(ConnectInfo(peer));
                request
            })
            .service(router.clone());
        let connection = http.serve_connection(TokioIo::new(Box::pin(io)), TowerToHyperService::new(service));
        let connection = graceful.watch(connection);
        let cut = cut.clone();
        tokio::spawn(async move {
            let _slot = slot;
            tokio::select! {
                ended = connection => if let Err(err) = ended {
                    tracing::debug!(error = %err, "connection ended with an error");
                },
                // Dropping the connection closes it.
                () = cut.cancelled() => {}
            }
        });
    }
    drop(listener);
    if tokio::time::timeout(limits.shutdown_grace, graceful.shutdown()).await.is_err() {
        tracing::warn!(grace = ?limits.shutdown_grace, "requests still running after the shutdown grace period were cut");
        cut.cancel();
    }
    Ok(())
}

/// A connection's place within both caps; released when the connection ends.
struct Slot {
    _open: OwnedSemaphorePermit,
    per_address: Arc<AddressCounts>,
    prefix: IpAddr,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.per_address.release(self.prefix);
    }
}

fn admit(
    open: &Arc<Semaphore>,
    per_address: &Arc<AddressCounts>,
    limits: &ConnectionLimits,
    peer: IpAddr,
) -> Option<Slot> {
    let permit = open.clone().try_acquire_owned().ok()?;
    let prefix = client_key(peer);
    per_address.try_take(prefix, limits.max_connections_per_address).then(|| Slot {
        _open: permit,
        per_address: per_address.clone(),
        prefix,
    })
}

/// Tells a connection over a cap to come back later, without reading its request.
async fn refuse(mut stream: TcpStream) {
    tracing::debug!("connection refused: over the connection cap");
    let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(over_capacity().as_bytes())).await;
    let _ = stream.shutdown().await;
}

/// Open connections per client address prefix; entries leave when their count drops to zero.
#[derive(Default)]
struct AddressCounts(Mutex<HashMap<IpAddr, usize>>);

impl AddressCounts {
    fn try_take(&self, prefix: IpAddr, cap: usize) -> bool {
        let mut counts = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let count = counts.entry(prefix).or_insert(0);
        if *count >= cap {
            return false;
        }
        *count += 1;
        true
    }

    fn release(&self, prefix: IpAddr) {
        let mut counts = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(count) = counts.get_mut(&prefix) {
            *count -= 1;
            if *count == 0 {
                counts.remove(&prefix);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_released() {
        let counts = AddressCounts::default();
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        assert!(counts.try_take(ip, 2));
        assert!(counts.try_take(ip, 2));
        assert!(!counts.try_take(ip, 2));
        counts.release(ip);
        assert!(counts.try_take(ip, 2));
        counts.release(ip);
        counts.release(ip);
        assert!(counts.0.lock().unwrap().is_empty());
    }

    #[test]
    fn the_refusal_is_the_error_envelope() {
        let text = over_capacity();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.contains(&format!("content-length: {}", body.len())), "{head}");
        let value: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(value["error"]["code"], "RATE_LIMITED");
    }
}
