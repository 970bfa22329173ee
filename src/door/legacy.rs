//! The 2025-11-25 generation in the door (the full door's `legacy` feature), as events and effects.
//!
//! - **Era detection.** A host request (a call, a tool listing) to a server of unknown generation goes
//!   out as 2026-07-28; a failure that may mean an older server asks `server/discover`, then
//!   `initialize`, and the request goes again in the generation they show. The generation (and the
//!   session) is stored per server, and every later request goes in it.
//! - **The session.** `initialize` + `notifications/initialized`, shared by every request that needs
//!   it (they wait while it opens); `Mcp-Session-Id` on each request; a new session, and the request
//!   sent once more, when the server has forgotten ours (its tasks outlive the session).
//! - **Tasks.** `tools/call` with `params.task` when the server and the tool allow one; `tasks/get`;
//!   `tasks/result` for an ended task's outcome; while a task waits for input, its `tasks/result`
//!   stream, the one place such a server asks its questions (step mode reads it for at most
//!   [`STEP_QUESTIONS_MS`]); answers as JSON-RPC responses; `tasks/cancel`; the session's GET stream.
use crate::client_state::{ExchangeOutcome, SessionStreamEnd};
use crate::collections::SortedMap;
use crate::error::{ClientError, ErrorKind};
use crate::json::Value;
use crate::machine::record::Action;
use crate::protocol::input::InputRequests;
use crate::protocol::jsonrpc::{parse_answer_within, RequestId};
use crate::protocol::legacy::handshake::{decode_initialize_result, encode_initialize, encode_initialized};
use crate::protocol::legacy::headers::{initialize_headers, read_session_id, session_headers, stream_headers};
use crate::protocol::legacy::link::{read_link, session_lost, stored_link, SessionInfo};
use crate::protocol::legacy::negotiate::{after_discover, DiscoverOutcome, DiscoverVerdict, Generation};
use crate::protocol::legacy::payload::{
    decode_task_payload, live_observation, settle, waiting_observation, TaskPayload,
};
use crate::protocol::legacy::request::{LegacyCallTool, LegacyRequest, TaskParams};
use crate::protocol::legacy::stream::{
    encode_input_answer, request_id_for_key, route, too_many_questions, StreamRoute,
};
use crate::protocol::legacy::task::{
    cancel_refusal, decode_call_result, decode_cancel_result, decode_get_result, CancelRefusal, LegacyCallOutcome,
};
use crate::protocol::legacy::tools::{attach_task, decode_tool_page, TaskSupport};
use crate::protocol::meta::Implementation;
use crate::protocol::request::{ClientRequest, RequestResult};
use crate::protocol::task::{DetailedTask, StatusDetail, Task, TaskStatus};
use crate::protocol::task_protocol::TaskProtocol;
use crate::protocol::DecodeError;
use crate::transport::reply::{failure_outcome, may_be_older_server};
use crate::transport::TransportError;

use super::{answer, CallInFlight, Door, HostRequest, Numbered, Purpose};

/// How long a step reads a task's `tasks/result` stream for the questions it waits on.
const STEP_QUESTIONS_MS: u64 = 2_000;
/// The most tools read for their `taskSupport` (every page of `tools/list`, once per session).
const MAX_TOOLS: usize = 10_000;

/// What the door knows of its server's generation and 2025-11-25 session, and the requests of that
/// generation on their way.
/// Whether this door drives 2025-11-25 tasks (`ClientState::set_drives_legacy`).
pub(super) const DRIVES_LEGACY: bool = true;

/// A host request that failed as an older server fails, and the error, while `server/discover` tells
/// the server's generation (`Purpose::Negotiate`).
pub(super) struct Negotiation(HostRequest, TransportError);

/// The door's part of this flow: the server's generation and session ([`Link`]).
pub(super) type Era = Link;

#[derive(Default)]
pub(super) struct Link {
    generation: Option<Generation>,
    session: Option<SessionInfo>,
    /// Counts the sessions opened: an answer from an older one cannot drop a newer one.
    epoch: u64,
    /// `initialize` (or its notification) is on its way.
    opening: bool,
    /// What waits for the session to open.
    waiting: Vec<Waiting>,
    /// `execution.taskSupport` by tool name, read with `tools/list` once per session.
    tools: Option<SortedMap<String, TaskSupport>>,
    sends: Numbered<Send>,
    /// Each task's `tasks/result` stream, by task id.
    streams: SortedMap<String, ResultStream>,
    /// The exchange carrying the session's GET stream.
    session_stream: Option<u64>,
}

enum Waiting {
    /// A request, by its exchange number.
    Send(u64),
    /// A host request in the 2025-11-25 flow; with the 2026-07-28 failure that started the era
    /// detection (the session then decides the generation).
    Request(Box<HostRequest>, Option<TransportError>),
}

