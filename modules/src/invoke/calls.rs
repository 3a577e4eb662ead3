//! The invocations: each takes an instance slot, builds a fresh store and instance from the module's
//! `InstancePre`, makes one call under the kind's budget, checks the answer, and drops the instance.

use std::time::Duration;

use tokio::sync::SemaphorePermit;
use wasmtime::Store;

use crate::api::{
    CallerRole, Decision, EventKind, Invocation, ListingStats, Method, ModuleEvent, ModuleRequest, ModuleResponse,
    Registration,
};
use crate::bindings::marketplace::exports::trellis::module::marketplace_hooks as mh;
use crate::bindings::space::exports::trellis::module::space_hooks as sh;
use crate::bindings::types::Context;
use crate::host::{Inner, ModuleHost};
use crate::invoke::admission::Ticket;
use crate::invoke::failure::ModuleFailure;
use crate::invoke::state::StoreState;
use crate::invoke::{bounded, check_body, new_store, record, settle};
use crate::load::manifest::ModuleKind;
use crate::load::{LoadedModule, Prepared};

impl ModuleHost {
    /// Serves a request to a space module's routes (budget: `request_deadline_ms`).
    pub(crate) async fn handle_request_here(
        &self,
        module_id: &str,
        invocation: Invocation,
        request: ModuleRequest,
        ticket: Ticket,
    ) -> Result<ModuleResponse, ModuleFailure> {
        let inner = &*self.inner;
        let mut call = inner
            .begin(module_id, ModuleKind::Space, inner.settings.request_deadline(), invocation, Some(ticket))
            .await?;
        let module = call.module;
        let Prepared::Space(pre) = &module.prepared else { unreachable!("a space module has a space world") };
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
            let instance = pre.instantiate_async(&mut *store).await?;
            instance.trellis_module_space_hooks().call_handle_request(&mut *store, ctx, &request).await
        };
        let outcome = bounded(clock, invoke).await;
        match settle(module, &call.store, outcome)? {
            Ok(response) => {
                if !(200..=599).contains(&response.status) {
                    let why = format!("status {} is outside 200..=599", response.status);
                    return Err(record(module, ModuleFailure::InvalidAnswer(why)));
                }
                check_body(&response.body).map_err(|why| record(module, ModuleFailure::InvalidAnswer(why)))?;
                Ok(ModuleResponse { status: response.status, body_json_text: response.body })
            }
            Err(message) => Err(record(module, ModuleFailure::module_error(message))),
        }
    }

    /// Delivers an event to a space module (budget: `event_deadline_ms`).
    pub(crate) async fn dispatch_event_here(
        &self,
        module_id: &str,
        invocation: Invocation,
        event: ModuleEvent,
        ticket: Ticket,
    ) -> Result<(), ModuleFailure> {
        let inner = &*self.inner;
        let mut call = inner
            .begin(module_id, ModuleKind::Space, inner.settings.event_deadline(), invocation, Some(ticket))
            .await?;
        let module = call.module;
        let Prepared::Space(pre) = &module.prepared else { unreachable!("a space module has a space world") };
        let (store, ctx) = (&mut call.store, &call.ctx);
        let clock = store.data().clock.clone();
        store.data_mut().item = event.item_json;
        let event = sh::Event {
            kind: match event.kind {
                EventKind::FormInstanceCreated => sh::EventKind::FormInstanceCreated,
                EventKind::FormInstanceUpdated => sh::EventKind::FormInstanceUpdated,
                EventKind::AssetStateChanged => sh::EventKind::AssetStateChanged,
            },
            item_id: event.item_id,
        };
        let invoke = async {
            let instance = pre.instantiate_async(&mut *store).await?;
            instance.trellis_module_space_hooks().call_on_event(&mut *store, ctx, &event).await
        };
        let outcome = bounded(clock, invoke).await;
        settle(module, &call.store, outcome)?.map_err(|message| record(module, ModuleFailure::module_error(message)))
    }

    /// Asks a marketplace rule for a listing's trending score: finite and non-negative (budget:
    /// `marketplace_deadline_ms`).
    pub(crate) async fn trending_score_here(
        &self,
        module_id: &str,
        invocation: Invocation,
        stats: ListingStats,
    ) -> Result<f64, ModuleFailure> {
        let inner = &*self.inner;
        let mut call = inner
            .begin(module_id, ModuleKind::MarketplaceRule, inner.settings.marketplace_deadline(), invocation, None)
            .await?;
        let module = call.module;
        let Prepared::Marketplace(pre) = &module.prepared else { unreachable!("a rule has the marketplace world") };
        let (store, ctx) = (&mut call.store, &call.ctx);
        let clock = store.data().clock.clone();
        let stats = mh::ListingStats {
            space_id: stats.space_id,
            members: stats.members,
            assets: stats.assets,
            comments_last_week: stats.comments_last_week,
            registrations_last_week: stats.registrations_last_week,
            age_days: stats.age_days,
        };
        let invoke = async {
            let instance = pre.instantiate_async(&mut *store).await?;
            instance.trellis_module_marketplace_hooks().call_trending_score(&mut *store, ctx, &stats).await
        };
        let outcome = bounded(clock, invoke).await;
        match settle(module, &call.store, outcome)? {
            Ok(score) if score.is_finite() && score >= 0.0 => Ok(score),
            Ok(score) => Err(record(module, ModuleFailure::InvalidAnswer(format!("score {score} is not >= 0")))),
            Err(message) => Err(record(module, ModuleFailure::module_error(message))),
        }
    }

    /// Asks a marketplace rule to decide a registration (budget: `marketplace_deadline_ms`).
    pub(crate) async fn registration_decision_here(
        &self,
        module_id: &str,
        invocation: Invocation,
        registration: Registration,
    ) -> Result<Decision, ModuleFailure> {
        let inner = &*self.inner;
        let mut call = inner
            .begin(module_id, ModuleKind::MarketplaceRule, inner.settings.marketplace_deadline(), invocation, None)
            .await?;
        let module = call.module;
        let Prepared::Marketplace(pre) = &module.prepared else { unreachable!("a rule has the marketplace world") };
        let (store, ctx) = (&mut call.store, &call.ctx);
        let clock = store.data().clock.clone();
        let registration = mh::Registration {
            space_id: registration.space_id,
            user_id: registration.user_id,
            handle: registration.handle,
            note: registration.note,
            membership: registration.membership,
        };
        let invoke = async {
            let instance = pre.instantiate_async(&mut *store).await?;
            let hooks = instance.trellis_module_marketplace_hooks();
            hooks.call_registration_decision(&mut *store, ctx, &registration).await
        };
        let outcome = bounded(clock, invoke).await;
        match settle(module, &call.store, outcome)? {
            Ok(mh::Decision::Approve) => Ok(Decision::Approve),
            Ok(mh::Decision::Reject) => Ok(Decision::Reject),
            Ok(mh::Decision::DeferToOwner) => Ok(Decision::DeferToOwner),
            Err(message) => Err(record(module, ModuleFailure::module_error(message))),
        }
    }
}

/// What every invocation starts from: the module, a slot of the instance pool, the WIT context, and a
/// fresh store with the kind's budget and the memory cap.
pub(crate) struct Call<'h> {
    pub module: &'h LoadedModule,
    pub ctx: Context,
    pub store: Store<StoreState>,
    _slot: SemaphorePermit<'h>,
    /// Leaves the admission counts, and charges the space, when the call ends.
    _ticket: Option<Ticket>,
}

impl Inner {
    pub(crate) async fn begin(
        &self,
        module_id: &str,
        kind: ModuleKind,
        budget: Duration,
        invocation: Invocation,
        ticket: Option<Ticket>,
    ) -> Result<Call<'_>, ModuleFailure> {
        let module = self.module_of_kind(module_id, kind)?;
        let slot = self.slot().await?;
        let store = new_store(&self.engine, &module.caps, invocation.space_id.clone(), budget, self.memory_limit);
        let ctx = Context { space_id: invocation.space_id, config: invocation.config_json };
        Ok(Call { module, ctx, store, _slot: slot, _ticket: ticket })
    }
}
