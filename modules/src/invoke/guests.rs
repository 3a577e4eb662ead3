//! Long guest code runs on threads of its own, not on the caller's (the HTTP server's) executor: a module
//! that computes until its deadline then holds a guest thread, and requests that need no module are
//! served meanwhile. Measured before: 16 looping calls cut `GET /v0/users/me` on 2 cores by 94 %.
//!
//! Most calls are short, though (tens of microseconds), and handing each to another thread and back cost
//! more than the call itself: two cross-thread wake-ups, measured at about half of an invocation's time.
//! So a call starts on the caller's thread and is handed to a guest thread the first time it has to
//! wait: at its first epoch tick (the guest yields once per tick, so the caller's thread gives it at
//! most one tick, 1 ms) or in a host call that waits for I/O.
//!
//! The public entry points of [`ModuleHost`] live here. A caller that goes away after the hand-over
//! leaves the call to end at its deadline; before it, nothing has been handed over and the call is
//! dropped with the caller, between two steps of the guest, like any cancelled request.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::runtime::{Builder, Handle, Runtime};
use tokio::task::JoinHandle;

use crate::analysis::{AnalysisResult, AssetInfo, AssetSource, MediaAnalysis};
use crate::api::{Decision, Invocation, ListingStats, ModuleEvent, ModuleRequest, ModuleResponse, Registration};
use crate::host::ModuleHost;
use crate::invoke::admission::Ticket;
use crate::invoke::failure::ModuleFailure;

/// A small tokio runtime for guest code.
pub(crate) struct GuestThreads(Option<Runtime>);

impl GuestThreads {
    pub(crate) fn new(threads: usize) -> anyhow::Result<Self> {
        let runtime = Builder::new_multi_thread()
            .worker_threads(threads.max(1))
            .thread_name("trellis-guest")
            // IO too: host imports run here, and the key-value backend may open a database connection
            // (sqlx) when its pool has none idle; without IO that panics.
            .enable_time()
            .enable_io()
            .build()?;
        Ok(Self(Some(runtime)))
    }

    /// The runtime, for host chores that run beside the guests (the metrics log).
    pub(crate) fn handle(&self) -> Option<&tokio::runtime::Handle> {
        self.0.as_ref().map(Runtime::handle)
    }
}

impl Drop for GuestThreads {
    fn drop(&mut self) {
        // The host may be dropped inside another runtime, where a blocking shutdown would panic.
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}

/// A call that runs where it is polled until it first returns `Pending`, and is then spawned, in that same
/// poll, onto the guest threads (a boxed future moves between threads between polls, as any tokio task may).
struct HandOver<F: Future> {
    guests: Handle,
    stage: Stage<F>,
}

enum Stage<F: Future> {
    Here(Pin<Box<F>>),
    Handed(JoinHandle<F::Output>),
    Done,
}

impl<T, F> Future for HandOver<F>
where
    T: Send + 'static,
    F: Future<Output = Result<T, ModuleFailure>> + Send + 'static,
{
    type Output = Result<T, ModuleFailure>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // `HandOver` is `Unpin`: the future itself is boxed.
        let this = self.get_mut();
        if let Stage::Here(call) = &mut this.stage {
            if let Poll::Ready(answer) = call.as_mut().poll(cx) {
                this.stage = Stage::Done;
                return Poll::Ready(answer);
            }
            let Stage::Here(call) = std::mem::replace(&mut this.stage, Stage::Done) else { unreachable!() };
            this.stage = Stage::Handed(this.guests.spawn(call));
        }
        match &mut this.stage {
            Stage::Handed(task) => Pin::new(task).poll(cx).map(|joined| {
                joined.map_err(|err| ModuleFailure::Host(format!("guest task ended abnormally: {err}")))?
            }),
            _ => panic!("a finished hand-over polled again"),
        }
    }
}

impl ModuleHost {
    /// Runs `call` on the caller's thread until it first waits, then on a guest thread, and returns its answer.
    async fn on_guest_threads<T, F>(&self, call: impl FnOnce(ModuleHost) -> F) -> Result<T, ModuleFailure>
    where
        T: Send + 'static,
        F: Future<Output = Result<T, ModuleFailure>> + Send + 'static,
    {
        let runtime = self.inner.guests.0.as_ref().ok_or_else(|| ModuleFailure::Host("module host stopped".into()))?;
        let stage = Stage::Here(Box::pin(call(self.clone())));
        HandOver { guests: runtime.handle().clone(), stage }.await
    }

