//! Where a module's outbound request may connect: the allowed host name is resolved here, and every
//! address it resolves to must be a public one (unless the deployment allows private ones). The
//! client connects to exactly the addresses checked, so a second lookup (DNS rebinding) cannot
//! swap in another.

use std::future::Future;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// The answer of a name lookup.
pub(crate) type Lookup<'a> = Pin<Box<dyn Future<Output = io::Result<Vec<IpAddr>>> + Send + 'a>>;

/// Looks names up: the system resolver in production, a fixed table in tests.
pub(crate) trait NameLookup: Send + Sync {
    fn lookup(&self, host: &str) -> Lookup<'_>;
}

/// The system's resolver.
pub(crate) struct SystemLookup;

impl NameLookup for SystemLookup {
    fn lookup(&self, host: &str) -> Lookup<'_> {
        let host = host.to_owned();
        Box::pin(async move { Ok(tokio::net::lookup_host((host.as_str(), 0)).await?.map(|a| a.ip()).collect()) })
    }
}

/// Fixed answers, for tests: no packet leaves the machine.
#[cfg(test)]
pub(crate) struct TableLookup(pub std::collections::HashMap<String, Vec<IpAddr>>);

#[cfg(test)]
impl NameLookup for TableLookup {
    fn lookup(&self, host: &str) -> Lookup<'_> {
        let found = self.0.get(host).cloned().ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "unknown name"));
        Box::pin(async move { found })
    }
}

/// The resolver the module client uses: resolves, then refuses a name with any non-public address.
pub(crate) struct GuardedResolver {
    pub lookup: Arc<dyn NameLookup>,
    pub allow_private: bool,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let lookup = self.lookup.clone();
        let allow_private = self.allow_private;
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let found = lookup.lookup(&host).await?;
            if found.is_empty() {
                return Err(format!("{host} resolves to no address").into());
            }
            if let Some(refused) = found.iter().find(|ip| !allowed(**ip, allow_private)) {
                return Err(format!("{host} resolves to {refused}, which modules may not reach").into());
            }
            let addrs: Addrs = Box::new(found.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(addrs)
        })
    }
}

/// Whether a module may connect to `ip`: a public address, or any when private ones are allowed
/// (the unspecified and multicast addresses never).
pub(crate) fn allowed(ip: IpAddr, allow_private: bool) -> bool {
    if ip.is_unspecified() || ip.is_multicast() {
        return false;
    }
    allow_private || is_public(ip)
}

fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_public_v4(v4),
            None => is_public_v6(v6),
        },
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_broadcast()
        || ip.is_documentation()
        || a == 0
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 198 && (18..20).contains(&b)) // benchmarking
        || a >= 240)
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let [first, second, ..] = ip.segments();
    !(ip.is_loopback()
        || (first & 0xfe00) == 0xfc00 // unique local fc00::/7
        || (first & 0xffc0) == 0xfe80 // link local fe80::/10
        || (first == 0x2001 && second == 0x0db8) // documentation
        || (first == 0x0064 && second == 0xff9b) // NAT64, which reaches IPv4 addresses
        || ip.to_ipv4().is_some()) // IPv4-compatible ::a.b.c.d
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    #[test]
    fn private_loopback_link_local_and_unique_local_addresses_are_refused() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a9fe:a9fe",
            "224.0.0.1",
            "ff02::1",
        ] {
            assert!(!allowed(ip.parse().unwrap(), false), "{ip} is allowed");
        }
        for ip in ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "1.1.1.1"] {
            assert!(allowed(ip.parse().unwrap(), false), "{ip} is refused");
        }
        assert!(allowed("127.0.0.1".parse().unwrap(), true), "allowed when the deployment says so");
        assert!(!allowed("0.0.0.0".parse().unwrap(), true));
    }

    #[tokio::test]
    async fn a_name_resolving_to_a_private_address_is_refused() {
        let table = HashMap::from([
            ("rebind.test".to_owned(), vec!["127.0.0.1".parse().unwrap()]),
            ("mixed.test".to_owned(), vec!["93.184.216.34".parse().unwrap(), "10.0.0.1".parse().unwrap()]),
        ]);
        let resolver = GuardedResolver { lookup: Arc::new(TableLookup(table)), allow_private: false };
        for name in ["rebind.test", "mixed.test"] {
            let err = resolver.resolve(name.parse().unwrap()).await.err().expect("refused");
            assert!(err.to_string().contains("may not reach"), "{err}");
        }
    }
}
