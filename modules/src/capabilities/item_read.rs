//! The `item-read` import: the item that triggered the invocation, as JSON.

use wasmtime::component::Linker;

use crate::capabilities::{Capability, Data, Grant, data};
use crate::invoke::state::StoreState;
use crate::load::manifest::ModuleKind;
use crate::wit::latest::item_read;
use crate::wit::{WitVersion, v0_1, v0_2, v0_3};

/// The `item-read` permission.
pub(crate) const CAPABILITY: Capability = Capability {
    name: "item-read",
    interface: "item-read",
    since: WitVersion::V0_1,
    kinds: &[ModuleKind::Space],
    carried_over: false,
    link,
};

fn link(linker: &mut Linker<StoreState>, version: WitVersion) -> anyhow::Result<()> {
    match version {
        WitVersion::V0_1 => v0_1::item_read::add_to_linker::<_, Data>(linker, data)?,
        WitVersion::V0_2 => v0_2::item_read::add_to_linker::<_, Data>(linker, data)?,
        WitVersion::V0_3 => v0_3::item_read::add_to_linker::<_, Data>(linker, data)?,
    }
    Ok(())
}

impl item_read::Host for StoreState {
    async fn current_item(&mut self) -> wasmtime::Result<Option<String>> {
        self.require(Grant::ItemRead)?;
        Ok(self.item.clone())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;
    use crate::invoke::clock::GuestClock;
    use crate::invoke::state::{Capabilities, HostVerdict};

    #[tokio::test]
    async fn ungranted_import_traps_as_a_host_failure() {
        let caps = Capabilities::none("m");
        let mut state = StoreState::new(Arc::new(caps), "space".into(), GuestClock::new(Duration::from_secs(5), Duration::ZERO), 1 << 20);

        assert!(item_read::Host::current_item(&mut state).await.is_err());

        assert!(matches!(state.verdict, Some(HostVerdict::Host(_))));
    }
}
