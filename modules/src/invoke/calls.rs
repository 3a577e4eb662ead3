//! The invocations of space modules and marketplace rules: each takes an instance slot, builds a fresh
//! store and instance from the module's `InstancePre`, makes one call under the kind's budget, checks the
//! answer, and drops the instance. A WIT 0.1.0 or 0.2.0 module is called through its own bindings and its
//! answer adapted (`wit/v0_1/exports.rs`, `wit/v0_2/exports.rs`); the marketplace's calls are in
//! `marketplace.rs`.

use crate::wit::v0_1::exports as adapt;
use crate::wit::v0_2::exports as adapt_v2;
mod marketplace;

use std::time::Duration;

use tokio::sync::SemaphorePermit;
use wasmtime::Store;

use crate::api::{CallerRole, EventKind, Invocation, Method, ModuleEvent, ModuleRequest, ModuleResponse};
use crate::host::{Inner, ModuleHost};
use crate::invoke::admission::Ticket;
use crate::invoke::clock::GuestClock;
use crate::invoke::failure::{BusyBound, ModuleFailure};
use crate::invoke::replays::until_committed;
use crate::invoke::state::StoreState;
use crate::invoke::{bounded, check_body, commit, new_store, record, settle};
use crate::load::manifest::ModuleKind;
use crate::load::{LoadedModule, Prepared};
use crate::wit::latest::space::exports::trellis::module::space_hooks as sh;
use crate::wit::latest::types::Context;

impl ModuleHost {
    /// Serves a request to a space module's routes (budget: `request_deadline_ms`), running it again while
    /// its key-value writes conflict with another call's.
    pub(crate) async fn handle_request_here(
        &self,
        module_id: &str,
        invocation: Invocation,
        request: ModuleRequest,
        ticket: Ticket,
    ) -> Result<ModuleResponse, ModuleFailure> {
        let (ticket, inner) = (&ticket, &*self.inner);
        let scope = (module_id, invocation.space_id.as_str());
        until_committed(&inner.replays, scope, || {
            self.request_attempt(module_id, invocation.clone(), request.clone(), ticket)
        })
        .await
    }

    async fn request_attempt(
        &self,
        module_id: &str,
        invocation: Invocation,
        request: ModuleRequest,
        ticket: &Ticket,
    ) -> Result<ModuleResponse, ModuleFailure> {
        let inner = &*self.inner;
        let mut call = inner
            .begin(module_id, ModuleKind::Space, inner.settings.request_deadline(), invocation, Some(ticket))
            .await?;
        let module = call.module;
        let (store, ctx) = (&mut call.store, &call.ctx);
        let clock = store.data().clock.clone();
        let request = sh::Request {
            method: match request.method {
                Method::Get => sh::Method::Get,
                Method::Post => sh::Method::Post,
                Method::Put => sh::Method::Put,
                Method::Patch => sh::Method::Patch,
                Method::Delete => sh::Method::Delete,
            },
            path: request.path,
            query: request.query,
            body: request.body,
            caller_user_id: request.caller_user_id,
            caller_handle: request.caller_handle,
            caller_role: match request.caller_role {
                CallerRole::Owner => sh::CallerRole::Owner,
                CallerRole::Member => sh::CallerRole::Member,
            },
        };
        let invoke = async {
            match &module.prepared {
                Prepared::Space(pre) => {
                    let instance = pre.instantiate_async(&mut *store).await?;
                    instance.trellis_module_space_hooks().call_handle_request(&mut *store, ctx, &request).await
                }
                Prepared::SpaceV0_2(pre) => {
                    let instance = pre.instantiate_async(&mut *store).await?;
                    let hooks = instance.trellis_module_space_hooks();
                    let (ctx, request) = (adapt_v2::context(ctx), adapt_v2::request(&request));
                    let answer = hooks.call_handle_request(&mut *store, &ctx, &request).await?;
                    Ok(answer.map(adapt_v2::response))
                }
                Prepared::SpaceV0_1(pre) => {
                    let instance = pre.instantiate_async(&mut *store).await?;
                    let hooks = instance.trellis_module_space_hooks();
                    let (ctx, request) = (adapt::context(ctx), adapt::request(&request));
                    let answer = hooks.call_handle_request(&mut *store, &ctx, &request).await?;
                    Ok(answer.map(|response| sh::Response { status: response.status, body: response.body }))
                }
                _ => unreachable!("a space module has a space world"),
            }
        };
        let outcome = bounded(clock, invoke).await;
        match settle(module, &call.store, outcome)? {
            Ok(response) => {
                if !(200..=599).contains(&response.status) {
                    let why = format!("status {} is outside 200..=599", response.status);
                    return Err(record(module, ModuleFailure::InvalidAnswer(why)));
                }
                check_body(&response.body).map_err(|why| record(module, ModuleFailure::InvalidAnswer(why)))?;
                commit(module, &mut call.store).await?;
                Ok(ModuleResponse { status: response.status, body_json_text: response.body })
            }
            Err(message) => Err(record(module, ModuleFailure::module_error(message))),
        }
    }

