// The door protocol as the driver (js/driver/task_client.js) speaks it, version 3 (`DOOR_VERSION`
// there, `door::VERSION` in Rust): the events it feeds `ClientDoor.handle` (`enum Event`, decoded in
// src/door/protocol/event.rs) and the effects the door returns (`enum Effect`, encoded in
// src/door/protocol/effect.rs), with what each host call's `done` carries. docs/door.md is the
// specification (fields, who sends what, calling rules, the version rule); a change to either side
// changes this file, that page and the version. Tags and field names here are the wire's; each
// event is typed as the driver writes it (the door reads some fields as optional, see docs/door.md),
// and `Event::` / `Effect::` there name the Rust variant of each tag. A test in
// src/door/protocol/tests.rs checks that the tags here are the door's.
import type {
  CallProgress,
  AuthEventDetail,
  CallToolOutcome,
  InputRequests,
  InputResponses,
  ListToolsResult,
  ReadResourceResult,
  StepResult,
  TaskClientErrorName,
  TaskSnapshot,
  UnknownCallSnapshot,
} from "../pkg-template/client.js";

// --- events (driver → door): `{ e, … }` as JSON text, with a body of bytes beside it

/** The size in UTF-8 bytes of each key and text in turn of the records in the body (`encodeListed`). */
export type Sizes = number[];

/** What the platform's URL parser read of a URL (`urlParts`), or null when it does not parse. */
export type UrlParts = {
  href: string;
  protocol: string;
  username: string;
  password: string;
  hostname: string;
  host: string;
} | null;

/** Host calls the door answers within the call (`#query`): each settles `x` before `handle` returns. */
export type QueryEvent =
  | { e: "keys" }
  | { e: "migrate"; sizes?: Sizes }
  | { e: "tasks"; from: number; count: number }
  | { e: "notice"; id: string; language: string }
  // `drawn`: the `digest` of the card drawn last, or null; the answer leaves out a snapshot of that digest.
  | { e: "card"; id: string; snapshot: unknown; drawn: string | null; words: unknown; server: UrlParts; urls: Record<string, UrlParts> }
  | { e: "list"; words: unknown };

/** Host calls settled later, by a `done` effect (`#ask`): the event is kept for a hand-over. */
export type AskEvent =
  // Parts with `more` before open() resolves (the first page's) and after it (the rest), then one
  // without: until then the driver holds `wait`/`respond`/`cancel`/`forget` (docs/door.md, calling
  // rule 8).
  | { e: "restore"; leader: boolean; more?: true; sizes?: Sizes }
  | { e: "step"; sizes?: Sizes | null }
  | { e: "call"; name: string; arguments: unknown; ask: boolean; inputSchema: unknown; ui: unknown }
  | { e: "list_tools"; cursor: string | null }
  | { e: "read_resource"; uri: string }
  | { e: "respond"; id: string; answers: InputResponses }
  | { e: "respond"; id: string; answersText: string }
  | { e: "cancel" | "wait" | "forget"; id: string }
  | { e: "clear"; keys: string[] };

/** What each host call's `done` resolves with (`value`), by event. */
export interface DoneValues {
  /**
   * The store keys, the first page's size, and the request timeout and response limit the driver
   * applies (the options as the door read them: it owns their defaults and clamps).
   */
  keys: {
    prefix: string;
    previous: string;
    tabs: string;
    hint: string;
    firstPage: number;
    requestTimeoutMs: number;
    maxResponseBytes: number;
  };
  /** Records to move from the previous release's keys: `[old key, new key, text]`. */
  migrate: Array<[string, string, string]>;
  tasks: Array<TaskSnapshot | UnknownCallSnapshot>;
  /** The notification's words, or null when there is none to show. */
  notice: { title: string; body: string; lang: string; tag: string } | null;
  /** The card's model (src/element/model/), `{ need }` when it needs URLs parsed first, or null. */
  card: CardAnswer | null;
  /** The list's rows (src/door/element.rs). */
  list: ListRow[];
  restore: unknown;
  step: StepResult;
  call: CallToolOutcome;
  list_tools: ListToolsResult;
  read_resource: ReadResourceResult;
  respond: unknown;
  cancel: unknown;
  wait: TaskSnapshot;
  forget: unknown;
  clear: unknown;
}

/** The card query's answer: the URLs to parse first (`need`), or the card. */
export type CardAnswer = { need: string[] } | Card;

/** What a card shows (`view::card` in src/element/model/view.rs, plus the snapshot drawn). */
export interface Card {
  need?: undefined;
  /** The card's `data-status`. */
  status: string;
  statusText: string;
  title: string;
  server: string;
  conn: string;
  message: string;
  working: boolean;
  /** `[progress, total]` as the server wrote them; null for an indeterminate bar. */
  progress: [number, number | null] | null;
  live: boolean;
  settled: boolean;
  /** Unix ms, for the elapsed clock. */
  created: number | null;
  updated: number | null;
  /** The Cancel task button's words. */
  cancel: string;
  cancelRequested: boolean;
  error: string | null;
  result: CardResult | null;
  questions: QuestionView[];
  /** The snapshot the card was drawn from, as its JSON text; absent when its digest is the event's `drawn`. */
  snapshot?: string;
  /** A digest of that snapshot's text, to send back as `drawn`. */
  digest: string;
}

/** A result as a card shows it. */
export interface CardResult {
  error: boolean;
  /** One per content block (or the "No content" words). */
  parts: ResultPart[];
  /** `structuredContent` as `[key, value]` rows. */
  fields: Array<[string, string]>;
  /** The whole result, indented. */
  json: string;
}

