//! What the element may do with a URL-mode elicitation's address: which page it names, whether it may
//! offer to open it, and what to warn about.
//!
//! The address is read by the platform's URL parser (WHATWG URL, `new URL()`), never split by hand:
//! the browser opens what that parser reads, and a hand-written splitter disagrees with it on exactly
//! the addresses made to deceive (`https://evil.example\@bank.example/` is `evil.example` to the
//! parser, which ends the authority at `\`). So this module is pure and takes the parser's fields as
//! [`UrlParts`]: `bindings::element` fills them from JS `new URL()`, native tests from the `url` crate, which
//! implements the same standard. The URL is never fetched (the spec forbids pre-fetching before consent).

/// The fields of one URL as the WHATWG URL parser reads them (the getters of JS `URL`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UrlParts {
    /// The serialized URL: what the card shows and opens. All ASCII: the parser percent-encodes the
    /// rest and writes the host in punycode, so no bidi or look-alike character survives in it.
    pub href: String,
    /// The scheme with its colon (`https:`).
    pub protocol: String,
    /// The user name before the host, or empty.
    pub username: String,
    /// The password before the host, or empty.
    pub password: String,
    /// The host name in ASCII (punycode labels, IPv4 in dotted decimal, IPv6 in brackets).
    pub hostname: String,
    /// The host name with a non-default port (`bank.example:8443`).
    pub host: String,
}

impl UrlParts {
    /// The parts a parser's URL object holds, each read by its field name (`href`, `protocol`, …).
    pub fn from_fields(field: impl Fn(&str) -> String) -> Self {
        UrlParts {
            href: field("href"),
            protocol: field("protocol"),
            username: field("username"),
            password: field("password"),
            hostname: field("hostname"),
            host: field("host"),
        }
    }
}

/// The verdict on one URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlCheck {
    /// What to show: the parsed `href`, or the text as sent when it does not parse.
    pub full: String,
    /// The parser's host (ASCII, with a non-default port), for highlighting; empty when none.
    pub host: String,
    /// The host with its punycode labels decoded, when that differs from `host`: shown beside it, as
    /// the ASCII form alone is unreadable for a real international domain.
    pub unicode_host: Option<String>,
    /// Whether the element may offer to open it.
    pub openable: bool,
    /// The host has an international (punycode) label, which can imitate another domain.
    pub punycode: bool,
    /// A host label mixes letters of different scripts (`аpple` with a Cyrillic `а`).
    pub mixed_scripts: bool,
    /// User info before the host (`https://bank.example@evil.example/`), a classic disguise; refused.
    pub userinfo: bool,
    /// A remote server's address leads to this machine or a device on its network ([`is_local`]).
    pub local: bool,
}

impl UrlCheck {
    /// The label keys of the warnings to show, strongest first.
    pub fn warnings(&self) -> impl Iterator<Item = &'static str> {
        let refused = !self.openable && !self.userinfo;
        [
            (self.mixed_scripts, "url.mixedScripts"),
            (self.punycode, "url.punycode"),
            (self.userinfo, "url.userinfo"),
            (self.local, "url.local"),
            (refused, "url.refused"),
        ]
        .into_iter()
        .filter_map(|(on, key)| on.then_some(key))
    }
}

