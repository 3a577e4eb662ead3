//! The imports of WIT 0.1.0, adapted to the host's one implementation (0.2.0): the interfaces are the
//! same functions over types of another name, so each adapter converts and calls the 0.2.0 code.
//! 0.1.0's `key-value` lacks `compare-and-swap` and `increment`, which only 0.2.0 components can call.

use crate::invoke::state::StoreState;
use crate::wit::latest::{asset_read, item_read, key_value, logging, outbound_http};
use crate::wit::v0_1::{asset_read as asset_read_v1, item_read as item_read_v1, key_value as key_value_v1};
use crate::wit::v0_1::{logging as logging_v1, outbound_http as http_v1, types as types_v1};

impl types_v1::Host for StoreState {}

impl key_value_v1::Host for StoreState {
    async fn get(&mut self, key: String) -> wasmtime::Result<Option<Vec<u8>>> {
        key_value::Host::get(self, key).await
    }

    async fn set(&mut self, key: String, value: Vec<u8>) -> wasmtime::Result<Result<(), String>> {
        key_value::Host::set(self, key, value).await
    }

    async fn delete(&mut self, key: String) -> wasmtime::Result<()> {
        key_value::Host::delete(self, key).await
    }

    async fn list_keys(
        &mut self,
        prefix: String,
        start_after: Option<String>,
        limit: u32,
    ) -> wasmtime::Result<Vec<String>> {
        key_value::Host::list_keys(self, prefix, start_after, limit).await
    }
}

impl item_read_v1::Host for StoreState {
    async fn current_item(&mut self) -> wasmtime::Result<Option<String>> {
        item_read::Host::current_item(self).await
    }
}

impl logging_v1::Host for StoreState {
    async fn log(&mut self, level: logging_v1::Level, message: String) -> wasmtime::Result<()> {
        let level = match level {
            logging_v1::Level::Trace => logging::Level::Trace,
            logging_v1::Level::Debug => logging::Level::Debug,
            logging_v1::Level::Info => logging::Level::Info,
            logging_v1::Level::Warn => logging::Level::Warn,
            logging_v1::Level::Error => logging::Level::Error,
        };
        logging::Host::log(self, level, message).await
    }
}

impl asset_read_v1::Host for StoreState {
    async fn size(&mut self) -> wasmtime::Result<u64> {
        asset_read::Host::size(self).await
    }

    async fn read(&mut self, offset: u64, length: u32) -> wasmtime::Result<Vec<u8>> {
        asset_read::Host::read(self, offset, length).await
    }
}

impl http_v1::Host for StoreState {
    async fn fetch(
        &mut self,
        request: http_v1::OutgoingRequest,
    ) -> wasmtime::Result<Result<http_v1::IncomingResponse, String>> {
        let request = outbound_http::OutgoingRequest {
            method: request.method,
            url: request.url,
            headers: request.headers,
            body: request.body,
        };
        let response = outbound_http::Host::fetch(self, request).await?;
        Ok(response.map(|r| http_v1::IncomingResponse { status: r.status, headers: r.headers, body: r.body }))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;
    use crate::capabilities::key_value::MemoryKv;
    use crate::invoke::clock::GuestClock;
    use crate::invoke::state::Capabilities;

    #[tokio::test]
    async fn a_0_1_module_s_key_value_calls_reach_the_same_store_as_0_2_calls() {
        // Arrange
        let caps = Capabilities { key_value: Some(Arc::new(MemoryKv::new())), ..Capabilities::none("m") };
        let mut state = StoreState::new(
            Arc::new(caps),
            "space".into(),
            GuestClock::new(Duration::from_secs(5), Duration::ZERO),
            1 << 20,
        );

        // Act
        key_value_v1::Host::set(&mut state, "n".into(), b"41".to_vec()).await.unwrap().unwrap();
        let after = key_value::Host::increment(&mut state, "n".into(), 1).await.unwrap();
        let read = key_value_v1::Host::get(&mut state, "n".into()).await.unwrap();
        let keys = key_value_v1::Host::list_keys(&mut state, "".into(), None, 10).await.unwrap();
        key_value_v1::Host::delete(&mut state, "n".into()).await.unwrap();

        // Assert
        assert_eq!(after, Ok(42));
        assert_eq!(read.as_deref(), Some(&b"42"[..]));
        assert_eq!(keys, ["n"]);
        assert_eq!(key_value::Host::get(&mut state, "n".into()).await.unwrap(), None);
    }
}
