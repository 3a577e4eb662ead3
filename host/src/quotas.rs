//! The reusable entitlement check: routes with a daily quota call [`take`] before doing the work.

use time::OffsetDateTime;

use crate::domain::entitlement::{Entitlement, utc_day};
use crate::error::Error;
use crate::services::licenses::Caller;
use crate::store::{Store, StoreResult};

/// Takes `amount` units of `entitlement` from the caller's plan for today, or answers
/// ENTITLEMENT_LIMIT_EXCEEDED without taking anything. Give it back with [`refund`] when the
/// work then fails, so a failed request costs nothing.
pub async fn take(store: &Store, caller: &Caller, entitlement: Entitlement, amount: u64) -> Result<(), Error> {
    let limit = i64::try_from(caller.plan.quota(entitlement)).unwrap_or(i64::MAX);
    let amount = i64::try_from(amount).unwrap_or(i64::MAX);
    let day = utc_day(OffsetDateTime::now_utc());
    if store.quotas.consume_quota(&caller.subject, entitlement, day, amount, limit).await? {
        Ok(())
    } else {
        crate::metrics::quota_refused(entitlement.name());
        Err(Error::EntitlementExceeded(entitlement))
    }
}

pub async fn refund(store: &Store, caller: &Caller, entitlement: Entitlement, amount: u64) -> Result<(), Error> {
    let day = utc_day(OffsetDateTime::now_utc());
    store.quotas.refund_quota(&caller.subject, entitlement, day, i64::try_from(amount).unwrap_or(i64::MAX)).await?;
    Ok(())
}

/// Settles what [`take`] took for a write that may not happen: `written` is the write's outcome
/// (`Ok(false)`: refused, nothing written). Unless it wrote, the units are given back; then the
/// outcome is answered.
pub async fn settle(
    store: &Store,
    caller: &Caller,
    entitlement: Entitlement,
    amount: u64,
    written: StoreResult<bool>,
) -> Result<bool, Error> {
    if !matches!(written, Ok(true)) {
        refund(store, caller, entitlement, amount).await?;
    }
    Ok(written?)
}