/// Checks `raw`, the URL as the server sent it, given what the parser read of it (`None`: it does not
/// parse). `server_loopback`: the MCP server itself is on this machine ([`is_loopback`] of its host),
/// the one case where a plain `http:` page may be offered, and then only a loopback one: a remote
/// server has no business sending the user to a page on the user's own machine, and a local one must
/// not send them to an unencrypted remote page. `server_local`: the server is on this machine or its
/// network ([`is_local`]); otherwise an address that is gets a warning.
pub fn check(raw: &str, parsed: Option<&UrlParts>, server_loopback: bool, server_local: bool) -> UrlCheck {
    let Some(url) = parsed else {
        return UrlCheck {
            full: raw.to_owned(),
            host: String::new(),
            unicode_host: None,
            openable: false,
            punycode: false,
            mixed_scripts: false,
            userinfo: false,
            local: false,
        };
    };
    let userinfo = !url.username.is_empty() || !url.password.is_empty();
    let mut unicode = String::new();
    let mut punycode = false;
    let mut mixed_scripts = false;
    // Label by label, split by hand: `text::pieces` here cost its iterator's own code.
    let mut rest = Some(url.hostname.as_str());
    let mut first = true;
    while let Some(text) = rest {
        let (label, after) = match crate::text::split_once(text, b'.') {
            Some((label, after)) => (label, Some(after)),
            None => (text, None),
        };
        if !first {
            unicode.push('.');
        }
        first = false;
        rest = after;
        let decoded = label.strip_prefix("xn--").and_then(decode_punycode);
        punycode |= decoded.is_some();
        let label = decoded.as_deref().unwrap_or(label);
        mixed_scripts |= mixes_scripts(label);
        unicode.push_str(label);
    }
    // The port, if any, follows the host name in `host`.
    unicode.push_str(url.host.strip_prefix(url.hostname.as_str()).unwrap_or_default());
    let openable = !url.hostname.is_empty()
        && !userinfo
        && match url.protocol.as_str() {
            "https:" => true,
            "http:" => server_loopback && is_loopback(&url.hostname),
            _ => false,
        };
    UrlCheck {
        full: url.href.clone(),
        unicode_host: (unicode != url.host).then_some(unicode),
        host: url.host.clone(),
        openable,
        punycode,
        mixed_scripts,
        userinfo,
        local: !server_local && is_local(&url.hostname),
    }
}

/// Whether `hostname`, as the parser writes it, names this machine: `localhost` and its subdomains,
/// `127.0.0.0/8`, `[::1]`. Plain comparisons suffice because the parser has normalised the host: it
/// writes `127.1` and `0x7f.1` as `127.0.0.1` and `LOCALHOST` as `localhost`, and a host of digits and
/// dots is always an IPv4 address written in full (a name whose last label is a number is parsed as
/// one or refused).
pub fn is_loopback(hostname: &str) -> bool {
    hostname == "localhost"
        || hostname.ends_with(".localhost")
        || hostname == "[::1]"
        || (hostname.starts_with("127.") && hostname.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
}

/// Whether `hostname`, as the parser writes it, names this machine or a device on its network:
/// [`is_loopback`], `*.local`, the IPv4 blocks 0/8, 10/8, 172.16/12, 192.168/16 and 169.254/16, and
/// IPv6 fc00::/7, fe80::/10 and every address written from `::` (loopback, unspecified, IPv4-mapped).
/// The parser writes IPv4 in dotted decimal and IPv6 in lower case, compressed, in brackets.
pub fn is_local(hostname: &str) -> bool {
    if is_loopback(hostname) || hostname.ends_with(".local") {
        return true;
    }
    if let Some(v6) = hostname.strip_prefix('[') {
        return v6.starts_with("::")
            || matches!(v6.get(..2), Some("fc" | "fd"))
            || matches!(v6.get(..3), Some("fe8" | "fe9" | "fea" | "feb"));
    }
    if !hostname.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return false;
    }
    // Octets of at most three digits each: the parser has checked them.
    let octet = |s: &str| s.bytes().fold(0u32, |n, b| n * 10 + u32::from(b - b'0'));
    let Some((a, rest)) = crate::text::split_once(hostname, b'.') else { return false };
    let b = octet(crate::text::split_once(rest, b'.').map_or(rest, |(b, _)| b));
    match octet(a) {
        0 | 10 => true,
        172 => (16..32).contains(&b),
        192 => b == 168,
        169 => b == 254,
        _ => false,
    }
}

