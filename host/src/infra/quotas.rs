//! The reusable entitlement check: routes with a daily quota call [`take`] before doing the work.
//! A caller with a user share ([`Caller::spending`]) is counted twice: the user's share and the key's
//! quota, each one conditional statement in one write, and what one took is given back when the
//! other refuses.

use time::OffsetDateTime;

use crate::domain::entitlement::{Entitlement, utc_day};
use crate::error::Error;
use crate::services::licenses::Caller;
use crate::store::{QuotaTake, Store, StoreResult};

/// Takes `amount` units of `entitlement` from the caller's plan for today, or answers
/// ENTITLEMENT_LIMIT_EXCEEDED without taking anything. Give it back with [`refund`] when the
/// work then fails, so a failed request costs nothing.
pub async fn take(store: &Store, caller: &Caller, entitlement: Entitlement, amount: u64) -> Result<(), Error> {
    take_all(store, caller, &[(entitlement, amount)]).await
}

/// [`take`] for several entitlements at once, in one write: all of them, or none and the first
/// refused is answered.
pub async fn take_all(store: &Store, caller: &Caller, wanted: &[(Entitlement, u64)]) -> Result<(), Error> {
    let as_i64 = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let mut takes = Vec::with_capacity(2 * wanted.len());
    for &(entitlement, amount) in wanted {
        let amount = as_i64(amount);
        if let Some((user, limit)) = caller.user_share.as_ref().zip(caller.plan.user_quota(entitlement)) {
            takes.push(QuotaTake { subject: user.clone(), entitlement, amount, limit: as_i64(limit) });
        }
        let limit = as_i64(caller.plan.quota(entitlement));
        takes.push(QuotaTake { subject: caller.subject.clone(), entitlement, amount, limit });
    }
    match store.quotas.consume_quotas(takes, utc_day(OffsetDateTime::now_utc())).await? {
        None => Ok(()),
        Some(entitlement) => Err(refused(entitlement)),
    }
}

fn refused(entitlement: Entitlement) -> Error {
    crate::infra::metrics::quota_refused(entitlement.name());
    Error::EntitlementExceeded(entitlement)
}

pub async fn refund(store: &Store, caller: &Caller, entitlement: Entitlement, amount: u64) -> Result<(), Error> {
    let day = utc_day(OffsetDateTime::now_utc());
    let amount = i64::try_from(amount).unwrap_or(i64::MAX);
    if let Some(user) = caller.user_share.as_ref().filter(|_| caller.plan.user_quota(entitlement).is_some()) {
        store.quotas.refund_quota(user, entitlement, day, amount).await?;
    }
    store.quotas.refund_quota(&caller.subject, entitlement, day, amount).await?;
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