/// One task's `tasks/result` stream: the questions it delivered (keyed as the host sees them) and,
/// once it ended, the task's outcome, which the next `tasks/get` that sees the end settles with.
#[derive(Default)]
struct ResultStream {
    open: Option<u64>,
    delivered: bool,
    pending: InputRequests,
    payload: Option<TaskPayload>,
}

/// What goes out.
enum Outgoing {
    Request(LegacyRequest),
    /// An answer to a server request: its JSON-RPC response.
    Response(Value),
    Initialize,
    Initialized(SessionInfo),
    /// The session's GET stream.
    Get,
}

/// A request of the 2025-11-25 flow on its way.
struct Send {
    message: Outgoing,
    job: Job,
    /// Its id as sent (for a response or the GET, one never sent: every message on it is another's).
    rpc_id: RequestId,
    /// Sent once more already, in a new session.
    retried: bool,
    /// The session it went in.
    epoch: u64,
    status: u16,
    /// `Mcp-Session-Id` of the answer.
    session: Option<String>,
    stream: Option<answer::Stream>,
}

/// What an answer is for.
enum Job {
    Session,
    /// `tools/list` pages read so far for a call.
    ToolsPage(CallInFlight, SortedMap<String, TaskSupport>),
    Call(CallInFlight),
    /// A host's `listTools` or `readResource`: host call `x` settles with the result of `request`.
    Read(u64, ClientRequest),
    Task {
        id: String,
        action: Action,
        slot: bool,
        in_step: Option<u64>,
        stage: Stage,
    },
    /// A live task's `tasks/result` stream.
    ResultStream(String),
    /// `tasks/result` of a task a status notification said ended.
    Observe(Task),
    /// An answer to a server request; nothing waits for it.
    Respond,
    SessionStream,
}

/// Where a task's exchange is.
enum Stage {
    Get,
    /// Step mode reads the stream for the questions (`tasks/get` said input_required).
    Questions(Task),
    /// `tasks/result` of the ended task.
    Payload(Task),
    /// The response for question `key`; `rest`: those still to send.
    Answer {
        key: String,
        rest: Vec<(String, Value)>,
    },
    Cancel,
}

impl Send {
    fn new(message: Outgoing, job: Job) -> Self {
        Send {
            message,
            job,
            rpc_id: RequestId::Number(0),
            retried: false,
            epoch: 0,
            status: 0,
            session: None,
            stream: None,
        }
    }

    /// Whether the server answers it with a JSON-RPC response (a request), not a bare status.
    fn answered_by_response(&self) -> bool {
        matches!(self.message, Outgoing::Request(_) | Outgoing::Initialize)
    }
}

fn ok(status: u16) -> bool {
    (200..300).contains(&status)
}

impl Door {
    /// The generation (and session) stored for this server, from the entries read under the prefix.
    pub(super) fn read_link(&mut self, now: u64, entries: &[(&str, &str)]) {
        let key = self.state.keys().server();
        let Some((generation, session)) = entries.iter().find(|(k, _)| *k == key).and_then(|(_, t)| read_link(t))
        else {
            return;
        };
        self.era.generation = Some(generation);
        if self.era.session.is_none() && session.is_some() {
            self.era.session = session;
            self.era.epoch += 1;
        }
        if generation != Generation::Extension2026 {
            // No `subscriptions/listen` before 2026-07-28.
            self.state.on_discovered(now, false);
        }
    }

    /// A host request goes out in the 2025-11-25 flow when the server is known to speak it (or to
    /// have no tasks); it is handed back when it goes as 2026-07-28.
    pub(super) fn legacy_first(&mut self, request: HostRequest) -> Option<HostRequest> {
        match self.era.generation {
            Some(Generation::Legacy2025 | Generation::NoTasks) => {
                self.legacy_request(request, None);
                None
            }
            _ => Some(request),
        }
    }

    /// A 2026-07-28 exchange worked: the server speaks it (kept for this client only).
    pub(super) fn link_confirmed(&mut self) {
        self.era.generation.get_or_insert(Generation::Extension2026);
    }

    /// A 2026-07-28 request failed with `error`: when the generation is unknown and the failure may
    /// mean an older server, the era detection starts (`server/discover`) and the request is handed on
    /// to it.
    pub(super) fn maybe_negotiate(&mut self, request: HostRequest, error: TransportError) -> Option<HostRequest> {
        if self.era.generation.is_some() || !may_be_older_server(&error) {
            return Some(request);
        }
        self.send(crate::protocol::request::ClientRequest::Discover, Purpose::Negotiate(Negotiation(request, error)));
        None
    }