/// A coarse script of one character: enough to see a label mixing alphabets. 0 is "no script"
/// (digits, `-`, combining marks); 255 is any letter outside the table, which then counts as one
/// script of its own.
fn script(c: char) -> u8 {
    // (first, last, script) in the Basic Multilingual Plane; Han, kana and Hangul are one class, as
    // Japanese and Korean mix them. u16, not u32: half the table's bytes in the .wasm.
    const RANGES: &[(u16, u16, u8)] = &[
        (0x30, 0x39, 0),
        (0x2d, 0x2d, 0),
        (0x61, 0x7a, 1),
        (0xc0, 0x24f, 1),
        (0x300, 0x36f, 0),
        (0x370, 0x3ff, 2),
        (0x400, 0x52f, 3),
        (0x530, 0x58f, 4),
        (0x590, 0x5ff, 5),
        (0x600, 0x6ff, 6),
        (0x750, 0x77f, 6),
        (0x8a0, 0x8ff, 6),
        (0x900, 0x97f, 7),
        (0xe00, 0xe7f, 8),
        (0x10a0, 0x10ff, 9),
        (0x1100, 0x11ff, 10),
        (0x1c80, 0x1c8f, 3),
        (0x1e00, 0x1eff, 1),
        (0x1f00, 0x1fff, 2),
        (0x2c60, 0x2c7f, 1),
        (0x2de0, 0x2dff, 3),
        (0x3040, 0x30ff, 10),
        (0x3130, 0x318f, 10),
        (0x3400, 0x4dbf, 10),
        (0x4e00, 0x9fff, 10),
        (0xa640, 0xa69f, 3),
        (0xa720, 0xa7ff, 1),
        (0xab30, 0xab6f, 1),
        (0xac00, 0xd7af, 10),
        (0xf900, 0xfaff, 10),
    ];
    let Ok(c) = u16::try_from(c as u32) else {
        // Above the BMP: the CJK extensions, or another script.
        return if (0x20000..=0x3134f).contains(&(c as u32)) { 10 } else { 255 };
    };
    for &(first, last, script) in RANGES {
        if first <= c && c <= last {
            return script;
        }
    }
    255
}

/// Whether `label` has letters of two or more scripts.
fn mixes_scripts(label: &str) -> bool {
    let mut seen = 0;
    for s in label.chars().map(script).filter(|s| *s != 0) {
        if seen != 0 && seen != s {
            return true;
        }
        seen = s;
    }
    false
}

/// Decodes one punycode label (RFC 3492, the part after `xn--`); `None` when it is not valid
/// punycode. The parser gives hosts only in ASCII, and the user must see the letters it stands for.
fn decode_punycode(input: &str) -> Option<String> {
    const BASE: u32 = 36;
    const T_MIN: u32 = 1;
    const T_MAX: u32 = 26;
    // The last `-`, found by a plain loop (a reverse search over `bytes()` brought its own iterator code).
    let mut last_dash = None;
    for (at, b) in input.bytes().enumerate() {
        if b == b'-' {
            last_dash = Some(at);
        }
    }
    let (basic, extended) = match last_dash {
        Some(at) => (input.get(..at)?, input.get(at + 1..)?),
        None => ("", input),
    };
    if !basic.is_ascii() || extended.is_empty() {
        return None;
    }
    let mut out: Vec<char> = basic.chars().collect();
    let (mut n, mut i, mut bias) = (0x80u32, 0u32, 72u32);
    let mut digits = extended.bytes();
    let mut first = true;
    while digits.len() > 0 {
        let old_i = i;
        let (mut w, mut k) = (1u32, BASE);
        loop {
            let digit = match digits.next()? {
                b @ b'a'..=b'z' => b - b'a',
                b @ b'0'..=b'9' => b - b'0' + 26,
                _ => return None,
            } as u32;
            i = i.checked_add(digit.checked_mul(w)?)?;
            let t = k.saturating_sub(bias).clamp(T_MIN, T_MAX);
            if digit < t {
                break;
            }
            w = w.checked_mul(BASE - t)?;
            k += BASE;
        }
        let len = out.len() as u32 + 1;
        // Bias adaptation (RFC 3492 section 6.1).
        let mut delta = (i - old_i) / if first { 700 } else { 2 };
        first = false;
        delta += delta / len;
        let mut k = 0;
        while delta > (BASE - T_MIN) * T_MAX / 2 {
            delta /= BASE - T_MIN;
            k += BASE;
        }
        bias = k + (BASE - T_MIN + 1) * delta / (delta + 38);
        n = n.checked_add(i / len)?;
        i %= len;
        out.insert(i as usize, char::from_u32(n)?);
        i += 1;
    }
    Some(out.into_iter().collect())
}

