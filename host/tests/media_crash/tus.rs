//! Resumable uploads (tus 1.0.0, `/v0/media/uploads`) cut by a SIGKILL in the middle of their
//! PATCHes: after the restart (whose start-up sweep treats every interrupted write as dead) each
//! upload's `HEAD` offset is at least the last one a 204 acknowledged, the uploads resume from
//! there, are attached to a form instance, and download byte for byte; one upload left unfinished
//! is terminated with `DELETE` and its bytes are gone; the media folder then holds exactly the
//! attached objects and nothing else.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use reqwest::header::{CONTENT_LENGTH, CONTENT_TYPE};
use reqwest::{Client, Method, RequestBuilder, StatusCode};
use serde_json::{Value, json};

use super::server::{Server, data_dir, json_ok};
use super::{MIB, Started, content_at, files_under, is_content, name_of, parse_name};

/// What one PATCH streams at a time; a slow PATCH pauses before each piece.
const PIECE: usize = 64 * 1024;

/// One resumable upload of the scenario: file `n` of `len` bytes, `first` of them sent with the
/// creation request (creation-with-upload).
#[derive(Clone, Copy, Debug)]
struct Plan {
    n: u32,
    len: usize,
    first: usize,
}

/// Four uploads that are resumed and attached after the restart, and the last one, left
/// unfinished and terminated.
const PLANS: [Plan; 5] = [
    Plan { n: 0, len: 20 * MIB + 4_099, first: 0 },
    Plan { n: 1, len: 28 * MIB + 3_001, first: 512 * 1024 },
    Plan { n: 2, len: 34 * MIB + 77, first: 0 },
    Plan { n: 3, len: 39 * MIB + 1_234, first: 0 },
    Plan { n: 4, len: 36 * MIB + 11, first: 0 },
];
const TERMINATED: usize = 4;

/// The length of PATCH `i` of upload `n`: 3 to 8 MiB, lined up with nothing.
fn patch_len(n: u32, i: usize) -> usize {
    3 * MIB + ((n as usize * 5 + i * 3) % 6) * MIB + (n as usize + i) * 4_099
}

/// The pause before each piece of PATCH `i` of upload `n`: the terminated upload crawls after its
/// first PATCH (so it is surely unfinished at the kill), the others alternate slow and fast ones.
fn pause_of(n: u32, i: usize) -> Duration {
    match (n as usize == TERMINATED, i) {
        (true, 0) => Duration::from_millis(5),
        (true, _) => Duration::from_millis(25),
        (false, _) if (n as usize + i).is_multiple_of(2) => Duration::from_millis(15),
        (false, _) => Duration::ZERO,
    }
}

fn metadata_of(plan: Plan) -> String {
    let name = STANDARD.encode(name_of(plan.n, plan.len));
    format!("filename {name},contentType {}", STANDARD.encode("application/octet-stream"))
}

fn header<'a>(response: &'a reqwest::Response, name: &str) -> Option<&'a str> {
    response.headers().get(name).and_then(|v| v.to_str().ok())
}

fn offset_header(response: &reqwest::Response) -> u64 {
    header(response, "Upload-Offset")
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no numeric Upload-Offset in {:?}", response.headers()))
}

/// Bytes `from..to` of upload `n` as a stream of pieces, `pause` before each.
fn patch_body(n: u32, from: usize, to: usize, pause: Duration) -> reqwest::Body {
    let pieces: Vec<(usize, usize)> =
        (from..to).step_by(PIECE).map(|start| (start, (start + PIECE).min(to) - start)).collect();
    let stream = futures::stream::unfold(pieces.into_iter(), move |mut rest| async move {
        let (start, len) = rest.next()?;
        if !pause.is_zero() {
            tokio::time::sleep(pause).await;
        }
        Some((Ok::<Bytes, std::io::Error>(content_at(n, start, len)), rest))
    });
    reqwest::Body::wrap_stream(stream)
}