    /// `server/discover`'s answer in the era detection (`status`: its HTTP status).
    pub(super) fn negotiated(
        &mut self,
        now: u64,
        Negotiation(request, error): Negotiation,
        status: u16,
        result: Result<RequestResult, TransportError>,
    ) {
        let outcome = match result {
            Ok(RequestResult::Discover(discover)) => Some(DiscoverOutcome::Result(discover)),
            Ok(_) | Err(TransportError::BadResponse(_)) => Some(DiscoverOutcome::Http { status }),
            Err(TransportError::Rpc(e)) => Some(DiscoverOutcome::Error { http_status: status, error: e }),
            Err(TransportError::Http { status, .. }) => Some(DiscoverOutcome::Http { status }),
            Err(_) => None,
        };
        match outcome.as_ref().map(after_discover) {
            Some(DiscoverVerdict::NoTasks) => {
                self.decide(now, Generation::NoTasks);
                self.legacy_request(request, None);
            }
            Some(DiscoverVerdict::TryInitialize) => self.legacy_request(request, Some(error)),
            Some(DiscoverVerdict::Extension2026) => {
                self.decide(now, Generation::Extension2026);
                self.end_request(&request, Err(ClientError::from(&error)));
            }
            _ => self.end_request(&request, Err(ClientError::from(&error))),
        }
    }

    /// The generation is decided: remembered, and an older one gets no listen stream.
    fn decide(&mut self, now: u64, generation: Generation) {
        self.era.generation = Some(generation);
        if generation != Generation::Extension2026 {
            self.state.on_discovered(now, false);
        }
        self.remember_link();
    }

    /// Writes the generation, and the session of a 2025-11-25 server, to the store.
    fn remember_link(&mut self) {
        let Some(generation) = self.era.generation else { return };
        let Some(value) = stored_link(generation, self.era.session.as_ref()) else { return };
        let key = self.state.keys().server();
        self.out.push(super::Effect::Save { key, text: crate::json::to_string(&value) });
    }

    /// The host request in the session, once it is open (`negotiating`: the session decides the
    /// generation first).
    fn legacy_request(&mut self, request: HostRequest, negotiating: Option<TransportError>) {
        let Some(session) = self.era.session.clone() else {
            self.era.waiting.push(Waiting::Request(Box::new(request), negotiating));
            return self.open_session();
        };
        if negotiating.is_some() {
            let generation = match session.tasks {
                Some(tasks) if tasks.tools_call => Generation::Legacy2025,
                _ => Generation::NoTasks,
            };
            let now = self.now;
            self.decide(now, generation);
        }
        match request {
            HostRequest::Call(call) => self.legacy_call(call, session),
            HostRequest::Read { x, request } => {
                let legacy = match &request {
                    ClientRequest::ReadResource { uri } => LegacyRequest::ReadResource { uri: uri.clone() },
                    ClientRequest::ListTools { cursor } => LegacyRequest::ListTools { cursor: cursor.clone() },
                    _ => return,
                };
                self.legacy_send(Outgoing::Request(legacy), Job::Read(x, request));
            }
        }
    }

    /// The call in the open session, with `params.task` when the server and the tool allow one, the
    /// tool's `taskSupport` read with `tools/list` first when this session has not read it.
    fn legacy_call(&mut self, call: CallInFlight, session: SessionInfo) {
        let tasks = match self.era.generation {
            Some(Generation::Legacy2025) => session.tasks,
            _ => None,
        };
        let support = match (&tasks, &self.era.tools) {
            (None, _) => TaskSupport::Forbidden,
            (Some(_), Some(tools)) => tools.get(&call.name).copied().unwrap_or(TaskSupport::Forbidden),
            (Some(_), None) => {
                let request = LegacyRequest::ListTools { cursor: None };
                self.legacy_send(Outgoing::Request(request), Job::ToolsPage(call, SortedMap::new()));
                return;
            }
        };
        let task = attach_task(tasks.as_ref(), support);
        let request = LegacyRequest::CallTool(LegacyCallTool {
            name: call.name.clone(),
            arguments: call.call.arguments().cloned(),
            task: task.then(TaskParams::default),
            // The call's id: a tool that runs inline reports on the call's stream (the host's
            // `onProgress`); a task's token stays valid for the task's whole life.
            progress_token: Some(Value::from(call.call_id.as_str())),
        });
        self.legacy_send(Outgoing::Request(request), Job::Call(call));
    }