#[cfg(all(test, not(target_arch = "wasm32")))]
pub(crate) mod tests {
    use super::{check, decode_punycode, is_local, is_loopback, UrlCheck, UrlParts};
    use url::quirks;

    /// What the platform's parser reads of `raw`, through the `url` crate (WHATWG URL, as `new URL()`);
    /// the view's tests read URLs through it too.
    pub(crate) fn parse(raw: &str) -> Option<UrlParts> {
        let u = url::Url::parse(raw).ok()?;
        Some(UrlParts {
            href: quirks::href(&u).to_owned(),
            protocol: quirks::protocol(&u).to_owned(),
            username: quirks::username(&u).to_owned(),
            password: quirks::password(&u).to_owned(),
            hostname: quirks::hostname(&u).to_owned(),
            host: quirks::host(&u).to_owned(),
        })
    }

    /// `raw` checked as sent by a remote MCP server.
    fn remote(raw: &str) -> UrlCheck {
        check(raw, parse(raw).as_ref(), false, false)
    }

    /// `raw` checked as sent by an MCP server on this machine.
    fn local(raw: &str) -> UrlCheck {
        check(raw, parse(raw).as_ref(), true, true)
    }

    #[test]
    fn a_backslash_ends_the_authority_so_the_host_is_the_one_before_it() {
        let c = remote("https://evil.example\\@bank.example/login");
        assert_eq!(c.host, "evil.example");
        assert_eq!(c.full, "https://evil.example/@bank.example/login", "shows and opens the parsed href");
        assert!(!c.userinfo, "no user info: the @ is in the path");
        assert!(c.openable, "an https page, named by its real host");
        assert_eq!(c.unicode_host, None);
    }

    #[test]
    fn the_shown_and_opened_url_is_the_parsed_href_with_its_real_host() {
        let c = remote("https://Pay.Example.com:8443/checkout?x=1#top");
        assert_eq!(c.full, "https://pay.example.com:8443/checkout?x=1#top");
        assert_eq!(c.host, "pay.example.com:8443");
        assert!(c.openable);
        assert_eq!(remote("https://pay.example.com:443/a").host, "pay.example.com", "no default port");
        // Tabs and newlines are dropped by the parser, as window.open drops them.
        assert_eq!(remote("https://example.com/a\n\tb").full, "https://example.com/ab");
        // Non-ASCII in the path is percent-encoded: nothing in the shown text can reorder it (bidi).
        assert_eq!(remote("https://example.com/\u{202e}gpj.exe").full, "https://example.com/%E2%80%AEgpj.exe");
    }

    #[test]
    fn percent_encoded_hosts_are_shown_as_the_parser_decodes_them() {
        let c = remote("https://bank.example%2eevil.com/");
        assert_eq!(c.host, "bank.example.evil.com");
        assert_eq!(c.full, "https://bank.example.evil.com/");
        assert_eq!(remote("https://%62ank.example/").host, "bank.example");
    }