    /// Delivers an event to a space module (budget: `event_deadline_ms`). A WIT 0.1.0 module knows no
    /// comment events: it is skipped, which counts as delivered.
    pub(crate) async fn dispatch_event_here(
        &self,
        module_id: &str,
        invocation: Invocation,
        event: ModuleEvent,
        ticket: Ticket,
    ) -> Result<(), ModuleFailure> {
        let (ticket, inner) = (&ticket, &*self.inner);
        let scope = (module_id, invocation.space_id.as_str());
        until_committed(&inner.replays, scope, || {
            self.event_attempt(module_id, invocation.clone(), event.clone(), ticket)
        })
        .await
    }

    async fn event_attempt(
        &self,
        module_id: &str,
        invocation: Invocation,
        event: ModuleEvent,
        ticket: &Ticket,
    ) -> Result<(), ModuleFailure> {
        let inner = &*self.inner;
        let mut call = inner
            .begin(module_id, ModuleKind::Space, inner.settings.event_deadline(), invocation, Some(ticket))
            .await?;
        let module = call.module;
        if matches!(module.prepared, Prepared::SpaceV0_1(_)) && event.kind == EventKind::CommentCreated {
            return Ok(());
        }
        let (store, ctx) = (&mut call.store, &call.ctx);
        let clock = store.data().clock.clone();
        store.data_mut().item = event.item_json;
        let event = sh::Event {
            kind: match event.kind {
                EventKind::FormInstanceCreated => sh::EventKind::FormInstanceCreated,
                EventKind::FormInstanceUpdated => sh::EventKind::FormInstanceUpdated,
                EventKind::AssetStateChanged => sh::EventKind::AssetStateChanged,
                EventKind::CommentCreated => sh::EventKind::CommentCreated,
            },
            item_id: event.item_id,
        };
        let invoke = async {
            match &module.prepared {
                Prepared::Space(pre) => {
                    let instance = pre.instantiate_async(&mut *store).await?;
                    instance.trellis_module_space_hooks().call_on_event(&mut *store, ctx, &event).await
                }
                Prepared::SpaceV0_2(pre) => {
                    let instance = pre.instantiate_async(&mut *store).await?;
                    let (ctx, event) = (adapt_v2::context(ctx), adapt_v2::event(&event));
                    instance.trellis_module_space_hooks().call_on_event(&mut *store, &ctx, &event).await
                }
                Prepared::SpaceV0_1(pre) => {
                    let instance = pre.instantiate_async(&mut *store).await?;
                    // `None` only for kinds 0.1.0 lacks, which were skipped above.
                    let Some(event) = adapt::event(&event) else { return Ok(Ok(())) };
                    let ctx = adapt::context(ctx);
                    instance.trellis_module_space_hooks().call_on_event(&mut *store, &ctx, &event).await
                }
                _ => unreachable!("a space module has a space world"),
            }
        };
        let outcome = bounded(clock, invoke).await;
        settle(module, &call.store, outcome)?
            .map_err(|message| record(module, ModuleFailure::module_error(message)))?;
        commit(module, &mut call.store).await
    }
}

/// What every invocation starts from: the module, a slot of the instance pool, the WIT context, and a
/// fresh store with the kind's budget and the memory cap.
pub(crate) struct Call<'h> {
    pub module: &'h LoadedModule,
    pub ctx: Context,
    pub store: Store<StoreState>,
    _slot: SemaphorePermit<'h>,
}

impl Inner {
    pub(crate) async fn begin(
        &self,
        module_id: &str,
        kind: ModuleKind,
        budget: Duration,
        invocation: Invocation,
        ticket: Option<&Ticket>,
    ) -> Result<Call<'_>, ModuleFailure> {
        let module = self.module_of_kind(module_id, kind)?;
        let slot = match &ticket {
            Some(ticket) if ticket.refusable => {
                let wait = self.settings.max_queue_wait();
                tokio::time::timeout(wait, self.slot(module)).await.map_err(|_| {
                    module.failures.record_busy();
                    ModuleFailure::Busy { retry_after: Duration::from_secs(1), bound: BusyBound::Queue }
                })??
            }
            _ => self.slot(module).await?,
        };
        let clock = GuestClock::new(budget, self.settings.max_call_wait());
        if let Some(ticket) = ticket {
            ticket.charge_by(clock.clone());
        }
        let store = new_store(&self.engine, &module.caps, invocation.space_id.clone(), clock, self.memory_limit);
        let ctx = Context { space_id: invocation.space_id, config: invocation.config_json };
        Ok(Call { module, ctx, store, _slot: slot })
    }
}
