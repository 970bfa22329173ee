//! The store keys of one client: everything it reads and writes sits under one prefix per namespace
//! and server URL, and the same prefix names its Web Lock and BroadcastChannel.
//!
//! A key is `mcp-tasks/2/{namespace}/{server}/task/{id}` (or `…/call/{id}`, `…/server`, `…/pause`), each part
//! escaped (`%` as `%25`, `/` as `%2F`). A part then holds no `/`, so a key splits back into exactly
//! the parts it was built from and no client's prefix starts another's. The previous release wrote
//! the parts bare (`mcp-tasks/1/…`): a client on `https://h` listed, and so loaded and expired, the
//! records of a client on `https://h/task`, and a namespace `a/b` met a namespace `a` on a server
//! whose URL began with `b/`. [`Keys::migrated`] carries that release's records over.
//!
//! `{server}` is the URL as given without its user-info, query and fragment: they may carry secrets
//! (`user:pass@`, `?token=…`), and keys are stored in the clear and lock names can be listed by any
//! script of the origin. Clients on one server that differ only there share their records: the
//! namespace is what keeps users apart.

/// Scope of the keys a client reads and writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keys {
    prefix: String,
    /// The prefix the previous release gave the same namespace and URL, bare (see [`Keys::migrated`]).
    previous: String,
}

/// Appends `part` with `%` and `/` escaped, the two characters the key grammar gives a meaning.
fn push_escaped(out: &mut String, part: &str) {
    for c in part.chars() {
        match c {
            '%' => out.push_str("%25"),
            '/' => out.push_str("%2F"),
            c => out.push(c),
        }
    }
}

/// `part` as [`push_escaped`] wrote it; `None` for any other form (a bare `/`, an escape it never
/// writes), so that a part has exactly one key.
fn unescape(part: &str) -> Option<String> {
    let mut out = String::with_capacity(part.len());
    let mut chars = part.chars();
    while let Some(c) = chars.next() {
        out.push(match c {
            '/' => return None,
            '%' => match (chars.next(), chars.next()) {
                (Some('2'), Some('5')) => '%',
                (Some('2'), Some('F')) => '/',
                _ => return None,
            },
            c => c,
        });
    }
    Some(out)
}

/// `url` without its query and fragment, as the part before its user-info and the part after (the
/// user-info left out). The authority follows the scheme and any slashes (`https://`, and `https:`
/// alone, which `fetch` reads the same), or at least two slashes with no scheme (`//host/…`); it ends
/// at the next `/` or `\`, and everything to its last `@` is user-info. A path (`/mcp`) is kept whole.
/// (Byte loops, not `str` searches: those bring a pattern searcher each.)
fn without_credentials(url: &str) -> (&str, &str) {
    let slash = |b: &u8| matches!(b, b'/' | b'\\');
    let bytes = url.as_bytes();
    let end = bytes.iter().position(|b| matches!(b, b'?' | b'#')).unwrap_or(bytes.len());
    let bytes = bytes.get(..end).unwrap_or_default();
    // A scheme ends at a `:` before any slash.
    let scheme = match bytes.iter().position(|b| *b == b':' || slash(b)) {
        Some(colon) if bytes.get(colon) == Some(&b':') => colon + 1,
        _ => 0,
    };
    let mut start = scheme;
    while bytes.get(start).is_some_and(slash) {
        start += 1;
    }
    let authority = bytes.get(start..).unwrap_or_default();
    let host_end = authority.iter().position(slash).unwrap_or(authority.len());
    let at = authority.get(..host_end).and_then(|host| host.iter().rposition(|b| *b == b'@'));
    match at {
        Some(at) if scheme > 0 || start > 1 => {
            (url.get(..start).unwrap_or_default(), url.get(start + at + 1..end).unwrap_or_default())
        }
        _ => (url.get(..end).unwrap_or_default(), ""),
    }
}

impl Keys {
    /// The keys of `namespace` on the server at `url`.
    pub fn new(namespace: &str, url: &str) -> Self {
        let (before, after) = without_credentials(url);
        let mut prefix = String::from("mcp-tasks/2/");
        push_escaped(&mut prefix, namespace);
        prefix.push('/');
        push_escaped(&mut prefix, before);
        push_escaped(&mut prefix, after);
        prefix.push('/');
        Self { prefix, previous: format!("mcp-tasks/1/{namespace}/{url}/") }
    }

