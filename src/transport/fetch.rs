//! `FetchTransport`: one POST per request with the protocol's `_meta` and headers (plus the host's, asked
//! for per request and never stored), a timeout, the host's abort signal, and a JSON or SSE answer.
use std::cell::RefCell;
use std::future::Future;

use js_sys::{Array, Promise, Uint8Array};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, AbortSignal};

use super::error::{parse_retry_after, TransportError};
use super::listen_stream::{listen_event, ListenEvent};
use super::reply::VersionRetry;
use super::task_answer::{TaskAnswer, TaskSink, Ticket};
use crate::json::Value;
use crate::protocol::input::within_limit;
use crate::protocol::jsonrpc::{parse_answer, RequestId, RequestIds};
use crate::protocol::meta::RequestMeta;
use crate::protocol::request::{ClientRequest, RequestResult};
use crate::protocol::sse::SseParser;
use crate::protocol::subscriptions::ListenFilter;
use crate::protocol::DecodeError;

// The HTTP half of an exchange (headers, `fetch`, timeout, abort, redirects, reading the body): all
// browser API, so it is JS (`http.js`); what the answer means is decided here.
#[wasm_bindgen(module = "/src/transport/http.js")]
extern "C" {
    /// What `send` resolved with.
    type Reply;
    #[wasm_bindgen(method, getter)]
    fn status(this: &Reply) -> u16;
    #[wasm_bindgen(method, getter, js_name = retryAfter)]
    fn retry_after(this: &Reply) -> Option<String>;
    #[cfg(feature = "legacy")]
    #[wasm_bindgen(method, getter)]
    fn session(this: &Reply) -> Option<String>;
    /// The whole body (not for an event stream, or when it was not read).
    #[wasm_bindgen(method, getter)]
    fn bytes(this: &Reply) -> Option<Uint8Array>;
    /// An event stream's next chunk (`undefined` at its end).
    #[wasm_bindgen(method)]
    fn next(this: &Reply) -> Promise;
    /// Ends the exchange: its timeout and abort listener go, an unread stream is cancelled.
    #[wasm_bindgen(method)]
    fn close(this: &Reply);

    /// Sends `body` (empty: a GET) with `pairs` (name, value, …) and the host's `headers` option.
    #[wasm_bindgen(js_name = send)]
    fn send(
        url: &str,
        body: &str,
        pairs: &Array,
        host: &JsValue,
        timeout_ms: Option<u32>,
        signal: Option<AbortSignal>,
        limit: f64,
        read: bool,
        ticket: Option<u32>,
        sink: Option<&JsValue>,
    ) -> Promise;
}

/// Closes a [`Reply`] however reading it ends (an answer found, a failure, the future dropped).
struct Closing<'a>(&'a Reply);

impl Drop for Closing<'_> {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// One POST to make: its body and protocol headers, the tool's `Mcp-Param-*` headers, the request id
/// whose response to read (`None` for a notification or a response, whose answer has no body), and
/// the host's abort signal. An empty body makes it a GET (a 2025-11-25 session's stream).
pub(crate) struct Exchange<'a> {
    pub(crate) body: &'a str,
    pub(crate) headers: &'a [(&'static str, String)],
    pub(crate) extra: &'a [(String, String)],
    pub(crate) id: Option<&'a RequestId>,
    pub(crate) signal: Option<&'a AbortSignal>,
}

/// What one POST came back with.
pub(crate) struct Answer {
    /// The HTTP status.
    pub(crate) status: u16,
    /// `Retry-After`, in ms.
    pub(crate) retry_after_ms: Option<u64>,
    /// `Mcp-Session-Id` (2025-11-25 servers).
    #[cfg(feature = "legacy")]
    pub(crate) session_id: Option<String>,
    /// The JSON-RPC message that answers the request; `None` when the body held none, or when it
    /// took the fast path into `task`.
    pub(crate) message: Option<Value>,
    /// A regular `tasks/get` answer's Task fields, handed over by `http.js` (see [`super::task_answer`]).
    pub(crate) task: Option<TaskAnswer>,
}

impl Answer {
    /// The JSON-RPC result, or why there is none: the server's JSON-RPC error whatever the status; an
    /// HTTP failure for a non-2xx answer without one; a protocol error for a 2xx that is no response.
    pub(crate) fn into_result(self) -> Result<Value, TransportError> {
        super::reply::result_of(self.status, self.retry_after_ms, self.message)
    }
}

