//! The JS-facing surface: everything `#[wasm_bindgen]` lives here and nowhere else. Doc comments are
//! written for the JavaScript reader; the TypeScript types are declared precisely below.
use wasm_bindgen::prelude::*;

use crate::protocol;

#[cfg(feature = "bench")]
mod bench;
// The door build exports the door for the JS driver in place of the Rust driver's `TaskClient` (and
// the element, which is built on it): what is left in the .wasm is what stays when the driver is JS.
#[cfg(feature = "door")]
mod door;
#[cfg(all(feature = "element", not(feature = "door")))]
mod element;
#[cfg(not(feature = "door"))]
mod errors;
#[cfg(not(feature = "door"))]
mod task_client;

#[cfg(not(feature = "door"))]
pub use task_client::TaskClient;

/// The MCP protocol version this client speaks (`"2026-07-28"`).
#[wasm_bindgen(js_name = protocolVersion)]
pub fn protocol_version() -> String {
    protocol::PROTOCOL_VERSION.to_owned()
}

/// The identifier of the Tasks extension (`"io.modelcontextprotocol/tasks"`).
#[wasm_bindgen(js_name = tasksExtensionId)]
pub fn tasks_extension_id() -> String {
    protocol::TASKS_EXTENSION.to_owned()
}

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** A host store: async key → JSON-text storage (IndexedDB, Durable Object storage, Deno KV, a Map…). */
export interface TaskStore {
  /**
   * Optional: store `value` only if the stored text is still `expected` (null: absent); true if written.
   * Makes step mode's version check atomic across isolates (ready-made in `mcp-tasks-web/stores`).
   */
  compareAndPut?(key: string, expected: string | null, value: string): Promise<boolean> | boolean;
  get(key: string): Promise<string | undefined | null> | string | undefined | null;
  put(key: string, value: string): Promise<void> | void;
  delete(key: string): Promise<void> | void;
  list(prefix: string): Promise<Array<[string, string] | { key: string; value: string }>> | Array<[string, string] | { key: string; value: string }>;
}

export interface TaskClientOptions {
  /** The MCP endpoint, e.g. "http://127.0.0.1:8787/mcp". */
  url: string;
  /** Handles are scoped per server URL (without its user-info, query and fragment) and namespace (e.g. a user id). Default "default". */
  namespace?: string;
  /** Called before every request; the result is never stored. */
  headers?: (() => Record<string, string> | Promise<Record<string, string>>) | Record<string, string>;
  /** "indexeddb" (default where it exists), "memory", or a host store. */
  store?: "indexeddb" | "memory" | TaskStore;
  clientInfo?: { name: string; version: string };
  minPollIntervalMs?: number;
  maxBackoffMs?: number;
  /** While a listen stream covers a task, poll it this often anyway (ms, default 60000, at least 1000): finds a task the server dropped without a notification. */
  pushedBackstopMs?: number;
  requestTimeoutMs?: number;
  /** The largest answer (a JSON body, or one event of a stream) the client reads, in bytes after content decoding (default 8 MiB, at least 1024). A larger one fails that request with a ProtocolError and backoff. */
  maxResponseBytes?: number;
  /** The most inputRequests one answer (an MRTR round, a task's state, a notification) may ask (default 256, 1 to 4096). More fails that request with a ProtocolError and backoff; on a 2025-11-25 stream, the server's question past the limit is answered with an error. */
  maxInputRequests?: number;
  /**
   * Show one system notification (across all tabs of the namespace) when a task needs input or ends
   * while the page is hidden. Needs the person's permission: the host calls
   * `Notification.requestPermission()` from a click. Default false; `client.notify` turns it on or off later.
   */
  notify?: boolean;
  /** Settled tasks kept for tasks() (oldest dropped first). Default 500. */
  retention?: number;
  /**
   * Default true: the client polls by itself (timers, online/offline, one poller across tabs).
   * false: step mode for edge workers — nothing runs until `step()`; `respond`/`cancel` only queue.
   */
  autoPoll?: boolean;
}

/** What `step()` did, and when to call it next. */
export interface StepResult {
  /** Unix ms when the next task is due; null when no task is live. */
  nextWakeAt: number | null;
  live: number;
  settled: number;
  /** tasks/get requests this step sent. */
  polled: number;
  /** tasks/update and tasks/cancel requests this step sent. */
  sent: number;
}

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled" | "expired";
export type Connectivity = "online" | "offline" | "backoff" | "listening";

/** `elicitation/create`, `sampling/createMessage`, `roots/list` or another embedded request, by key. */
export type InputRequests = Record<string, { method: string; params?: any }>;
/** Answers by key: `{ action: "accept" | "decline" | "cancel", content? }` for elicitations. */
export type InputResponses = Record<string, any>;