#[derive(Clone)]
struct Tus {
    client: Client,
    base: String,
    key: String,
    session: String,
}

impl Tus {
    fn request(&self, method: Method, path: &str) -> RequestBuilder {
        self.client
            .request(method, format!("{}{path}", self.base))
            .header("X-License-Key", &self.key)
            .bearer_auth(&self.session)
            .header("Tus-Resumable", "1.0.0")
    }

    /// Creates the upload (with its first bytes, when the plan says so); answers its location (a
    /// path) and the offset the 201 acknowledged.
    async fn create(&self, plan: Plan) -> (String, u64) {
        let mut request = self
            .request(Method::POST, "/v0/media/uploads")
            .header("Upload-Length", plan.len.to_string())
            .header("Upload-Metadata", metadata_of(plan));
        if plan.first > 0 {
            request =
                request.header(CONTENT_TYPE, "application/offset+octet-stream").body(content_at(plan.n, 0, plan.first));
        }
        let response = request.send().await.unwrap();
        if response.status() != StatusCode::CREATED {
            let status = response.status();
            panic!("creating upload {} answered {status}: {}", plan.n, response.text().await.unwrap_or_default());
        }
        let location = header(&response, "Location").unwrap_or_default().to_owned();
        assert!(location.starts_with("/v0/media/uploads/"), "Location {location:?} of {:?}", response.headers());
        assert_eq!(header(&response, "Tus-Resumable"), Some("1.0.0"));
        assert!(header(&response, "Upload-Expires").is_some(), "{:?}", response.headers());
        let offset = offset_header(&response);
        assert!(offset <= plan.first as u64, "the creation kept {offset} of {} bytes", plan.first);
        let body = json_ok(response, StatusCode::CREATED).await;
        assert_eq!(location.rsplit('/').next(), body["uploadId"].as_str(), "{body}");
        assert_eq!((body["offset"].as_u64(), body["length"].as_u64()), (Some(offset), Some(plan.len as u64)), "{body}");
        (location, offset)
    }

    /// Sends bytes `offset..offset + len`; answers the offset a 204 acknowledged, or `None` when
    /// the request failed (the server died under it). Any other answer fails the test.
    async fn patch(&self, location: &str, n: u32, offset: usize, len: usize, pause: Duration) -> Option<u64> {
        let response = self
            .request(Method::PATCH, location)
            .header(CONTENT_TYPE, "application/offset+octet-stream")
            .header(CONTENT_LENGTH, len.to_string())
            .header("Upload-Offset", offset.to_string())
            .body(patch_body(n, offset, offset + len, pause))
            .send()
            .await
            .ok()?;
        if response.status() != StatusCode::NO_CONTENT {
            let status = response.status();
            panic!(
                "a PATCH of {location} at {offset} answered {status}: {}",
                response.text().await.unwrap_or_default()
            );
        }
        assert!(header(&response, "Upload-Expires").is_some(), "{:?}", response.headers());
        let acknowledged = offset_header(&response);
        assert_eq!(acknowledged, (offset + len) as u64, "a 204 acknowledges every byte of its PATCH");
        Some(acknowledged)
    }

    /// A PATCH after the restart, retried for up to 10 s on a 409 (or the connection the 409 closed
    /// before the body was sent), as tus clients retry: the dead server's claim on an upload it was
    /// writing lapses within 6 s.
    async fn resume(&self, location: &str, n: u32, offset: usize, len: usize) -> u64 {
        let retry_until = Instant::now() + Duration::from_secs(10);
        loop {
            let response = self
                .request(Method::PATCH, location)
                .header(CONTENT_TYPE, "application/offset+octet-stream")
                .header(CONTENT_LENGTH, len.to_string())
                .header("Upload-Offset", offset.to_string())
                .body(patch_body(n, offset, offset + len, Duration::ZERO))
                .send()
                .await;
            let refused = response.as_ref().map_or(true, |r| r.status() == StatusCode::CONFLICT);
            if refused && Instant::now() < retry_until {
                tokio::time::sleep(Duration::from_millis(250)).await;
                continue;
            }
            let response = response.expect("a PATCH after the restart");
            let status = response.status();
            assert_eq!(status, StatusCode::NO_CONTENT, "{}", response.text().await.unwrap_or_default());
            let acknowledged = offset_header(&response);
            assert_eq!(acknowledged, (offset + len) as u64, "a 204 acknowledges every byte of its PATCH");
            return acknowledged;
        }
    }