/// Talks to one MCP endpoint.
pub(crate) struct FetchTransport {
    url: String,
    meta: RequestMeta,
    /// The client's self-description (also in `meta`, where it is optional).
    #[cfg(feature = "legacy")]
    client_info: crate::protocol::meta::Implementation,
    /// The host's `headers` option: a function (sync or async) or a plain object.
    host_headers: Option<JsValue>,
    timeout_ms: u32,
    /// The largest JSON answer, and the largest SSE event, this client reads (`maxResponseBytes`).
    max_response_bytes: usize,
    /// The most `inputRequests` one answer may carry (`maxInputRequests`).
    max_input_requests: usize,
    ids: RefCell<RequestIds>,
    /// Where `tasks/get` answers taken by the fast path arrive.
    task_sink: TaskSink,
}

impl FetchTransport {
    /// The MCP endpoint this transport posts to.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// A transport for `url`. `first_id` seeds request ids (random per page, so ids differ across reloads).
    pub(crate) fn new(
        url: String,
        meta: RequestMeta,
        host_headers: Option<JsValue>,
        timeout_ms: u32,
        first_id: i64,
    ) -> Self {
        #[cfg(feature = "legacy")]
        let client_info = meta
            .client_info
            .clone()
            .unwrap_or_else(|| crate::protocol::meta::Implementation::new("mcp-tasks-web", env!("CARGO_PKG_VERSION")));
        Self {
            url,
            meta,
            #[cfg(feature = "legacy")]
            client_info,
            host_headers,
            timeout_ms,
            max_response_bytes: crate::protocol::sse::DEFAULT_MAX_EVENT_BYTES,
            max_input_requests: crate::protocol::input::DEFAULT_MAX_INPUT_REQUESTS,
            ids: RefCell::new(RequestIds::starting_at(first_id)),
            task_sink: TaskSink::new(),
        }
    }

    /// The client's self-description, as `initialize` sends it too.
    #[cfg(feature = "legacy")]
    pub(crate) fn client_info(&self) -> &crate::protocol::meta::Implementation {
        &self.client_info
    }

    /// The request timeout the host chose.
    pub(crate) fn timeout_ms(&self) -> u32 {
        self.timeout_ms
    }

    /// `request` under `id` as the body of a 2026-07-28 POST.
    #[cfg(feature = "legacy")]
    pub(crate) fn envelope(&self, id: &RequestId, request: &ClientRequest) -> String {
        request.envelope(id, &self.meta).to_string()
    }

    /// This transport with the host's limits: on answers and stream events (`maxResponseBytes`),
    /// and on the questions one answer may ask (`maxInputRequests`).
    pub(crate) fn with_limits(mut self, max_response_bytes: usize, max_input_requests: usize) -> Self {
        self.max_response_bytes = max_response_bytes;
        self.max_input_requests = max_input_requests;
        self
    }

    /// The most `inputRequests` one answer may carry (the 2025-11-25 stream counts its own).
    #[cfg(feature = "legacy")]
    pub(crate) fn max_input_requests(&self) -> usize {
        self.max_input_requests
    }

    /// `result` unless it asks more questions than the host's limit.
    fn within_limits(&self, result: RequestResult) -> Result<RequestResult, DecodeError> {
        match result.input_requests() {
            Some(requests) => within_limit(requests, self.max_input_requests).map(|()| result),
            None => Ok(result),
        }
    }

    /// A fresh request id.
    pub(crate) fn next_id(&self) -> RequestId {
        self.ids.borrow_mut().next_id()
    }