    /// An exchange the state asked for of 2025-11-25 task `id`.
    pub(super) fn legacy_exchange(&mut self, id: String, action: Action, slot: bool, in_step: Option<u64>) {
        let (message, stage) = match &action {
            Action::Poll => (Outgoing::Request(LegacyRequest::GetTask { task_id: id.clone() }), Stage::Get),
            Action::SendCancel => (Outgoing::Request(LegacyRequest::CancelTask { task_id: id.clone() }), Stage::Cancel),
            Action::SendUpdate(responses) => {
                let mut answers: Vec<(String, Value)> = responses
                    .iter()
                    .filter_map(|(key, answer)| {
                        let request = request_id_for_key(key)?;
                        Some((key.clone(), encode_input_answer(&request, Some(&id), answer)))
                    })
                    .collect();
                let Some((key, message)) = answers.pop() else {
                    let now = self.now;
                    return self.task_exchange_done(now, id, action, slot, in_step, ExchangeOutcome::Answered(None));
                };
                (Outgoing::Response(message), Stage::Answer { key, rest: answers })
            }
        };
        self.legacy_send(message, Job::Task { id, action, slot, in_step, stage });
    }

    /// Sends `message`, or queues it until the session is open.
    fn legacy_send(&mut self, message: Outgoing, job: Job) -> u64 {
        let n = self.next_exchange;
        self.next_exchange += 1;
        let needs_session = !matches!(message, Outgoing::Initialize | Outgoing::Initialized(_));
        self.era.sends.insert(n, Send::new(message, job));
        if needs_session && self.era.session.is_none() {
            self.era.waiting.push(Waiting::Send(n));
            self.open_session();
        } else {
            self.push_legacy_send(n);
        }
        n
    }

    /// `initialize`, unless it is on its way.
    fn open_session(&mut self) {
        if !std::mem::replace(&mut self.era.opening, true) {
            self.legacy_send(Outgoing::Initialize, Job::Session);
        }
    }

    fn push_legacy_send(&mut self, n: u64) {
        let rpc_id = self.ids.next_id();
        let session_id = self.era.session.as_ref().and_then(|s| s.id.clone());
        let epoch = self.era.epoch;
        let client_info = self.meta.client_info.clone();
        let Some(send) = self.era.sends.get_mut(n) else { return };
        send.rpc_id = rpc_id;
        send.epoch = epoch;
        send.stream = None;
        let (body, headers) = match &send.message {
            Outgoing::Request(request) => {
                (crate::json::to_string(&request.envelope(&send.rpc_id)), session_headers(session_id.as_deref()))
            }
            Outgoing::Response(message) => (crate::json::to_string(message), session_headers(session_id.as_deref())),
            Outgoing::Initialize => {
                let info =
                    client_info.unwrap_or_else(|| Implementation::new("mcp-tasks-web", env!("CARGO_PKG_VERSION")));
                (crate::json::to_string(&encode_initialize(&send.rpc_id, &info, true, true)), initialize_headers())
            }
            Outgoing::Initialized(info) => {
                (crate::json::to_string(&encode_initialized()), session_headers(info.id.as_deref()))
            }
            // An empty body makes the exchange a GET.
            Outgoing::Get => (String::new(), stream_headers(session_id.as_deref())),
        };
        let x = match &send.job {
            Job::Call(call) | Job::ToolsPage(call, _) => Some(call.x),
            Job::Read(x, _) => Some(*x),
            _ => None,
        };
        // Streams stay open as long as the server keeps them; step mode reads one for a while.
        let (stream, ms) = match &send.job {
            Job::ResultStream(_) | Job::SessionStream => (true, None),
            Job::Task { stage: Stage::Questions(_), .. } => (true, Some(STEP_QUESTIONS_MS)),
            _ => (false, None),
        };
        let headers = headers.iter().map(|(name, value)| (*name, value.as_str()));
        self.push_send_effect(n, x, body, headers, stream, ms);
    }

    /// Whether task `id` is driven in this flow.
    pub(super) fn drives_as_legacy(&self, id: &str) -> bool {
        self.state.record(id).is_some_and(|r| r.protocol() == TaskProtocol::Legacy)
    }

    /// This door drives the 2025-11-25 flow itself: it never hands over.
    pub(super) fn handed_over(&self) -> bool {
        false
    }

    /// See [`Self::handed_over`].
    pub(super) fn handing_over(&mut self) -> Option<Vec<Value>> {
        None
    }

    /// Whether exchange `n` is one of this module's.
    pub(super) fn is_legacy(&self, n: u64) -> bool {
        self.era.sends.get(n).is_some()
    }

    /// An answer to exchange `n` came: `session` is its `Mcp-Session-Id`.
    pub(super) fn legacy_answered(
        &mut self,
        now: u64,
        n: u64,
        head: answer::Head,
        session: Option<&str>,
        sse: bool,
        body: &[u8],
    ) {
        let limit = self.max_response_bytes;
        let Some(send) = self.era.sends.get_mut(n) else { return };
        send.status = head.status;
        send.session = session.map(str::to_owned);
        if sse {
            send.stream = Some(answer::Stream::new(head, limit));
            return;
        }
        let parsed = parse_answer_within(&crate::text::lossy_utf8(body), head.questions);
        let lost = session_lost(head.status, parsed.as_ref().ok());
        let result = if send.answered_by_response() {
            answer::from_parsed(head, parsed)
        } else if ok(head.status) {
            Ok(Value::Null)
        } else {
            Err(TransportError::Http { status: head.status, retry_after_ms: head.retry_after_ms })
        };
        self.legacy_decided(now, n, result, lost);
    }

