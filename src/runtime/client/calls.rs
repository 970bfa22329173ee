//! `callTool` (recorded before it is sent, MRTR rounds answered by the host) and `listTools`.
use js_sys::Function;
use wasm_bindgen::JsValue;

use crate::client_state::TabMessage;
use crate::error::{ClientError, ErrorKind};
use crate::host::globals;
use crate::host::js_json::{from_js, to_js};
use crate::json::Value;
use crate::machine::mrtr::MrtrCall;
use crate::machine::pending::PendingCall;
use crate::machine::stored::to_stored;
use crate::protocol::input::{decode_input_responses, encode_input_requests, InputResponses};
use crate::protocol::param_headers;
use crate::protocol::request::{ClientRequest, RequestResult};
use crate::protocol::tool_call::ToolCallOutcome;
use crate::protocol::Object;

use crate::protocol::task_protocol::TaskProtocol;
use crate::transport::reply::may_be_older_server;
use crate::transport::TransportError;

use super::{random_u64, CallOutcome, ClientCore};

impl ClientCore {
    /// `callTool`: records the call, sends it (answering MRTR rounds through `on_input`), and persists a
    /// task handle before returning it.
    pub async fn call_tool(
        &self,
        name: String,
        arguments: Option<Object>,
        on_input: Option<Function>,
        signal: Option<web_sys::AbortSignal>,
        input_schema: Option<Value>,
    ) -> Result<CallOutcome, ClientError> {
        let bindings = match input_schema {
            Some(schema) => param_headers::bindings(&schema).map_err(|e| ClientError::usage(e.to_string()))?,
            None => self.state.borrow().tool_bindings(&name).cloned().unwrap_or_default(),
        };
        let extra = param_headers::headers(&bindings, arguments.as_ref());
        let call_id = format!("call-{}", crate::text::hex16(random_u64()));
        let pending = PendingCall {
            call_id: call_id.clone(),
            tool_name: name.clone(),
            arguments: arguments.clone(),
            started_at: globals::now_ms(),
        };
        self.state.borrow_mut().begin_call(&call_id);
        let call_key = self.state.borrow().keys().call(&call_id);
        if let Err(e) = self.store().put(&call_key, &to_stored(&pending).to_string()).await {
            self.storage_failed(&e);
        }
        let outcome = self.call_in_generation(&name, arguments, on_input, signal.as_ref(), &extra, &call_id).await;
        let result = match outcome {
            Ok((ToolCallOutcome::Task(handle), protocol)) => {
                let now = globals::now_ms();
                let id = {
                    let mut state = self.state.borrow_mut();
                    let id = state.add_task_of(now, name.clone(), handle, protocol);
                    if protocol == TaskProtocol::Legacy {
                        // The call's id was its progress token (see `legacy_call`).
                        state.set_progress_token(&id, call_id.clone());
                    }
                    id
                };
                let written = self.persist(&id).await;
                self.emit_task(&id);
                let stored = self.state.borrow().record(&id).map(to_stored);
                if let Some(stored) = stored {
                    self.post(TabMessage::Adopt { id: id.clone(), stored });
                }
                self.pump();
                if written == super::Written::Failed {
                    // The tool runs on the server: the host must hear that its handle is not stored.
                    Err(ClientError::handle_not_stored(&name, &id))
                } else {
                    Ok(CallOutcome::Task(self.snapshot(&id).unwrap_or(Value::Null)))
                }
            }
            Ok((ToolCallOutcome::Complete(result), _)) => Ok(CallOutcome::Result(result)),
            Ok((ToolCallOutcome::InputRequired(_), _)) => {
                Err(ClientError::new(ErrorKind::Protocol, "the server kept asking for input"))
            }
            Err(e) => Err(e),
        };
        let _ = self.store().delete(&call_key).await;
        self.state.borrow_mut().end_call(&call_id);
        result
    }

