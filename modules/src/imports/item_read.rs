//! The `item-read` import: the item that triggered the invocation, as JSON.

use crate::bindings::latest::item_read;
use crate::invoke::state::{HostVerdict, StoreState};

impl item_read::Host for StoreState {
    async fn current_item(&mut self) -> wasmtime::Result<Option<String>> {
        if !self.caps.item_read {
            return Err(self.fail(HostVerdict::Host("item-read called without the item-read grant".into())));
        }
        Ok(self.item.clone())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;
    use crate::invoke::state::Capabilities;

    #[tokio::test]
    async fn ungranted_import_traps_as_a_host_failure() {
        let caps = Capabilities::none("m");
        let mut state = StoreState::new(Arc::new(caps), "space".into(), Duration::from_secs(5), 1 << 20);

        assert!(item_read::Host::current_item(&mut state).await.is_err());

        assert!(matches!(state.verdict, Some(HostVerdict::Host(_))));
    }
}
