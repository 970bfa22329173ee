//! [`JsStore`]: records kept by the host application, through an object it passes in.
//!
//! Hosts that already have storage (an Electron app's files, a chat app's own database, a
//! server-side KV in an edge worker, Node.js where there is no IndexedDB) hand the client
//! `{ get(key), put(key, value), delete(key), list(prefix) }`. Each method may return its value
//! directly or a Promise (anything thenable) of it; a method that throws or rejects becomes
//! [`StoreError::Failed`] carrying the thrown message, or [`StoreError::QuotaExceeded`] when what was
//! thrown is named `QuotaExceededError`.

use js_sys::{Array, Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::error::{failed_js, operation, JsFailure};
use super::{sort_by_key, KeyOp, StoreError};

/// The four methods a host store must have, for error text (one string: no `join` of `&str`s).
const METHODS: &str = "get, put, delete, list";

/// A host-supplied store. Its methods are looked up once, at construction, and called with the
/// object as `this`, so class instances work as well as object literals.
#[derive(Debug, Clone)]
pub struct JsStore {
    object: JsValue,
    get: Function,
    put: Function,
    delete: Function,
    list: Function,
    /// Optional `compareAndPut(key, expected, value) → boolean`: an atomic version check (Deno KV's
    /// `atomic().check()`, a Durable Object's gated storage). Without it, `put_if` compares then puts.
    compare_and_put: Option<Function>,
}

impl JsStore {
    /// Wraps a host object, checking that it has all four methods.
    ///
    /// Fails with [`StoreError::Failed`] naming the first missing method, so a host developer sees
    /// "has no `list` method" at startup instead of a failure on the first listing.
    pub fn new(object: JsValue) -> Result<JsStore, StoreError> {
        if !object.is_object() {
            return Err(StoreError::Failed(format!(
                "the host store must be an object with get, put, delete and list methods; got {}",
                JsFailure::from_js(&object)
            )));
        }
        let method = |name: &str| -> Result<Function, StoreError> {
            let value = Reflect::get(&object, &JsValue::from_str(name))
                .map_err(|thrown| failed_js(&format!("reading the host store's `{name}` method"), &thrown))?;
            value
                .dyn_into::<Function>()
                .map_err(|_| StoreError::Failed(format!("the host store has no `{name}` method (it needs {METHODS})")))
        };
        Ok(JsStore {
            get: method("get")?,
            put: method("put")?,
            delete: method("delete")?,
            list: method("list")?,
            compare_and_put: Reflect::get(&object, &JsValue::from_str("compareAndPut"))
                .ok()
                .and_then(|f| f.dyn_into::<Function>().ok()),
            object,
        })
    }

    /// Calls `host.get(key)`; `undefined` and `null` mean "no record".
    pub async fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.run(KeyOp::Get(key)).await
    }

    /// Calls `host.put(key, value)`; whatever it returns (or resolves to) is ignored.
    pub async fn put(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.run(KeyOp::Put(key, value)).await.map(drop)
    }

    /// Calls `host.delete(key)`; whatever it returns (or resolves to) is ignored.
    pub async fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.run(KeyOp::Delete(key)).await.map(drop)
    }

    /// Calls `host.get(key)` (`undefined` and `null` mean "no record"), `host.put(key, value)` or
    /// `host.delete(key)`; what a put or delete returns (or resolves to) is ignored.
    pub(super) async fn run(&self, op: KeyOp<'_>) -> Result<Option<String>, StoreError> {
        let key = JsValue::from_str(op.key());
        let (head, tail) = match op {
            KeyOp::Get(_) => ("host store get(", ")"),
            KeyOp::Put(..) => ("host store put(", ", …)"),
            KeyOp::Delete(_) => ("host store delete(", ")"),
        };
        let operation = operation(head, op.key(), tail);
        let (method, args) = match op {
            KeyOp::Get(_) => (&self.get, vec![key]),
            KeyOp::Put(_, value) => (&self.put, vec![key, JsValue::from_str(value)]),
            KeyOp::Delete(_) => (&self.delete, vec![key]),
        };
        let value = self.call(method, &args, &operation).await?;
        if !matches!(op, KeyOp::Get(_)) || value.is_undefined() || value.is_null() {
            return Ok(None);
        }
        value.as_string().map(Some).ok_or_else(|| {
            StoreError::Failed(format!(
                "{operation} returned {}; expected a string, undefined or null",
                type_name(&value)
            ))
        })
    }

    /// Calls `host.list(prefix)`, which must give an array whose items are either `[key, value]`
    /// pairs or `{ key, value }` objects (both are common shapes: `Map#entries()` spread into an
    /// array, and rows from a database).
    ///
    /// Items whose key does not start with `prefix` are dropped and the rest sorted by key, so the
    /// result meets [`Store::list`](super::Store::list)'s promise whatever the host's order.
    pub async fn list(&self, prefix: &str) -> Result<Vec<(String, String)>, StoreError> {
        let operation = operation("host store list(", prefix, ")");
        let value = self.call(&self.list, &[JsValue::from_str(prefix)], &operation).await?;
        if !Array::is_array(&value) {
            return Err(StoreError::Failed(format!(
                "{operation} returned {}; expected an array of [key, value] pairs or {{ key, value }} objects",
                type_name(&value)
            )));
        }
        let items: Array = value.unchecked_into();
        let mut records = Vec::with_capacity(items.length() as usize);
        for (index, item) in items.iter().enumerate() {
            let (key, value) = entry(&item).ok_or_else(|| {
                StoreError::Failed(format!(
                    "{operation} item {index} is {}; expected a [key, value] pair or a {{ key, value }} object \
                     with string key and value",
                    type_name(&item)
                ))
            })?;
            if key.starts_with(prefix) {
                records.push((key, value));
            }
        }
        sort_by_key(&mut records);
        Ok(records)
    }

    /// Calls `host.compareAndPut(key, expected, value)` if the host has it (`None` otherwise): whether
    /// the value was written because the stored text still equalled `expected` (`null`: absent).
    pub(crate) async fn compare_and_put(
        &self,
        key: &str,
        expected: Option<&str>,
        value: &str,
    ) -> Option<Result<bool, StoreError>> {
        let method = self.compare_and_put.as_ref()?;
        let operation = operation("host store compareAndPut(", key, ", …)");
        let expected = expected.map_or(JsValue::NULL, JsValue::from_str);
        let args = [JsValue::from_str(key), expected, JsValue::from_str(value)];
        Some(self.call(method, &args, &operation).await.and_then(|v| {
            v.as_bool().ok_or_else(|| {
                StoreError::Failed(format!("{operation} returned {}; expected a boolean", type_name(&v)))
            })
        }))
    }

    /// Calls one host method with the object as `this` and awaits the result whether or not it is
    /// a Promise: `Promise.resolve` passes plain values through and adopts thenables, so both paths
    /// are one. A synchronous throw and a rejection are reported the same way.
    async fn call(&self, method: &Function, args: &[JsValue], operation: &str) -> Result<JsValue, StoreError> {
        let args: Array = args.iter().collect();
        let returned = method.apply(&self.object, &args).map_err(|thrown| failed_js(operation, &thrown))?;
        JsFuture::from(Promise::resolve(&returned)).await.map_err(|rejected| failed_js(operation, &rejected))
    }
}

/// One listed item as `(key, value)`, from either accepted shape; `None` if it is neither.
fn entry(item: &JsValue) -> Option<(String, String)> {
    let (key, value) = if Array::is_array(item) {
        let pair: &Array = item.unchecked_ref();
        if pair.length() != 2 {
            return None;
        }
        (pair.get(0), pair.get(1))
    } else if item.is_object() {
        (Reflect::get(item, &JsValue::from_str("key")).ok()?, Reflect::get(item, &JsValue::from_str("value")).ok()?)
    } else {
        return None;
    };
    Some((key.as_string()?, value.as_string()?))
}

/// What a wrong value was, for error messages (`typeof`, with `null` and arrays told apart).
fn type_name(value: &JsValue) -> String {
    if value.is_null() {
        "null".into()
    } else if Array::is_array(value) {
        "an array".into()
    } else {
        format!("a value of type {}", value.js_typeof().as_string().unwrap_or_default())
    }
}
