//! The load the kill of `killed_mid_upload_...` interrupts, and reading back what the restarted server
//! holds.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bytes::Bytes;
use reqwest::{Client, StatusCode};
use serde_json::Value;
use tokio::task::JoinHandle;

use super::server::json_ok;
use super::{MIB, Uploader};

/// Slow uploads of large files and assets, and lanes of small ones that go on until stopped, so that
/// some are between storing their bytes and committing their rows when the server dies.
pub struct Load {
    large: Vec<JoinHandle<Option<Vec<Value>>>>,
    large_assets: Vec<JoinHandle<Option<Value>>>,
    small: Vec<JoinHandle<Vec<Value>>>,
    small_assets: Vec<JoinHandle<Vec<Value>>>,
    stop: Arc<AtomicBool>,
}

impl Load {
    /// 8 slow uploads of a small file and then a 20 MiB one, 3 slow 8 MiB assets, and lanes of small
    /// uploads (3) and assets (2).
    pub fn start(uploader: &Arc<Uploader>) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let large = (0..8u32)
            .map(|i| {
                let uploader = uploader.clone();
                let files = vec![(100 + 2 * i, 4096 + i as usize), (101 + 2 * i, 20 * MIB + i as usize)];
                tokio::spawn(async move { uploader.upload(files, 64 * 1024, Duration::from_millis(8)).await })
            })
            .collect();
        let large_assets = (0..3u32)
            .map(|i| {
                let uploader = uploader.clone();
                let (n, len) = (500 + i, 8 * MIB + i as usize);
                tokio::spawn(async move { uploader.asset(n, len, 64 * 1024, Duration::from_millis(8)).await })
            })
            .collect();
        let small_assets = (0..2u32).map(|lane| small_asset_lane(uploader.clone(), stop.clone(), lane)).collect();
        let small = (0..3u32).map(|lane| small_upload_lane(uploader.clone(), stop.clone(), lane)).collect();
        Self { large, large_assets, small, small_assets, stop }
    }

    /// After the kill: the descriptors of every attachment upload and the answer of every asset upload
    /// that answered 201.
    pub async fn answered(self) -> (Vec<Value>, Vec<Value>) {
        self.stop.store(true, Ordering::Relaxed);
        let (mut attachments, mut assets) = (Vec::new(), Vec::new());
        for task in self.large {
            attachments.extend(task.await.unwrap().into_iter().flatten());
        }
        for task in self.small {
            attachments.extend(task.await.unwrap());
        }
        for task in self.large_assets {
            assets.extend(task.await.unwrap());
        }
        for task in self.small_assets {
            assets.extend(task.await.unwrap());
        }
        (attachments, assets)
    }
}

fn small_asset_lane(uploader: Arc<Uploader>, stop: Arc<AtomicBool>, lane: u32) -> JoinHandle<Vec<Value>> {
    tokio::spawn(async move {
        let mut done = Vec::new();
        let mut n = 5000 + lane * 1000;
        while !stop.load(Ordering::Relaxed) {
            match uploader.asset(n, 40_000 + n as usize, 16 * 1024, Duration::ZERO).await {
                Some(answer) => done.push(answer),
                None => break,
            }
            n += 1;
            // Each asset takes one of the plan's 1000 a day; a short pause keeps well inside it.
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        done
    })
}

fn small_upload_lane(uploader: Arc<Uploader>, stop: Arc<AtomicBool>, lane: u32) -> JoinHandle<Vec<Value>> {
    tokio::spawn(async move {
        let mut done = Vec::new();
        let mut n = 1000 + lane * 1000;
        while !stop.load(Ordering::Relaxed) {
            let files = vec![(n, 30_000 + n as usize), (n + 1, 200_000 + n as usize)];
            match uploader.upload(files, 16 * 1024, Duration::ZERO).await {
                Some(descriptors) => done.extend(descriptors),
                None => break,
            }
            n += 2;
        }
        done
    })
}

/// Reads from the restarted server as the form's and the space's owner.
pub struct Holdings<'a> {
    pub client: &'a Client,
    pub base: &'a str,
    pub key: &'a str,
    pub session: &'a str,
    pub form_id: &'a str,
    pub space_id: &'a str,
}

impl Holdings<'_> {
    async fn get(&self, path: &str) -> reqwest::Response {
        let url = format!("{}{path}", self.base);
        self.client.get(url).header("X-License-Key", self.key).bearer_auth(self.session).send().await.unwrap()
    }

    /// The descriptors in the form's file fields.
    pub async fn descriptors(&self) -> Vec<Value> {
        let form = json_ok(self.get(&format!("/v0/forms/{}", self.form_id)).await, StatusCode::OK).await;
        form["fields"].as_object().unwrap().values().filter_map(Value::as_array).flatten().cloned().collect()
    }

    /// Every asset of the space (the owner sees all), those with bytes among them.
    pub async fn assets(&self) -> Vec<Value> {
        let mut found: Vec<Value> = Vec::new();
        let mut cursor = String::new();
        loop {
            let path = format!("/v0/spaces/{}/assets?limit=200{cursor}", self.space_id);
            let page = json_ok(self.get(&path).await, StatusCode::OK).await;
            found.extend(page["items"].as_array().unwrap().iter().cloned());
            match page["nextCursor"].as_str() {
                Some(next) => cursor = format!("&cursor={next}"),
                None => return found,
            }
        }
    }

    /// The whole bytes of an attachment (asserting 200).
    pub async fn attachment_bytes(&self, part_key: &str) -> Bytes {
        let response = self.get(&format!("/v0/media/forms/{}/attachments/{part_key}", self.form_id)).await;
        assert_eq!(response.status(), StatusCode::OK, "attachment {part_key}");
        response.bytes().await.expect("the whole body")
    }

    /// The whole bytes of an asset's base part (asserting 200).
    pub async fn asset_bytes(&self, asset_id: &str) -> Bytes {
        let response = self.get(&format!("/v0/media/spaces/{}/assets/{asset_id}?part=base", self.space_id)).await;
        assert_eq!(response.status(), StatusCode::OK, "asset {asset_id}");
        response.bytes().await.expect("the whole body")
    }
}