    #[test]
    fn user_info_is_refused_with_a_warning() {
        for raw in [
            "https://bank.example.com@evil.example/login",
            "https://bank.example.com:pw@evil.example/",
            "https://:pw@evil.example/",
            "http://user@127.0.0.1:8080/",
        ] {
            let c = local(raw);
            assert!(c.userinfo && !c.openable, "{raw}: {c:?}");
            assert!(c.warnings().any(|w| w == "url.userinfo"), "{raw}");
        }
        assert_eq!(remote("https://bank.example.com@evil.example/").host, "evil.example");
    }

    #[test]
    fn a_cyrillic_look_alike_shows_both_forms_and_warns_of_mixed_scripts() {
        let c = remote("https://\u{430}pple.com/"); // Cyrillic а, then Latin "pple"
        assert_eq!(c.host, "xn--pple-43d.com");
        assert_eq!(c.full, "https://xn--pple-43d.com/");
        assert_eq!(c.unicode_host.as_deref(), Some("\u{430}pple.com"));
        assert!(c.punycode && c.mixed_scripts);
        assert_eq!(c.warnings().collect::<Vec<_>>(), ["url.mixedScripts", "url.punycode"]);
        assert_eq!(remote("https://xn--pple-43d.com/"), c, "sent already in punycode: the same");
    }

    #[test]
    fn scripts_are_compared_within_each_label() {
        // One script per label, or one script plus digits and hyphens: shown in both forms, warned as
        // international only.
        for raw in ["https://münchen.de/", "https://пример.рф/", "https://例え.テスト/", "https://ไทย-2.example/"]
        {
            let c = remote(raw);
            assert!(c.punycode && !c.mixed_scripts, "{raw}: {c:?}");
            assert!(c.unicode_host.is_some(), "{raw}");
        }
        assert_eq!(remote("https://münchen.de:8443/").unicode_host.as_deref(), Some("münchen.de:8443"));
        assert!(!remote("https://\u{20000}\u{4e00}.example/").mixed_scripts, "Han beyond the BMP is Han");
        // Mixed inside one label: Greek omicron in Latin, Latin in Cyrillic, Armenian in Latin, Han.
        for raw in [
            "https://g\u{3bf}\u{3bf}gle.com/",
            "https://\u{43f}aypal.com/",
            "https://\u{585}pple.com/",
            "https://a\u{20000}.example/",
        ] {
            assert!(remote(raw).mixed_scripts, "{raw}");
        }
        let plain = remote("https://apple.com/");
        assert!(!plain.punycode && !plain.mixed_scripts && plain.unicode_host.is_none());
        assert_eq!(plain.warnings().count(), 0);
    }

    #[test]
    fn http_only_when_the_page_and_the_server_are_both_loopback() {
        for raw in
            ["http://127.0.0.1:8787/fake-login?task=1", "http://localhost/", "http://[::1]:9000/x", "http://127.1/"]
        {
            assert!(local(raw).openable, "{raw}");
            assert!(!remote(raw).openable, "{raw}: a remote server may not send the user to this machine");
        }
        assert_eq!(local("http://[::1]:9000/x").host, "[::1]:9000");
        assert_eq!(local("http://127.1/").host, "127.0.0.1");
        for raw in ["http://example.com/", "http://127.0.0.1.evil.example/", "http://[::2]/", "http://128.0.0.1/"] {
            let c = local(raw);
            assert!(!c.openable, "{raw}");
            assert_eq!(c.warnings().collect::<Vec<_>>(), ["url.refused"], "{raw}");
        }
        assert!(remote("https://127.0.0.1/").openable, "https is fine anywhere");
    }

    #[test]
    fn other_schemes_and_unparsable_urls_are_refused() {
        for raw in [
            "javascript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "file:///etc/passwd",
            "blob:https://example.com/1",
            "ftp://example.com/file",
            "wss://example.com/",
            "https://exa mple.com/",
            "not a url",
            "/relative",
            "",
        ] {
            let c = local(raw);
            assert!(!c.openable, "{raw}");
            assert!(c.warnings().any(|w| w == "url.refused"), "{raw}");
        }
        assert_eq!(local("not a url").full, "not a url", "unparsable text is shown as sent");
    }