/**
 * One part of a result: a paragraph's text; bytes (base64) to draw as an image or audio, or to offer as
 * a download (`name`), `label` being the alt text, the audio's name or the link's words; a resource
 * link, checked as a URL-mode address is.
 */
export type ResultPart =
  | string
  | { tag: "img" | "audio" | "file"; mime: string; data: string; label: string; name?: string }
  | ({ tag: "a"; label: string } & UrlView);

/** A URL-mode address as checked: what `href` opens (null: it may not be opened) and why to take care. */
export interface UrlView {
  url: string;
  host: string;
  unicode: string | null;
  warnings: string[];
  open: string | null;
  href: string | null;
}

/** One question of a card: a note, a form or a URL to open. */
export type QuestionView =
  | { key: string; note: string; mode?: undefined }
  | {
      key: string;
      note?: undefined;
      mode: "form";
      href?: undefined;
      message: string;
      asked: string;
      /** The schema as JSON text, handed back to `elementAnswer`. */
      schema: string;
      invalid: string | null;
      fields: FieldView[];
      accept: boolean;
    }
  | ({
      key: string;
      note?: undefined;
      mode: "url";
      schema?: undefined;
      message: string;
      asked: string;
    } & UrlView);

/** One form field (`view::field`): per widget, `attrs` and `value`, `checked`, or `options`. */
export interface FieldView {
  name: string;
  label: string;
  hint: string | null;
  required: boolean;
  widget: "input" | "checkbox" | "select" | "radio" | "checkboxes";
  attrs?: Record<string, string>;
  value?: string | null;
  checked?: boolean;
  /** `[value, label, chosen]`. */
  options?: Array<[string, string, boolean]>;
  /** The words of a drop-down's empty first option, when no option is the default. */
  choose?: string;
}

/** One row of a list (`view::list`): a task's (`id`, `rank`), or a call of unknown outcome's. */
export type ListRow =
  | { id: string; rank: number; title?: undefined }
  | { id: string; rank: number; title: string; status: string; message: string };

/** Events that carry no host call. */
export type PlainEvent =
  | { e: "early"; hint: string }
  | { e: "lead"; sizes?: Sizes }
  | { e: "message" }
  | { e: "tick" }
  | { e: "online"; online: boolean }
  | { e: "hidden"; hidden: boolean }
  | { e: "notify"; on: boolean }
  | { e: "close" }
  | ReplyEvent;

/**
 * Replies to what one door asked for: dropped while a hand-over runs. The one list of them: the
 * driver's `REPLIES` is typed to have exactly these tags, and docs/door.md (calling rule 9) names them.
 */
export type ReplyEvent =
  | { e: "answer"; n: number; status: number; retryAfter: string | null; session: string | null; wwwAuthenticate: string | null; sse: boolean }
  | { e: "chunk"; n: number; end: boolean }
  | { e: "failed"; n: number; kind: string; message: string; status: number; to: string | null }
  | { e: "written"; refused: string[]; broken: boolean; message: string }
  | { e: "got"; w: number; text: string | null }
  | { e: "put_if"; w: number; ok: boolean }
  | { e: "put_if"; w: number; failed: true }
  | { e: "asked"; x: number; answers: InputResponses }
  | { e: "asked"; x: number; error: string };

/** A host call's event with its number. */
export type Numbered<E> = E & { x: number };

/** Every event the driver feeds (`#feed`). */
export type DoorEvent = PlainEvent | Numbered<QueryEvent> | Numbered<AskEvent> | QueryEvent | AskEvent;

// --- effects (door → driver): `handle`'s answer, a JSON array of `{ do, … }`

/** The door's error, which the driver turns into the `Error` hosts catch (`toError`). */
export interface DoorError {
  /** `ErrorKind::js_name` (src/error.rs), the names `TaskClientErrorName` lists. */
  name: TaskClientErrorName;
  message: string;
  code?: number | null;
  retryable?: boolean;
}

export type SendEffect = {
  do: "send";
  /** The exchange. */
  n: number;
  /** The host call it serves (its `signal` aborts it), or null. */
  x: number | null;
  /** JSON text; empty for a GET. */
  body: string;
  /** name, value, name, value… */
  headers: string[];
  stream: boolean;
  /** How long to wait (ms), or null for the driver's default. */
  ms: number | null;
};
export type PutIfEffect = { do: "put_if"; w: number; key: string; expected: string | null; text: string };
export type GetEffect = { do: "get"; w: number; key: string };

/** Every effect the door returns; `#perform` has a case for each and throws a `ProtocolError` on another. */
export type DoorEffect =
  | SendEffect
  | { do: "close"; n: number }
  | { do: "put"; entries: Array<[string, string]> }
  | { do: "save"; key: string; text: string }
  | { do: "delete"; key: string }
  | { do: "deletes"; x: number; keys: string[] }
  | GetEffect
  | PutIfEffect
  | { do: "done"; x: number; value: unknown }
  | { do: "done"; x: number; error: DoorError }
  | { do: "ask"; x: number; requests: InputRequests }
  | { do: "progress"; x: number; progress: CallProgress }
  | { do: "emit"; type: "task"; detail: TaskSnapshot | null }
  | { do: "emit"; type: "forget"; detail: { id: string } }
  | { do: "emit"; type: "call"; detail: UnknownCallSnapshot }
  | { do: "emit"; type: "auth"; detail: AuthEventDetail }
  | { do: "storage"; reason: string }
  | { do: "notify"; id: string }
  | { do: "post"; text: string }
  | { do: "hint"; key: string; text: string | null }
  | { do: "timer"; at: number | null }
  | { do: "upgrade" };