    /// Sends `request` and decodes its result.
    pub(crate) fn send<'a>(
        &'a self,
        request: &'a ClientRequest,
        signal: Option<&'a AbortSignal>,
    ) -> impl Future<Output = Result<RequestResult, TransportError>> + 'a {
        // Not an `async fn`: a wrapper's own future would be one more state machine in the .wasm.
        self.send_with_headers(request, &[], signal, false)
    }

    /// Sends `request` with `extra` headers (`Mcp-Param-*`). A -32022 (unsupported version) whose
    /// `supported` list names the version this client speaks is retried once, under a new id; one
    /// that does not is reported naming both sides. `fast`: a `tasks/get` to read through the fast path
    /// of [`super::task_answer`] when its answer allows.
    pub(crate) async fn send_with_headers(
        &self,
        request: &ClientRequest,
        extra: &[(String, String)],
        signal: Option<&AbortSignal>,
        fast: bool,
    ) -> Result<RequestResult, TransportError> {
        let first = self.send_once(&self.next_id(), request, extra, signal, fast).await;
        match first.as_ref().map_err(super::reply::version_retry) {
            Err(VersionRetry::Again) => self.send_once(&self.next_id(), request, extra, signal, fast).await,
            Err(VersionRetry::Refused(e)) => Err(e),
            _ => first,
        }
    }

    /// One attempt under `id`.
    async fn send_once(
        &self,
        id: &RequestId,
        request: &ClientRequest,
        extra: &[(String, String)],
        signal: Option<&AbortSignal>,
        fast: bool,
    ) -> Result<RequestResult, TransportError> {
        let body = request.envelope(id, &self.meta).to_string();
        let exchange = Exchange { body: &body, headers: &request.http_headers(), extra, id: Some(id), signal };
        let ticket = fast.then(|| self.task_sink.ticket());
        let mut answer = self.post_reading(exchange, Some(self.timeout_ms), &mut |_| {}, ticket.as_ref()).await?;
        let result = match answer.task.take() {
            None => request.decode_result(&answer.into_result()?),
            // As `into_result`: a non-2xx answer that holds a result is an HTTP failure.
            Some(_) if !(200..300).contains(&answer.status) => {
                return Err(TransportError::Http { status: answer.status, retry_after_ms: answer.retry_after_ms })
            }
            Some(task) => task.into_task().and_then(|task| request.accept_task(task)),
        };
        result.and_then(|r| self.within_limits(r)).map_err(TransportError::BadResponse)
    }

    /// One POST of `exchange` with the host's headers added, ended by `timeout_ms` (none: a request
    /// that may rightly take hours) or the host's signal. An SSE answer is read up to the response to
    /// the exchange's id; every other message on the stream goes to `on_other` as it arrives.
    pub(crate) fn post<'a>(
        &'a self,
        exchange: Exchange<'a>,
        timeout_ms: Option<u32>,
        on_other: &'a mut dyn FnMut(Value),
    ) -> impl Future<Output = Result<Answer, TransportError>> + 'a {
        self.post_reading(exchange, timeout_ms, on_other, None)
    }

    /// [`Self::post`]; with a `ticket`, a regular `tasks/get` answer comes as [`Answer::task`].
    async fn post_reading(
        &self,
        exchange: Exchange<'_>,
        timeout_ms: Option<u32>,
        on_other: &mut dyn FnMut(Value),
        ticket: Option<&Ticket<'_>>,
    ) -> Result<Answer, TransportError> {
        let Exchange { body, headers, extra, id, signal } = exchange;
        let pairs = Array::new();
        for (name, value) in headers.iter().map(|(n, v)| (*n, v)).chain(extra.iter().map(|(n, v)| (n.as_str(), v))) {
            pairs.push(&JsValue::from_str(name));
            pairs.push(&JsValue::from_str(value));
        }
        let host = self.host_headers.clone().unwrap_or(JsValue::UNDEFINED);
        let limit = self.max_response_bytes as f64;
        let read = id.is_some();
        let sent = send(
            &self.url,
            body,
            &pairs,
            &host,
            timeout_ms,
            signal.cloned(),
            limit,
            read,
            ticket.map(Ticket::number),
            ticket.map(Ticket::function),
        );
        let reply: Reply = JsFuture::from(sent).await.map_err(|e| self.failure(&e))?.unchecked_into();
        let _closing = Closing(&reply);
        let status = reply.status();
        let task = ticket.and_then(Ticket::take).map(|task| task.with_body(reply.bytes()));
        let message = match id {
            // A notification or a response: the body (if any) carries nothing to read.
            None => None,
            Some(_) if task.is_some() => None,
            Some(id) => match reply.bytes() {
                Some(bytes) => match parse_answer(&crate::text::lossy_utf8(&bytes.to_vec())) {
                    Ok(v) => Some(v),
                    Err(_) if !(200..300).contains(&status) => None,
                    Err(e) => return Err(TransportError::BadResponse(DecodeError::NotJson { detail: e.to_string() })),
                },
                None => self.read_sse(&reply, id, signal, on_other).await?,
            },
        };
        Ok(Answer {
            status,
            retry_after_ms: reply.retry_after().and_then(|v| parse_retry_after(&v)),
            #[cfg(feature = "legacy")]
            session_id: reply.session(),
            message,
            task,
        })
    }

    /// A failure `http.js` threw (`{ kind, message, status, to }`) as a [`TransportError`]; anything
    /// else thrown is a network failure.
    fn failure(&self, thrown: &JsValue) -> TransportError {
        let field = |name: &str| crate::host::js_error::field(thrown, name);
        let message = || field("message").as_string().unwrap_or_default();
        match field("kind").as_string().as_deref() {
            Some("timeout") => TransportError::Timeout,
            Some("aborted") => TransportError::Aborted,
            Some("headers") => TransportError::Headers(message()),
            Some("redirect") => TransportError::Redirect {
                status: field("status").as_f64().unwrap_or(0.0) as u16,
                to: field("to").as_string(),
            },
            Some("too_large") => {
                TransportError::BadResponse(DecodeError::TooLarge { what: "response", limit: self.max_response_bytes })
            }
            Some(_) => TransportError::Network(message()),
            // Not a failure `http.js` made (a bug there): the thrown value's own text.
            None => TransportError::Network(crate::host::js_error::js_error_text(thrown)),
        }
    }

    /// Reads an SSE answer until the response to `id`; every other message (progress, a server's
    /// request in a 2025-11-25 stream) goes to `on_other`, and `null` once per chunk of bytes (a
    /// listen stream's sign of life). A `signal` aborted by a handler ends the reading at once.
    async fn read_sse(
        &self,
        reply: &Reply,
        id: &RequestId,
        signal: Option<&AbortSignal>,
        on_other: &mut dyn FnMut(Value),
    ) -> Result<Option<Value>, TransportError> {
        let aborted = || signal.is_some_and(AbortSignal::aborted);
        let mut parser = SseParser::with_limit(self.max_response_bytes);
        loop {
            let chunk = JsFuture::from(reply.next()).await.map_err(|e| self.failure(&e))?;
            let done = chunk.is_undefined();
            let events = if done {
                parser.finish()
            } else {
                on_other(Value::Null);
                parser.push(&Uint8Array::new(&chunk).to_vec())
            };
            for event in events.map_err(TransportError::BadResponse)? {
                let Ok(message) = parse_answer(&event.data) else { continue };
                let is_ours = message.get("id").and_then(|v| RequestId::from_json(v).ok()).is_some_and(|m| &m == id);
                if is_ours && message.get("method").is_none() {
                    return Ok(Some(message));
                }
                on_other(message);
                // The handler closed the stream (a listen that honours nothing): nothing more is read.
                if aborted() {
                    return Err(TransportError::Aborted);
                }
            }
            if done {
                return Err(if aborted() { TransportError::Aborted } else { TransportError::Network("stream".into()) });
            }
        }
    }

    /// Opens `subscriptions/listen` for `task_ids` and feeds what arrives to `on_event` until the stream
    /// ends; `abort` closes it (how a client ends a subscription over HTTP). One [`Self::post`] with no
    /// timeout: the stream's notifications reach `on_event` as they come. `None` when the listen result
    /// (or a plain JSON answer instead of a stream) ended it gracefully; otherwise why it ended.
    pub(crate) async fn listen(
        &self,
        task_ids: Vec<String>,
        abort: &AbortController,
        mut on_event: impl FnMut(ListenEvent),
    ) -> Option<TransportError> {
        let id = self.next_id();
        let request = ClientRequest::Listen(ListenFilter::tasks(task_ids));
        let body = request.envelope(&id, &self.meta).to_string();
        let headers = request.http_headers();
        let signal = abort.signal();
        let exchange = Exchange { body: &body, headers: &headers, extra: &[], id: Some(&id), signal: Some(&signal) };
        let mut unreadable = None;
        let mut on_other = |message: Value| {
            if unreadable.is_some() {
                return;
            }
            // `null`: bytes arrived (a keep-alive is enough), the stream is alive.
            match listen_event(message, self.max_input_requests) {
                Ok(Some(event)) => on_event(event),
                Ok(None) => {}
                Err(e) => {
                    unreadable = Some(e);
                    abort.abort();
                }
            }
        };
        let answer = self.post(exchange, None, &mut on_other).await;
        if let Some(e) = unreadable {
            return Some(TransportError::BadResponse(e));
        }
        answer.and_then(Answer::into_result).err()
    }
}
