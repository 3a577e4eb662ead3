//! The poll scenario against the real host: every member votes once, then 100 re-votes at once (five per
//! member), then the totals must be exact. `trellis module dev --users 20 --run 'cargo test-native --test
//! scenario'` serves the module and runs it with BASE, KEY, SPACE, MODULE and TOKEN ... TOKEN_20 set;
//! without BASE it skips.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

/// The configuration's default options.
const OPTIONS: [&str; 3] = ["red", "green", "blue"];
const MEMBERS: usize = 20;
const RE_VOTES: usize = 100;

#[test]
fn every_vote_lands_and_the_totals_are_exact() {
    let Some(poll) = Poll::from_env() else {
        eprintln!("skipped: BASE is unset (run it with trellis module dev --users 20 --run ...)");
        return;
    };

    // Arrange: every member votes for the first option.
    for member in 0..MEMBERS {
        assert_eq!(poll.vote(member, OPTIONS[0]), 200, "member {member}'s first vote");
    }

    // Act: 100 re-votes at once, five per member; an even member moves to the second option, an odd one to the
    // third.
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let poll = &poll;
        let calls: Vec<_> = (0..RE_VOTES)
            .map(|i| scope.spawn(move || poll.vote(i % MEMBERS, OPTIONS[1 + (i % MEMBERS) % 2])))
            .collect();
        calls.into_iter().map(|call| call.join().expect("a re-vote")).collect()
    });

    // Assert
    assert_eq!(statuses, vec![200; RE_VOTES], "every re-vote answers 200 in the end");
    let results = poll.results();
    let half = MEMBERS / 2;
    assert_eq!(results, json!({"counts": {OPTIONS[0]: 0, OPTIONS[1]: half, OPTIONS[2]: half}, "voters": MEMBERS}));
    println!("scenario passed: {results} ({} 429s retried)", poll.retried.load(Ordering::Relaxed));
}

/// The module's poll in the space `module dev` set up, and its members' tokens.
struct Poll {
    url: String,
    key: String,
    tokens: Vec<String>,
    agent: ureq::Agent,
    /// The 429s retried.
    retried: AtomicUsize,
}

impl Poll {
    fn from_env() -> Option<Self> {
        let base = std::env::var("BASE").ok()?;
        let var = |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("{name} is unset: run with --users 20"));
        let url = format!("{base}/v0/spaces/{}/modules/{}/ballot", var("SPACE"), var("MODULE"));
        let tokens = std::iter::once(var("TOKEN")).chain((2..=MEMBERS).map(|n| var(&format!("TOKEN_{n}")))).collect();
        // A 4xx is an answer to read here, not an error.
        let agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
        Some(Self { url, key: var("KEY"), tokens, agent, retried: AtomicUsize::new(0) })
    }

    /// `POST /ballot` as `member`; a 429 is retried after its Retry-After, as a client does. Answers the final
    /// status.
    fn vote(&self, member: usize, option: &str) -> u16 {
        for _ in 0..60 {
            let answer = self
                .agent
                .post(self.url.as_str())
                .header("X-License-Key", self.key.as_str())
                .header("Authorization", format!("Bearer {}", self.tokens[member]))
                .header("Content-Type", "application/json")
                .send(json!({"option": option}).to_string())
                .expect("the server answers");
            if answer.status() != 429 {
                return answer.status().as_u16();
            }
            self.retried.fetch_add(1, Ordering::Relaxed);
            let wait = answer.headers().get("retry-after").and_then(|value| value.to_str().ok()?.parse().ok());
            std::thread::sleep(Duration::from_secs(wait.unwrap_or(1)));
        }
        429
    }

    /// `GET /ballot/results`.
    fn results(&self) -> Value {
        let mut answer = self
            .agent
            .get(format!("{}/results", self.url))
            .header("X-License-Key", self.key.as_str())
            .header("Authorization", format!("Bearer {}", self.tokens[0]))
            .call()
            .expect("the server answers");
        assert_eq!(answer.status(), 200);
        serde_json::from_str(&answer.body_mut().read_to_string().expect("a body")).expect("JSON")
    }
}