    /// Every key of this client starts with this.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    fn entry(&self, kind: &str, id: &str) -> String {
        let mut key = self.prefix.clone();
        key.push_str(kind);
        push_escaped(&mut key, id);
        key
    }

    /// The key of task `id`'s record.
    pub fn task(&self, id: &str) -> String {
        self.entry("task/", id)
    }

    /// The key of the pending call `id`.
    pub fn call(&self, id: &str) -> String {
        self.entry("call/", id)
    }

    /// The key that remembers which task generation the server speaks.
    pub fn server(&self) -> String {
        format!("{}server", self.prefix)
    }

    /// The key of the server's `Retry-After` met by a request of no task (`client_state::pause`).
    pub fn pause(&self) -> String {
        format!("{}pause", self.prefix)
    }

    /// The name of the Web Lock that picks the tab that polls, and of the BroadcastChannel the tabs
    /// share: one per prefix, so tabs of different namespaces or servers never wait for each other.
    pub fn tabs(&self) -> String {
        format!("mcp-tasks-web|{}", self.prefix)
    }

    /// The `localStorage` key of the poller's hint of tasks to poll before the store opens.
    pub fn early_hint(&self) -> String {
        format!("mcp-tasks-web|early|{}", self.prefix)
    }

    /// What a stored key names: a task, a call, or something else under the prefix.
    pub fn classify(&self, key: &str) -> StoredKey {
        let rest = key.strip_prefix(self.prefix.as_str()).and_then(|rest| crate::text::split_once(rest, b'/'));
        match rest.and_then(|(kind, id)| Some((kind, unescape(id)?))) {
            Some(("task", id)) => StoredKey::Task(id),
            Some(("call", id)) => StoredKey::Call(id),
            _ => StoredKey::Other,
        }
    }

    /// Where the previous release kept this client's records: listing it finds every key
    /// [`Self::migrated`] may take (and other clients' keys, which it leaves).
    pub fn previous_prefix(&self) -> &str {
        &self.previous
    }

    /// This release's key for `old`, a key the previous release wrote bare, when `old` is surely this
    /// client's task, call or server record; `None` otherwise (the key stays where it is).
    ///
    /// Under a bare prefix, `task/x/y` may be this client's task `x/y` or a client whose URL ends
    /// in `/task` with its key `x/y`, and `task/server` may be that client's `server` record: ids with
    /// a `/` and the id `server` are left (server task ids are rarely either; call ids never are).
    pub fn migrated(&self, old: &str) -> Option<String> {
        let rest = old.strip_prefix(self.previous.as_str())?;
        if rest == "server" {
            return Some(self.server());
        }
        let (kind, id) = crate::text::split_once(rest, b'/')?;
        if id.bytes().any(|b| b == b'/') || id == "server" {
            return None;
        }
        match kind {
            "task" => Some(self.task(id)),
            "call" => Some(self.call(id)),
            _ => None,
        }
    }

    /// The moves a migration makes of what the store listed under [`Self::previous_prefix`]: (old key,
    /// new key, text), in the listed order, leaving every key [`Self::migrated`] does not claim. Each
    /// is written under its new key (only where no record is) before its old key is deleted, so a run
    /// that stops midway loses nothing and the next one carries on.
    pub fn moves<'a>(
        &'a self,
        listed: &'a [(&'a str, &'a str)],
    ) -> impl Iterator<Item = (&'a str, String, &'a str)> + 'a {
        listed.iter().filter_map(|&(old, text)| Some((old, self.migrated(old)?, text)))
    }
}

/// What a key under a client's prefix holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoredKey {
    /// A task record, with its id.
    Task(String),
    /// A pending call, with its id.
    Call(String),
    /// Something this release does not write.
    Other,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_read_back_as_what_they_name() {
        let keys = Keys::new("user-1", "http://127.0.0.1:8787/mcp");
        assert_eq!(keys.task("t1"), "mcp-tasks/2/user-1/http:%2F%2F127.0.0.1:8787%2Fmcp/task/t1");
        assert_eq!(keys.classify(&keys.task("t1")), StoredKey::Task("t1".into()));
        assert_eq!(keys.classify(&keys.call("c1")), StoredKey::Call("c1".into()));
        assert_eq!(keys.classify(&keys.task("a/b%2F")), StoredKey::Task("a/b%2F".into()));
        assert_eq!(keys.classify(&keys.server()), StoredKey::Other);
        assert_eq!(keys.classify("mcp-tasks/2/other/x/task/t1"), StoredKey::Other);
        assert_eq!(keys.classify(&format!("{}lease", keys.prefix())), StoredKey::Other);
    }

    #[test]
    fn only_the_escapes_it_writes_read_back() {
        for written in ["", "a", "%25", "%2F", "a%2Fb%25%25"] {
            assert!(unescape(written).is_some(), "{written}");
        }
        for foreign in ["a/b", "%2f", "%41", "%2", "%", "%%25"] {
            assert_eq!(unescape(foreign), None, "{foreign}");
        }
    }

    #[test]
    fn the_server_part_drops_user_info_query_and_fragment() {
        let cases = [
            ("https://h/mcp", ("https://h/mcp", "")),
            ("https://u:p@h/mcp?token=1#top", ("https://", "h/mcp")),
            ("https://a@b@h:8443/x@y", ("https://", "h:8443/x@y")),
            ("https:u@h/mcp", ("https:", "h/mcp")),
            ("https:\\\\u@h\\mcp", ("https:\\\\", "h\\mcp")),
            ("//u@h/mcp", ("//", "h/mcp")),
            ("/mcp?x", ("/mcp", "")),
            ("/u@h/mcp", ("/u@h/mcp", "")),
            ("http://[::1]:8/mcp#f", ("http://[::1]:8/mcp", "")),
        ];
        for (url, parts) in cases {
            assert_eq!(without_credentials(url), parts, "{url}");
        }
    }

    #[test]
    fn previous_keys_move_only_when_they_are_surely_this_clients() {
        let keys = Keys::new("ns", "https://u:p@h?x=1");
        let old = "mcp-tasks/1/ns/https://u:p@h?x=1/";
        assert_eq!(keys.previous_prefix(), old);
        assert_eq!(keys.migrated(&format!("{old}task/t1")), Some(keys.task("t1")));
        assert_eq!(keys.migrated(&format!("{old}call/c%1")), Some(keys.call("c%1")));
        assert_eq!(keys.migrated(&format!("{old}server")), Some(keys.server()));
        // What a client on `https://u:p@h?x=1/task` wrote, or a task id that may be one of its keys.
        for other in ["task/task/t1", "task/server", "task/call/c1", "server/x", "lease", "task", "tasks/t1"] {
            assert_eq!(keys.migrated(&format!("{old}{other}")), None, "{other}");
        }
        assert_eq!(keys.migrated("mcp-tasks/1/ns/https://h/task/t1"), None);
    }
}
