//! A host's `callTool`, `listTools` and `readResource`: the pending call saved before it goes, its MRTR rounds (the
//! host's `onInputRequired` answers a round's questions), and its end: a task, a result, or an error.
use crate::error::{ClientError, ErrorKind};
use crate::json::{json, Value};
use crate::machine::mrtr::MrtrCall;
use crate::machine::pending::PendingCall;
use crate::machine::stored::to_stored;
use crate::protocol::input::{decode_input_responses, encode_input_requests, InputResponses};
use crate::protocol::jsonrpc::RequestIds;
use crate::protocol::param_headers;
use crate::protocol::request::{ClientRequest, RequestResult};
use crate::protocol::task_protocol::TaskProtocol;
use crate::protocol::tool_call::{InputRequiredResult, ToolCallOutcome};
use crate::transport::TransportError;

use super::{AfterWrite, Asker, Door, Effect, Purpose};

/// A host request that goes to the server in its generation's flow: its 2026-07-28 failure may start
/// the era detection, and once the server is known to speak 2025-11-25 it goes in that session.
pub(super) enum HostRequest {
    /// `callTool`.
    Call(CallInFlight),
    /// `listTools` or `readResource`: host call `x` settles with the request's result.
    Read { x: u64, request: ClientRequest },
}

/// What `callTool`'s options say of the tool: its input schema (for `x-mcp-header` bindings when
/// `listTools` was not called) and its `_meta.ui` (an MCP App, kept with the task).
pub(super) struct ToolOptions<'a> {
    pub(super) input_schema: Option<&'a Value>,
    pub(super) ui: Option<&'a Value>,
}

/// A host's `callTool` across its MRTR rounds.
pub(super) struct CallInFlight {
    /// The host call it settles.
    pub(super) x: u64,
    /// The tool.
    pub(super) name: String,
    pub(super) call: MrtrCall,
    /// Its pending record's id.
    pub(super) call_id: String,
    /// Whether the host gave `onInputRequired` to answer a round's questions.
    pub(super) can_ask: bool,
    /// Its `Mcp-Param-*` headers, sent with every round.
    pub(super) extra: Vec<(String, String)>,
    /// The tool's `_meta.ui` (an MCP App), kept with the task the call makes.
    pub(super) ui: Option<Value>,
}

impl Door {
    /// `callTool`: the pending call is saved before its request goes out (a page that dies meanwhile
    /// finds it as a call of unknown outcome).
    pub(super) fn call(
        &mut self,
        now: u64,
        x: u64,
        name: &str,
        arguments: Option<&Value>,
        can_ask: bool,
        tool: ToolOptions<'_>,
    ) {
        let ToolOptions { input_schema, ui } = tool;
        if let Err(e) = self.state.refuse_while_paused(now) {
            return self.done(x, Err(e));
        }
        let name = name.to_owned();
        let arguments = match arguments {
            None => None,
            Some(Value::Object(o)) => Some(o.clone()),
            Some(_) => return self.done(x, Err(ClientError::usage("callTool arguments must be an object"))),
        };
        let call_id = format!("call-{}", crate::text::hex16(self.next_random()));
        let bindings = match input_schema {
            None => self.state.tool_bindings(&name).cloned().unwrap_or_default(),
            Some(schema) => match param_headers::bindings(schema) {
                Ok(bindings) => bindings,
                Err(e) => return self.done(x, Err(ClientError::usage(crate::text::display(&e)))),
            },
        };
        // The tool's `_meta.ui`, kept with the task as the host gave it.
        let ui = ui.cloned();
        let extra = param_headers::headers(&bindings, arguments.as_ref());
        let pending = PendingCall {
            call_id: call_id.clone(),
            tool_name: name.clone(),
            arguments: arguments.clone(),
            started_at: now,
        };
        self.state.begin_call(&call_id);
        let key = self.state.keys().call(&call_id);
        self.out.push(Effect::Save { key, text: crate::json::to_string(&to_stored(&pending)) });
        let call =
            CallInFlight { x, name: name.clone(), call: MrtrCall::new(name, arguments), call_id, can_ask, extra, ui };
        self.host_request(HostRequest::Call(call));
    }

    /// A host request goes out: in the 2025-11-25 flow when the server is known to speak it, else as
    /// 2026-07-28.
    pub(super) fn host_request(&mut self, request: HostRequest) {
        match self.legacy_first(request) {
            Some(HostRequest::Call(call)) => {
                let (_, request) = call.call.first(&mut RequestIds::starting_at(0));
                self.send(request, Purpose::Call(call));
            }
            Some(HostRequest::Read { x, request }) => {
                self.send(request, Purpose::Read { x });
            }
            None => {}
        }
    }

    /// A host request's 2026-07-28 failure: the era detection when it may mean an older server,
    /// else the request fails with it.
    pub(super) fn host_request_failed(&mut self, now: u64, request: HostRequest, error: TransportError) {
        self.state.on_server_failure(now, &error.as_failure());
        if let Some(request) = self.maybe_negotiate(request, error.clone()) {
            self.end_request(&request, Err(ClientError::from(&error)));
        }
    }

    /// The request's host call settles with `outcome` (a call's pending record goes too).
    pub(super) fn end_request(&mut self, request: &HostRequest, outcome: Result<Value, ClientError>) {
        match request {
            HostRequest::Call(call) => self.end_call(call, outcome),
            HostRequest::Read { x, .. } => self.done(*x, outcome),
        }
    }