    /// The next chunk of exchange `n`'s event stream: the messages other than its response go where
    /// the stream's job says; the response ends it.
    pub(super) fn legacy_chunk(&mut self, now: u64, n: u64, end: bool, body: &[u8]) {
        let Some(send) = self.era.sends.get_mut(n) else { return };
        let Some(stream) = send.stream.as_mut() else { return };
        let mut heard = Vec::new();
        let result = stream.read(&send.rpc_id, (!end).then_some(body), &mut |message| {
            heard.push(message);
            Ok(())
        });
        let target = match &send.job {
            Job::ResultStream(id) | Job::Task { id, .. } => Some(Some(id.clone())),
            Job::Observe(task) => Some(Some(task.task_id.clone())),
            Job::SessionStream => Some(None),
            Job::Call(_) | Job::ToolsPage(..) | Job::Read(..) => None,
            Job::Session | Job::Respond => return self.legacy_end(now, n, result),
        };
        let call = match &send.job {
            Job::Call(call) => Some((call.x, call.call_id.clone())),
            _ => None,
        };
        // Of a call's progress reports in this chunk, the host hears the latest.
        let mut progress = None;
        for message in heard {
            if let Some((_, token)) = &call {
                if let Some(report) = super::calls::progress_of(&message, token) {
                    progress = Some(report);
                    continue;
                }
            }
            match &target {
                Some(task) => self.on_stream_message(task.as_deref(), message),
                // During a call no task can take a question: refused, so the server does not wait.
                None => {
                    if let StreamRoute::Reply(reply) = route(message, None, &|_| false) {
                        self.respond(reply);
                    }
                }
            }
        }
        if let (Some((x, _)), Some(progress)) = (call, progress) {
            self.out.push(super::Effect::Progress { x, progress });
        }
        // Step mode's read ends as soon as the questions are in.
        let questions_in = match self.era.sends.get(n).map(|s| &s.job) {
            Some(Job::Task { id, stage: Stage::Questions(_), .. }) => !self.pending_input(id).is_empty(),
            _ => false,
        };
        let result = if questions_in { Some(Err(TransportError::Aborted)) } else { result };
        self.legacy_end(now, n, result);
    }

    /// Exchange `n`'s stream gave its outcome (if it did): closed, and the outcome taken.
    fn legacy_end(&mut self, now: u64, n: u64, result: Option<Result<Value, TransportError>>) {
        if let Some(result) = result.filter(|_| self.is_legacy(n)) {
            self.out.push(super::Effect::Close { n });
            self.legacy_decided(now, n, result, false);
        }
    }

    /// Exchange `n` ended with `result` (`lost`: the server no longer knows the session it went in,
    /// which sends a request once more in a new one).
    pub(super) fn legacy_decided(&mut self, now: u64, n: u64, result: Result<Value, TransportError>, lost: bool) {
        let Some(mut send) = self.era.sends.remove(n) else { return };
        let had_id =
            send.epoch == self.era.epoch && self.era.session.as_ref().is_some_and(|session| session.id.is_some());
        let result = if lost && had_id && !send.retried && !matches!(send.job, Job::Session) {
            self.era.session = None;
            self.era.tools = None;
            match send.message {
                Outgoing::Request(_) | Outgoing::Get => {
                    send.retried = true;
                    self.era.sends.insert(n, send);
                    self.era.waiting.push(Waiting::Send(n));
                    return self.open_session();
                }
                // A response cannot be sent again: there is nothing left to answer.
                _ => Ok(Value::Null),
            }
        } else {
            result
        };
        self.job_done(now, send, result);
    }

