//! Driving a 2025-11-25 task behind the same state machine as a 2026-07-28 one: `tasks/get` for its
//! state; `tasks/result` for its outcome; while it waits for input, one open `tasks/result` stream,
//! the only place such a server sends its `elicitation/create` requests, whose requests become the
//! task's `inputRequests` and are answered with JSON-RPC responses; `tasks/cancel`; and `tools/call`
//! with `params.task` when the server and the tool allow it.
use crate::client_state::ExchangeOutcome;
use crate::error::{ClientError, ErrorKind};
use crate::host::globals;
use crate::host::spawn::spawn;
use crate::json::Value;
use crate::machine::record::Action;
use crate::protocol::input::{InputRequests, InputResponses};
use crate::protocol::legacy::negotiate::Generation;
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
use crate::protocol::legacy::tools::attach_task;
use crate::protocol::task::{DetailedTask, StatusDetail, Task, TaskStatus};
use crate::protocol::task_protocol::TaskProtocol;
use crate::protocol::Object;
use crate::transport::TransportError;

use super::legacy_link::Outgoing;
use super::ClientCore;
use crate::transport::reply::failure_outcome;

/// How long a step reads a task's `tasks/result` stream for the questions it waits on.
const STEP_QUESTIONS_MS: u32 = 2_000;

/// One task's `tasks/result` stream: the input requests it delivered (keyed as the host sees them)
/// and, once it ended, the task's outcome, which the next `tasks/get` that sees the end settles with.
/// Dropping it (the task settled or was forgotten) closes the stream.
#[derive(Default)]
pub(super) struct ResultStream {
    open: bool,
    delivered: bool,
    pending: InputRequests,
    payload: Option<TaskPayload>,
    abort: Option<web_sys::AbortController>,
}

impl Drop for ResultStream {
    fn drop(&mut self) {
        if let Some(abort) = &self.abort {
            abort.abort();
        }
    }
}

impl ClientCore {
    /// The outcome of `action` for 2025-11-25 task `id`, in the terms the state reads.
    pub(super) async fn legacy_exchange(&self, id: &str, action: &Action) -> ExchangeOutcome {
        let outcome = match action {
            Action::Poll => self.legacy_poll(id).await,
            Action::SendUpdate(responses) => self.legacy_answer(id, responses).await,
            Action::SendCancel => self.legacy_cancel(id).await,
        };
        outcome.unwrap_or_else(failure_outcome)
    }

    /// `tasks/get`; at the end, the outcome (from the stream, or `tasks/result`); while input is
    /// required, the requests the stream delivered (opening it if need be).
    async fn legacy_poll(&self, id: &str) -> Result<ExchangeOutcome, TransportError> {
        let request = LegacyRequest::GetTask { task_id: id.to_owned() };
        let value = self.legacy_request(Outgoing::Request(&request), None, &mut |_| {}).await?;
        let task = decode_get_result(&value, id).map_err(TransportError::BadResponse)?;
        let observed = match task.status {
            TaskStatus::Completed | TaskStatus::Failed => Some(self.legacy_settle(task).await?),
            TaskStatus::InputRequired if !self.state.borrow().config().auto_poll => {
                self.read_questions_in_step(id).await;
                self.live_state(task)
            }
            _ => self.live_state(task),
        };
        Ok(ExchangeOutcome::Answered(observed.map(Box::new)))
    }

    /// Step mode keeps no stream open between steps (its isolate ends with the step). While a task
    /// waits for input and its record holds no question yet, the step reads the task's `tasks/result`
    /// stream until the server's questions arrive (it sends those it queued at once), for at most
    /// [`STEP_QUESTIONS_MS`], and closes it. The questions are stored with the record, so later steps
    /// show and answer them without reading again.
    async fn read_questions_in_step(&self, id: &str) {
        if !self.pending_input(id).is_empty() {
            return;
        }
        let Ok(abort) = web_sys::AbortController::new() else { return };
        let stop = abort.clone();
        let _deadline = globals::Timeout::new(STEP_QUESTIONS_MS, move || stop.abort()).ok();
        let request = LegacyRequest::TaskResult { task_id: id.to_owned() };
        let signal = abort.signal();
        let on_message = &mut |message: Value| {
            self.on_stream_message(Some(id), message);
            if !self.pending_input(id).is_empty() {
                abort.abort();
            }
        };
        // The outcome is left to the next poll: a task that ended meanwhile settles there.
        let _ = self.legacy_request(Outgoing::Request(&request), Some(&signal), on_message).await;
    }

    /// An ended task's last state with its outcome: from its `tasks/result` stream if that delivered
    /// it, else asked for with `tasks/result`.
    async fn legacy_settle(&self, task: Task) -> Result<DetailedTask, TransportError> {
        let id = task.task_id.clone();
        let streamed = self.link.streams.borrow_mut().get_mut(&id).and_then(|s| s.payload.take());
        let payload = match streamed {
            Some(payload) => payload,
            None => self.legacy_payload(&id).await?,
        };
        self.link.streams.borrow_mut().remove(&id);
        settle(task, payload).map_err(TransportError::BadResponse)
    }

