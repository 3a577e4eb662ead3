//! Load for the live-update streams (`bench/live.sh`): holds idle streams open, or sends messages
//! at a steady rate and measures how long each takes to reach its recipient's stream.
//!
//!   live-load hold    BASE KEY TOKEN STREAMS SECONDS
//!   live-load latency BASE KEY SENDER_TOKEN RECIPIENT_TOKEN RECIPIENT_HANDLE RATE SECONDS
//!
//! `hold` prints `open N` once every stream answered 200, then holds them for SECONDS.
//! `latency` measures, per message, from just before its `POST /v0/messages` to the moment its
//! `message.created` event is read off the recipient's stream, and prints the percentiles.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use reqwest_eventsource::{Event, EventSource};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("hold") if args.len() == 7 => hold(&args[2], &args[3], &args[4], args[5].parse()?, args[6].parse()?).await,
        Some("latency") if args.len() == 9 => {
            latency(&args[2], &args[3], &args[4], &args[5], &args[6], args[7].parse()?, args[8].parse()?).await
        }
        _ => anyhow::bail!(
            "usage: live-load hold BASE KEY TOKEN STREAMS SECONDS | latency BASE KEY SENDER RECIPIENT HANDLE RATE SECONDS"
        ),
    }
}

fn open(client: &reqwest::Client, base: &str, key: &str, token: &str) -> anyhow::Result<EventSource> {
    let request = client.get(format!("{base}/v0/events")).header("X-License-Key", key).bearer_auth(token);
    let mut source = EventSource::new(request)?;
    source.set_retry_policy(Box::new(reqwest_eventsource::retry::Never));
    Ok(source)
}

async fn hold(base: &str, key: &str, token: &str, streams: usize, seconds: u64) -> anyhow::Result<()> {
    let client = reqwest::Client::builder().pool_max_idle_per_host(0).build()?;
    let (opened, mut open_rx) = tokio::sync::mpsc::unbounded_channel();
    for _ in 0..streams {
        let mut source = open(&client, base, key, token)?;
        let opened = opened.clone();
        tokio::spawn(async move {
            while let Some(event) = source.next().await {
                match event {
                    Ok(Event::Open) => {
                        let _ = opened.send(());
                    }
                    Ok(Event::Message(_)) => {}
                    Err(error) => {
                        eprintln!("stream ended: {error}");
                        return;
                    }
                }
            }
        });
    }
    for _ in 0..streams {
        open_rx.recv().await;
    }
    println!("open {streams}");
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    Ok(())
}

#[derive(Default)]
struct Pending {
    sent: HashMap<String, Instant>,
    heard: HashMap<String, Instant>,
    latencies: Vec<Duration>,
}

impl Pending {
    fn settle(&mut self, id: &str) {
        if let (Some(sent), Some(heard)) = (self.sent.get(id), self.heard.get(id)) {
            self.latencies.push(heard.saturating_duration_since(*sent));
            self.sent.remove(id);
            self.heard.remove(id);
        }
    }
}

async fn latency(
    base: &str,
    key: &str,
    sender: &str,
    recipient: &str,
    handle: &str,
    rate: u64,
    seconds: u64,
) -> anyhow::Result<()> {
    let client = reqwest::Client::new();
    let pending = Arc::new(Mutex::new(Pending::default()));
    let mut source = open(&client, base, key, recipient)?;
    match source.next().await {
        Some(Ok(Event::Open)) => {}
        other => anyhow::bail!("the recipient's stream did not open: {other:?}"),
    }
    let listener = tokio::spawn(listen(source, pending.clone()));
    let body = serde_json::json!({"to": handle, "subject": "live", "body": "a message to time"});
    let mut tick = tokio::time::interval(Duration::from_micros(1_000_000 / rate.max(1)));
    let started = Instant::now();
    let mut sends = Vec::new();
    let mut failed = 0usize;
    while started.elapsed() < Duration::from_secs(seconds) {
        tick.tick().await;
        let (client, pending, body) = (client.clone(), pending.clone(), body.clone());
        let request =
            client.post(format!("{base}/v0/messages")).header("X-License-Key", key).bearer_auth(sender).json(&body);
        sends.push(tokio::spawn(async move {
            let sent = Instant::now();
            let answer = request.send().await.ok()?;
            if !answer.status().is_success() {
                return None;
            }
            let answer: serde_json::Value = answer.json().await.ok()?;
            let id = answer["messageId"].as_str()?.to_owned();
            let mut pending = pending.lock().unwrap();
            pending.sent.insert(id.clone(), sent);
            pending.settle(&id);
            Some(())
        }));
    }
    let count = sends.len();
    let sending = started.elapsed();
    for send in sends {
        if !matches!(send.await, Ok(Some(()))) {
            failed += 1;
        }
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    listener.abort();
    report(&pending.lock().unwrap(), count, sending, failed);
    Ok(())
}

/// Records when each `message.created` event is read off the recipient's stream.
async fn listen(mut source: EventSource, pending: Arc<Mutex<Pending>>) {
    while let Some(Ok(event)) = source.next().await {
        let Event::Message(message) = event else { continue };
        if message.event != "message.created" {
            continue;
        }
        let heard = Instant::now();
        let data: serde_json::Value = serde_json::from_str(&message.data).unwrap_or_default();
        let id = data["messageId"].as_str().unwrap_or_default().to_owned();
        let mut pending = pending.lock().unwrap();
        pending.heard.insert(id.clone(), heard);
        pending.settle(&id);
    }
}

/// Prints the sending rate and the latency percentiles.
fn report(pending: &Pending, count: usize, sending: Duration, failed: usize) {
    let mut latencies = pending.latencies.clone();
    latencies.sort();
    let at = |q: f64| latencies.get(((latencies.len() as f64 * q) as usize).min(latencies.len().saturating_sub(1)));
    let ms = |d: Option<&Duration>| d.map_or(f64::NAN, |d| d.as_secs_f64() * 1000.0);
    println!(
        "sent {count} in {:.1} s ({:.0}/s), failed {failed}, heard {}, never heard {}",
        sending.as_secs_f64(),
        count as f64 / sending.as_secs_f64(),
        latencies.len(),
        pending.sent.len(),
    );
    println!(
        "latency ms: p50 {:.1} p90 {:.1} p99 {:.1} max {:.1}",
        ms(at(0.5)),
        ms(at(0.9)),
        ms(at(0.99)),
        ms(latencies.last())
    );
}