    fn job_done(&mut self, now: u64, send: Send, result: Result<Value, TransportError>) {
        match send.job {
            Job::Session => self.session_answer(now, send.message, send.session, result),
            Job::ToolsPage(call, tools) => self.tools_page(call, tools, result),
            Job::Read(x, request) => {
                // Read as a 2026-07-28 answer is: the same checks, the same result for the host.
                let outcome = result.map_err(|e| ClientError::from(&e)).and_then(|value| {
                    let page = request
                        .decode_result(&value)
                        .map_err(|e| ClientError::new(ErrorKind::Protocol, crate::text::display(&e)))?;
                    self.read_result(page)
                });
                self.done(x, outcome);
            }
            Job::Call(call) => {
                let outcome = result.map_err(|e| ClientError::from(&e)).and_then(|value| {
                    decode_call_result(&value)
                        .map_err(|e| ClientError::new(ErrorKind::Protocol, crate::text::display(&e)))
                });
                match outcome {
                    Ok(LegacyCallOutcome::Task(handle)) => {
                        let token = call.call_id.clone();
                        let id = self.made_task(now, call, handle.task, TaskProtocol::Legacy);
                        self.state.set_progress_token(&id, token);
                    }
                    Ok(LegacyCallOutcome::Complete(result)) => {
                        self.end_call(&call, Ok(crate::json::json!({ "kind": "result", "result": result.to_json() })))
                    }
                    Err(e) => self.end_call(&call, Err(e)),
                }
            }
            Job::Task { id, action, slot, in_step, stage } => {
                let Some(outcome) = self.task_stage(id.clone(), &action, slot, in_step, stage, result) else { return };
                self.task_exchange_done(now, id, action, slot, in_step, outcome);
            }
            Job::ResultStream(id) => {
                let payload = payload_outcome(result, &id).ok();
                match (payload, self.era.streams.get_mut(&id)) {
                    (Some(payload), Some(stream)) => {
                        stream.open = None;
                        stream.payload = Some(payload);
                    }
                    _ => {
                        self.era.streams.remove(&id);
                    }
                }
                self.state.poll_due(now);
            }
            Job::Observe(task) => {
                // A failure here is left to the next poll, which sees the same end.
                let id = task.task_id.clone();
                if let Some(Ok(observed)) = payload_outcome(result, &id).ok().map(|payload| settle(task, payload)) {
                    self.close_result_stream(&id);
                    self.state.on_task_observed(now, observed);
                    // And a pass: the session stream may have no live task left to serve.
                    self.state.poll_due(now);
                }
            }
            Job::Respond => {}
            Job::SessionStream => {
                self.era.session_stream = None;
                let end = match result {
                    _ if send.status == 405 => SessionStreamEnd::Refused,
                    Err(TransportError::Aborted) => SessionStreamEnd::Closed,
                    Err(e @ TransportError::Http { .. }) => {
                        self.state.on_server_failure(now, &e.as_failure());
                        SessionStreamEnd::Ended
                    }
                    _ => SessionStreamEnd::Ended,
                };
                self.state.on_session_stream_end(now, end);
            }
        }
    }

    /// The next stage of a task's exchange, or (`Some`) its outcome.
    fn task_stage(
        &mut self,
        id: String,
        action: &Action,
        slot: bool,
        in_step: Option<u64>,
        stage: Stage,
        result: Result<Value, TransportError>,
    ) -> Option<ExchangeOutcome> {
        let (stage, value) = match (stage, result) {
            (Stage::Questions(task), _) => return Some(answered(self.live_state(task))),
            (Stage::Payload(task), result) => {
                self.close_result_stream(&id);
                return Some(
                    payload_outcome(result, &id).map_or_else(failure_outcome, |payload| settled(task, payload)),
                );
            }
            // `-32602` (already ended, or unknown) counts as done: the next poll tells which.
            (Stage::Cancel, Err(TransportError::Rpc(e))) if cancel_refusal(&e) == CancelRefusal::NotCancellable => {
                return Some(answered(None))
            }
            (_, Err(e)) => return Some(failure_outcome(e)),
            (stage, Ok(value)) => (stage, value),
        };
        let next = match stage {
            Stage::Get => {
                let task = match decode_get_result(&value, &id) {
                    Ok(task) => task,
                    Err(e) => return Some(failure_outcome(TransportError::BadResponse(e))),
                };
                match task.status {
                    TaskStatus::Completed | TaskStatus::Failed => {
                        match self.era.streams.get_mut(&id).and_then(|s| s.payload.take()) {
                            Some(payload) => {
                                self.close_result_stream(&id);
                                return Some(settled(task, payload));
                            }
                            None => Stage::Payload(task),
                        }
                    }
                    TaskStatus::InputRequired if self.stepping() && self.pending_input(&id).is_empty() => {
                        Stage::Questions(task)
                    }
                    _ => return Some(answered(self.live_state(task))),
                }
            }
            Stage::Answer { key, mut rest } => {
                if let Some(stream) = self.era.streams.get_mut(&id) {
                    stream.pending.remove(&key);
                }
                let Some((key, message)) = rest.pop() else { return Some(answered(None)) };
                let job = Job::Task { id, action: action.clone(), slot, in_step, stage: Stage::Answer { key, rest } };
                self.legacy_send(Outgoing::Response(message), job);
                return None;
            }
            Stage::Cancel => {
                return Some(
                    decode_cancel_result(&value, &id)
                        .map_or_else(|e| failure_outcome(TransportError::BadResponse(e)), |_| answered(None)),
                )
            }
            Stage::Questions(_) | Stage::Payload(_) => return None,
        };
        let request = LegacyRequest::TaskResult { task_id: id.clone() };
        self.legacy_send(
            Outgoing::Request(request),
            Job::Task { id, action: action.clone(), slot, in_step, stage: next },
        );
        None
    }

