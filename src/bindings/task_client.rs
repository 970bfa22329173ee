//! `TaskClient`, the JS API: open a client, call tools, answer and cancel tasks, wait, list, forget.
use std::rc::Rc;

use crate::json::json;
use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;

use super::errors::to_js_error;
use crate::error::ClientError;
use crate::host::js_json::{from_js, to_js};
use crate::host::spawn::promise;
use crate::runtime::client::{CallOutcome, ClientCore};
use crate::runtime::options::{abort_signal, cursor, input_callback, input_schema, ClientOptions};

/// A durable MCP Tasks client for one server URL and namespace.
#[wasm_bindgen]
pub struct TaskClient {
    core: Rc<ClientCore>,
}

fn reject(e: ClientError) -> JsValue {
    to_js_error(&e)
}

impl TaskClient {
    /// The engine, for the element views.
    #[cfg(feature = "element")]
    pub(crate) fn core(&self) -> Rc<ClientCore> {
        self.core.clone()
    }
}

#[wasm_bindgen]
impl TaskClient {
    /// Opens a client: restores this namespace's tasks from the store and resumes polling those due.
    // Not an `async fn`: wasm-bindgen would hand its future to its own copy of `future_to_promise`;
    // `promise` shares the one every other method uses.
    #[wasm_bindgen(unchecked_return_type = "Promise<TaskClient>")]
    pub fn open(#[wasm_bindgen(unchecked_param_type = "TaskClientOptions")] options: JsValue) -> Promise {
        promise(async move {
            let options = ClientOptions::read(&options).map_err(|m| reject(ClientError::usage(m)))?;
            let core = ClientCore::open(options).await.map_err(reject)?;
            Ok(JsValue::from(TaskClient { core }))
        })
    }

    /// Calls a tool. Resolves with `{ kind: "result", result }` or, once its handle is stored,
    /// `{ kind: "task", task }`.
    #[wasm_bindgen(js_name = callTool, unchecked_return_type = "Promise<CallToolOutcome>")]
    pub fn call_tool(
        &self,
        name: String,
        #[wasm_bindgen(unchecked_optional_param_type = "Record<string, unknown>")] args: Option<JsValue>,
        #[wasm_bindgen(unchecked_optional_param_type = "CallToolOptions")] options: Option<JsValue>,
    ) -> Promise {
        let core = self.core.clone();
        let args = args.unwrap_or(JsValue::UNDEFINED);
        let options = options.unwrap_or(JsValue::UNDEFINED);
        promise(async move {
            let arguments = match from_js(&args).map_err(|m| reject(ClientError::usage(m)))? {
                crate::json::Value::Null => None,
                crate::json::Value::Object(o) => Some(o),
                _ => return Err(reject(ClientError::usage("callTool arguments must be an object"))),
            };
            let outcome = core
                .call_tool(name, arguments, input_callback(&options), abort_signal(&options), input_schema(&options))
                .await
                .map_err(reject)?;
            Ok(to_js(&match outcome {
                CallOutcome::Result(result) => json!({ "kind": "result", "result": result.to_json() }),
                CallOutcome::Task(task) => json!({ "kind": "task", "task": task }),
            }))
        })
    }