    /// A `tools/list` page or a `resources/read` result as the host gets it, from its decoded result.
    pub(super) fn read_result(&mut self, result: RequestResult) -> Result<Value, ClientError> {
        match result {
            RequestResult::ToolList(page) => Ok(self.state.take_tool_page(page)),
            RequestResult::Resource(read) => Ok(Value::Object(read)),
            _ => Err(ClientError::new(ErrorKind::Protocol, "the server answered with another kind of result")),
        }
    }

    /// The host's answers to a call's questions (`answers`), or why it gave none (`error`).
    pub(super) fn asked(&mut self, x: u64, answers: Option<&Value>, error: Option<&str>) {
        let Some((call, round)) = self.asking.remove(x) else { return };
        if let Some(why) = error {
            return self.end_call(&call, Err(ClientError::usage(why)));
        }
        let answers = decode_input_responses(answers.unwrap_or(&Value::Null))
            .map_err(|e| ClientError::usage(format!("onInputRequired returned bad answers: {e}")));
        self.retry_call(call, &round, answers);
    }

    /// The call once more, with the round's `answers` (and its `requestState`).
    pub(super) fn retry_call(
        &mut self,
        mut call: CallInFlight,
        round: &InputRequiredResult,
        answers: Result<InputResponses, ClientError>,
    ) {
        let retry = answers.and_then(|answers| {
            let mut ids = RequestIds::starting_at(0);
            call.call.retry(&mut ids, round, answers).map_err(|e| ClientError::usage(crate::text::display(&e)))
        });
        match retry {
            Ok((_, request)) => {
                self.send(request, Purpose::Call(call));
            }
            Err(e) => self.end_call(&call, Err(e)),
        }
    }

    /// A call made task `handle`: its record is stored, the host call settles with its snapshot once
    /// written, and the call's pending record goes. The task's id.
    pub(super) fn made_task(
        &mut self,
        now: u64,
        call: CallInFlight,
        handle: crate::protocol::task::Task,
        protocol: TaskProtocol,
    ) -> String {
        let id = self.state.add_called_task(now, call.name.clone(), handle, protocol, call.ui.clone());
        let asker = Asker::Host(call.x);
        self.after_write.push(AfterWrite { id: id.clone(), asker, tool: Some(call.name.clone()) });
        self.write(&id);
        self.forget_call(&call);
        id
    }

    pub(super) fn call_answered(
        &mut self,
        now: u64,
        call: CallInFlight,
        result: Result<RequestResult, TransportError>,
    ) {
        let outcome = match result {
            Ok(RequestResult::ToolCall(outcome)) => outcome,
            Ok(_) => {
                let e =
                    ClientError::new(ErrorKind::Protocol, "the server answered tools/call with another kind of result");
                return self.end_call(&call, Err(e));
            }
            Err(e) => return self.host_request_failed(now, HostRequest::Call(call), e),
        };
        self.link_confirmed();
        match outcome {
            ToolCallOutcome::Task(handle) => {
                self.made_task(now, call, handle, TaskProtocol::Extension);
            }
            ToolCallOutcome::Complete(result) => {
                self.end_call(&call, Ok(json!({ "kind": "result", "result": result.to_json() })));
            }
            ToolCallOutcome::InputRequired(round) => match &round.input_requests {
                // Only a `requestState`: sent back at once.
                None => self.retry_call(call, &round, Ok(InputResponses::new())),
                Some(_) if !call.can_ask => {
                    let message = format!(
                        "the tool {} asks for input before it starts; pass options.onInputRequired to callTool to answer",
                        call.name
                    );
                    self.end_call(&call, Err(ClientError::new(ErrorKind::InputRequired, message)));
                }
                Some(requests) => {
                    self.out.push(Effect::Ask { x: call.x, requests: encode_input_requests(requests) });
                    self.asking.insert(call.x, (call, round));
                }
            },
        }
    }

    /// The call's pending record goes, and its host call settles with `outcome`.
    pub(super) fn end_call(&mut self, call: &CallInFlight, outcome: Result<Value, ClientError>) {
        self.forget_call(call);
        self.done(call.x, outcome);
    }

    /// The call's pending record goes.
    pub(super) fn forget_call(&mut self, call: &CallInFlight) {
        self.state.end_call(&call.call_id);
        self.out.push(Effect::Delete { key: self.state.keys().call(&call.call_id) });
    }
}

/// What the host's `onProgress` gets of `message` when it is a `notifications/progress` for the call
/// whose token is `token`: `{ progress, total, message }`, each as the server wrote it, or null where it
/// is missing or not a number (a string, for `message`).
pub(super) fn progress_of(message: &Value, token: &str) -> Option<Value> {
    let params = message.get("params")?;
    let method = message.get("method")?.as_str();
    if method != Some("notifications/progress") || params.get("progressToken")?.as_str() != Some(token) {
        return None;
    }
    let field =
        |name: &str, fits: fn(&Value) -> bool| params.get(name).filter(|v| fits(v)).cloned().unwrap_or(Value::Null);
    Some(json!({
        "progress": field("progress", Value::is_number),
        "total": field("total", Value::is_number),
        "message": field("message", Value::is_string),
    }))
}