    /// A live task's state as the record takes it. While input is required: the questions its
    /// `tasks/result` stream delivered (opening it if need be); until it delivered some there is
    /// nothing to answer, so the task is shown working, not asking with an empty form.
    fn live_state(&mut self, task: Task) -> Option<DetailedTask> {
        if task.status != TaskStatus::InputRequired {
            return live_observation(task, &InputRequests::new());
        }
        self.open_result_stream(&task.task_id);
        let pending = self.pending_input(&task.task_id);
        waiting_observation(task, &pending)
    }

    /// The questions to show for `id`: what its stream delivered; before it delivered any, what the
    /// record already holds (restored from the store, say), so the form does not flicker.
    fn pending_input(&self, id: &str) -> InputRequests {
        if let Some(stream) = self.era.streams.get(id).filter(|s| s.delivered) {
            return stream.pending.clone();
        }
        match self.state.record(id).map(|r| &r.last().detail) {
            Some(StatusDetail::InputRequests(requests)) => requests.clone(),
            _ => InputRequests::new(),
        }
    }

    /// Opens `id`'s `tasks/result` stream unless one is open. It ends when the task does, or is closed
    /// when the task settles or is forgotten; one that breaks is opened again by the next poll that
    /// still sees `input_required`. Step mode keeps none open.
    fn open_result_stream(&mut self, id: &str) {
        let open = self.era.streams.get(id).is_some_and(|s| s.open.is_some());
        if self.stepping() || open {
            return;
        }
        let request = LegacyRequest::TaskResult { task_id: id.to_owned() };
        let n = self.legacy_send(Outgoing::Request(request), Job::ResultStream(id.to_owned()));
        self.era.streams.get_or_insert_with(id.to_owned(), ResultStream::default).open = Some(n);
    }

    /// Task `id`'s stream goes (it settled, or was forgotten), closed if it is open.
    pub(super) fn close_result_stream(&mut self, id: &str) {
        let open = self.era.streams.remove(id).and_then(|stream| stream.open);
        if let Some(n) = open.filter(|&n| self.era.sends.remove(n).is_some()) {
            self.out.push(super::Effect::Close { n });
        }
    }

    /// A message on task `stream`'s `tasks/result` stream other than its response, or (`None`) on the
    /// session's GET stream.
    fn on_stream_message(&mut self, stream: Option<&str>, message: Value) {
        let state = &self.state;
        match route(message, stream, &|id| state.record(id).is_some()) {
            StreamRoute::Ask { task: id, elicitation } => {
                let (key, request) = elicitation.input_entry();
                let limit = self.max_input_requests;
                let stream = self.era.streams.get_or_insert_with(id.clone(), ResultStream::default);
                stream.delivered = true;
                if stream.pending.len() >= limit && !stream.pending.contains_key(&key) {
                    return self.respond(too_many_questions(&elicitation.id, &id, limit));
                }
                stream.pending.insert(key, request);
                let pending = stream.pending.clone();
                self.observe_input(&id, &pending);
            }
            StreamRoute::Status(task) => self.observe_status(task),
            StreamRoute::Progress(progress) => self.state.on_progress(progress),
            StreamRoute::Reply(reply) => self.respond(reply),
            StreamRoute::Nothing => {}
        }
    }

    /// `notifications/tasks/status` for one of this client's 2025-11-25 tasks: applied as a poll's
    /// answer would be; an end is settled with its outcome, asked for with `tasks/result`.
    fn observe_status(&mut self, task: Task) {
        let known = self.state.record(&task.task_id).is_some_and(|r| r.protocol() == TaskProtocol::Legacy);
        if !known {
            return;
        }
        if matches!(task.status, TaskStatus::Completed | TaskStatus::Failed) {
            let request = LegacyRequest::TaskResult { task_id: task.task_id.clone() };
            self.legacy_send(Outgoing::Request(request), Job::Observe(task));
        } else if let Some(observed) = self.live_state(task) {
            let now = self.now;
            self.state.on_task_observed(now, observed);
        }
    }

    /// Shows `pending` as task `id`'s questions, as a notification would.
    fn observe_input(&mut self, id: &str, pending: &InputRequests) {
        let Some(task) = self.state.record(id).map(|r| r.last().task.clone()) else { return };
        if let Some(observed) = live_observation(Task { status: TaskStatus::InputRequired, ..task }, pending) {
            let now = self.now;
            self.state.on_task_observed(now, observed);
        }
    }

