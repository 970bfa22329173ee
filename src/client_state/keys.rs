//! The store keys of one client: everything it reads and writes sits under one prefix per namespace
//! and server URL.
/// Scope of the keys a client reads and writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keys {
    prefix: String,
}

impl Keys {
    /// The keys of `namespace` on the server at `url`.
    pub fn new(namespace: &str, url: &str) -> Self {
        Self { prefix: format!("mcp-tasks/1/{namespace}/{url}/") }
    }

    /// Every key of this client starts with this.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The key of task `id`'s record.
    pub fn task(&self, id: &str) -> String {
        format!("{}task/{id}", self.prefix)
    }

    /// The key of the pending call `id`.
    pub fn call(&self, id: &str) -> String {
        format!("{}call/{id}", self.prefix)
    }

    /// The key that remembers which task generation the server speaks.
    pub fn server(&self) -> String {
        format!("{}server", self.prefix)
    }

    /// What a stored key names: a task, a call, or something else under the prefix.
    pub fn classify<'k>(&self, key: &'k str) -> StoredKey<'k> {
        let rest = key.get(self.prefix.len()..).filter(|_| key.starts_with(self.prefix.as_str()));
        match rest {
            Some(rest) => match (rest.strip_prefix("task/"), rest.strip_prefix("call/")) {
                (Some(id), _) => StoredKey::Task(id),
                (_, Some(id)) => StoredKey::Call(id),
                _ => StoredKey::Other,
            },
            None => StoredKey::Other,
        }
    }
}

/// What a key under a client's prefix holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoredKey<'k> {
    /// A task record, with its id.
    Task(&'k str),
    /// A pending call, with its id.
    Call(&'k str),
    /// Something this release does not write.
    Other,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_read_back_as_what_they_name() {
        let keys = Keys::new("user-1", "http://127.0.0.1:8787/mcp");
        assert_eq!(keys.task("t1"), "mcp-tasks/1/user-1/http://127.0.0.1:8787/mcp/task/t1");
        assert_eq!(keys.classify(&keys.task("t1")), StoredKey::Task("t1"));
        assert_eq!(keys.classify(&keys.call("c1")), StoredKey::Call("c1"));
        assert_eq!(keys.classify("mcp-tasks/1/other/x/task/t1"), StoredKey::Other);
        assert_eq!(keys.classify(&format!("{}lease", keys.prefix())), StoredKey::Other);
    }
}
