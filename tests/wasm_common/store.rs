//! The store contract, checked for every backend in every runtime (see `mod.rs` for how).

use std::collections::BTreeMap;

use mcp_tasks_web::store::{delete_database, Store, StoreError};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

use super::{run_js, run_js_with, settle, unique_database_name, Runtime};
use crate::RUNTIME;

// ---------------------------------------------------------------------------------------------
// The one body every backend must pass.
// ---------------------------------------------------------------------------------------------

/// A value over 200 KB of mixed one- to four-byte UTF-8 (and one- or two-unit UTF-16) characters.
fn large_value() -> String {
    let chunk = "{\"statusMessage\":\"ünïcødé ✓ 漢字 🚀\",\"n\":42}";
    let value = chunk.repeat(200 * 1024 / chunk.len() + 1);
    assert!(value.len() > 200 * 1024);
    value
}

/// Puts, overwrites, deletes and lists through `store`, checking every answer against a
/// `BTreeMap` model (whose order is the order `Store::list` promises).
async fn check_contract(store: &Store) {
    let mut model: BTreeMap<String, String> = BTreeMap::new();

    assert_eq!(store.get("task:missing").await, Ok(None), "get of a missing key");
    store.delete("task:missing").await.expect("delete of a missing key is not an error");
    assert_eq!(store.list("task:").await, Ok(vec![]), "list of an empty store");

    let records = [
        ("task:1", "{\"status\":\"working\"}".to_owned()),
        ("task:2", "{\"status\":\"input_required\"}".to_owned()),
        // Keys whose UTF-16 order (IndexedDB's) differs from code point order (ours): 🚀 is
        // D83D DE80 in UTF-16, below U+FFFF, but above it as a code point.
        ("task:🚀", "rocket \u{0} \"quoted\" \\ \n line".to_owned()),
        ("task:\u{ffff}z", "after U+FFFF: the naive prefix + '\\u{ffff}' range misses me".to_owned()),
        ("task:ü/漢字", "ünïcødé ✓ 漢字 🚀 \u{10ffff}".to_owned()),
        ("task:big", large_value()),
        // Near misses for the prefix "task:", which must not be listed.
        ("task", "no colon".to_owned()),
        ("task;", "the successor of the prefix".to_owned()),
        ("tas", "shorter".to_owned()),
        ("other:1", "another prefix".to_owned()),
        ("other:2", "another prefix".to_owned()),
        ("", "the empty key".to_owned()),
    ];
    for (key, value) in &records {
        store.put(key, value).await.unwrap_or_else(|e| panic!("put({key:?}): {e}"));
        model.insert((*key).to_owned(), value.clone());
    }
    for (key, value) in &records {
        assert_eq!(store.get(key).await.as_ref(), Ok(&Some(value.clone())), "get({key:?}) after put");
    }

    store.put("task:1", "{\"status\":\"completed\"}").await.expect("overwrite");
    model.insert("task:1".into(), "{\"status\":\"completed\"}".into());
    assert_eq!(store.get("task:1").await, Ok(Some("{\"status\":\"completed\"}".into())), "get after overwrite");

    store.delete("task:2").await.expect("delete");
    model.remove("task:2");
    assert_eq!(store.get("task:2").await, Ok(None), "get after delete");

    // put_if: written only while the stored text is still the one the writer last saw.
    assert_eq!(store.put_if("task:cas", None, "v1").await, Ok(true), "put_if where no record is");
    assert_eq!(store.put_if("task:cas", None, "v2").await, Ok(false), "put_if(None) over a record");
    assert_eq!(store.put_if("task:cas", Some("v0"), "v2").await, Ok(false), "put_if over another text");
    assert_eq!(store.put_if("task:cas", Some("v1"), "v2").await, Ok(true), "put_if over the expected text");
    assert_eq!(store.get("task:cas").await, Ok(Some("v2".into())), "get after put_if");
    model.insert("task:cas".into(), "v2".into());

    // put_all: every entry, in order (a key given twice keeps the later value); nothing for none.
    store.put_all(&[]).await.expect("put_all of no entries");
    let group = [
        ("task:g1".to_owned(), "first".to_owned()),
        ("task:🚀".to_owned(), "rocket, rewritten in a group".to_owned()),
        ("task:g1".to_owned(), "first, then again".to_owned()),
    ];
    store.put_all(&group).await.expect("put_all");
    model.insert("task:g1".into(), "first, then again".into());
    model.insert("task:🚀".into(), "rocket, rewritten in a group".into());
    assert_eq!(
        store.get("task:g1").await,
        Ok(Some("first, then again".into())),
        "the later of two puts of a key in one group"
    );
    assert_eq!(store.get("task:🚀").await, Ok(Some("rocket, rewritten in a group".into())), "put_all overwrites");

    for prefix in ["task:", "other:", "task", "", "nothing-here:", "task:\u{ffff}"] {
        let expected: Vec<(String, String)> =
            model.iter().filter(|(k, _)| k.starts_with(prefix)).map(|(k, v)| (k.clone(), v.clone())).collect();
        let listed = store.list(prefix).await.unwrap_or_else(|e| panic!("list({prefix:?}): {e}"));
        let keys = |entries: &[(String, String)]| entries.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
        assert_eq!(keys(&listed), keys(&expected), "keys listed for prefix {prefix:?}");
        assert!(listed == expected, "values listed for prefix {prefix:?} differ from what was put");
        // Page by page (a restore's reads), in the backend's order: every record once, nothing else.
        for limit in [1, 2, 5] {
            let mut paged = Vec::new();
            let mut after: Option<String> = None;
            loop {
                let page = store.list_page(prefix, after.as_deref(), limit).await;
                let page = page.unwrap_or_else(|e| panic!("list_page({prefix:?}, {after:?}, {limit}): {e}"));
                let more = page.len() >= limit;
                after = page.last().map(|(key, _)| key.clone());
                paged.extend(page);
                if !more {
                    break;
                }
            }
            paged.sort();
            assert!(paged == expected, "pages of {limit} for prefix {prefix:?}: {:?}", keys(&paged));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Host stores, written in JS the way a host application would.
// ---------------------------------------------------------------------------------------------

/// An object literal over a `Map` whose methods all return Promises, `get` gives `undefined` for a
/// missing key, and `list` gives `[key, value]` pairs in insertion order (not sorted).
fn async_pairs_host() -> JsValue {
    run_js(
        "const records = new Map();
         const later = (value) => new Promise((resolve) => setTimeout(() => resolve(value), 0));
         return {
           get: (key) => later(records.get(key)),
           put: (key, value) => { records.set(key, value); return later(undefined); },
           delete: async (key) => { records.delete(key); },
           list: async (prefix) => [...records].filter(([key]) => key.startsWith(prefix)),
         };",
    )
}

/// A class instance (so methods need the right `this`) with synchronous methods, `null` for a
/// missing key, `list` giving `{ key, value }` objects for every record, ignoring the prefix, and an
/// atomic `compareAndPut` (`null` expected: no record).
fn sync_objects_host() -> JsValue {
    run_js(
        "class HostStore {
           constructor() { this.records = new Map(); }
           get(key) { return this.records.has(key) ? this.records.get(key) : null; }
           put(key, value) { this.records.set(key, value); return true; }
           delete(key) { return this.records.delete(key); }
           list(_prefix) { return Array.from(this.records, ([key, value]) => ({ key, value })); }
           compareAndPut(key, expected, value) {
             if (this.get(key) !== expected) return false;
             this.records.set(key, value);
             return true;
           }
         }
         return new HostStore();",
    )
}

/// A working async host with one method replaced by `override_body` (a function expression).
fn host_with(method: &str, override_body: &str) -> Store {
    let host = async_pairs_host();
    let replacement = run_js(&format!("return {override_body};"));
    js_sys::Reflect::set(&host, &JsValue::from_str(method), &replacement).expect("set test method");
    Store::host(host).expect("the host has all four methods")
}

fn expect_failed(result: Result<impl std::fmt::Debug, StoreError>, must_mention: &[&str]) -> String {
    match result {
        Err(StoreError::Failed(message)) => {
            for part in must_mention {
                assert!(message.contains(part), "{message:?} should mention {part:?}");
            }
            message
        }
        other => panic!("expected StoreError::Failed mentioning {must_mention:?}, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// The tests.
// ---------------------------------------------------------------------------------------------

#[wasm_bindgen_test]
fn runs_in_the_runtime_it_was_built_for() {
    assert_eq!(Runtime::detect(), Some(RUNTIME));
}

#[wasm_bindgen_test]
async fn memory_store_meets_the_contract() {
    let store = Store::memory();
    assert!(!store.is_durable(), "a memory store forgets on reload");
    check_contract(&store).await;
}

#[wasm_bindgen_test]
async fn js_store_with_async_methods_and_pairs_meets_the_contract() {
    let store = Store::host(async_pairs_host()).expect("valid host");
    assert!(store.is_durable(), "a host store is trusted to be durable");
    check_contract(&store).await;
}

#[wasm_bindgen_test]
async fn js_store_with_sync_methods_and_objects_meets_the_contract() {
    check_contract(&Store::host(sync_objects_host()).expect("valid host")).await;
}

#[wasm_bindgen_test]
async fn indexed_db_store_meets_the_contract() {
    let name = unique_database_name("contract");
    if !RUNTIME.has_indexed_db() {
        match Store::open_indexed_db(&name).await {
            Err(StoreError::Unavailable(why)) => assert!(why.contains("indexedDB"), "{why}"),
            other => panic!("expected Unavailable without IndexedDB, got {:?}", other.map(|_| "a store")),
        }
        assert!(matches!(delete_database(&name).await, Err(StoreError::Unavailable(_))));
        return;
    }
    let store = Store::open_indexed_db(&name).await.expect("open a fresh database");
    assert!(store.is_durable());
    check_contract(&store).await;
    drop(store);
    delete_database(&name).await.expect("delete the test database");
}

#[wasm_bindgen_test]
async fn indexed_db_records_survive_reopening() {
    if !RUNTIME.has_indexed_db() {
        return; // covered by indexed_db_store_meets_the_contract's Unavailable check
    }
    let name = unique_database_name("reopen");
    let first = Store::open_indexed_db(&name).await.expect("open");
    first.put("task:a", "kept").await.expect("put");
    drop(first); // closes the connection
    let second = Store::open_indexed_db(&name).await.expect("reopen");
    assert_eq!(second.get("task:a").await, Ok(Some("kept".into())));
    assert_eq!(second.list("task:").await, Ok(vec![("task:a".into(), "kept".into())]));
    drop(second);
    delete_database(&name).await.expect("delete the test database");
}

#[wasm_bindgen_test]
async fn indexed_db_store_steps_aside_when_its_database_is_deleted() {
    if !RUNTIME.has_indexed_db() {
        return;
    }
    let name = unique_database_name("versionchange");
    let store = Store::open_indexed_db(&name).await.expect("open");
    store.put("task:a", "1").await.expect("put");
    // Our open connection must not block the deletion: it closes on `versionchange`.
    delete_database(&name).await.expect("delete while our store is open");
    let message = expect_failed(store.get("task:a").await, &["reopen"]);
    assert!(message.contains(&name), "{message}");
    let reopened = Store::open_indexed_db(&name).await.expect("reopen after deletion");
    assert_eq!(reopened.list("").await, Ok(vec![]), "the deleted database starts empty");
    drop(reopened);
    drop(store);
    delete_database(&name).await.expect("delete the test database");
}

#[wasm_bindgen_test]
async fn delete_database_reports_blocked_while_a_foreign_connection_stays_open() {
    if !RUNTIME.has_indexed_db() {
        return;
    }
    let name = unique_database_name("blocked");
    // A connection opened by "other code" that ignores `versionchange`.
    let foreign = settle(run_js_with(
        "name",
        &JsValue::from_str(&name),
        "return new Promise((resolve, reject) => {
           const request = indexedDB.open(name, 1);
           request.onsuccess = () => resolve(request.result);
           request.onerror = () => reject(request.error);
         });",
    ))
    .await
    .expect("foreign open");
    assert_eq!(delete_database(&name).await, Err(StoreError::Blocked));
    run_js_with("db", &foreign, "db.close();");
    delete_database(&name).await.expect("delete once the foreign connection closed");
}

#[wasm_bindgen_test]
async fn delete_database_waits_out_a_connection_that_closes_soon() {
    if !RUNTIME.has_indexed_db() {
        return;
    }
    let name = unique_database_name("grace");
    // Another tab's connection that closes 100 ms after being asked (finishing its work first):
    // `blocked` fires, but that is not worth reporting.
    settle(run_js_with(
        "name",
        &JsValue::from_str(&name),
        "return new Promise((resolve, reject) => {
           const request = indexedDB.open(name, 1);
           request.onsuccess = () => {
             const db = request.result;
             db.onversionchange = () => setTimeout(() => db.close(), 100);
             resolve(db);
           };
           request.onerror = () => reject(request.error);
         });",
    ))
    .await
    .expect("foreign open");
    delete_database(&name).await.expect("the deletion completes once the other connection closes");
}

#[wasm_bindgen_test]
fn js_store_rejects_hosts_missing_a_method() {
    for missing in ["get", "put", "delete", "list"] {
        let host = async_pairs_host();
        js_sys::Reflect::delete_property(host.unchecked_ref::<js_sys::Object>(), &JsValue::from_str(missing))
            .expect("delete");
        expect_failed(Store::host(host), &[&format!("`{missing}`")]);
    }
    let not_callable = async_pairs_host();
    js_sys::Reflect::set(&not_callable, &JsValue::from_str("list"), &JsValue::from_str("nope")).expect("set");
    expect_failed(Store::host(not_callable), &["`list`"]);
    expect_failed(Store::host(JsValue::NULL), &["object"]);
    expect_failed(Store::host(JsValue::from_str("store")), &["object"]);
}

#[wasm_bindgen_test]
async fn js_store_failures_are_typed_and_carry_the_host_message() {
    let rejecting_get = host_with("get", "async () => { throw new Error('disk on fire'); }");
    expect_failed(rejecting_get.get("task:1").await, &["get", "task:1", "disk on fire"]);

    let throwing_put = host_with("put", "() => { throw new TypeError('read-only host'); }");
    expect_failed(throwing_put.put("task:1", "v").await, &["put", "TypeError", "read-only host"]);

    let rejecting_with_a_string = host_with("delete", "() => Promise.reject('no such table')");
    expect_failed(rejecting_with_a_string.delete("task:1").await, &["delete", "no such table"]);

    // Neither a string nor an `Error`: shown as `String(value)` would show it, not as a Rust debug print.
    let rejecting_with_a_number = host_with("delete", "() => Promise.reject(42)");
    let message = expect_failed(rejecting_with_a_number.delete("task:1").await, &["delete", "42"]);
    assert!(!message.contains("JsValue"), "{message:?}");
    let rejecting_with_a_symbol = host_with("delete", "() => Promise.reject(Symbol('gone'))");
    expect_failed(rejecting_with_a_symbol.delete("task:1").await, &["delete", "Symbol(gone)"]);

    let full = host_with("put", "async () => { throw new DOMException('disk full', 'QuotaExceededError'); }");
    assert_eq!(full.put("task:1", "v").await, Err(StoreError::QuotaExceeded));

    let numeric_get = host_with("get", "async () => 42");
    expect_failed(numeric_get.get("task:1").await, &["get", "number"]);

    let list_not_array = host_with("list", "async () => ({ 'task:1': 'v' })");
    expect_failed(list_not_array.list("task:").await, &["list", "array"]);

    let list_bad_item = host_with("list", "() => [['task:1', 'v'], ['task:2']]");
    expect_failed(list_bad_item.list("task:").await, &["list", "item 1"]);

    let list_non_text_value = host_with("list", "() => [{ key: 'task:1', value: 7 }]");
    expect_failed(list_non_text_value.list("task:").await, &["list", "item 0"]);
}

#[wasm_bindgen_test]
fn store_errors_read_well() {
    let quota = StoreError::QuotaExceeded;
    assert_eq!(quota.reason(), "quota");
    assert!(quota.to_string().contains("quota"));
    let failed = StoreError::Failed("host store get(\"k\"): Error: boom".into());
    assert_eq!(failed.reason(), "failed");
    assert!(failed.to_string().ends_with("Error: boom"));
}
