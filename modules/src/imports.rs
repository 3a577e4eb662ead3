//! The host side of the imports a module may be granted: key-value, logging, item-read and asset-read
//! (outbound HTTP lives in `http.rs`).
//!
//! Each import is linked only when granted, and checks the grant again here, so a linking mistake cannot
//! widen what a module reaches. A failure of the host itself (database error, time out) ends the invocation
//! with a trap and a note in the store saying it was the host's fault.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::error::Elapsed;

use crate::analysis::MAX_ASSET_READ_BYTES;
use crate::bindings::{asset_read, item_read, key_value, logging, types};
use crate::kv::{KeyValueBackend, MAX_KEY_BYTES, MAX_LIST_LIMIT, MAX_VALUE_BYTES};
use crate::state::{HostVerdict, StoreState};

/// Longest log message kept, in bytes; longer ones are cut.
const MAX_LOG_BYTES: usize = 4096;

impl StoreState {
    fn key_value(&mut self) -> wasmtime::Result<Arc<dyn KeyValueBackend>> {
        match self.caps.key_value.clone() {
            Some(kv) => Ok(kv),
            None => Err(self.fail(HostVerdict::Host("key-value called without the key-value grant".into()))),
        }
    }

    /// Turns the outcome of a bounded host call into the import's result.
    fn settle<T>(&mut self, outcome: Result<anyhow::Result<T>, Elapsed>) -> wasmtime::Result<T> {
        match outcome {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(err)) => Err(self.fail(HostVerdict::Host(format!("{err:#}")))),
            Err(_) => Err(self.fail(HostVerdict::Deadline)),
        }
    }

    fn asset(&mut self) -> wasmtime::Result<(Arc<dyn crate::AssetSource>, Duration)> {
        let left = self.remaining()?;
        match (self.caps.asset_read, self.asset.clone()) {
            (true, Some(asset)) => Ok((asset, left)),
            _ => Err(self.fail(HostVerdict::Host("asset-read called without a grant or an asset".into()))),
        }
    }
}

impl types::Host for StoreState {}

impl key_value::Host for StoreState {
    async fn get(&mut self, key: String) -> wasmtime::Result<Option<Vec<u8>>> {
        let kv = self.key_value()?;
        let left = self.remaining()?;
        if key.len() > MAX_KEY_BYTES {
            return Ok(None);
        }
        let outcome = tokio::time::timeout(left, kv.get(&self.scope, &key)).await;
        self.settle(outcome)
    }

    async fn set(&mut self, key: String, value: Vec<u8>) -> wasmtime::Result<Result<(), String>> {
        let kv = self.key_value()?;
        let left = self.remaining()?;
        if key.len() > MAX_KEY_BYTES {
            return Ok(Err(format!("key is longer than {MAX_KEY_BYTES} bytes")));
        }
        if value.len() > MAX_VALUE_BYTES {
            return Ok(Err(format!("value is larger than {MAX_VALUE_BYTES} bytes")));
        }
        let outcome = tokio::time::timeout(left, kv.set(&self.scope, &key, &value)).await;
        self.settle(outcome).map(Ok)
    }

    async fn delete(&mut self, key: String) -> wasmtime::Result<()> {
        let kv = self.key_value()?;
        let left = self.remaining()?;
        if key.len() > MAX_KEY_BYTES {
            return Ok(());
        }
        let outcome = tokio::time::timeout(left, kv.delete(&self.scope, &key)).await;
        self.settle(outcome)
    }

    async fn list_keys(
        &mut self,
        prefix: String,
        start_after: Option<String>,
        limit: u32,
    ) -> wasmtime::Result<Vec<String>> {
        let kv = self.key_value()?;
        let left = self.remaining()?;
        if prefix.len() > MAX_KEY_BYTES || limit == 0 {
            return Ok(Vec::new());
        }
        let limit = limit.min(MAX_LIST_LIMIT);
        let list = kv.list_keys(&self.scope, &prefix, start_after.as_deref(), limit);
        let outcome = tokio::time::timeout(left, list).await;
        let mut keys = self.settle(outcome)?;
        // A backend that ignores the limit must not make the module hold more than it asked for.
        keys.truncate(limit as usize);
        Ok(keys)
    }
}

