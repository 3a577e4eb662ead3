//! What a change made stale in the caches of every server that shares the database.
//!
//! A server evicts what its own writes change at once; it also announces each such change, and
//! every server sharing the database (on PostgreSQL, through `NOTIFY`; see
//! `jobs::stale_listener`) evicts the same entries, so a logout, a revoked key, a removed member
//! or an updated configuration takes effect everywhere, not after a cache's time to live.
//! Announcements carry ids and digests only, never a secret.

/// One announcement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stale {
    /// Every cached license (a key was revoked; the command line knows its id, not its digest).
    Licenses,
    /// The session whose token has this digest (a logout).
    Session(String),
    /// Every session of this user (a password reset).
    UserSessions(String),
    /// One user's role in one space.
    Role { space_id: String, user_id: String },
    /// Every cached role (a channel's members or spaces changed, which gives or takes reading rights).
    Roles,
    /// The modules connected to this space.
    SpaceModules(String),
    /// The form configuration with this id.
    FormConfiguration(String),
    /// The workflow configuration with this id (its permissions included).
    Workflow(String),
}

/// The caches a server holds, as the listener for other servers' announcements sees them
/// (`jobs::stale_listener`).
pub trait Caches: Send + Sync + 'static {
    /// Drops what one announcement made stale.
    fn forget(&self, stale: &Stale);
    /// Drops every cached entry another server could have changed (announcements may have been missed).
    fn forget_all(&self);
}

/// The `NOTIFY` channel.
pub const CHANNEL: &str = "trellis_stale";

/// Tells every other server sharing the database; the caller has evicted its own entries. A
/// failure is logged, not answered: the change is made, and the caches' time to live bounds how
/// long another server may still serve the old entry.
pub async fn announce(store: &crate::store::Store, stale: Stale) {
    if let Err(error) = store.notify(CHANNEL, &stale.encode()).await {
        tracing::warn!(%error, ?stale, "announcing a change to the other servers failed");
    }
}

impl Stale {
    /// The announcement as `NOTIFY` carries it (well under PostgreSQL's 8,000-byte limit).
    pub fn encode(&self) -> String {
        match self {
            Self::Licenses => "licenses".into(),
            Self::Session(digest) => format!("session {digest}"),
            Self::UserSessions(user_id) => format!("user-sessions {user_id}"),
            Self::Role { space_id, user_id } => format!("role {space_id} {user_id}"),
            Self::Roles => "roles".into(),
            Self::SpaceModules(space_id) => format!("space-modules {space_id}"),
            Self::FormConfiguration(id) => format!("form-configuration {id}"),
            Self::Workflow(id) => format!("workflow {id}"),
        }
    }

    /// An announcement read back; `None` for anything else (a newer server's kind, say).
    pub fn decode(text: &str) -> Option<Self> {
        let mut words = text.split(' ');
        let kind = words.next()?;
        let mut next = || words.next().filter(|w| !w.is_empty()).map(str::to_owned);
        let stale = match kind {
            "licenses" => Self::Licenses,
            "session" => Self::Session(next()?),
            "user-sessions" => Self::UserSessions(next()?),
            "role" => Self::Role { space_id: next()?, user_id: next()? },
            "roles" => Self::Roles,
            "space-modules" => Self::SpaceModules(next()?),
            "form-configuration" => Self::FormConfiguration(next()?),
            "workflow" => Self::Workflow(next()?),
            _ => return None,
        };
        words.next().is_none().then_some(stale)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn announcements_round_trip_and_anything_else_is_ignored() {
        let all = [
            Stale::Licenses,
            Stale::Session("digest".into()),
            Stale::UserSessions("u1".into()),
            Stale::Role { space_id: "s1".into(), user_id: "u1".into() },
            Stale::Roles,
            Stale::SpaceModules("s1".into()),
            Stale::FormConfiguration("c1".into()),
            Stale::Workflow("w1".into()),
        ];
        for stale in all {
            assert_eq!(Stale::decode(&stale.encode()), Some(stale.clone()), "{stale:?}");
        }
        for other in ["", "session", "role s1", "session a b", "something-new x"] {
            assert_eq!(Stale::decode(other), None, "{other:?}");
        }
    }
}
