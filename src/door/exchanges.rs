//! Requests on their way (exchanges, numbered `n`): the `send` effect, the answer read whole or chunk
//! by chunk, a failure in the driver, the one retry of a -32022 naming our version, and what each
//! request's purpose does with its outcome.
use crate::json::Value;
use crate::machine::record::{Action, Change};
use crate::protocol::jsonrpc::RequestId;
use crate::protocol::request::{ClientRequest, RequestResult};
use crate::transport::listen_stream::{listen_end, listen_event, ListenEvent};
use crate::transport::reply::{exchange_outcome, version_retry, VersionRetry};
use crate::transport::TransportError;

use super::{answer, era, Answer, CallInFlight, Door, Effect, Failure, HostRequest};

/// What a request the door sent is for.
pub(super) enum Purpose {
    /// An exchange the state asked for (a poll, an answer, a cancel), or step `in_step` ran.
    Task { id: String, action: Action, slot: bool, in_step: Option<u64> },
    /// A host's `callTool`.
    Call(CallInFlight),
    /// A host's `listTools` or `readResource`: `x` settles it (the exchange's request is what it asked).
    Read { x: u64 },
    /// `server/discover`: whether the server offers the listen stream.
    Discover,
    /// The state's listen stream `generation`.
    Listen { generation: u64 },
    /// `server/discover` of the era detection, after a 2026-07-28 request failed (the door with the
    /// 2025-11-25 flow; without it, [`era::Negotiation`] has no value, so the variant is never made).
    #[allow(dead_code)]
    Negotiate(era::Negotiation),
}

/// A request on its way.
pub(super) struct Exchange {
    pub(super) rpc_id: RequestId,
    pub(super) request: ClientRequest,
    pub(super) purpose: Purpose,
    /// Sent again once already (a -32022 that names our version).
    pub(super) retried: bool,
    /// The event stream its answer is being read from.
    pub(super) stream: Option<answer::Stream>,
    /// Its answer's HTTP status (0 before one came).
    pub(super) status: u16,
}

impl Door {
    /// Queues `request` under a fresh exchange number and id; the number.
    pub(super) fn send(&mut self, request: ClientRequest, purpose: Purpose) -> u64 {
        let n = self.next_exchange;
        self.next_exchange += 1;
        let exchange =
            Exchange { rpc_id: self.ids.next_id(), request, purpose, retried: false, stream: None, status: 0 };
        self.push_send(n, &exchange);
        self.exchanges.insert(n, exchange);
        n
    }

    pub(super) fn push_send(&mut self, n: u64, exchange: &Exchange) {
        // A call's `Mcp-Param-*` headers go with every round of it.
        let extra = match &exchange.purpose {
            Purpose::Call(call) => call.extra.as_slice(),
            _ => &[],
        };
        let headers = exchange.request.http_headers();
        let headers = headers.iter().map(|(name, value)| (*name, value.as_str()));
        let headers = headers.chain(extra.iter().map(|(name, value)| (name.as_str(), value.as_str())));
        // A call asks for `notifications/progress` (its id as the token): a server that answers inline
        // may report on the call's stream while it works, which also keeps the stream from falling silent.
        self.meta.progress_token = match &exchange.purpose {
            Purpose::Call(call) => Some(Value::from(call.call_id.as_str())),
            _ => None,
        };
        let body = crate::json::to_string(&exchange.request.envelope(&exchange.rpc_id, &self.meta));
        // A host call's requests name it, so the driver can end them with the host's `signal`.
        let x = match &exchange.purpose {
            Purpose::Call(call) => Some(call.x),
            Purpose::Read { x } => Some(*x),
            _ => None,
        };
        // A listen stream stays open as long as the server keeps it: no timeout.
        let stream = matches!(exchange.purpose, Purpose::Listen { .. });
        self.push_send_effect(n, x, body, headers, stream, None);
    }

