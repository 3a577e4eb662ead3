//! The client's address behind reverse proxies (`http.trusted_proxies`).
//!
//! `X-Forwarded-For` is believed only from a peer in the configured list: anybody can write the
//! header, so a client connecting directly could otherwise name a new address on every request
//! and never meet a per-address limit. From a trusted peer, the client is the rightmost entry
//! that is not itself a trusted proxy (each proxy appends the address it was connected from, so
//! the entries right of the client's were written by proxies we trust, and those left of it by
//! whoever the client is).

use std::net::IpAddr;

use ipnet::IpNet;

/// The proxies whose `X-Forwarded-For` entries are believed; empty believes none.
#[derive(Clone, Debug, Default)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// Parses addresses (`10.0.0.7`, `::1`) and networks (`10.0.0.0/8`, `fd00::/8`); the error
    /// names the first entry that is neither.
    pub fn parse(entries: &[String]) -> Result<Self, String> {
        let nets = entries
            .iter()
            .map(|entry| {
                let text = entry.trim();
                text.parse::<IpNet>()
                    .map(|net| net.trunc())
                    .or_else(|_| text.parse::<IpAddr>().map(IpNet::from))
                    .map_err(|_| format!("{entry:?} is neither an IP address nor a network such as \"10.0.0.0/8\""))
            })
            .collect::<Result<_, _>>()?;
        Ok(Self(nets))
    }

    fn trusts(&self, address: IpAddr) -> bool {
        let address = address.to_canonical();
        self.0.iter().any(|net| net.contains(&address))
    }

    /// The client behind `peer`, given the `X-Forwarded-For` header lines in order: `peer` itself
    /// unless it is a trusted proxy; else the rightmost entry that is not a trusted proxy. An
    /// entry that is no address ends the walk at the nearest trusted hop right of it, as does a
    /// chain of trusted proxies only, so a client cannot reach past what a trusted proxy wrote.
    pub fn client<'a>(&self, peer: IpAddr, forwarded_for: impl Iterator<Item = &'a str>) -> IpAddr {
        let peer = peer.to_canonical();
        if !self.trusts(peer) {
            return peer;
        }
        let entries: Vec<&str> = forwarded_for.flat_map(|line| line.split(',')).map(str::trim).collect();
        let mut nearest = peer;
        for entry in entries.iter().rev() {
            let Ok(address) = entry.parse::<IpAddr>() else { return nearest };
            let address = address.to_canonical();
            if !self.trusts(address) {
                return address;
            }
            nearest = address;
        }
        nearest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proxies(entries: &[&str]) -> TrustedProxies {
        TrustedProxies::parse(&entries.iter().map(|e| (*e).to_owned()).collect::<Vec<_>>()).unwrap()
    }

    fn client(trusted: &TrustedProxies, peer: &str, lines: &[&str]) -> String {
        trusted.client(peer.parse().unwrap(), lines.iter().copied()).to_string()
    }

    #[test]
    fn a_peer_outside_the_list_is_the_client_whatever_it_writes() {
        let trusted = proxies(&["10.0.0.0/8"]);
        assert_eq!(client(&trusted, "127.0.0.1", &["203.0.113.9"]), "127.0.0.1");
        assert_eq!(client(&TrustedProxies::default(), "10.0.0.1", &["203.0.113.9"]), "10.0.0.1");
    }

    #[test]
    fn the_client_is_the_rightmost_entry_that_is_no_trusted_proxy() {
        let trusted = proxies(&["10.0.0.0/8", "192.0.2.1"]);
        assert_eq!(client(&trusted, "10.0.0.2", &["6.6.6.6, 203.0.113.7"]), "203.0.113.7");
        assert_eq!(client(&trusted, "10.0.0.2", &["6.6.6.6, 203.0.113.7, 192.0.2.1, 10.1.1.1"]), "203.0.113.7");
        assert_eq!(client(&trusted, "10.0.0.2", &["6.6.6.6", "203.0.113.7"]), "203.0.113.7");
        assert_eq!(client(&trusted, "::ffff:10.0.0.2", &["2001:db8::1"]), "2001:db8::1");
    }

    #[test]
    fn a_chain_of_proxies_only_or_a_malformed_entry_stops_at_the_nearest_trusted_hop() {
        let trusted = proxies(&["10.0.0.0/8"]);
        assert_eq!(client(&trusted, "10.0.0.2", &[]), "10.0.0.2");
        assert_eq!(client(&trusted, "10.0.0.2", &["10.0.0.5, 10.0.0.3"]), "10.0.0.5");
        assert_eq!(client(&trusted, "10.0.0.2", &["6.6.6.6, junk, 10.0.0.3"]), "10.0.0.3");
        assert_eq!(client(&trusted, "10.0.0.2", &["junk"]), "10.0.0.2");
    }

    #[test]
    fn entries_are_addresses_or_networks() {
        assert!(TrustedProxies::parse(&["127.0.0.1".into(), "10.0.0.0/8".into(), "fd00::/8".into()]).is_ok());
        for bad in ["10.0.0.0/33", "localhost", "", "10.0.0.0/8, 10.0.0.1"] {
            assert!(TrustedProxies::parse(&[bad.into()]).is_err(), "{bad:?}");
        }
    }
}