    /// A live task's state as the record takes it. While input is required: the requests its
    /// `tasks/result` stream delivered (opening it if need be); until it delivered some there is
    /// nothing to answer, so the task is shown working, not asking with an empty form.
    fn live_state(&self, task: Task) -> Option<DetailedTask> {
        if task.status != TaskStatus::InputRequired {
            return live_observation(task, &InputRequests::new());
        }
        self.open_result_stream(&task.task_id);
        let pending = self.pending_input(&task.task_id);
        waiting_observation(task, &pending)
    }

    /// `notifications/tasks/status` for one of this client's 2025-11-25 tasks: applied as a poll's
    /// answer would be; an end is settled with its outcome, fetched in the background.
    fn observe_status(&self, task: Task) {
        let known = self.state.borrow().record(&task.task_id).is_some_and(|r| r.protocol() == TaskProtocol::Legacy);
        if !known {
            return;
        }
        if !matches!(task.status, TaskStatus::Completed | TaskStatus::Failed) {
            if let Some(observed) = self.live_state(task) {
                let now = globals::now_ms();
                self.run(|state| state.on_task_observed(now, observed));
            }
            return;
        }
        let Some(core) = self.me.upgrade() else { return };
        spawn(async move {
            // A failure here is left to the next poll, which sees the same end.
            if let Ok(observed) = core.legacy_settle(task).await {
                let now = globals::now_ms();
                // And a pass: the session stream may have no live task left to serve.
                core.run(|state| {
                    state.on_task_observed(now, observed);
                    state.poll_due(now);
                });
            }
        });
    }

    /// `tasks/result` of a task that has ended: its result, or the JSON-RPC error it ended with.
    async fn legacy_payload(&self, id: &str) -> Result<TaskPayload, TransportError> {
        let request = LegacyRequest::TaskResult { task_id: id.to_owned() };
        let outcome = match self
            .legacy_request(Outgoing::Request(&request), None, &mut |m| self.on_stream_message(Some(id), m))
            .await
        {
            Ok(result) => Ok(result),
            Err(TransportError::Rpc(error)) => Err(error),
            Err(e) => return Err(e),
        };
        decode_task_payload(&outcome, id).map_err(TransportError::BadResponse)
    }

    /// The input requests to show for `id`: what its stream delivered; before it delivered anything,
    /// what the record already holds (restored from the store, say), so the form does not flicker.
    fn pending_input(&self, id: &str) -> InputRequests {
        if let Some(stream) = self.link.streams.borrow().get(id).filter(|s| s.delivered) {
            return stream.pending.clone();
        }
        match self.state.borrow().record(id).map(|r| &r.last().detail) {
            Some(StatusDetail::InputRequests(requests)) => requests.clone(),
            _ => InputRequests::new(),
        }
    }

    /// Opens `id`'s `tasks/result` stream unless one is open. It has no timeout: it ends when the task
    /// does, or is closed when the client settles or forgets the task. A stream that breaks is opened
    /// again by the next poll that still sees `input_required`. Step mode keeps none open (see
    /// [`Self::read_questions_in_step`]).
    fn open_result_stream(&self, id: &str) {
        if !self.state.borrow().config().auto_poll || self.link.streams.borrow().get(id).is_some_and(|s| s.open) {
            return;
        }
        let Ok(abort) = web_sys::AbortController::new() else { return };
        {
            let mut streams = self.link.streams.borrow_mut();
            let stream = streams.get_or_insert_with(id.to_owned(), ResultStream::default);
            stream.open = true;
            stream.abort = Some(abort.clone());
        }
        let Some(core) = self.me.upgrade() else { return };
        let id = id.to_owned();
        spawn(async move {
            let request = LegacyRequest::TaskResult { task_id: id.clone() };
            let signal = abort.signal();
            let outcome = match core
                .legacy_request(Outgoing::Request(&request), Some(&signal), &mut |m| {
                    core.on_stream_message(Some(&id), m)
                })
                .await
            {
                Ok(result) => decode_task_payload(&Ok(result), &id).ok(),
                Err(TransportError::Rpc(error)) => decode_task_payload(&Err(error), &id).ok(),
                Err(_) => None,
            };
            {
                let mut streams = core.link.streams.borrow_mut();
                match (outcome, streams.get_mut(&id)) {
                    (Some(payload), Some(stream)) => {
                        stream.open = false;
                        stream.payload = Some(payload);
                    }
                    _ => {
                        streams.remove(&id);
                    }
                }
            }
            core.pump();
        });
    }