    /// The call in the flow the server's generation takes. With the generation not known yet, a
    /// 2026-07-28 call goes first; a failure that may mean an older server runs the era detection,
    /// and a 2025-11-25 server gets the call again in its own flow (its first answer was a refusal,
    /// so the tool has not run).
    /// `call_id` is a 2025-11-25 task's progress token.
    #[cfg(feature = "legacy")]
    async fn call_in_generation(
        &self,
        name: &str,
        arguments: Option<Object>,
        on_input: Option<Function>,
        signal: Option<&web_sys::AbortSignal>,
        extra: &[(String, String)],
        call_id: &str,
    ) -> Result<(ToolCallOutcome, TaskProtocol), ClientError> {
        use crate::protocol::legacy::negotiate::Generation;
        let known = self.known_generation().await;
        // One `legacy_tool_call` await, so its future is in the .wasm once.
        let generation = match known {
            Some(generation @ (Generation::Legacy2025 | Generation::NoTasks)) => generation,
            _ => {
                let error = match self.run_call(name, arguments.clone(), on_input, signal, extra).await {
                    Ok(outcome) => {
                        self.link_confirmed(Generation::Extension2026);
                        return Ok((outcome, TaskProtocol::Extension));
                    }
                    Err(CallError::Client(e)) => return Err(e),
                    Err(CallError::Transport(e)) if known.is_none() && may_be_older_server(&e) => e,
                    Err(CallError::Transport(e)) => return Err(ClientError::from(&e)),
                };
                match self.negotiate().await {
                    Some(generation @ (Generation::Legacy2025 | Generation::NoTasks)) => generation,
                    _ => return Err(ClientError::from(&error)),
                }
            }
        };
        self.legacy_tool_call(name, arguments, generation, call_id).await
    }

    /// The call in the 2026-07-28 flow (a build without the `legacy` feature speaks no other).
    #[cfg(not(feature = "legacy"))]
    async fn call_in_generation(
        &self,
        name: &str,
        arguments: Option<Object>,
        on_input: Option<Function>,
        signal: Option<&web_sys::AbortSignal>,
        extra: &[(String, String)],
        _call_id: &str,
    ) -> Result<(ToolCallOutcome, TaskProtocol), ClientError> {
        match self.run_call(name, arguments, on_input, signal, extra).await {
            Ok(outcome) => Ok((outcome, TaskProtocol::Extension)),
            Err(CallError::Client(e)) => Err(e),
            Err(CallError::Transport(e)) => {
                let mut error = ClientError::from(&e);
                if may_be_older_server(&e) {
                    error.message.push_str(OLDER_SERVER_HINT);
                }
                Err(error)
            }
        }
    }

    /// [`ClientCore::legacy_call`], as a call outcome.
    #[cfg(feature = "legacy")]
    async fn legacy_tool_call(
        &self,
        name: &str,
        arguments: Option<Object>,
        generation: crate::protocol::legacy::negotiate::Generation,
        progress_token: &str,
    ) -> Result<(ToolCallOutcome, TaskProtocol), ClientError> {
        use crate::protocol::legacy::task::LegacyCallOutcome;
        let outcome = match self.legacy_call(name, arguments, generation, progress_token).await? {
            LegacyCallOutcome::Task(handle) => ToolCallOutcome::Task(handle.task),
            LegacyCallOutcome::Complete(result) => ToolCallOutcome::Complete(result),
        };
        Ok((outcome, TaskProtocol::Legacy))
    }

