// Types of mcp-tasks-web/element: <mcp-task> and <mcp-task-list>, and the whole API of the build with
// the element (init, TaskClient, …), which a page with cards imports from here.
import type { TaskClient, TaskSnapshot, InputResponses } from "./mcp_tasks_web.js";

export * from "./mcp_tasks_web.js";
export { default } from "./mcp_tasks_web.js";

/** Keys of every built-in word (see docs/element.md); values may contain `{placeholders}`. */
export type LabelKey =
  | "status.working" | "status.input_required" | "status.completed" | "status.failed" | "status.cancelled"
  | "status.expired" | "status.outcome_unknown" | "status.unknown"
  | "conn.offline" | "conn.backoff" | "conn.signin" | "conn.listening" | "conn.restored"
  | "elapsed.running" | "elapsed.took" | "progress.label"
  | "action.accept" | "action.decline" | "action.cancel" | "action.cancelTask" | "action.open" | "action.forget"
  | "cancel.hint" | "cancel.requested"
  | "form.askedBy" | "form.required" | "form.choose" | "form.sending" | "form.handled" | "form.sendFailed"
  | "form.invalidSchema" | "form.fixErrors"
  | "url.intro" | "url.site" | "url.mixedScripts" | "url.punycode" | "url.userinfo" | "url.local" | "url.refused"
  | "url.blocked" | "url.opened"
  | "note.sampling" | "note.roots" | "note.other"
  | "result.json" | "result.isError" | "result.image" | "result.audio" | "result.download" | "result.badType"
  | "result.tooBig" | "result.badData" | "result.resource" | "result.other" | "result.empty"
  | "error.failed" | "error.code" | "error.expiredTtl" | "error.expiredUnknown" | "error.cancelled"
  | "error.unknownTask" | "error.action" | "task.noClient" | "list.label" | "list.empty"
  | "problem.required" | "problem.tooShort" | "problem.tooLong" | "problem.email" | "problem.uri" | "problem.date"
  | "problem.dateTime" | "problem.number" | "problem.integer" | "problem.min" | "problem.max" | "problem.boolean"
  | "problem.option" | "problem.tooFew" | "problem.tooMany" | "problem.duplicate" | "problem.unknown" | "problem.type";

/** Some words, by key. */
export type Labels = Partial<Record<LabelKey, string>>;

export interface DefineMcpTaskOptions {
  /** Default "mcp-task". */
  tagName?: string;
  /** Default `${tagName}-list`. */
  listTagName?: string;
  /** Extra languages or overridden words, by language: `{ fr: { "action.accept": "Accepter" } }`. */
  labels?: Record<string, Labels>;
}

/** Registers the elements; call after this module's `init()`. Importing the module registers nothing. */
export function defineMcpTask(options?: DefineMcpTaskOptions): void;

export interface McpTaskInputDetail {
  taskId: string;
  /** The answers about to be sent, by input key. */
  responses: InputResponses;
}

export interface McpTaskElementEventMap extends HTMLElementEventMap {
  "mcp-task-change": CustomEvent<TaskSnapshot>;
  /** Cancelable: `preventDefault()` and the element sends nothing. */
  "mcp-task-input": CustomEvent<McpTaskInputDetail>;
  "mcp-task-settled": CustomEvent<TaskSnapshot>;
}

/** `<mcp-task>`: one task, live. */
export interface McpTaskElement extends HTMLElement {
  client: TaskClient | null;
  /** Mirrors the `task-id` attribute. */
  taskId: string | null;
  readonly snapshot: TaskSnapshot | null;
  /** Words for this element: `{ key: word }` or `{ [lang]: { key: word } }`. */
  labels: Labels | Record<string, Labels> | null;
  /**
   * The host's own drawing of a result's content blocks (Markdown, say): called with each block as the
   * server sent it and its index; a Node it returns is shown in place of the card's drawing of that
   * block (what it shows is the host's responsibility), anything else leaves the card's.
   */
  renderContent: ((content: unknown, index: number) => Node | null | undefined) | null;
  /*
   * Attribute `app-sandbox="<URL of sandbox.html>"` (no property): a settled task whose tool declares an
   * MCP App (`snapshot.ui.resourceUri`) shows the app with its result above the plain result, through
   * `mcp-tasks-web/app` (imported then, never before); docs/element.md, "MCP Apps".
   */
  addEventListener<K extends keyof McpTaskElementEventMap>(type: K, listener: (this: McpTaskElement, ev: McpTaskElementEventMap[K]) => any, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof McpTaskElementEventMap>(type: K, listener: (this: McpTaskElement, ev: McpTaskElementEventMap[K]) => any, options?: boolean | EventListenerOptions): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
}

/** `<mcp-task-list>`: every task of a client, those needing input first, then newest first. */
export interface McpTaskListElement extends HTMLElement {
  /** The first of `clients`; setting it lists that one client's tasks. */
  client: TaskClient | null;
  /** One TaskClient per MCP server: their tasks in one list, each card naming its server. */
  clients: TaskClient[];
  labels: Labels | Record<string, Labels> | null;
}

declare global {
  interface HTMLElementTagNameMap {
    "mcp-task": McpTaskElement;
    "mcp-task-list": McpTaskListElement;
  }
  interface HTMLElementEventMap {
    "mcp-task-change": CustomEvent<TaskSnapshot>;
    "mcp-task-input": CustomEvent<McpTaskInputDetail>;
    "mcp-task-settled": CustomEvent<TaskSnapshot>;
  }
}
