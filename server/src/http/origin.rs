//! Which browser origins and `Host`s may talk to the server: loopback only. A page on any other origin
//! (a DNS-rebinding attack, or just a foreign site) is refused, as the transport spec asks of local
//! servers.
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
            Self::Host(h) => format!("Forbidden: host {h} is not allowed"),
        }
    }
}

/// Checks `Origin` (when present) and `Host` (when the server listens on loopback).
pub fn check(headers: &HeaderMap, listening_on_loopback: bool) -> Result<(), Refusal> {
    if let Some(origin) = headers.get("origin") {
        let origin = origin.to_str().unwrap_or("(not text)");
        if !origin_allowed(origin) {
            return Err(Refusal::Origin(origin.to_owned()));
        }
    }
    if listening_on_loopback {
        if let Some(host) = headers.get("host") {
            let host = host.to_str().unwrap_or("(not text)");
            if !is_loopback_host(host_part(host)) {
                return Err(Refusal::Host(host.to_owned()));
            }
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
}