    pub(super) async fn run_call(
        &self,
        name: &str,
        arguments: Option<Object>,
        on_input: Option<Function>,
        signal: Option<&web_sys::AbortSignal>,
        extra: &[(String, String)],
    ) -> Result<ToolCallOutcome, CallError> {
        let mut call = MrtrCall::new(name, arguments);
        let mut ids = crate::protocol::jsonrpc::RequestIds::starting_at(0);
        let (_, mut request) = call.first(&mut ids);
        loop {
            self.state.borrow().refuse_while_paused(globals::now_ms()).map_err(CallError::Client)?;
            let outcome = match self.transport.send_with_headers(&request, extra, signal, false).await {
                Ok(RequestResult::ToolCall(outcome)) => outcome,
                Ok(_) => {
                    return Err(CallError::Client(ClientError::new(
                        ErrorKind::Protocol,
                        "the server answered tools/call with another kind of result",
                    )))
                }
                Err(e) => {
                    let now = globals::now_ms();
                    self.run(|state| state.on_server_failure(now, &e.as_failure()));
                    return Err(CallError::Transport(e));
                }
            };
            let ToolCallOutcome::InputRequired(round) = outcome else { return Ok(outcome) };
            let responses = match (&round.input_requests, &on_input) {
                (None, _) => InputResponses::new(),
                (Some(_), None) => {
                    return Err(CallError::Client(ClientError::new(
                        ErrorKind::InputRequired,
                        format!("the tool {name} asks for input before it starts; pass options.onInputRequired to callTool to answer"),
                    )))
                }
                (Some(requests), Some(callback)) => {
                    ask_host(callback, &encode_input_requests(requests)).await.map_err(CallError::Client)?
                }
            };
            request = call
                .retry(&mut ids, &round, responses)
                .map_err(|e| CallError::Client(ClientError::usage(e.to_string())))?
                .1;
        }
    }

    /// `listTools`: one page of tools, each exactly as the server sent it. Tools whose `x-mcp-header`
    /// annotations are invalid are left out (and listed in `rejectedTools`); the others' bindings are
    /// kept so `callTool` sends their `Mcp-Param-*` headers.
    pub async fn list_tools(
        &self,
        cursor: Option<String>,
        signal: Option<web_sys::AbortSignal>,
    ) -> Result<Value, ClientError> {
        let page = match self.transport.send(&ClientRequest::ListTools { cursor }, signal.as_ref()).await {
            Ok(RequestResult::ToolList(page)) => page,
            Ok(_) => {
                return Err(ClientError::new(
                    ErrorKind::Protocol,
                    "the server answered tools/list with another kind of result",
                ))
            }
            Err(e) => return Err(ClientError::from(&e)),
        };
        Ok(self.state.borrow_mut().take_tool_page(page))
    }
}

/// Why a 2026-07-28 call failed: the server's answer (which may show an older server), or something
/// on the client's side.
pub(super) enum CallError {
    Transport(TransportError),
    Client(ClientError),
}

#[wasm_bindgen::prelude::wasm_bindgen(module = "/src/host/browser.js")]
extern "C" {
    type Host;
    /// `callback(requests)`, awaited; rejects with the text of why it threw or rejected.
    #[wasm_bindgen(static_method_of = Host)]
    fn ask(callback: &Function, requests: &JsValue) -> js_sys::Promise;
}

/// Calls the host's `onInputRequired(inputRequests)` and reads the answers it returns (or resolves to).
async fn ask_host(callback: &Function, requests: &Value) -> Result<InputResponses, ClientError> {
    let answer = wasm_bindgen_futures::JsFuture::from(Host::ask(callback, &to_js(requests)))
        .await
        .map_err(|why| ClientError::usage(why.as_string().unwrap_or_default()))?;
    let value = from_js(&answer).map_err(ClientError::usage)?;
    decode_input_responses(&value).map_err(|e| ClientError::usage(format!("onInputRequired returned bad answers: {e}")))
}

/// Added to such a failure by a build that speaks only 2026-07-28 (no `legacy` feature): the error
/// keeps its kind, and says where the older generations are driven.
#[cfg(not(feature = "legacy"))]
const OLDER_SERVER_HINT: &str = "; the server may speak an MCP version before 2026-07-28, which this build of \
     mcp-tasks-web (`mcp-tasks-web/extension`) does not drive: the `mcp-tasks-web` entry does";