    /// A message on task `stream`'s `tasks/result` stream other than its response, or (`None`) on the
    /// session's GET stream. A question goes to the task it names (else the stream's); one for no
    /// task of this client is refused, so the server does not wait for an answer that cannot come.
    pub(super) fn on_stream_message(&self, stream: Option<&str>, message: Value) {
        let ours = |id: &str| self.state.borrow().record(id).is_some();
        match route(message, stream, &ours) {
            StreamRoute::Ask { task: id, elicitation } => {
                let (key, request) = elicitation.input_entry();
                let limit = self.transport.max_input_requests();
                let pending = {
                    let mut streams = self.link.streams.borrow_mut();
                    let stream = streams.get_or_insert_with(id.clone(), ResultStream::default);
                    stream.delivered = true;
                    if stream.pending.len() >= limit && !stream.pending.contains_key(&key) {
                        None
                    } else {
                        stream.pending.insert(key, request);
                        Some(stream.pending.clone())
                    }
                };
                match pending {
                    Some(pending) => self.observe_input(&id, &pending),
                    None => self.respond_in_background(too_many_questions(&elicitation.id, &id, limit)),
                }
            }
            StreamRoute::Status(task) => self.observe_status(task),
            StreamRoute::Progress(progress) => self.run(|state| state.on_progress(progress)),
            StreamRoute::Reply(message) => self.respond_in_background(message),
            StreamRoute::Nothing => {}
        }
    }

    /// Shows `pending` as task `id`'s input requests, as a notification would.
    fn observe_input(&self, id: &str, pending: &InputRequests) {
        let Some(task) = self.state.borrow().record(id).map(|r| r.last().task.clone()) else { return };
        let task = Task { status: TaskStatus::InputRequired, ..task };
        if let Some(observed) = live_observation(task, pending) {
            let now = globals::now_ms();
            self.run(|state| state.on_task_observed(now, observed));
        }
    }

    /// Answers a server request without waiting (the stream it came on goes on meanwhile).
    fn respond_in_background(&self, message: Value) {
        let Some(core) = self.me.upgrade() else { return };
        spawn(async move {
            let _ = core.legacy_request(Outgoing::Response(&message), None, &mut |_| {}).await;
        });
    }

    /// The host's answers, each as the JSON-RPC response to the server request its key names.
    async fn legacy_answer(&self, id: &str, responses: &InputResponses) -> Result<ExchangeOutcome, TransportError> {
        for (key, answer) in responses.iter() {
            let Some(request) = request_id_for_key(key) else { continue };
            let message = encode_input_answer(&request, Some(id), answer);
            self.legacy_request(Outgoing::Response(&message), None, &mut |_| {}).await?;
            if let Some(stream) = self.link.streams.borrow_mut().get_mut(id) {
                stream.pending.remove(key);
            }
        }
        Ok(ExchangeOutcome::Answered(None))
    }

    /// `tasks/cancel`; `-32602` (already ended, or unknown) counts as done: the next poll tells which.
    async fn legacy_cancel(&self, id: &str) -> Result<ExchangeOutcome, TransportError> {
        let request = LegacyRequest::CancelTask { task_id: id.to_owned() };
        match self.legacy_request(Outgoing::Request(&request), None, &mut |_| {}).await {
            Ok(result) => {
                decode_cancel_result(&result, id).map_err(TransportError::BadResponse)?;
                Ok(ExchangeOutcome::Answered(None))
            }
            Err(TransportError::Rpc(e)) if cancel_refusal(&e) == CancelRefusal::NotCancellable => {
                Ok(ExchangeOutcome::Answered(None))
            }
            Err(e) => Err(e),
        }
    }

    /// `tools/call` in the session, asking for a task when the server and the tool allow one, with
    /// `progress_token` as its `_meta.progressToken` (valid for the task's whole life).
    pub(super) async fn legacy_call(
        &self,
        name: &str,
        arguments: Option<Object>,
        generation: Generation,
        progress_token: &str,
    ) -> Result<LegacyCallOutcome, ClientError> {
        let session = self.legacy_session().await.map_err(|e| ClientError::from(&e))?;
        let tasks = match generation {
            Generation::Legacy2025 => session.tasks,
            _ => None,
        };
        let task = match tasks {
            Some(_) => attach_task(tasks.as_ref(), self.legacy_task_support(name).await?),
            None => false,
        };
        let request = LegacyRequest::CallTool(LegacyCallTool {
            name: name.to_owned(),
            arguments,
            task: task.then(TaskParams::default),
            progress_token: task.then(|| Value::from(progress_token)),
        });
        let refuse = &mut |message: Value| self.refuse_server_request(message);
        let value =
            self.legacy_request(Outgoing::Request(&request), None, refuse).await.map_err(|e| ClientError::from(&e))?;
        decode_call_result(&value).map_err(|e| ClientError::new(ErrorKind::Protocol, e.to_string()))
    }

    /// A server request during a call that is not a task (no task to show it on): refused, so the
    /// server does not wait for ever.
    fn refuse_server_request(&self, message: Value) {
        if let StreamRoute::Reply(reply) = route(message, None, &|_| false) {
            self.respond_in_background(reply);
        }
    }
}
