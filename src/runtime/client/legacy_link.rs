//! The server's task generation and, for a 2025-11-25 server, its session: which flow a new call
//! takes (decided once per client and remembered in the store per URL), `initialize` +
//! `notifications/initialized` shared by every request that needs a session, `Mcp-Session-Id` on
//! each POST, and a new session when the server has forgotten ours (HTTP 404) — its tasks outlive the
//! session, so the request is sent once more in the new one.
use std::cell::RefCell;
use std::rc::Rc;

use crate::client_state::SessionStreamEnd;
use crate::collections::SortedMap;
use crate::error::{ClientError, ErrorKind};
use crate::json::Value;
use crate::protocol::discover::DiscoverResult;
use crate::protocol::legacy::handshake::{decode_initialize_result, encode_initialize, encode_initialized};
use crate::protocol::legacy::headers::{initialize_headers, read_session_id, session_headers, stream_headers};
use crate::protocol::legacy::link::{read_link, session_lost, stored_link, SessionInfo};
use crate::protocol::legacy::negotiate::{
    after_discover, after_initialize, DiscoverOutcome, DiscoverVerdict, Generation,
};
use crate::protocol::legacy::request::LegacyRequest;
use crate::protocol::legacy::tools::{decode_tool_page, TaskSupport};
use crate::protocol::request::ClientRequest;
use crate::protocol::DecodeError;
use crate::transport::{Exchange, TransportError};

use super::once::Once;
use super::ClientCore;

pub(super) type Session = SessionInfo;