    /// `HEAD` of the upload: its status and, when 200, the offset.
    async fn head(&self, location: &str, plan: Plan) -> (StatusCode, Option<u64>) {
        let response = self.request(Method::HEAD, location).send().await.unwrap();
        if response.status() != StatusCode::OK {
            return (response.status(), None);
        }
        assert_eq!(header(&response, "Upload-Length"), Some(plan.len.to_string().as_str()));
        assert_eq!(header(&response, "Upload-Metadata"), Some(metadata_of(plan).as_str()));
        assert_eq!(header(&response, "Cache-Control"), Some("no-store"));
        assert_eq!(header(&response, "Tus-Resumable"), Some("1.0.0"));
        assert!(header(&response, "Upload-Expires").is_some(), "{:?}", response.headers());
        (StatusCode::OK, Some(offset_header(&response)))
    }
}

/// What the uploads have been acknowledged so far, shared with the test so it knows when to kill.
struct Progress {
    /// Per upload: the last acknowledged offset.
    acknowledged: Vec<AtomicU64>,
    /// Per upload: how many PATCHes were answered 204.
    answered: Vec<AtomicUsize>,
    /// PATCHes sent and not answered yet.
    in_flight: AtomicUsize,
}

/// What one upload's sender saw before the kill.
#[derive(Debug)]
struct Sent {
    /// Every offset a 204 acknowledged, in order.
    acknowledged: Vec<u64>,
    /// A PATCH was under way when the server died.
    cut: bool,
}

/// Sends upload `index` from `offset` to its end in PATCHes until one fails.
async fn send(tus: Arc<Tus>, index: usize, location: String, mut offset: usize, progress: Arc<Progress>) -> Sent {
    let plan = PLANS[index];
    let mut acknowledged = Vec::new();
    let mut i = 0;
    while offset < plan.len {
        let len = patch_len(plan.n, i).min(plan.len - offset);
        progress.in_flight.fetch_add(1, Ordering::SeqCst);
        let answer = tus.patch(&location, plan.n, offset, len, pause_of(plan.n, i)).await;
        progress.in_flight.fetch_sub(1, Ordering::SeqCst);
        let Some(at) = answer else { return Sent { acknowledged, cut: true } };
        acknowledged.push(at);
        progress.acknowledged[index].store(at, Ordering::SeqCst);
        progress.answered[index].fetch_add(1, Ordering::SeqCst);
        offset = at as usize;
        i += 1;
    }
    Sent { acknowledged, cut: false }
}

