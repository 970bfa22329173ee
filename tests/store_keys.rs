//! Store keys, lock and channel names: every part is escaped, so no client's keys fall under
//! another client's prefix (`https://h` once loaded, and expired, the records of `https://h/task`),
//! and the URL's user-info, query and fragment never reach a key. Carrying the previous release's
//! bare `mcp-tasks/1/…` keys over is tested beside the code that does it (`Keys::moves`,
//! src/client_state/keys.rs).
use mcp_tasks_web::client_state::{Keys, StoredKey};
use proptest::prelude::*;

#[test]
fn a_server_url_that_extends_another_is_a_different_client() {
    let h = Keys::new("ns", "https://h");
    let h_task = Keys::new("ns", "https://h/task");
    let theirs = h_task.task("t1");
    assert!(!theirs.starts_with(h.prefix()), "{theirs} is listed under {}", h.prefix());
    assert_eq!(h.classify(&theirs), StoredKey::Other);
    assert_eq!(h.classify(&h_task.server()), StoredKey::Other);
    assert_ne!(h.tabs(), h_task.tabs());
    assert!(!h_task.tabs().starts_with(&h.tabs()));
}

#[test]
fn a_slash_in_a_namespace_is_not_a_separator() {
    let pairs = [(("a/b", "c"), ("a", "b/c")), (("a", "https://h"), ("a/https:", "/h"))];
    for ((ns1, url1), (ns2, url2)) in pairs {
        let (one, two) = (Keys::new(ns1, url1), Keys::new(ns2, url2));
        assert_ne!(one.prefix(), two.prefix());
        assert_eq!(two.classify(&one.task("t")), StoredKey::Other);
        assert_ne!(one.tabs(), two.tabs());
    }
    assert_eq!(Keys::new("a/b", "c").task("t"), "mcp-tasks/2/a%2Fb/c/task/t");
}

#[test]
fn user_info_query_and_fragment_never_reach_a_key() {
    let plain = Keys::new("ns", "https://h:8443/mcp");
    let url = "https://alice:secret@h:8443/mcp?token=secret#secret";
    let keys = Keys::new("ns", url);
    assert_eq!(keys.prefix(), plain.prefix());
    for name in [keys.prefix().to_owned(), keys.task("t"), keys.call("c"), keys.server(), keys.tabs()] {
        assert!(!name.contains("secret") && !name.contains("alice"), "{name}");
    }
}

/// A URL from parts: `(scheme, user-info, host, path, query, fragment)`. Returns it, and what keys
/// should name it by: the same URL without user-info, query and fragment.
fn url_from(parts: &(String, Option<String>, String, String, Option<String>, Option<String>)) -> (String, String) {
    let (scheme, user, host, path, query, fragment) = parts;
    let plain = if host.is_empty() { path.clone() } else { format!("{scheme}//{host}{path}") };
    let mut url = if host.is_empty() {
        path.clone()
    } else {
        format!("{scheme}//{}{host}{path}", user.as_ref().map(|u| format!("{u}@")).unwrap_or_default())
    };
    if let Some(q) = query {
        url.push_str(&format!("?{q}"));
    }
    if let Some(f) = fragment {
        url.push_str(&format!("#{f}"));
    }
    (url, plain)
}

/// Parts drawn from few characters, the separators among them, so that near-collisions are common.
fn url_parts() -> impl Strategy<Value = (String, Option<String>, String, String, Option<String>, Option<String>)> {
    (
        prop::sample::select(vec!["https:".to_owned(), "http:".to_owned(), String::new()]),
        prop::option::of("[a-z:%]{0,3}"),
        "(|[a-z%2F:]{1,3})",
        "(/(task|call|server|[a-z%2F5]{0,2})){0,3}",
        prop::option::of("[a-z/=@%]{0,3}"),
        prop::option::of("[a-z/?@%]{0,3}"),
    )
}

fn client() -> impl Strategy<Value = (String, (String, String))> {
    ("[a-z/%2F5]{1,4}", url_parts().prop_map(|parts| url_from(&parts)))
}

/// Any text, or text of the characters the escaping is about.
fn text(max: usize) -> impl Strategy<Value = String> {
    let (escapes, any) = (format!("[%/25Fa]{{0,{max}}}"), format!(".{{0,{max}}}"));
    prop_oneof![prop::string::string_regex(&escapes).unwrap(), prop::string::string_regex(&any).unwrap()]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    /// Two clients share a prefix exactly when their namespaces and their URLs without user-info, query
    /// and fragment are the same; otherwise none of one's keys is under the other's prefix or reads
    /// as the other's, and their lock and channel names differ.
    #[test]
    fn no_client_aliases_another(
        (ns1, (url1, plain1)) in client(),
        (ns2, (url2, plain2)) in client(),
        id1 in "[a-z/%2F5]{0,4}",
        id2 in "[a-z/%2F5]{0,4}",
    ) {
        let (one, two) = (Keys::new(&ns1, &url1), Keys::new(&ns2, &url2));
        let same = ns1 == ns2 && plain1 == plain2;
        prop_assert_eq!(one.prefix() == two.prefix(), same, "{} vs {}", one.prefix(), two.prefix());
        prop_assert_eq!(one.tabs() == two.tabs(), same);
        for key in [one.task(&id1), one.call(&id1), one.server()] {
            prop_assert_eq!(key.starts_with(two.prefix()), same, "{} under {}", key, two.prefix());
        }
        prop_assert_eq!(one.task(&id1) == two.task(&id2), same && id1 == id2);
        prop_assert_ne!(one.task(&id1), two.call(&id2));
        let expected = if same { StoredKey::Task(id1.clone()) } else { StoredKey::Other };
        prop_assert_eq!(two.classify(&one.task(&id1)), expected);
        let expected = if same { StoredKey::Call(id1.clone()) } else { StoredKey::Other };
        prop_assert_eq!(two.classify(&one.call(&id1)), expected);
    }

    /// Any text at all (a namespace, URL or id with `%`, `/` or an escape in it) reads back as itself.
    #[test]
    fn any_id_reads_back(ns in text(6), url in text(12), id in text(8)) {
        let keys = Keys::new(&ns, &url);
        prop_assert_eq!(keys.classify(&keys.task(&id)), StoredKey::Task(id.clone()));
        prop_assert_eq!(keys.classify(&keys.call(&id)), StoredKey::Call(id));
        prop_assert_eq!(keys.classify(&keys.server()), StoredKey::Other);
    }
}