    /// The `send` effect: exchange `n` (of host call `x`), its body (empty: a GET) and headers; a
    /// `stream` has no timeout, and `ms` ends it early.
    pub(super) fn push_send_effect<'a>(
        &mut self,
        n: u64,
        x: Option<u64>,
        body: String,
        headers: impl Iterator<Item = (&'a str, &'a str)>,
        stream: bool,
        ms: Option<u64>,
    ) {
        let mut pairs = Vec::new();
        for (name, value) in headers {
            pairs.push(Value::from(name));
            pairs.push(Value::from(value));
        }
        self.out.push(Effect::Send { n, x, body, headers: pairs, stream, ms });
    }

    /// An answer to exchange `n` came: `status`, `retryAfter` (the header), and either its JSON body
    /// or, with `sse`, an event stream whose chunks follow as `chunk` events.
    pub(super) fn answered(&mut self, now: u64, answer: Answer<'_>, body: &[u8]) {
        let Answer { n, status, sse, .. } = answer;
        let head = answer::Head {
            status,
            retry_after_ms: answer.retry_after.and_then(crate::transport::parse_retry_after),
            questions: self.max_input_requests,
        };
        let limit = self.max_response_bytes;
        // Sign-in, for every request of either generation: a refusal with a challenge pauses the
        // server, any success ends that pause.
        match (status, answer.www_authenticate) {
            (401 | 403, Some(header)) => {
                self.state.on_auth_refused(now, status, crate::transport::parse_challenge(header))
            }
            (200..=299, _) => self.state.on_auth_accepted(),
            _ => {}
        }
        if self.is_legacy(n) {
            return self.legacy_answered(now, n, head, answer.session, sse, body);
        }
        let Some(exchange) = self.exchanges.get_mut(n) else { return };
        exchange.status = head.status;
        if sse {
            exchange.stream = Some(answer::Stream::new(head, limit));
            return;
        }
        let result = answer::from_body(head, body);
        self.decided(now, n, result);
    }

    /// The next chunk of exchange `n`'s event stream (`end`: it ended). A listen stream's chunk shows
    /// it is alive, and its notifications go to the state as they come. Once the response is read, or
    /// the stream cannot be read on, the driver is told to close it.
    pub(super) fn chunk(&mut self, now: u64, n: u64, end: bool, body: &[u8]) {
        if self.is_legacy(n) {
            return self.legacy_chunk(now, n, end, body);
        }
        let Some(exchange) = self.exchanges.get_mut(n) else { return };
        let generation = match exchange.purpose {
            Purpose::Listen { generation } => Some(generation),
            _ => None,
        };
        let call = match &exchange.purpose {
            Purpose::Call(call) => Some((call.x, call.call_id.as_str())),
            _ => None,
        };
        let Some(stream) = exchange.stream.as_mut() else { return };
        let mut heard = Vec::new();
        // Of a call's progress reports in this chunk, the host hears the latest.
        let mut progress = None;
        let mut on_other = |message: Value| {
            if generation.is_some() {
                heard.extend(listen_event(message).map_err(TransportError::BadResponse)?);
            } else if let Some((_, token)) = call {
                progress = super::calls::progress_of(&message, token).or(progress.take());
            }
            Ok(())
        };
        let result = stream.read(&exchange.rpc_id, (!end).then_some(body), &mut on_other);
        if let (Some((x, _)), Some(progress)) = (call, progress) {
            self.out.push(Effect::Progress { x, progress });
        }
        if let Some(generation) = generation {
            self.state.on_listen_bytes(now, generation);
            for event in heard {
                match event {
                    ListenEvent::Acknowledged(accepted) => self.state.on_listen_ack(now, generation, &accepted),
                    ListenEvent::Task(task) => self.state.on_listen_task(now, generation, *task),
                    ListenEvent::Bytes => {}
                }
            }
        }
        // An acknowledgement that honours nothing has closed the stream already.
        if let Some(result) = result.filter(|_| self.exchanges.get(n).is_some()) {
            self.out.push(Effect::Close { n });
            self.decided(now, n, result);
        }
    }

    /// Exchange `n`'s JSON-RPC result (or why there is none), decoded for its request.
    pub(super) fn decided(&mut self, now: u64, n: u64, result: Result<Value, TransportError>) {
        let Some(exchange) = self.exchanges.get(n) else { return };
        // An answer asking more questions than the host's limit was refused as it was read.
        let result =
            result.and_then(|result| exchange.request.decode_result(&result).map_err(TransportError::BadResponse));
        self.finish(now, n, result);
    }

    /// Exchange `n` failed in the driver: `kind` (network, timeout, aborted, headers, redirect,
    /// too_large), `message`, `status`, `to`, as `http.js` throws them.
    pub(super) fn failed(&mut self, now: u64, n: u64, failure: Failure<'_>) {
        let error = match failure {
            Failure::Timeout => TransportError::Timeout,
            Failure::Aborted => TransportError::Aborted,
            Failure::Headers { message } => TransportError::Headers(message.unwrap_or_default().to_owned()),
            Failure::Redirect { status, to } => TransportError::Redirect { status, to: to.map(str::to_owned) },
            Failure::TooLarge => TransportError::BadResponse(crate::protocol::DecodeError::TooLarge {
                what: "response",
                limit: self.max_response_bytes,
            }),
            Failure::Network { message } => TransportError::Network(message.unwrap_or_default().to_owned()),
        };
        if self.is_legacy(n) {
            return self.legacy_decided(now, n, Err(error), false);
        }
        self.finish(now, n, Err(error));
    }

    /// What exchange `n`'s outcome does: a -32022 naming our version is sent once more; otherwise its
    /// purpose takes the result.
    pub(super) fn finish(&mut self, now: u64, n: u64, result: Result<RequestResult, TransportError>) {
        let Some(mut exchange) = self.exchanges.remove(n) else { return };
        let result = match result.as_ref().map_err(version_retry) {
            Err(VersionRetry::Again) if !exchange.retried => {
                exchange.retried = true;
                exchange.stream = None;
                exchange.rpc_id = self.ids.next_id();
                self.push_send(n, &exchange);
                self.exchanges.insert(n, exchange);
                return;
            }
            Err(VersionRetry::Refused(e)) => Err(e),
            _ => result,
        };
        match exchange.purpose {
            Purpose::Task { id, action, slot, in_step } => {
                self.task_exchange_done(now, id, action, slot, in_step, exchange_outcome(result));
            }
            Purpose::Call(call) => self.call_answered(now, call, result),
            Purpose::Negotiate(negotiation) => self.negotiated(now, negotiation, exchange.status, result),
            Purpose::Discover => {
                if let Err(e) = &result {
                    self.state.on_server_failure(now, &e.as_failure());
                }
                let supported = matches!(&result, Ok(RequestResult::Discover(d)) if d.supports_tasks());
                self.state.on_discovered(now, supported);
            }
            Purpose::Listen { generation } => {
                if self.listening == Some(n) {
                    self.listening = None;
                }
                let error = result.err();
                if let Some(e) = &error {
                    self.state.on_server_failure(now, &e.as_failure());
                }
                self.state.on_listen_end(now, generation, listen_end(error.as_ref()));
            }
            Purpose::Read { x } => match result {
                // A tool list or a resource proves no generation: a stateless older server may answer it too.
                Ok(page) => {
                    let outcome = self.read_result(page);
                    self.done(x, outcome);
                }
                Err(e) => {
                    let request = std::mem::replace(&mut exchange.request, ClientRequest::Discover);
                    self.host_request_failed(now, HostRequest::Read { x, request }, e)
                }
            },
        }
    }

    /// What a task's exchange came to: applied, and written when it changed the task (a step writes
    /// it compared).
    pub(super) fn task_exchange_done(
        &mut self,
        now: u64,
        id: String,
        action: Action,
        slot: bool,
        in_step: Option<u64>,
        outcome: crate::client_state::ExchangeOutcome,
    ) {
        if let Some(x) = in_step {
            return self.step_exchange_done(now, x, &id, action, outcome);
        }
        if self.state.on_exchange_done(now, &id, &action, &outcome, slot) == Change::State {
            self.write(&id);
        }
    }

    /// An exchange the state asked for of task `id`, in its generation's flow.
    pub(super) fn task_send(&mut self, id: String, action: Action, slot: bool, in_step: Option<u64>) {
        if self.drives_as_legacy(&id) {
            return self.legacy_exchange(id, action, slot, in_step);
        }
        let request = action.request(id.clone());
        self.send(request, Purpose::Task { id, action, slot, in_step });
    }
}
