//! A TCP relay in front of a real service (PostgreSQL, the S3 server) that a test can cut and
//! restore, as if the service went away and came back: cutting closes every relayed connection
//! and refuses new ones; restoring accepts again.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

pub struct Relay {
    pub address: SocketAddr,
    up: Arc<AtomicBool>,
    /// Bumped by each cut; every relayed connection ends when it changes.
    generation: watch::Sender<u64>,
    cuts: AtomicU64,
    task: tokio::task::JoinHandle<()>,
}

impl Relay {
    /// Relays 127.0.0.1:<new port> to `target`.
    pub async fn start(target: SocketAddr) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("binding the relay");
        let address = listener.local_addr().unwrap();
        let up = Arc::new(AtomicBool::new(true));
        let (generation, _) = watch::channel(0u64);
        let (flag, changes) = (up.clone(), generation.clone());
        let task = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                if !flag.load(Ordering::SeqCst) {
                    drop(client);
                    continue;
                }
                let mut cut = changes.subscribe();
                tokio::spawn(async move {
                    let Ok(mut server) = TcpStream::connect(target).await else { return };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                        _ = cut.changed() => {}
                    }
                });
            }
        });
        Relay { address, up, generation, cuts: AtomicU64::new(0), task }
    }

    /// The service goes away: open connections break, new ones are refused.
    pub fn cut(&self) {
        self.up.store(false, Ordering::SeqCst);
        let next = self.cuts.fetch_add(1, Ordering::SeqCst) + 1;
        self.generation.send_replace(next);
    }

    /// The service is back.
    pub fn restore(&self) {
        self.up.store(true, Ordering::SeqCst);
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.task.abort();
    }
}