    /// One page of the server's tools, each exactly as sent (schemas are never rewritten or
    /// dereferenced). Tools with invalid `x-mcp-header` annotations are left out and named in
    /// `rejectedTools`; the others' annotated arguments are sent as `Mcp-Param-*` headers by `callTool`.
    #[wasm_bindgen(js_name = listTools, unchecked_return_type = "Promise<ListToolsResult>")]
    pub fn list_tools(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "ListToolsOptions")] options: Option<JsValue>,
    ) -> Promise {
        let core = self.core.clone();
        let options = options.unwrap_or(JsValue::UNDEFINED);
        promise(async move {
            let page = core.list_tools(cursor(&options), abort_signal(&options)).await.map_err(reject)?;
            Ok(to_js(&page))
        })
    }

    /// Answers some or all of a task's outstanding input requests (each key once).
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn respond(
        &self,
        #[wasm_bindgen(js_name = taskId)] task_id: String,
        #[wasm_bindgen(unchecked_param_type = "InputResponses")] responses: JsValue,
    ) -> Promise {
        let core = self.core.clone();
        promise(async move {
            core.respond(&task_id, &responses).await.map_err(reject)?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Asks the server to cancel a task. A request, not a guarantee: it may still complete or fail.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn cancel(&self, #[wasm_bindgen(js_name = taskId)] task_id: String) -> Promise {
        let core = self.core.clone();
        promise(async move {
            core.cancel(&task_id).await.map_err(reject)?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Resolves with the terminal snapshot (completed, failed, cancelled or expired). Rejects with
    /// `TaskForgottenError` when the task is forgotten first (here, in another tab, by `clear` or
    /// retention) and `ClientClosedError` when the client is closed first.
    #[wasm_bindgen(unchecked_return_type = "Promise<TaskSnapshot>")]
    pub fn wait(&self, #[wasm_bindgen(js_name = taskId)] task_id: String) -> Promise {
        let core = self.core.clone();
        promise(async move {
            let snapshot = core.wait(&task_id).await.map_err(reject)?;
            Ok(to_js(&snapshot))
        })
    }

    /// Step mode (`autoPoll: false`): re-reads the store, polls every task that is due and sends queued
    /// answers and cancels (at most 8 requests at once), writes back with version checks, and resolves
    /// with `{ nextWakeAt, live, settled, polled, sent }` so the platform can set its next alarm.
    #[wasm_bindgen(unchecked_return_type = "Promise<StepResult>")]
    pub fn step(&self) -> Promise {
        let core = self.core.clone();
        promise(async move {
            let report = core.step().await.map_err(reject)?;
            Ok(to_js(&report.to_json()))
        })
    }

    /// Snapshots of every task in this namespace (restored ones included) and of calls whose outcome
    /// is unknown.
    #[wasm_bindgen(unchecked_return_type = "Array<TaskSnapshot | UnknownCallSnapshot>")]
    pub fn tasks(&self) -> Array {
        self.core.snapshots().iter().map(to_js).collect()
    }

    /// Forgets a task (or a call of unknown outcome): removed from memory and the store.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn forget(&self, id: String) -> Promise {
        let core = self.core.clone();
        promise(async move {
            core.forget(&id).await.map_err(reject)?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Forgets every task of this namespace and server.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn clear(&self) -> Promise {
        let core = self.core.clone();
        promise(async move {
            core.clear().await.map_err(reject)?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Stops polling and listening. Stored tasks stay for the next `open()`.
    pub fn close(&self) {
        self.core.close();
    }

    /// Whether a task that needs input or ends while the page is hidden shows a system notification
    /// (once across the namespace's tabs; the `notify` option sets it at open).
    #[wasm_bindgen(getter)]
    pub fn notify(&self) -> bool {
        self.core.notify()
    }

    /// Turns notifications on or off.
    #[wasm_bindgen(setter)]
    pub fn set_notify(&self, notify: bool) {
        self.core.set_notify(notify);
    }

    /// `false` when tasks are only kept in memory (a `storage` event says why).
    #[wasm_bindgen(getter)]
    pub fn durable(&self) -> bool {
        self.core.durable()
    }

    /// Listens for `task` (a snapshot after every change), `call` (a call of unknown outcome found at
    /// open), `storage` (the store fell back to memory, or a record could not be read) and `forget` (a task
    /// or call was forgotten here or in another tab).
    #[wasm_bindgen(js_name = addEventListener)]
    pub fn add_event_listener(
        &self,
        #[wasm_bindgen(js_name = type, unchecked_param_type = "keyof TaskClientEventMap")] kind: String,
        #[wasm_bindgen(unchecked_param_type = "(event: CustomEvent) => void")] listener: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "boolean | AddEventListenerOptions")] options: Option<JsValue>,
    ) {
        self.core.events().listen(true, &kind, &listener, &options.unwrap_or(JsValue::UNDEFINED));
    }

    /// Removes a listener added with `addEventListener`.
    #[wasm_bindgen(js_name = removeEventListener)]
    pub fn remove_event_listener(
        &self,
        #[wasm_bindgen(js_name = type, unchecked_param_type = "keyof TaskClientEventMap")] kind: String,
        #[wasm_bindgen(unchecked_param_type = "(event: CustomEvent) => void")] listener: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "boolean | EventListenerOptions")] options: Option<JsValue>,
    ) {
        self.core.events().listen(false, &kind, &listener, &options.unwrap_or(JsValue::UNDEFINED));
    }
}