export interface CallToolResult {
  content: any[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  resultType?: "complete";
}

export interface TaskSnapshot {
  taskId: string;
  toolName: string;
  status: TaskStatus;
  statusMessage: string | null;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs: number | null;
  /**
   * Only the requests still unanswered. A form's `requestedSchema` may be the very object parsed from
   * the server's answer, shared by every snapshot of this task: read it, never change it.
   */
  inputRequests: InputRequests;
  /**
   * The tool's result. Its `content` blocks, `structuredContent` and `_meta` may be the very objects
   * parsed from the server's answer, shared by every snapshot of this task: read them, never change them.
   */
  result: CallToolResult | null;
  error: { code: number; message: string; data?: unknown } | null;
  nextPollAt: number | null;
  connectivity: Connectivity;
  cancelRequested: boolean;
  /** Why the task is "expired": past its TTL, or unknown to the server (-32602). */
  expired: { reason: "ttl" | "unknown_to_server"; message?: string } | null;
  lastError: { at: number; failure: { kind: string; status?: number; retryAfterMs?: number; code?: number } } | null;
  /** True for a task restored from the store when the client opened. */
  restored: boolean;
  /** The task design it lives under: the 2026-07-28 Tasks extension or 2025-11-25 experimental tasks (chosen per server at the first call). */
  protocol: "2026-07-28" | "2025-11-25";
  /** The latest `notifications/progress` of a live 2025-11-25 task (the numbers as the server sent them); null when none came, or the task ended. Held by the polling tab only, not stored. */
  progress: { progress: number; total: number | null } | null;
}

/** A call the page closed on before its answer arrived: it may or may not have started a task. */
export interface UnknownCallSnapshot {
  taskId: null;
  callId: string;
  toolName: string;
  status: "outcome_unknown";
  arguments: Record<string, unknown> | null;
  startedAt: number;
  statusMessage: string;
}

export type CallToolOutcome = { kind: "result"; result: CallToolResult } | { kind: "task"; task: TaskSnapshot };

export interface ListToolsOptions {
  cursor?: string;
  signal?: AbortSignal;
}

/** A tool exactly as the server sent it. */
export interface Tool {
  name: string;
  inputSchema: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ListToolsResult {
  tools: Tool[];
  nextCursor?: string;
  ttlMs?: number;
  cacheScope?: "public" | "private";
  _meta?: Record<string, unknown>;
  /** Tools left out because of an invalid `x-mcp-header` annotation. */
  rejectedTools?: Array<{ name: string; reason: string }>;
}

export interface CallToolOptions {
  /** Aborts the call (and, before a handle arrives, the HTTP request). */
  signal?: AbortSignal;
  /** The tool's input schema, for `x-mcp-header` bindings when `listTools` was not called. */
  inputSchema?: Record<string, unknown>;
  /** Answers MRTR `input_required` rounds that come before a task exists. */
  onInputRequired?: (inputRequests: InputRequests) => InputResponses | Promise<InputResponses>;
}

/** Every `Error.name` the client throws or rejects with (one per kind of failure). */
export type TaskClientErrorName =
  | "TypeError"           // the API was called wrongly (bad arguments, unknown task)
  | "RpcError"            // the server answered with a JSON-RPC error (`code`)
  | "HttpError"           // an HTTP failure without a JSON-RPC error body
  | "NetworkError"        // the server could not be reached
  | "TimeoutError"        // no answer in time (the server, or the tab that polls)
  | "AbortError"          // the `signal` passed in fired
  | "ProtocolError"       // the server sent something this client cannot read
  | "HeadersError"        // the `headers` callback failed; nothing was sent
  | "StorageError"        // the store refused or failed an operation
  | "TaskStateError"      // the task's state does not allow this
  | "InputRequiredError"  // the tool asks for input first and no `onInputRequired` was given
  | "TaskForgottenError"  // the task was forgotten (here, in another tab, by clear or retention)
  | "ClientClosedError"   // the client was closed first
  | "RedirectError";      // the server redirected to another origin (or a browser hid where); not followed

/** Errors thrown by the client are `Error`s with these extra fields. */
export interface TaskClientError extends Error {
  name: TaskClientErrorName;
  /** The JSON-RPC error code, when the server sent one. */
  code: number | null;
  retryable: boolean;
}

/** Typed listeners: `client.addEventListener("task", (e) => e.detail.status)`. */
export interface TaskClient {
  addEventListener<K extends keyof TaskClientEventMap>(type: K, listener: (event: TaskClientEventMap[K]) => void, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof TaskClientEventMap>(type: K, listener: (event: TaskClientEventMap[K]) => void, options?: boolean | EventListenerOptions): void;
}

export interface TaskClientEventMap {
  task: CustomEvent<TaskSnapshot>;
  call: CustomEvent<UnknownCallSnapshot>;
  storage: CustomEvent<{ durable: boolean; reason: string }>;
  /** A task or call was forgotten (`forget`, `clear`, or another tab did). */
  forget: CustomEvent<{ id: string }>;
  /** The person clicked a task's system notification (`notify`): the tab was brought forward; show them the task. */
  notificationclick: CustomEvent<{ taskId: string }>;
}
"#;