impl logging::Host for StoreState {
    async fn log(&mut self, level: logging::Level, mut message: String) -> wasmtime::Result<()> {
        if !self.caps.logging {
            return Err(self.fail(HostVerdict::Host("logging called without the logging grant".into())));
        }
        if self.logs_left == 0 {
            return Ok(());
        }
        self.logs_left -= 1;
        if message.len() > MAX_LOG_BYTES {
            let cut = (0..=MAX_LOG_BYTES).rev().find(|&i| message.is_char_boundary(i)).unwrap_or(0);
            message.truncate(cut);
        }
        let module = self.caps.module_id.as_str();
        let space = self.scope.space_id.as_str();
        macro_rules! emit {
            ($level:ident) => {
                tracing::event!(target: "trellis_modules::guest", tracing::Level::$level, module, space, "{message}")
            };
        }
        match level {
            logging::Level::Trace => emit!(TRACE),
            logging::Level::Debug => emit!(DEBUG),
            logging::Level::Info => emit!(INFO),
            logging::Level::Warn => emit!(WARN),
            logging::Level::Error => emit!(ERROR),
        }
        Ok(())
    }
}

impl item_read::Host for StoreState {
    async fn current_item(&mut self) -> wasmtime::Result<Option<String>> {
        if !self.caps.item_read {
            return Err(self.fail(HostVerdict::Host("item-read called without the item-read grant".into())));
        }
        Ok(self.item.clone())
    }
}

impl asset_read::Host for StoreState {
    async fn size(&mut self) -> wasmtime::Result<u64> {
        let (asset, left) = self.asset()?;
        let outcome = tokio::time::timeout(left, asset.size()).await;
        self.settle(outcome)
    }

    async fn read(&mut self, offset: u64, length: u32) -> wasmtime::Result<Vec<u8>> {
        let (asset, left) = self.asset()?;
        let length = length.min(MAX_ASSET_READ_BYTES);
        let outcome = tokio::time::timeout(left, asset.read(offset, length)).await;
        let mut bytes = self.settle(outcome)?;
        bytes.truncate(length as usize);
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::kv::MemoryKv;
    use crate::state::Capabilities;

    fn state(budget: Duration) -> StoreState {
        let caps = Capabilities { key_value: Some(Arc::new(MemoryKv::new())), ..Capabilities::none("m") };
        StoreState::new(Arc::new(caps), "space".into(), budget, 1 << 20)
    }

    #[tokio::test]
    async fn key_and_value_limits_are_the_module_s_errors_not_traps() {
        // Arrange
        let mut state = state(Duration::from_secs(5));
        let long_key = "k".repeat(MAX_KEY_BYTES + 1);
        let big_value = vec![0; MAX_VALUE_BYTES + 1];

        // Act
        let too_long = key_value::Host::set(&mut state, long_key.clone(), Vec::new()).await.unwrap();
        let too_big = key_value::Host::set(&mut state, "k".into(), big_value).await.unwrap();
        let fits = key_value::Host::set(&mut state, "k".repeat(MAX_KEY_BYTES), vec![0; MAX_VALUE_BYTES]).await;

        // Assert
        assert!(too_long.unwrap_err().contains("512"));
        assert!(too_big.unwrap_err().contains("1048576"));
        assert_eq!(fits.unwrap(), Ok(()));
        assert_eq!(key_value::Host::get(&mut state, long_key).await.unwrap(), None);
        assert_eq!(state.verdict, None);
    }

    #[tokio::test]
    async fn list_limit_is_capped_at_1000() {
        let mut state = state(Duration::from_secs(5));
        for i in 0..1005 {
            key_value::Host::set(&mut state, format!("k{i:04}"), Vec::new()).await.unwrap().unwrap();
        }

        let keys = key_value::Host::list_keys(&mut state, "k".into(), None, u32::MAX).await.unwrap();

        assert_eq!(keys.len(), MAX_LIST_LIMIT as usize);
    }

    #[tokio::test]
    async fn call_after_the_deadline_traps_and_is_noted_as_a_deadline() {
        let mut state = state(Duration::ZERO);

        assert!(key_value::Host::get(&mut state, "k".into()).await.is_err());

        assert_eq!(state.verdict, Some(HostVerdict::Deadline));
    }

    #[tokio::test]
    async fn ungranted_import_traps_as_a_host_failure() {
        let caps = Capabilities::none("m");
        let mut state = StoreState::new(Arc::new(caps), "space".into(), Duration::from_secs(5), 1 << 20);

        assert!(item_read::Host::current_item(&mut state).await.is_err());

        assert!(matches!(state.verdict, Some(HostVerdict::Host(_))));
    }
}