    /// Answers a server request without waiting for anything.
    fn respond(&mut self, message: Value) {
        self.legacy_send(Outgoing::Response(message), Job::Respond);
    }

    /// `initialize`'s answer (then the notification's): the session opens, and what waited goes; or
    /// what waited fails with why.
    fn session_answer(
        &mut self,
        now: u64,
        message: Outgoing,
        session: Option<String>,
        result: Result<Value, TransportError>,
    ) {
        let opened = result.and_then(|value| match message {
            Outgoing::Initialized(info) => Ok(Some(info)),
            _ => {
                let id = session.as_deref().map(read_session_id).transpose().map_err(TransportError::BadResponse)?;
                let server = decode_initialize_result(&value).map_err(TransportError::BadResponse)?;
                let info = SessionInfo { id, tasks: server.tasks };
                self.legacy_send(Outgoing::Initialized(info), Job::Session);
                Ok(None)
            }
        });
        match opened {
            Ok(None) => {}
            Ok(Some(info)) => {
                self.era.opening = false;
                self.era.session = Some(info);
                self.era.epoch += 1;
                self.era.tools = None;
                for waiting in std::mem::take(&mut self.era.waiting) {
                    match waiting {
                        Waiting::Send(n) => self.push_legacy_send(n),
                        Waiting::Request(request, negotiating) => self.legacy_request(*request, negotiating),
                    }
                }
                self.remember_link();
            }
            Err(e) => {
                self.era.opening = false;
                for waiting in std::mem::take(&mut self.era.waiting) {
                    match waiting {
                        Waiting::Send(n) => {
                            if let Some(send) = self.era.sends.remove(n) {
                                self.job_done(now, send, Err(e.clone()));
                            }
                        }
                        // A server that answers `initialize` with another version has no tasks for
                        // this client; otherwise the call's own failure stands.
                        Waiting::Request(request, Some(first)) => {
                            let unknown =
                                matches!(e, TransportError::BadResponse(DecodeError::UnknownProtocolVersion { .. }));
                            self.end_request(&request, Err(ClientError::from(if unknown { &e } else { &first })));
                        }
                        Waiting::Request(request, None) => self.end_request(&request, Err(ClientError::from(&e))),
                    }
                }
            }
        }
    }

    /// A page of `tools/list` read for a call: the next page, or the call with what they say.
    fn tools_page(
        &mut self,
        call: CallInFlight,
        mut tools: SortedMap<String, TaskSupport>,
        result: Result<Value, TransportError>,
    ) {
        let page = result.map_err(|e| ClientError::from(&e)).and_then(|value| {
            decode_tool_page(&value).map_err(|e| ClientError::new(ErrorKind::Protocol, crate::text::display(&e)))
        });
        let page = match page {
            Ok(page) => page,
            Err(e) => return self.end_call(&call, Err(e)),
        };
        for tool in page.tools {
            tools.insert(tool.name, tool.task_support);
        }
        match page.next_cursor {
            Some(cursor) if tools.len() < MAX_TOOLS => {
                let request = LegacyRequest::ListTools { cursor: Some(cursor) };
                self.legacy_send(Outgoing::Request(request), Job::ToolsPage(call, tools));
            }
            _ => {
                self.era.tools = Some(tools);
                self.legacy_request(HostRequest::Call(call), None);
            }
        }
    }

    /// The state's session stream opens (a GET in the session).
    pub(super) fn open_session_stream(&mut self) {
        self.era.session_stream = Some(self.legacy_send(Outgoing::Get, Job::SessionStream));
    }

    /// The state's session stream closes.
    pub(super) fn close_session_stream(&mut self) {
        let Some(n) = self.era.session_stream.take() else { return };
        if self.era.sends.remove(n).is_some() {
            self.out.push(super::Effect::Close { n });
        }
        let now = self.now;
        self.state.on_session_stream_end(now, SessionStreamEnd::Closed);
    }
}

fn answered(observed: Option<DetailedTask>) -> ExchangeOutcome {
    ExchangeOutcome::Answered(observed.map(Box::new))
}

/// What `tasks/result` answered for task `id`: its outcome (a JSON-RPC error is one), or why there
/// is none.
fn payload_outcome(result: Result<Value, TransportError>, id: &str) -> Result<TaskPayload, TransportError> {
    let outcome = match result {
        Ok(value) => Ok(value),
        Err(TransportError::Rpc(error)) => Err(error),
        Err(e) => return Err(e),
    };
    decode_task_payload(&outcome, id).map_err(TransportError::BadResponse)
}

/// An ended task's last state with its outcome, as the record takes it (or why it cannot be read).
fn settled(task: Task, payload: TaskPayload) -> ExchangeOutcome {
    settle(task, payload).map_or_else(|e| failure_outcome(TransportError::BadResponse(e)), |o| answered(Some(o)))
}
