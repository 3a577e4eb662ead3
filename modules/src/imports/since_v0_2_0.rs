//! The interfaces WIT 0.2.0 shares with 0.1.0 (types, logging, asset-read, outbound-http) under their 0.2.0
//! names: the same host code as 0.1.0's, over the 0.2.0 types.

use crate::bindings::v0_2_0::{asset_read, logging, outbound_http, types};
use crate::bindings::{asset_read as asset_read_v1, logging as logging_v1, outbound_http as http_v1};
use crate::invoke::state::StoreState;

impl types::Host for StoreState {}

impl logging::Host for StoreState {
    async fn log(&mut self, level: logging::Level, message: String) -> wasmtime::Result<()> {
        let level = match level {
            logging::Level::Trace => logging_v1::Level::Trace,
            logging::Level::Debug => logging_v1::Level::Debug,
            logging::Level::Info => logging_v1::Level::Info,
            logging::Level::Warn => logging_v1::Level::Warn,
            logging::Level::Error => logging_v1::Level::Error,
        };
        logging_v1::Host::log(self, level, message).await
    }
}

impl asset_read::Host for StoreState {
    async fn size(&mut self) -> wasmtime::Result<u64> {
        asset_read_v1::Host::size(self).await
    }

    async fn read(&mut self, offset: u64, length: u32) -> wasmtime::Result<Vec<u8>> {
        asset_read_v1::Host::read(self, offset, length).await
    }
}

impl outbound_http::Host for StoreState {
    async fn fetch(
        &mut self,
        request: outbound_http::OutgoingRequest,
    ) -> wasmtime::Result<Result<outbound_http::IncomingResponse, String>> {
        let request = http_v1::OutgoingRequest {
            method: request.method,
            url: request.url,
            headers: request.headers,
            body: request.body,
        };
        let response = http_v1::Host::fetch(self, request).await?;
        Ok(response.map(|r| outbound_http::IncomingResponse { status: r.status, headers: r.headers, body: r.body }))
    }
}
