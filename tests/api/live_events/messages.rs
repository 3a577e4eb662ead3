//! `message.created` and `unread.changed`: a message reaches its recipient alone, with the count as it
//! now is; reading a message changes the reader's count once; the sender and strangers hear nothing.

use serde_json::json;
use trellis_tests::spawn_app;

use crate::support::live::{Live, probe};
use crate::support::messages::{message_path, notify, read, replied, sent, thread_path};

#[tokio::test]
async fn a_message_reaches_its_recipient_alone_with_the_unread_count() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let cat = app.sign_up("cat").await;
    let mut anns = Live::open(&app, &ann).await;
    let mut bobs = Live::open(&app, &bob).await;
    let mut cats = Live::open(&app, &cat).await;
    // Act
    let (thread_id, first) = sent(&app, &ann, "bob", "Lunch?", "Friday?").await;
    let (_, second) = replied(&app, &ann, &thread_id, "Or Saturday?").await;
    // Assert: bob hears both, each with his count after it
    let (created, unread) = bobs.message_and_unread().await;
    assert_eq!(created, json!({"threadId": thread_id, "messageId": first, "unread": 1}));
    assert_eq!(unread, json!({"unread": 1}));
    let (created, unread) = bobs.message_and_unread().await;
    assert_eq!(created, json!({"threadId": thread_id, "messageId": second, "unread": 2}));
    assert_eq!(unread, json!({"unread": 2}));
    // The sender and a stranger heard nothing: the first thing each hears is a later message to them.
    probe(&app, &mut anns, &bob, &ann).await;
    probe(&app, &mut cats, &bob, &cat).await;
}

#[tokio::test]
async fn a_notice_from_system_reaches_its_recipient() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let mut anns = Live::open(&app, &ann).await;
    // Act
    notify(&app, &ann.user_id, "Listing approved", "Welcome to the marketplace.").await.expect("a notice");
    // Assert
    let (created, unread) = anns.message_and_unread().await;
    assert_eq!((created["unread"].clone(), unread), (json!(1), json!({"unread": 1})), "{created}");
    let threads = read(&app, &ann.token, "/v0/messages/threads").await;
    assert_eq!(created["threadId"], threads["items"][0]["threadId"], "{threads}");
}

#[tokio::test]
async fn reading_a_message_changes_the_readers_count_once_and_nobody_elses() {
    // Arrange: bob has two unread messages from ann.
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let cat = app.sign_up("cat").await;
    let (thread_id, first) = sent(&app, &ann, "bob", "Lunch?", "Friday?").await;
    let (_, second) = replied(&app, &ann, &thread_id, "Or Saturday?").await;
    let mut anns = Live::open(&app, &ann).await;
    let mut bobs = Live::open(&app, &bob).await;
    // Act
    read(&app, &bob.token, &message_path(&thread_id, &first)).await;
    // Assert
    assert_eq!(bobs.expect("unread.changed").await, json!({"unread": 1}));

    // Act: reading it again, listing the thread and the sender's own fetch change no count.
    read(&app, &bob.token, &message_path(&thread_id, &first)).await;
    read(&app, &bob.token, &thread_path(&thread_id)).await;
    read(&app, &ann.token, &message_path(&thread_id, &second)).await;
    // Assert: the next thing each hears is a later message (bob's count is 2 again with it).
    probe(&app, &mut bobs, &cat, &bob).await;
    probe(&app, &mut anns, &cat, &ann).await;
}