    /// Admission, with refusals counted in the module's metrics.
    fn admit(&self, module_id: &str, space_id: &str, request: bool) -> Result<Ticket, ModuleFailure> {
        let admitted = self.inner.admission.admit(module_id, space_id, request);
        if let (Err(ModuleFailure::Busy { .. }), Some(module)) = (&admitted, self.inner.module(module_id)) {
            module.failures.record_busy();
        }
        admitted
    }

    /// Serves a request to a space module's routes (budget: `request_deadline_ms`); refused at once
    /// with [`ModuleFailure::Busy`] when the module or the space is at a bound.
    pub async fn handle_request(
        &self,
        module_id: &str,
        invocation: Invocation,
        request: ModuleRequest,
    ) -> Result<ModuleResponse, ModuleFailure> {
        // Admitted (or refused) here, on the caller's thread: a refusal must not wait for a busy guest thread.
        // It waits a little on a timer instead, so that calling again at once, `Retry-After` ignored, costs
        // the server a refusal every few milliseconds per connection, not as many as it can answer.
        let ticket = match self.admit(module_id, &invocation.space_id, true) {
            Ok(ticket) => ticket,
            Err(refused) => {
                tokio::time::sleep(std::time::Duration::from_millis(self.inner.settings.busy_answer_delay_ms)).await;
                return Err(refused);
            }
        };
        let id = module_id.to_owned();
        self.on_guest_threads(
            move |host| async move { host.handle_request_here(&id, invocation, request, ticket).await },
        )
        .await
    }

    /// Delivers an event to a space module (budget: `event_deadline_ms`).
    pub async fn dispatch_event(
        &self,
        module_id: &str,
        invocation: Invocation,
        event: ModuleEvent,
    ) -> Result<(), ModuleFailure> {
        let ticket = self.admit(module_id, &invocation.space_id, false)?;
        let id = module_id.to_owned();
        self.on_guest_threads(move |host| async move { host.dispatch_event_here(&id, invocation, event, ticket).await })
            .await
    }

    /// A marketplace rule's trending scores for `listings`, one per listing in order, each finite and
    /// non-negative. The rule sees them in batches of at most 1,000, one instance and one
    /// `marketplace_deadline_ms` budget per batch; any failing batch fails the whole ranking.
    pub async fn trending_scores(
        &self,
        module_id: &str,
        invocation: Invocation,
        listings: Vec<ListingStats>,
    ) -> Result<Vec<f64>, ModuleFailure> {
        let id = module_id.to_owned();
        self.on_guest_threads(move |host| async move { host.trending_scores_here(&id, invocation, listings).await })
            .await
    }

    /// A marketplace rule's decision on a registration (budget: `marketplace_deadline_ms`).
    pub async fn registration_decision(
        &self,
        module_id: &str,
        invocation: Invocation,
        registration: Registration,
    ) -> Result<Decision, ModuleFailure> {
        let id = module_id.to_owned();
        self.on_guest_threads(move |host| async move {
            host.registration_decision_here(&id, invocation, registration).await
        })
        .await
    }

    /// Runs an analysis step over an asset: its bytes come from `source`, and the inference capabilities it
    /// was granted (media, vision, speech) from `media`. The step's own code gets `analysis_deadline_ms`;
    /// time inside `media` is bounded by `analysis_capability_timeout_ms` per call and
    /// `analysis_capability_budget_ms` in all instead. A WIT 0.1.0 step's answer is adapted (its description
    /// becomes one sentence; no finding has a model).
    pub async fn analyze(
        &self,
        module_id: &str,
        invocation: Invocation,
        asset: AssetInfo,
        source: Arc<dyn AssetSource>,
        media: Arc<dyn MediaAnalysis>,
    ) -> Result<AnalysisResult, ModuleFailure> {
        let id = module_id.to_owned();
        self.on_guest_threads(move |host| async move { host.analyze_here(&id, invocation, asset, source, media).await })
            .await
    }
}
