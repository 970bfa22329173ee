//! What the element may do with a URL-mode elicitation's address: show it, highlight its host, warn
//! about look-alike tricks, and offer to open it only for `https:` or a loopback `http:` address.
//! Pure string work: the URL is never fetched (the spec forbids pre-fetching before consent).

/// The verdict on one URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlCheck {
    /// The URL exactly as sent, for display.
    pub full: String,
    /// The host (lower-cased, without port or user info), for highlighting; empty when none was found.
    pub host: String,
    /// Whether the element may offer to open it.
    pub openable: bool,
    /// A host label in punycode (`xn--`), which can imitate another domain.
    pub punycode: bool,
    /// User info before the host (`https://bank.example@evil.example/`), a classic disguise.
    pub userinfo: bool,
}

/// Checks `url`.
pub fn check(url: &str) -> UrlCheck {
    let full = url.to_owned();
    let refused =
        |host: String| UrlCheck { full: full.clone(), host, openable: false, punycode: false, userinfo: false };
    if url.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return refused(String::new());
    }
    // Not `split_once("://")`: a str pattern brings a str index panic path along (`text.rs`).
    let Some(at) = crate::text::find(url, "://") else { return refused(String::new()) };
    let (scheme, rest) = (url.get(..at).unwrap_or_default(), url.get(at + 3..).unwrap_or_default());
    let scheme = scheme.to_ascii_lowercase();
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let (userinfo, host_port) = match authority.rsplit_once('@') {
        Some((_, host_port)) => (true, host_port),
        None => (false, authority),
    };
    let host = strip_port(host_port).to_ascii_lowercase();
    let punycode = host.split('.').any(|label| label.starts_with("xn--"));
    let openable = !host.is_empty()
        && match scheme.as_str() {
            "https" => true,
            "http" => is_loopback(&host),
            _ => false,
        };
    UrlCheck { full, host, openable, punycode, userinfo }
}

fn strip_port(host_port: &str) -> &str {
    if let Some(rest) = host_port.strip_prefix('[') {
        // An IPv6 literal keeps its brackets: `[::1]:8080` → `[::1]`.
        return rest.find(']').and_then(|end| host_port.get(..end + 2)).unwrap_or(host_port);
    }
    host_port.split(':').next().unwrap_or("")
}

fn is_loopback(host: &str) -> bool {
    host == "localhost" || host.ends_with(".localhost") || host == "[::1]" || is_ipv4_loopback(host)
}

fn is_ipv4_loopback(host: &str) -> bool {
    let parts: Vec<&str> = host.split('.').collect();
    parts.len() == 4 && parts[0] == "127" && parts.iter().all(|p| p.parse::<u8>().is_ok())
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn https_and_loopback_http_are_openable() {
        let c = check("https://Pay.Example.com:8443/checkout?x=1");
        assert!(c.openable);
        assert_eq!(c.host, "pay.example.com");
        assert!(check("http://127.0.0.1:8787/fake-login?task=1").openable);
        assert!(check("http://localhost/").openable);
        assert!(check("http://[::1]:9000/x").openable);
        assert_eq!(check("http://[::1]:9000/x").host, "[::1]");
    }

    #[test]
    fn other_schemes_remote_http_and_malformed_urls_are_refused() {
        for url in [
            "http://example.com/",
            "javascript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "file:///etc/passwd",
            "https:///nohost",
            "https://exa mple.com/",
            "https://example.com/\nSet-Cookie",
            "not a url",
            "",
            "http://127.0.0.1.evil.example/",
        ] {
            assert!(!check(url).openable, "{url:?}");
        }
    }

    #[test]
    fn look_alike_tricks_are_flagged() {
        let c = check("https://bank.example.com@evil.example/login");
        assert!(c.userinfo);
        assert_eq!(c.host, "evil.example");
        assert!(check("https://xn--pple-43d.com/").punycode);
        assert!(!check("https://apple.com/").punycode);
    }
}
