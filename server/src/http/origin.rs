//! Which browser origins and `Host`s may talk to the server. Origins: loopback only; a page on any
//! other origin is refused. `Host`: a loopback name, a name given with `--allowed-host`, or (on a
//! non-loopback bind) an IP address; any other name is refused on every bind, since that is what a
//! DNS-rebinding page sends (its own name, now resolving to this server), as the transport spec asks
//! of servers.
use axum::http::HeaderMap;

/// Whether `host` (no port) is a loopback name or address.
fn is_loopback_host(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.eq_ignore_ascii_case("localhost") || host.to_ascii_lowercase().ends_with(".localhost") {
        return true;
    }
    match host.parse::<std::net::IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => false,
    }
}

/// Splits `host[:port]` (IPv6 in brackets) and returns the host part.
fn host_part(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split(']').next().unwrap_or("");
    }
    authority
        .rsplit_once(':')
        .map_or(authority, |(h, port)| if port.chars().all(|c| c.is_ascii_digit()) { h } else { authority })
}

/// Whether a browser `Origin` value is a loopback origin (http or https, any port).
pub fn origin_allowed(origin: &str) -> bool {
    let Some((scheme, rest)) = origin.split_once("://") else { return false };
    if scheme != "http" && scheme != "https" {
        return false;
    }
    let authority = rest.split('/').next().unwrap_or("");
    is_loopback_host(host_part(authority))
}

/// Why a request was refused at the door.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A foreign `Origin`.
    Origin(String),
    /// A foreign `Host` (DNS rebinding).
    Host(String),
}

impl Refusal {
    /// The message sent back.
    pub fn message(&self) -> String {
        match self {
            Self::Origin(o) => format!("Forbidden: origin {o} is not allowed"),
            Self::Host(h) => format!(
                "Forbidden: host {h} is not allowed (DNS-rebinding protection); a server that should answer \
                 this name is started with --allowed-host NAME"
            ),
        }
    }
}

/// Which `Host`s the server answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPolicy {
    /// Whether the server listens on a loopback address.
    pub loopback_bind: bool,
    /// Names given with `--allowed-host` (lowercase, no port).
    pub allowed: Vec<String>,
}

impl HostPolicy {
    /// The policy for a server bound to `bind` that also accepts the names in `allowed`.
    pub fn new(bind: std::net::IpAddr, allowed: &[String]) -> Self {
        let allowed = allowed.iter().map(|name| normalize(host_part(name))).collect();
        Self { loopback_bind: bind.is_loopback(), allowed }
    }

    /// Whether a request whose `Host` header is `authority` (`host[:port]`) is answered: a loopback
    /// name or address; a name in `allowed`; on a non-loopback bind, also an IP address, which no
    /// DNS-rebinding page can send (its `Host` is the attacker's name). Every other name is refused.
    pub fn host_allowed(&self, authority: &str) -> bool {
        let host = host_part(authority);
        if is_loopback_host(host) || self.allowed.iter().any(|name| *name == normalize(host)) {
            return true;
        }
        !self.loopback_bind && host.trim_start_matches('[').trim_end_matches(']').parse::<std::net::IpAddr>().is_ok()
    }
}

/// A host name as compared: lowercase, without a trailing dot or IPv6 brackets.
fn normalize(host: &str) -> String {
    host.trim_start_matches('[').trim_end_matches(']').trim_end_matches('.').to_ascii_lowercase()
}

/// Checks `Origin` (when present) and `Host` (when present) against `hosts`.
pub fn check(headers: &HeaderMap, hosts: &HostPolicy) -> Result<(), Refusal> {
    if let Some(origin) = headers.get("origin") {
        let origin = origin.to_str().unwrap_or("(not text)");
        if !origin_allowed(origin) {
            return Err(Refusal::Origin(origin.to_owned()));
        }
    }
    if let Some(host) = headers.get("host") {
        let host = host.to_str().unwrap_or("(not text)");
        if !hosts.host_allowed(host) {
            return Err(Refusal::Host(host.to_owned()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_origins_only() {
        for ok in [
            "http://localhost:5173",
            "http://127.0.0.1:8787",
            "https://localhost",
            "http://[::1]:3000",
            "http://app.localhost:1",
        ] {
            assert!(origin_allowed(ok), "{ok}");
        }
        for bad in [
            "http://evil.example",
            "null",
            "file://",
            "http://127.0.0.1.evil.example",
            "ftp://localhost",
            "http://localhost.evil.com",
        ] {
            assert!(!origin_allowed(bad), "{bad}");
        }
    }

    #[test]
    fn host_parts() {
        assert_eq!(host_part("127.0.0.1:8787"), "127.0.0.1");
        assert_eq!(host_part("[::1]:80"), "::1");
        assert_eq!(host_part("localhost"), "localhost");
        assert!(is_loopback_host(host_part("localhost:1")));
        assert!(!is_loopback_host(host_part("evil.example:8787")));
    }

    #[test]
    fn hosts_on_a_loopback_bind() {
        let policy = HostPolicy::new([127, 0, 0, 1].into(), &[]);
        for ok in ["127.0.0.1:8787", "localhost", "LOCALHOST:1", "[::1]:80", "app.localhost"] {
            assert!(policy.host_allowed(ok), "{ok}");
        }
        for bad in ["evil.example", "evil.example:8787", "192.0.2.7:8787", "127.0.0.1.evil.example", "(not text)"] {
            assert!(!policy.host_allowed(bad), "{bad}");
        }
        let named = HostPolicy::new([127, 0, 0, 1].into(), &["Tasks.Example".to_owned()]);
        assert!(named.host_allowed("tasks.example:443"), "behind a proxy that keeps the name");
        assert!(named.host_allowed("TASKS.EXAMPLE."));
        assert!(!named.host_allowed("evil.example"));
    }

    #[test]
    fn hosts_on_a_non_loopback_bind() {
        for bind in [std::net::IpAddr::from([0, 0, 0, 0]), "::".parse().expect("ip"), [192, 0, 2, 7].into()] {
            let policy = HostPolicy::new(bind, &[]);
            assert!(!policy.loopback_bind);
            for ok in ["127.0.0.1:8787", "localhost", "[::1]:80", "192.0.2.7:8787", "10.1.2.3", "[2001:db8::1]:8787"] {
                assert!(policy.host_allowed(ok), "{bind} {ok}");
            }
            for bad in ["evil.example", "evil.example:8787", "tasks.example", "192.0.2.7.evil.example", "(not text)"] {
                assert!(!policy.host_allowed(bad), "{bind} {bad}: a name is refused unless allowed");
            }
            let named = HostPolicy::new(bind, &["tasks.example".to_owned(), "other.example:8787".to_owned()]);
            assert!(named.host_allowed("tasks.example:8787"));
            assert!(named.host_allowed("other.example"), "a port given with the name is ignored");
            assert!(!named.host_allowed("evil.example"));
            assert!(!named.host_allowed("sub.tasks.example"), "exact names, no subdomains");
        }
    }

    #[test]
    fn check_refuses_a_foreign_host_on_any_bind() {
        let mut headers = HeaderMap::new();
        headers.insert("host", "evil.example:8787".parse().expect("header"));
        let refusal = check(&headers, &HostPolicy::new([0, 0, 0, 0].into(), &[])).expect_err("refused");
        assert_eq!(refusal, Refusal::Host("evil.example:8787".into()));
        assert!(refusal.message().contains("--allowed-host"));
        let allowed = HostPolicy::new([0, 0, 0, 0].into(), &["evil.example".to_owned()]);
        assert_eq!(check(&headers, &allowed), Ok(()));
    }
}
