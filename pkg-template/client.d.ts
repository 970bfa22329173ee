// Types of `mcp-tasks-web` (client.js: the JS driver over the door, js/driver/task_client.js), written
// by hand: the API is the JS class, not a wasm-bindgen export. tests/ts and tests/hosts type-check
// hosts against them.

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
     * Only the requests still unanswered. Each snapshot is the host's own copy: changing it changes no
     * other snapshot.
     */
    inputRequests: InputRequests;
    /**
     * The tool's result: a completed task's, or the tool's own error result (`isError: true`) of a task
     * that a 2025-11-25 server ended `failed` with one (such a task has no `error`).
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
    /**
     * The `_meta.ui` of the tool whose call created the task (its MCP App: `resourceUri`, …), as
     * `callTool`'s `ui` option gave it; stored with the task, so it is back after a reload. Null when the call gave none.
     */
    ui: ToolUi | null;
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

/** A tool's `_meta.ui` (MCP Apps): the `ui://` resource of its app, and what else the tool says of it. */
export interface ToolUi {
    resourceUri?: string;
    [key: string]: unknown;
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

/** One content of a resource, as the server sent it: `text` or base64 `blob`. */
export interface ResourceContents {
    uri: string;
    mimeType?: string;
    text?: string;
    blob?: string;
    _meta?: Record<string, unknown>;
    [key: string]: unknown;
}

export interface ReadResourceResult {
    /** As the server sent it (a 2026-07-28 server's `"complete"`). */
    resultType?: string;
    contents: ResourceContents[];
    _meta?: Record<string, unknown>;
}

export interface ReadResourceOptions {
    signal?: AbortSignal;
}

export interface CallToolOptions {
    /** Aborts the call (and, before a handle arrives, the HTTP request). */
    signal?: AbortSignal;
    /** The tool's input schema, for `x-mcp-header` bindings when `listTools` was not called. */
    inputSchema?: Record<string, unknown>;
    /** The tool's `_meta.ui` (an MCP App, from `listTools()`): kept with the task, in its snapshots and the store. */
    ui?: ToolUi;
    /** Answers MRTR `input_required` rounds that come before a task exists. */
    onInputRequired?: (inputRequests: InputRequests) => InputResponses | Promise<InputResponses>;
    /**
     * The server's `notifications/progress` for this call while it runs inline (every call sends a
     * progress token). Several reports read in one chunk of the stream come as the latest one.
     */
    onProgress?: (progress: CallProgress) => void;
}

/** One `notifications/progress` of a call: the numbers as the server sent them. */
export interface CallProgress {
    progress: number;
    total: number | null;
    message: string | null;
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
| "RedirectError"       // the server redirected to another origin (or a browser hid where); not followed
| "ClientFailedError"   // the client stopped (its WebAssembly module trapped, or the door it needed did not load); stored tasks stay
| "AuthError";          // HTTP 401 or 403: the server refused the credentials (see the `auth` event)

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
    /** The client stopped by itself (`error.name` is `ClientFailedError`, or `NetworkError` when the 2025-11-25 door could not load): every pending call rejected with `error`, later calls do too, and the stored tasks stay for the next `open()`. */
    error: CustomEvent<{ error: TaskClientError }>;
    /** The server asks for sign-in (a 401 or 403 with `WWW-Authenticate`), or no longer does (`resolved`). */
    auth: CustomEvent<AuthEventDetail>;
}

/**
 * The `auth` event's detail. While the server asks for sign-in, no request the client starts by itself
 * goes to it before `retryAt`; then a round of requests asks `headers` again (each refused round fires
 * `auth` again, with the next `retryAt`). The first request that succeeds (such a probe, or any call of
 * the host's) ends the pause in every tab: `{ resolved: true }`.
 */
export type AuthEventDetail = { resolved: true } | AuthRequired;

/** The server asks for sign-in: its refusal and the `Bearer` challenge's parameters (`null` when absent). */
export interface AuthRequired {
    resolved: false;
    /** 401 (no or expired credentials) or 403 (e.g. `insufficient_scope`). */
    status: 401 | 403;
    /** The `Bearer` challenge's `error` (`invalid_token`, `insufficient_scope`, …). */
    error: string | null;
    /** Its `error_description`. */
    description: string | null;
    /** Its `scope`: the scopes to ask for, space-separated. */
    scope: string | null;
    /** Its `resource_metadata`: the URL of the server's OAuth protected resource metadata (RFC 9728). */
    resourceMetadata: string | null;
    /** When requests go to the server again (Unix ms). */
    retryAt: number;
}



/**
 * A durable MCP Tasks client for one server URL and namespace.
 */
export class TaskClient {
    private constructor();
    /** The same as `close()`, under the name wasm-bindgen's classes have. */
    free(): void;
    /** `close()`, for `using client = await TaskClient.open(…)`. */
    [Symbol.dispose](): void;
    /**
     * Listens for `task` (a snapshot after every change), `call` (a call of unknown outcome found at
     * open), `storage` (the store fell back to memory, or a record could not be read), `forget` (a task
     * or call was forgotten here or in another tab) and `auth` (the server asks for sign-in, or no longer does).
     */
    addEventListener(type: keyof TaskClientEventMap, listener: (event: CustomEvent) => void, options?: boolean | AddEventListenerOptions): void;
    /**
     * Calls a tool. Resolves with `{ kind: "result", result }` or, once its handle is stored,
     * `{ kind: "task", task }`.
     */
    callTool(name: string, args?: Record<string, unknown>, options?: CallToolOptions): Promise<CallToolOutcome>;
    /**
     * Asks the server to cancel a task. A request, not a guarantee: it may still complete or fail.
     */
    cancel(taskId: string): Promise<void>;
    /**
     * Forgets every task of this namespace and server.
     */
    clear(): Promise<void>;
    /**
     * Stops polling and listening. Stored tasks stay for the next `open()`.
     */
    close(): void;
    /**
     * Forgets a task (or a call of unknown outcome): removed from memory and the store.
     */
    forget(id: string): Promise<void>;
    /**
     * One page of the server's tools, each exactly as sent (schemas are never rewritten or
     * dereferenced). Tools with invalid `x-mcp-header` annotations are left out and named in
     * `rejectedTools`; the others' annotated arguments are sent as `Mcp-Param-*` headers by `callTool`.
     */
    listTools(options?: ListToolsOptions): Promise<ListToolsResult>;
    /** `resources/read` of `uri` (an MCP App's `ui://` document, say): its contents as sent. */
    readResource(uri: string, options?: ReadResourceOptions): Promise<ReadResourceResult>;
    /**
     * Opens a client: restores this namespace's tasks from the store and resumes polling those due.
     */
    static open(options: TaskClientOptions): Promise<TaskClient>;
    /**
     * Removes a listener added with `addEventListener`.
     */
    removeEventListener(type: keyof TaskClientEventMap, listener: (event: CustomEvent) => void, options?: boolean | EventListenerOptions): void;
    /**
     * Answers some or all of a task's outstanding input requests (each key once).
     */
    respond(taskId: string, responses: InputResponses): Promise<void>;
    /**
     * Step mode (`autoPoll: false`): re-reads the store, polls every task that is due and sends queued
     * answers and cancels (at most 8 requests at once), writes back with version checks, and resolves
     * with `{ nextWakeAt, live, settled, polled, sent }` so the platform can set its next alarm.
     */
    step(): Promise<StepResult>;
    /**
     * Snapshots of every task in this namespace (restored ones included) and of calls whose outcome
     * is unknown.
     */
    tasks(): Array<TaskSnapshot | UnknownCallSnapshot>;
    /**
     * Resolves with the terminal snapshot (completed, failed, cancelled or expired). Rejects with
     * `TaskForgottenError` when the task is forgotten first (here, in another tab, by `clear` or
     * retention) and `ClientClosedError` when the client is closed first.
     */
    wait(taskId: string): Promise<TaskSnapshot>;
    /**
     * `false` when tasks are only kept in memory (a `storage` event says why).
     */
    readonly durable: boolean;
    /**
     * Whether a task that needs input or ends while the page is hidden shows a system notification
     * (once across the namespace's tabs; the `notify` option sets it at open).
     */
    notify: boolean;
}

/**
 * The MCP protocol version this client speaks (`"2026-07-28"`).
 */
export function protocolVersion(): string;

/**
 * The identifier of the Tasks extension (`"io.modelcontextprotocol/tasks"`).
 */
export function tasksExtensionId(): string;

/** What `init` accepts: the .wasm's URL or bytes, a response, or a compiled module. */
export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

/** The instantiated module's exports; hosts need none of them but `memory`. */
export interface InitOutput {
    readonly memory: WebAssembly.Memory;
}

/**
 * How the door with the 2025-11-25 flow is loaded where `import("./client_full.js")` cannot fetch it:
 * the Node and Deno entries read its file. `load` resolves with `client_full.js`'s `ClientDoor` once
 * that module is initialised. Hosts that serve the package's files as they are never need it.
 */
export function setFullDoor(load: () => Promise<unknown>): void;

export type SyncInitInput = BufferSource | WebAssembly.Module;

/**
 * Instantiates the module synchronously, for hosts that compile it themselves (workerd imports it as
 * a module). Passing `SyncInitInput` directly is deprecated.
 */
export function initSync(module: { module: SyncInitInput } | SyncInitInput): InitOutput;

/**
 * Loads the module: with no argument, `client_bg.wasm` beside this file (bundlers emit it as an
 * asset). Call once before `TaskClient.open`; the Node, Deno and workerd entries do it for you. A
 * client that meets a 2025-11-25 server loads `client_full.js` and its `.wasm` from beside this file
 * as well, then. Passing `InitInput` directly is deprecated.
 */
export default function init(module_or_path?: { module_or_path: InitInput | Promise<InitInput> } | InitInput | Promise<InitInput>): Promise<InitOutput>;