/// How the media folder differs from holding exactly objects of the `expected` sizes: files
/// outside `objects/` (temporary files, unfinished uploads' bytes), or objects of other sizes.
fn strays(media: &Path, expected: &[usize]) -> Option<String> {
    let objects_dir = media.join("objects");
    let (objects, others): (Vec<_>, Vec<_>) = files_under(media).into_iter().partition(|p| p.starts_with(&objects_dir));
    let mut sizes: Vec<usize> =
        objects.iter().map(|p| std::fs::metadata(p).map(|m| m.len() as usize).unwrap_or(usize::MAX)).collect();
    sizes.sort_unstable();
    let mut wanted = expected.to_vec();
    wanted.sort_unstable();
    (sizes != wanted || !others.is_empty())
        .then(|| format!("objects of sizes {sizes:?} (wanted {wanted:?}): {objects:?}; other files: {others:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn killed_mid_patch_resumable_uploads_resume_whole_and_leave_no_strays() {
    // Arrange: a server with a user, a form with a file field, and five resumable uploads created.
    let Started { dir, client, mut server, key, session, form_id, field_id } = Started::new().await;
    let tus = Arc::new(Tus { client: client.clone(), base: server.base.clone(), key: key.clone(), session });
    let progress = Arc::new(Progress {
        acknowledged: PLANS.iter().map(|_| AtomicU64::new(0)).collect(),
        answered: PLANS.iter().map(|_| AtomicUsize::new(0)).collect(),
        in_flight: AtomicUsize::new(0),
    });
    let mut locations = Vec::new();
    for (index, plan) in PLANS.iter().enumerate() {
        let (location, offset) = tus.create(*plan).await;
        progress.acknowledged[index].store(offset, Ordering::SeqCst);
        locations.push(location);
    }
    // Act: all five sent at once in PATCHes of 3 to 8 MiB, some slow; SIGKILL once the terminated
    // upload has had a PATCH acknowledged, the others are about 40% through, and PATCHes are under
    // way (the terminated upload's always is).
    let mut senders = Vec::new();
    for (index, location) in locations.iter().enumerate() {
        let from = progress.acknowledged[index].load(Ordering::SeqCst) as usize;
        senders.push(tokio::spawn(send(tus.clone(), index, location.clone(), from, progress.clone())));
    }
    wait_for_the_cut(&progress).await;
    server.kill();
    let mut sent = Vec::new();
    for sender in senders {
        sent.push(sender.await.unwrap());
    }
    let mut restarted = Server::start(dir.path(), "second.log", &[("TRELLIS_MEDIA__SWEEP_GRACE_SECONDS", "0")]);
    restarted.ready(&client).await;
    let tus = Tus { base: restarted.base.clone(), ..(*tus).clone() };
    // Assert: nothing acknowledged was lost; the four others resume from their HEAD offset to the end,
    // are attached in one request, and the unfinished one is terminated.
    if !sent.iter().any(|s| s.cut) {
        let log = std::fs::read_to_string(dir.path().join("first.log")).unwrap_or_default();
        panic!("the kill should cut PATCHes in progress ({sent:?}); the server's log:\n{log}");
    }
    let offsets = offsets_after_restart(&tus, &locations, &progress, &sent).await;
    assert_a_stale_patch_changes_nothing(&tus, &locations, &offsets).await;
    resume_to_the_end(&tus, &locations, &offsets).await;
    let used: Vec<usize> = (0..PLANS.len()).filter(|index| *index != TERMINATED).collect();
    let attached = attach_once(&tus, &form_id, &field_id, &locations, &used).await;
    let media = data_dir(dir.path()).join("media");
    terminate_the_unfinished_one(&tus, &media, &locations, &offsets).await;
    // No stray bytes: the media folder holds the four objects and nothing else (no temporary
    // file, nothing of an unfinished, used or terminated upload). The start-up sweep runs in the
    // background; the wait allows for a loaded machine.
    let terminated_at = Instant::now();
    let expected: Vec<usize> = used.iter().map(|index| PLANS[*index].len).collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut found = strays(&media, &expected);
    while found.is_some() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
        found = strays(&media, &expected);
    }
    assert_eq!(found, None, "stray bytes remain in the media folder");
    eprintln!("the media folder was clean {:.1} s after the termination", terminated_at.elapsed().as_secs_f64());
    assert_attachments_read_back(&tus, &form_id, &attached).await;
    drop(restarted);
}

/// Waits until the terminated upload has had a PATCH acknowledged, the others are about 40% through,
/// and PATCHes are under way (for at most 90 s), and a little more.
async fn wait_for_the_cut(progress: &Progress) {
    let started = Instant::now();
    let others: usize = PLANS.iter().enumerate().filter(|(index, _)| *index != TERMINATED).map(|(_, p)| p.len).sum();
    let through = || {
        let done: u64 = (0..PLANS.len())
            .filter(|index| *index != TERMINATED)
            .map(|index| progress.acknowledged[index].load(Ordering::SeqCst))
            .sum();
        done as f64 / others as f64
    };
    let deadline = Instant::now() + Duration::from_secs(90);
    while Instant::now() < deadline
        && (progress.answered[TERMINATED].load(Ordering::SeqCst) == 0
            || through() < 0.4
            || progress.in_flight.load(Ordering::SeqCst) < 2)
    {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    tokio::time::sleep(Duration::from_millis(150)).await;
    eprintln!(
        "killing {:.1} s after the first PATCH, {:.0}% through, with {} PATCHes under way",
        started.elapsed().as_secs_f64(),
        through() * 100.0,
        progress.in_flight.load(Ordering::SeqCst)
    );
}

/// Each upload's `HEAD` offset after the restart: at least what a 204 acknowledged, at most its length;
/// the terminated one is unfinished.
async fn offsets_after_restart(tus: &Tus, locations: &[String], progress: &Progress, sent: &[Sent]) -> Vec<usize> {
    let mut offsets = Vec::new();
    for (index, plan) in PLANS.iter().enumerate() {
        let last = progress.acknowledged[index].load(Ordering::SeqCst);
        let (status, offset) = tus.head(&locations[index], *plan).await;
        assert_eq!(status, StatusCode::OK, "HEAD of upload {index} after the restart");
        let offset = offset.unwrap();
        eprintln!(
            "upload {index}: {} bytes, acknowledged {:?}, cut {}, HEAD after the restart {offset}",
            plan.len, sent[index].acknowledged, sent[index].cut
        );
        assert!(offset >= last, "upload {index} acknowledged {last} bytes but HEAD says {offset} after the restart");
        assert!(offset <= plan.len as u64, "upload {index}: offset {offset} past its length {}", plan.len);
        offsets.push(offset as usize);
    }
    assert!(
        offsets[TERMINATED] < PLANS[TERMINATED].len,
        "upload {TERMINATED} should be unfinished at the kill ({offsets:?})"
    );
    offsets
}

/// A PATCH that does not start at the server's offset is refused and changes nothing.
async fn assert_a_stale_patch_changes_nothing(tus: &Tus, locations: &[String], offsets: &[usize]) {
    if offsets[0] == 0 || offsets[0] >= PLANS[0].len {
        return;
    }
    let stale = tus
        .request(Method::PATCH, &locations[0])
        .header(CONTENT_TYPE, "application/offset+octet-stream")
        .header("Upload-Offset", (offsets[0] - 1).to_string())
        .body(content_at(PLANS[0].n, offsets[0] - 1, 1))
        .send()
        .await
        .unwrap();
    assert_eq!(stale.status(), StatusCode::CONFLICT, "a PATCH at a stale offset");
    assert_eq!(tus.head(&locations[0], PLANS[0]).await.1, Some(offsets[0] as u64));
}

/// Every upload but the terminated one, sent on from its offset to its end.
async fn resume_to_the_end(tus: &Tus, locations: &[String], offsets: &[usize]) {
    for (index, plan) in PLANS.iter().enumerate().filter(|(index, _)| *index != TERMINATED) {
        let mut offset = offsets[index];
        while offset < plan.len {
            let len = (8 * MIB).min(plan.len - offset);
            offset = tus.resume(&locations[index], plan.n, offset, len).await as usize;
        }
        assert_eq!(tus.head(&locations[index], *plan).await.1, Some(plan.len as u64), "upload {index} finished");
    }
}

/// Attaches the `used` uploads in one request; each is then gone, and a second use is refused.
async fn attach_once(tus: &Tus, form_id: &str, field_id: &str, locations: &[String], used: &[usize]) -> Vec<Value> {
    let upload_ids: Vec<&str> = used.iter().map(|index| locations[*index].rsplit('/').next().unwrap()).collect();
    let attach = |upload_ids: Vec<&str>| {
        tus.request(Method::POST, &format!("/v0/media/forms/{form_id}/attachments"))
            .json(&json!({"fieldIds": vec![field_id; upload_ids.len()], "uploadIds": upload_ids}))
            .send()
    };
    let attached = json_ok(attach(upload_ids.clone()).await.unwrap(), StatusCode::CREATED).await;
    let attached = attached["attachments"].as_array().unwrap().clone();
    assert_eq!(attached.len(), used.len(), "{attached:?}");
    for (descriptor, index) in attached.iter().zip(used) {
        let plan = PLANS[*index];
        assert_eq!(descriptor["filename"], name_of(plan.n, plan.len), "the name comes from the metadata");
        assert_eq!(descriptor["bytes"], plan.len, "{descriptor}");
        assert_eq!(tus.head(&locations[*index], plan).await.0, StatusCode::NOT_FOUND, "a used upload is gone");
    }
    let again = attach(vec![upload_ids[0]]).await.unwrap();
    assert_eq!(again.status(), StatusCode::BAD_REQUEST, "an upload is used once: {}", again.text().await.unwrap());
    attached
}

/// The unfinished upload is terminated: gone, and its bytes too. Before, they are in the media folder
/// outside `objects/` (so the check of strays would see them).
async fn terminate_the_unfinished_one(tus: &Tus, media: &Path, locations: &[String], offsets: &[usize]) {
    let outside: u64 = files_under(media)
        .iter()
        .filter(|p| !p.starts_with(media.join("objects")))
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    assert!(outside >= offsets[TERMINATED] as u64, "the unfinished upload's bytes: {outside} outside objects/");
    // Retried on 409 for up to 10 s, as the PATCHes are (the dead server's claim lapses within 6 s).
    let retry_until = Instant::now() + Duration::from_secs(10);
    let terminated = loop {
        let answer = tus.request(Method::DELETE, &locations[TERMINATED]).send().await.unwrap();
        if answer.status() != StatusCode::CONFLICT || Instant::now() > retry_until {
            break answer;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    assert_eq!(terminated.status(), StatusCode::NO_CONTENT, "{}", terminated.text().await.unwrap());
    assert_eq!(tus.head(&locations[TERMINATED], PLANS[TERMINATED]).await.0, StatusCode::NOT_FOUND);
}

/// Every byte of the attachments, read back from the form as stored.
async fn assert_attachments_read_back(tus: &Tus, form_id: &str, attached: &[Value]) {
    let form = tus.request(Method::GET, &format!("/v0/forms/{form_id}")).send().await.unwrap();
    let form = json_ok(form, StatusCode::OK).await;
    let descriptors: Vec<Value> =
        form["fields"].as_object().unwrap().values().filter_map(Value::as_array).flatten().cloned().collect();
    assert_eq!(descriptors.len(), attached.len(), "{descriptors:?}");
    for done in attached {
        assert!(descriptors.iter().any(|d| d["partKey"] == done["partKey"]), "an attached upload is missing: {done}");
    }
    for descriptor in &descriptors {
        let part_key = descriptor["partKey"].as_str().unwrap();
        let response = tus
            .request(Method::GET, &format!("/v0/media/forms/{form_id}/attachments/{part_key}"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{descriptor}");
        let bytes = response.bytes().await.expect("the whole body");
        let (n, len) = parse_name(descriptor["filename"].as_str().unwrap());
        assert_eq!((descriptor["bytes"].as_u64(), bytes.len()), (Some(len as u64), len), "{descriptor}");
        assert!(is_content(n, &bytes), "the bytes of {descriptor} differ");
    }
}