/// What [`ClientCore::legacy_request`] sends: a request (given its id there) or a response.
#[derive(Clone, Copy)]
pub(super) enum Outgoing<'a> {
    Request(&'a LegacyRequest),
    Response(&'a Value),
}

type Connecting = Rc<Once<Result<Rc<Session>, TransportError>>>;

/// What the client knows of its server's generation and its 2025-11-25 session.
#[derive(Default)]
pub(super) struct ServerLink {
    generation: RefCell<Option<Generation>>,
    session: RefCell<Option<Rc<Session>>>,
    /// The `initialize` in flight, which every request that needs a session waits for.
    connecting: RefCell<Option<Connecting>>,
    /// `execution.taskSupport` by tool name, read with `tools/list` once per session.
    tools: RefCell<Option<SortedMap<String, TaskSupport>>>,
    /// The open (or just ended) `tasks/result` streams, by task id.
    pub(super) streams: RefCell<SortedMap<String, super::legacy_tasks::ResultStream>>,
    /// Closes the session's GET stream.
    pub(super) session_abort: RefCell<Option<web_sys::AbortController>>,
}

impl ClientCore {
    /// The generation decided so far: by this client, or remembered in the store (with the session
    /// a 2025-11-25 server gave this namespace, which this client then goes on in).
    pub(super) async fn known_generation(&self) -> Option<Generation> {
        if let Some(generation) = *self.link.generation.borrow() {
            return Some(generation);
        }
        let key = self.state.borrow().keys().server();
        let remembered = self.store().get(&key).await.ok().flatten().and_then(|text| read_link(&text));
        let (generation, session) = remembered?;
        self.link.generation.replace(Some(generation));
        if let Some(session) = session {
            if self.link.session.borrow().is_none() {
                self.link.session.replace(Some(Rc::new(session)));
            }
        }
        Some(generation)
    }

    /// At open: the remembered generation and session, before the first pass. A server of an older
    /// generation has no `subscriptions/listen`, so none is asked for.
    pub(super) async fn load_link(&self) {
        if matches!(self.known_generation().await, Some(Generation::Legacy2025 | Generation::NoTasks)) {
            let now = crate::host::globals::now_ms();
            self.run(|state| state.on_discovered(now, false));
        }
    }

    /// Writes the generation, and the session of a 2025-11-25 server, to the store.
    async fn remember_link(&self) {
        let Some(generation) = *self.link.generation.borrow() else { return };
        let session = self.link.session.borrow().clone();
        let Some(value) = stored_link(generation, session.as_deref()) else { return };
        let key = self.state.borrow().keys().server();
        if let Err(e) = self.store().put(&key, &value.to_string()).await {
            self.storage_failed(&e);
        }
    }

    /// A 2026-07-28 exchange succeeded: the server speaks it (kept for this client only; it is the
    /// flow a client tries first anyway).
    pub(super) fn link_confirmed(&self, generation: Generation) {
        self.link.generation.replace(Some(generation));
    }

    /// Decides the server's generation as the spec's era detection says (`server/discover`, then
    /// `initialize`), remembers it, and returns it; `None` when the answers decided nothing (an
    /// authorization failure, an outage), so the next call asks again.
    pub(super) async fn negotiate(&self) -> Option<Generation> {
        let generation = match after_discover(&self.discover_outcome().await?) {
            DiscoverVerdict::Extension2026 => Generation::Extension2026,
            DiscoverVerdict::NoTasks => Generation::NoTasks,
            DiscoverVerdict::Unresolved => return None,
            DiscoverVerdict::TryInitialize => match self.legacy_session().await {
                Ok(session) => match session.tasks {
                    Some(tasks) if tasks.tools_call => Generation::Legacy2025,
                    _ => Generation::NoTasks,
                },
                Err(TransportError::BadResponse(e @ DecodeError::UnknownProtocolVersion { .. })) => {
                    after_initialize(&Err(e))
                }
                Err(_) => return None,
            },
        };
        self.link.generation.replace(Some(generation));
        if generation != Generation::Extension2026 {
            // No `subscriptions/listen` before 2026-07-28.
            let now = crate::host::globals::now_ms();
            self.run(|state| state.on_discovered(now, false));
        }
        self.remember_link().await;
        Some(generation)
    }

    /// `server/discover` as the first question of era detection, with the HTTP status its error came
    /// with; `None` when the server could not be reached at all.
    async fn discover_outcome(&self) -> Option<DiscoverOutcome> {
        let request = ClientRequest::Discover;
        let id = self.transport.next_id();
        let body = self.transport.envelope(&id, &request);
        let exchange =
            Exchange { body: &body, headers: &request.http_headers(), extra: &[], id: Some(&id), signal: None };
        let answer = self.transport.post(exchange, Some(self.transport.timeout_ms()), &mut |_| {}).await.ok()?;
        let status = answer.status;
        Some(match answer.into_result() {
            Ok(result) => match DiscoverResult::from_json(&result) {
                Ok(discover) => DiscoverOutcome::Result(discover),
                Err(_) => DiscoverOutcome::Http { status },
            },
            Err(TransportError::Rpc(error)) => DiscoverOutcome::Error { http_status: status, error },
            Err(_) => DiscoverOutcome::Http { status },
        })
    }

    /// The session, opened when there is none; concurrent callers share one `initialize`.
    pub(super) async fn legacy_session(&self) -> Result<Rc<Session>, TransportError> {
        if self.link.session.borrow().is_none() && self.link.generation.borrow().is_none() {
            // The session remembered in the store, if this client has not read it yet.
            let _ = self.known_generation().await;
        }
        if let Some(session) = self.link.session.borrow().clone() {
            return Ok(session);
        }
        let pending = self.link.connecting.borrow().clone();
        if let Some(pending) = pending {
            return pending.get().await;
        }
        let once = Once::new();
        self.link.connecting.replace(Some(once.clone()));
        let outcome = self.open_session().await;
        if let Ok(session) = &outcome {
            self.link.session.replace(Some(session.clone()));
        }
        self.link.connecting.replace(None);
        once.set(outcome.clone());
        if outcome.is_ok() {
            self.remember_link().await;
        }
        outcome
    }

    /// `initialize`, then `notifications/initialized` in the session it opened.
    async fn open_session(&self) -> Result<Rc<Session>, TransportError> {
        let id = self.transport.next_id();
        let body = encode_initialize(&id, self.transport.client_info(), true, true).to_string();
        let exchange =
            Exchange { body: &body, headers: &initialize_headers(), extra: &[], id: Some(&id), signal: None };
        let answer = self.transport.post(exchange, Some(self.transport.timeout_ms()), &mut |_| {}).await?;
        let session_id =
            answer.session_id.as_deref().map(read_session_id).transpose().map_err(TransportError::BadResponse)?;
        let server = decode_initialize_result(&answer.into_result()?).map_err(TransportError::BadResponse)?;
        let body = encode_initialized().to_string();
        let headers = session_headers(session_id.as_deref());
        let exchange = Exchange { body: &body, headers: &headers, extra: &[], id: None, signal: None };
        let ack = self.transport.post(exchange, Some(self.transport.timeout_ms()), &mut |_| {}).await?;
        if !(200..300).contains(&ack.status) {
            return Err(TransportError::Http { status: ack.status, retry_after_ms: ack.retry_after_ms });
        }
        self.link.tools.replace(None);
        Ok(Rc::new(Session { id: session_id, tasks: server.tasks }))
    }

    /// Forgets `session` (the server no longer knows it), unless a newer one replaced it already.
    fn drop_session(&self, session: &Rc<Session>) {
        let current = self.link.session.borrow().as_ref().is_some_and(|s| Rc::ptr_eq(s, session));
        if current {
            self.link.session.replace(None);
            self.link.tools.replace(None);
        }
    }

    /// Sends a request in the session and returns its result, or POSTs a JSON-RPC response (an
    /// answer to a server request; `null` once sent). `stream`: `None` for the client's timeout; a
    /// signal for a `tasks/result` stream, which waits for the task's end (or the signal); other
    /// messages on a stream go to `on_other`. A request (its id taken once the session is open) is
    /// sent once more in a new session when the server forgot ours; a response cannot be, and there
    /// is nothing left to send (`null`).
    pub(super) async fn legacy_request(
        &self,
        message: Outgoing<'_>,
        stream: Option<&web_sys::AbortSignal>,
        on_other: &mut dyn FnMut(Value),
    ) -> Result<Value, TransportError> {
        let timeout_ms = match stream {
            None => Some(self.transport.timeout_ms()),
            Some(_) => None,
        };
        let mut retried = false;
        loop {
            let session = self.legacy_session().await?;
            let (id, body) = match message {
                Outgoing::Request(request) => {
                    let id = self.transport.next_id();
                    let body = request.envelope(&id).to_string();
                    (Some(id), body)
                }
                Outgoing::Response(message) => (None, message.to_string()),
            };
            let headers = session_headers(session.id.as_deref());
            let exchange = Exchange { body: &body, headers: &headers, extra: &[], id: id.as_ref(), signal: stream };
            let answer = self.transport.post(exchange, timeout_ms, on_other).await?;
            if id.is_none() && (200..300).contains(&answer.status) {
                return Ok(Value::Null);
            }
            if session.id.is_some() && !retried && session_lost(answer.status, answer.message.as_ref()) {
                self.drop_session(&session);
                if id.is_none() {
                    return Ok(Value::Null);
                }
                retried = true;
                continue;
            }
            if id.is_none() {
                return Err(TransportError::Http { status: answer.status, retry_after_ms: answer.retry_after_ms });
            }
            return answer.into_result();
        }
    }

    /// The session's GET stream until it ends or `signal` closes it; each message goes to
    /// [`ClientCore::on_stream_message`] with no task of its own. A server without the stream answers
    /// 405; one that forgot the session, 404 (the next request opens a new one).
    pub(super) async fn session_stream(&self, signal: &web_sys::AbortSignal) -> SessionStreamEnd {
        let Ok(session) = self.legacy_session().await else { return SessionStreamEnd::Ended };
        let headers = stream_headers(session.id.as_deref());
        // An empty body makes the exchange a GET. The stream answers no request: the id is never sent,
        // so every message on it goes to the handler.
        let id = self.transport.next_id();
        let exchange = Exchange { body: "", headers: &headers, extra: &[], id: Some(&id), signal: Some(signal) };
        match self.transport.post(exchange, None, &mut |m| self.on_stream_message(None, m)).await {
            Ok(answer) if answer.status == 405 => SessionStreamEnd::Refused,
            Ok(answer) => {
                if session_lost(answer.status, answer.message.as_ref()) {
                    self.drop_session(&session);
                } else if !(200..300).contains(&answer.status) {
                    let error = TransportError::Http { status: answer.status, retry_after_ms: answer.retry_after_ms };
                    let now = crate::host::globals::now_ms();
                    self.run(|state| state.on_server_failure(now, &error.as_failure()));
                }
                SessionStreamEnd::Ended
            }
            Err(TransportError::Aborted) => SessionStreamEnd::Closed,
            Err(_) => SessionStreamEnd::Ended,
        }
    }

    /// `execution.taskSupport` of `tool`, from `tools/list` (every page, once per session).
    pub(super) async fn legacy_task_support(&self, tool: &str) -> Result<TaskSupport, ClientError> {
        if let Some(support) = self.link.tools.borrow().as_ref().map(|t| t.get(tool).copied()) {
            return Ok(support.unwrap_or(TaskSupport::Forbidden));
        }
        let mut tools = SortedMap::new();
        let mut cursor = None;
        loop {
            let request = LegacyRequest::ListTools { cursor: cursor.take() };
            let page = self
                .legacy_request(Outgoing::Request(&request), None, &mut |_| {})
                .await
                .map_err(|e| ClientError::from(&e))?;
            let page = decode_tool_page(&page).map_err(|e| ClientError::new(ErrorKind::Protocol, e.to_string()))?;
            for t in page.tools {
                tools.insert(t.name, t.task_support);
            }
            match page.next_cursor {
                Some(next) if tools.len() < 10_000 => cursor = Some(next),
                _ => break,
            }
        }
        let support = tools.get(tool).copied().unwrap_or(TaskSupport::Forbidden);
        self.link.tools.replace(Some(tools));
        Ok(support)
    }
}