    #[test]
    fn loopback_hosts_are_matched_as_the_parser_writes_them() {
        let hostname = |host: &str| parse(&format!("http://{host}/")).map(|p| p.hostname).unwrap_or_default();
        for host in ["localhost", "LocalHost", "app.localhost", "127.0.0.1", "127.255.0.9", "127.1", "0x7f.1", "[::1]"]
        {
            assert!(is_loopback(&hostname(host)), "{host}");
        }
        for host in [
            "localhost.example",
            "127.0.0.1.example",
            "127.evil.1a2",
            "1127.0.0.1",
            "126.0.0.1",
            "[::2]",
            "[::ffff:7f00:1]",
        ] {
            assert!(!is_loopback(&hostname(host)), "{host}");
        }
    }

    #[test]
    fn a_remote_servers_address_on_this_machine_or_its_network_is_flagged() {
        let hostname = |host: &str| parse(&format!("https://{host}/")).map(|p| p.hostname).unwrap_or_default();
        for host in [
            "localhost",
            "app.localhost",
            "127.0.0.1",
            "0x7f.1",
            "[::1]",
            "printer.local",
            "0.0.0.0",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "2852039166",
            "[fc00::1]",
            "[fdab::1]",
            "[fe80::1]",
            "[febf::1]",
            "[::ffff:7f00:1]",
            "[::ffff:10.0.0.1]",
            "[::]",
        ] {
            assert!(is_local(&hostname(host)), "{host}");
        }
        for host in [
            "example.com",
            "local",
            "localhost.example",
            "9.255.255.255",
            "11.0.0.1",
            "172.15.0.1",
            "172.32.0.1",
            "192.167.1.1",
            "169.253.0.1",
            "100.64.0.1",
            "[2001:db8::1]",
            "[fec0::1]",
            "[fe7f::1]",
            "1.2.3.4",
        ] {
            assert!(!is_local(&hostname(host)), "{host}");
        }
        let c = remote("https://192.168.1.10/admin");
        assert!(c.openable, "https is opened, with its warning");
        assert_eq!(c.warnings().collect::<Vec<_>>(), ["url.local"]);
        assert!(!remote("https://bank.example/").local);
        assert!(!local("http://192.168.1.10/").local, "a server on this machine may send the user there");
        let lan = check("https://10.0.0.2/", parse("https://10.0.0.2/").as_ref(), false, true);
        assert!(!lan.local, "nor may a server on the same network");
    }

    #[test]
    fn punycode_decodes_as_rfc_3492_says_and_as_the_url_crate_encodes() {
        // RFC 3492 section 7.1 samples, lower-cased as the parser writes hosts.
        for (encoded, expected) in [
            ("egbpdaj6bu4bxfgehfvwxn", "ليهمابتكلموشعربي؟"),
            ("ihqwcrb4cv8a8dqg056pqjye", "他们为什么不说中文"),
            ("b1abfaaepdrnnbgefbadotcwatmq2g4l", "почемужеонинеговорятпорусски"),
            ("3b-ww4c5e180e575a65lsy2b", "3年b組金八先生"),
        ] {
            assert_eq!(decode_punycode(encoded).as_deref(), Some(expected), "{encoded}");
        }
        for unicode in ["\u{430}pple", "münchen", "例え", "ไทย-2", "ελληνικά"] {
            let u = url::Url::parse(&format!("https://{unicode}.example/")).expect("a valid host");
            let label = u.host_str().and_then(|h| h.strip_suffix(".example")).and_then(|l| l.strip_prefix("xn--"));
            assert_eq!(label.and_then(decode_punycode).as_deref(), Some(unicode), "{:?}", u.host_str());
        }
        for bad in ["", "abc-", "ab!c", "99999999999", "zzzzzzzzzzzzzzzzzzzz"] {
            assert_eq!(decode_punycode(bad), None, "{bad:?}");
        }
    }
}
