// @ts-check
// TaskClient as a JS driver over the door (src/door/, exported as `ClientDoor`): every decision is the
// door's; this file only carries out what it returns (requests through http.js, records through
// idb.js's Records, events, timers, the host's promises) and feeds back what happened. It drives
// 2026-07-28 servers (callTool with MRTR, listTools, readResource, respond, cancel, wait, tasks, forget, close,
// events, the listen stream, one poller across tabs, notifications, step mode, the element's queries),
// and 2025-11-25 servers through a second door loaded only when a server or the store needs it
// (`#handOver`). Every answer goes to the door as bytes.
import init, {
  ClientDoor,
  elementAnswer as firstAnswer,
  elementElapsed as firstElapsed,
  elementWords as firstWords,
  protocolVersion as firstProtocol,
  tasksExtensionId as firstExtension,
} from "#door";
import { send } from "../transport/http.js";
import { Records } from "../store/idb.js";
import {
  EventQueue,
  Host,
  Page,
  clientError,
  errorText,
  noticeLanguage,
  openChannel,
  requestLock,
  showNotice,
  tryLock,
} from "../page/browser.js";
/**
 * @import { AskEvent, Card, DoneValues, DoorEffect, DoorError, DoorEvent, GetEffect, PutIfEffect, QueryEvent, ReplyEvent, SendEffect, Sizes } from "../../types/door-protocol.js"
 * @import { CallToolOptions, CallToolOutcome, InputRequests, InputResponses, ListToolsOptions, ListToolsResult, ReadResourceResult, StepResult, TaskClientEventMap, TaskClientOptions, TaskSnapshot, UnknownCallSnapshot } from "#pkg/client.js"
 * @import { ClientError } from "../page/browser.js"
 * @import { Failure, HostHeaders } from "../transport/http.js"
 */
/**
 * A host call waiting for its `done`: the promise's settlers (the door's value is `DoneValues` of its
 * event), and for `#ask` the event and body, which a hand-over feeds to the full door.
 * @typedef {{ resolve(value: unknown): void, reject(error: unknown): void, event?: AskEvent, body?: Uint8Array }} Waiter
 */
/** The host's `onInputRequired`. */
/** @typedef {NonNullable<CallToolOptions["onInputRequired"]>} Asker */

// For hosts that compile the .wasm themselves (workerd imports it as a module: `workerd.mjs`).
export { initSync } from "#door";

/**
 * The door class clients open on: the first door's, or the full door's once `init()` loaded that one
 * in its place, on a page that has met a 2025-11-25 server (`FULL_DOOR_FIRST`).
 */
let OpenDoor = ClientDoor;
// The protocol's names as the shipped entry exports them, and the element's model functions for
// `element.js` (not host API: over the client's module, which has no card model, they throw), from
// the module `init()` loaded (`start` rebinds them).
export let elementAnswer = firstAnswer;
export let elementElapsed = firstElapsed;
export let elementWords = firstWords;
export let protocolVersion = firstProtocol;
export let tasksExtensionId = firstExtension;

/**
 * The `localStorage` key set once this page's client has loaded the full door for a 2025-11-25
 * server: from then on, `init()` without a module loads the full door in place of the first (it
 * drives both generations), so each later load fetches one door, not two.
 */
const FULL_DOOR_FIRST = "mcp-tasks-web:full-door-first";

// ---- Which module `init()` loads: the client's, or the card host's when element.js chose it ----
// Both modules have the same export names, so this glue (the card host's) drives either; without an
// argument, `init()` loads the client's. element.js calls `setDoor` when it is evaluated; in a page whose data layer
// imports this entry and whose UI imports element.js, the module graph evaluates element.js before
// `init()` decides (one turn later), so the page loads one driver and one module.
/**
 * The module `init()` loads when given none, once element.js named the card host's (`setDoor`);
 * else the client's, beside this file, whose URL is made only then: where `import.meta.url` is no URL
 * (workerd), evaluating this module must not throw.
 * @type {URL | undefined}
 */
let firstDoor;

/**
 * Loads the door's module: `input` if given, else the client's beside this file, or the card host's
 * once element.js named it (`setDoor`); on a page that has met a 2025-11-25 server, that build's full
 * door instead (`FULL_DOOR_FIRST`), or the first if it cannot be loaded.
 * @param {Parameters<typeof init>[0]} [input]
 */
export default async function start(input) {
  await null;
  if (input === undefined && Page.stored(FULL_DOOR_FIRST) !== undefined) {
    try {
      const full = await fullGlue();
      const loaded = await full.default();
      OpenDoor = full.ClientDoor;
      ({ elementAnswer, elementElapsed, elementWords, protocolVersion, tasksExtensionId } = full);
      return loaded;
    } catch {
      // The first door then, as on a page that never met such a server.
    }
  }
  return init(input ?? { module_or_path: firstDoor ?? new URL("./client_bg.wasm", import.meta.url) });
}

/**
 * For element.js: the module `init()` loads when given none (`first`), and the glue of the full door
 * that goes with it (`full`, imported when a 2025-11-25 server is met).
 * @param {URL} first
 * @param {() => Promise<typeof import("#door-full")>} full
 */
export function setDoor(first, full) {
  firstDoor = first;
  fullGlue = full;
}
// ---- end ----

/**
 * Loads the door with the 2025-11-25 flow, which the first one hands over to when it meets that
 * generation (the `upgrade` effect): the module beside this one, fetched then. The Node entry sets
 * how it reads the file instead (`setFullDoor`).
 * @type {() => Promise<typeof ClientDoor>}
 */
let fullDoor = async () => {
  const full = await fullGlue();
  await full.default();
  return full.ClientDoor;
};
/** The glue of the full door `fullDoor` loads: the client's, or the card host's (`setDoor`). */
let fullGlue = () => import("#door-full");

/**
 * For the package's entries: how the full door's class is loaded where `import()` cannot fetch it.
 * @param {() => Promise<typeof ClientDoor>} load
 */
export function setFullDoor(load) {
  fullDoor = load;
}

/** The element's way in (`element_entry.js`): its card, list and form answers, not host API. */
export const ELEMENT = Symbol("mcp-tasks-web element");

/** The IndexedDB database every namespace shares (keys carry the namespace and server URL). */
const DATABASE = "mcp-tasks-web";
/**
 * Records read per page of the store after the first (whose size the door hands over with `keys`):
 * how the driver chunks its reads, an I/O choice the door does not share (docs/door.md).
 */
const PAGE = 2048;
/**
 * Records per part of a restore: the door copies each part into wasm memory, which never shrinks, so
 * the whole namespace in one part (6 MB at 10,000 handles) would stay as the page's footprint.
 */
const RESTORE_PART = 256;
/** Snapshots per page of `tasks()`, for the same reason. */
const TASKS_PAGE = 256;
/** The longest single timer: the door's schedule is asked again at least this often. */
const MAX_TIMER_MS = 60_000;
const NO_BODY = new Uint8Array(0);
/**
 * Events that answer what a door asked for (a request, a write, a read): meaningless to another door.
 * Exactly the tags of `ReplyEvent` (types/door-protocol.d.ts), which the type check holds it to.
 * @type {{ [E in ReplyEvent["e"]]: 1 }}
 */
const REPLIES = { answer: 1, chunk: 1, failed: 1, written: 1, put_if: 1, got: 1, asked: 1 };
/**
 * Host calls about one task: while the store's later pages are read they wait for the restore's end
 * (docs/door.md, calling rule 8), so a task not read yet is found and a task the store does not hold
 * gets the usual `TypeError`.
 */
const ABOUT_A_TASK = { wait: 1, respond: 1, cancel: 1, forget: 1 };
const UTF8 = new TextEncoder();

/** The door protocol's version this driver speaks (`VERSION` in src/door/protocol/mod.rs, docs/door.md). */
const DOOR_VERSION = 3;

/** The door and this driver do not speak the same door protocol (docs/door.md): a `ProtocolError`. */
const protocolError = (/** @type {string} */ message) => clientError(message, "ProtocolError", null, false);

/**
 * Why a door class cannot be used: its protocol version is not this driver's (docs/door.md, "Versions").
 * @param {typeof ClientDoor} Door
 */
const versionError = (Door) =>
  Door.version() === DOOR_VERSION
    ? undefined
    : protocolError(`door protocol ${Door.version()}, not ${DOOR_VERSION} as this driver`);

/** The door's error (`{ name, message, code, retryable }`) as the JS `Error` hosts catch. */
const toError = (/** @type {DoorError} */ { name, message, code = null, retryable = false }) =>
  clientError(message, name, code, retryable);
const usage = (/** @type {string} */ message) => clientError(message, "TypeError", null, false);
const storage = (/** @type {string} */ message) => clientError(message, "StorageError", null, false);
/** A store's or host's thrown value as text (the stores throw `{ kind, message }`). */
const textOf = (/** @type {unknown} */ thrown) =>
  errorText(
    typeof (/** @type {{ message?: unknown } | null | undefined} */ (thrown)?.message) === "string" &&
      !(thrown instanceof Error)
      ? /** @type {{ message: string }} */ (thrown).message
      : thrown,
  );

/**
 * The door threw within a call: a trap (a Rust panic aborts; so does memory that cannot grow) or the
 * glue refusing a door that trapped before. Its state is lost, so the client stops (`#stopped`).
 * @param {unknown} thrown
 */
const failedError = (thrown) =>
  clientError(
    `the client stopped: its WebAssembly module failed (${textOf(thrown)}); stored tasks are kept for the next TaskClient.open()`,
    "ClientFailedError",
    null,
    true,
  );

/**
 * The options the door reads: numbers floored (the door reads whole numbers), the rest as given.
 * @param {TaskClientOptions} options
 */
function doorOptions(options) {
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const key of /** @type {Array<keyof TaskClientOptions>} */ ([
    "url",
    "namespace",
    "autoPoll",
    "notify",
    "clientInfo",
    "retention",
    "minPollIntervalMs",
    "maxBackoffMs",
    "pushedBackstopMs",
    "maxResponseBytes",
    "maxInputRequests",
    "requestTimeoutMs",
  ])) {
    const value = options[key];
    if (value === undefined || value === null) continue;
    // JSON has no NaN or infinities: those cross as their text, for the door to refuse.
    out[key] = typeof value === "number" ? (Number.isFinite(value) ? Math.floor(value) : String(value)) : value;
  }
  out.offline = !Page.online();
  out.hidden = Page.hidden();
  // With Web Locks, tabs of one namespace share one poller: the tab that holds the lock (the door
  // leaves a step-mode client out, which polls only when stepped, wherever it runs).
  out.tabs = typeof globalThis.navigator?.locks?.request === "function";
  return out;
}

/**
 * What the platform's URL parser reads of `url` (against `base`), or null when it does not parse.
 * @param {string} url
 * @param {string} [base]
 */
function urlParts(url, base) {
  try {
    const { href, protocol, username, password, hostname, host } = new URL(url, base);
    return { href, protocol, username, password, hostname, host };
  } catch {
    return null;
  }
}

/**
 * The store the options ask for, and why it is not durable when it falls back to memory.
 * @param {unknown} choice
 * @returns {Promise<[Records, string | null]>}
 */
async function openStore(choice) {
  if (choice === "memory") return [Records.memory(), null];
  if (choice !== undefined && choice !== null && choice !== "indexeddb") {
    if (typeof choice !== "object")
      throw usage('options.store must be "indexeddb", "memory" or an object { get, put, delete, list }');
    try {
      return [Records.host(choice), null];
    } catch (thrown) {
      throw storage(textOf(thrown));
    }
  }
  try {
    return [await Records.indexedDb(DATABASE), null];
  } catch (thrown) {
    return [Records.memory(), `IndexedDB is not usable here (${textOf(thrown)}); tasks are kept in memory only`];
  }
}

/**
 * `listed`, records as the store lists them (key, text, key, text…), as the door reads them (`pairs`
 * in src/door/mod.rs): `sizes`, each key's and text's length in UTF-8 bytes in turn, for the event,
 * and their bytes end to end, the body. One JSON event of every record's text, escaped, cost most of
 * a step over 10,000 records. Each string is encoded straight into one buffer (as long as the texts
 * are, in UTF-16 units, which ASCII fills exactly; grown when a string needs more): one
 * `TextEncoder.encode` of them joined took 140 ms in Chromium at 10,000 records.
 * @param {string[]} listed
 * @returns {[Sizes, Uint8Array]}
 */
function encodeListed(listed) {
  /** @type {Sizes} */
  const sizes = [];
  let length = 0;
  for (const part of listed) length += part.length;
  let bytes = new Uint8Array(length);
  let at = 0;
  for (const part of listed) {
    for (;;) {
      const { read, written } = UTF8.encodeInto(part, bytes.subarray(at));
      if (read === part.length) {
        sizes.push(written);
        at += written;
        break;
      }
      const grown = new Uint8Array(Math.max(bytes.length * 2, at + part.length * 3));
      grown.set(bytes.subarray(0, at));
      bytes = grown;
    }
  }
  return [sizes, bytes.subarray(0, at)];
}

/**
 * Every record under `prefix`, page by page, as the store lists them: key, text, key, text…
 * @param {Records} records
 * @param {string} prefix
 */
async function listAll(records, prefix) {
  /** @type {string[]} */
  const listed = [];
  await eachPage(records, prefix, undefined, (page) => listed.push(...page));
  return listed;
}

/**
 * The store's pages under `prefix` after the key `after` (none: from the first), each handed to
 * `take` (awaited) as it is read.
 * @param {Records} records
 * @param {string} prefix
 * @param {string | undefined} after
 * @param {(page: string[]) => unknown} take
 */
async function eachPage(records, prefix, after, take) {
  for (;;) {
    const page = await records.listPage(prefix, after, PAGE);
    await take(page);
    if (page.length < PAGE * 2) return;
    after = page[page.length - 2];
  }
}

/**
 * `event` and the body to feed it with: `listed` records (`listAll`) as the door reads them
 * (`encodeListed`); `null` (the store failed) as `sizes: null`; none, no body.
 * @template {DoorEvent} E
 * @param {E} event
 * @param {string[] | null} [listed]
 * @returns {[E, Uint8Array]}
 */
function withListed(event, listed) {
  if (listed === undefined) return [event, NO_BODY];
  if (listed === null) return [{ ...event, sizes: null }, NO_BODY];
  const [sizes, body] = encodeListed(listed);
  return [{ ...event, sizes }, body];
}

/** A durable MCP Tasks client for one server URL and namespace. */
export class TaskClient {
  /** @type {ClientDoor | null} */
  #door;
  /** @type {Records} */
  #records;
  #durable = true;
  #events = new EventQueue();
  /** @type {string} */
  #url;
  /** @type {HostHeaders} */
  #headers;
  /**
   * The request timeout and the response limit, as the door read them from the options (`keys`).
   * @type {number}
   */
  #timeoutMs;
  /** @type {number} */
  #limit;
  /**
   * Host calls waiting for the door's `done`, by number.
   * @type {Map<number, Waiter>}
   */
  #waiting = new Map();
  #next = 1;
  /**
   * `onInputRequired` of each call that has one, by call number.
   * @type {Map<number, Asker>}
   */
  #askers = new Map();
  /**
   * `onProgress` of each call that has one, by call number.
   * @type {Map<number, NonNullable<CallToolOptions["onProgress"]>>}
   */
  #progress = new Map();
  /**
   * The host's `signal` of each call (or tools page) that has one, by call number.
   * @type {Map<number, AbortSignal>}
   */
  #signals = new Map();
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  #timer;
  /**
   * The moment `#timer` is set for (`null`: none; `undefined`: none said yet).
   * @type {number | null | undefined}
   */
  #timerAt;
  #unwatch = () => {};
  /** @type {boolean} */
  #notify;
  /**
   * The tabs' channel, and this tab's lock request (held, or queued for).
   * @type {ReturnType<typeof openChannel>}
   */
  #channel;
  /** @type {{ release(): void } | undefined} */
  #lock;
  /**
   * The namespace's store prefix (`keys`).
   * @type {string}
   */
  #prefix;

  /**
   * Not for hosts (`TaskClient.open` makes clients; client.d.ts declares this constructor private).
   * @param {ClientDoor} door
   * @param {Records} records
   * @param {TaskClientOptions} options
   * @param {DoneValues["keys"]} keyed
   */
  constructor(door, records, options, keyed) {
    this.#door = door;
    this.#options = options;
    this.#records = records;
    this.#url = options.url;
    this.#headers = options.headers;
    this.#prefix = keyed.prefix;
    this.#timeoutMs = keyed.requestTimeoutMs;
    this.#limit = keyed.maxResponseBytes;
    this.#notify = options.notify === true;
  }

  /** @type {TaskClientOptions} */
  #options;
  /** This tab polls (it holds the namespace's lock, or has no other tabs to share with). */
  #leading = false;
  /** Store calls under way, which a hand-over waits for before it reads the store. */
  #storeOps = new Set();
  /**
   * While the full door loads: what happened meanwhile, fed to it once it has the store's records.
   * @type {Array<[DoorEvent, Uint8Array]>}
   */
  #queued = [];
  /**
   * Why every call fails: the full door could not be loaded.
   * @type {ClientError | undefined}
   */
  #dead;

  /**
   * Opens a client: restores this namespace's tasks from the store and resumes polling those due.
   * @param {TaskClientOptions} options
   * @returns {Promise<TaskClient>}
   */
  static async open(options) {
    if (typeof options !== "object" || options === null)
      throw usage("TaskClient.open needs an options object with at least { url }");
    const { headers } = options;
    if (headers !== undefined && headers !== null && typeof headers !== "function" && typeof headers !== "object") {
      throw usage("options.headers must be a function returning headers, or an object");
    }
    // Step mode is in the full door only (browsers never step): a stepping client opens on it.
    let Door = OpenDoor;
    if (options.autoPoll === false) {
      try {
        Door = await fullDoor();
      } catch (thrown) {
        throw clientError(`step mode's door could not be loaded (${textOf(thrown)})`, "NetworkError", null, true);
      }
    }
    const mismatch = versionError(Door);
    if (mismatch) throw mismatch;
    let door, answer;
    try {
      door = new Door(JSON.stringify(doorOptions(options)), Math.floor(Math.random() * 2 ** 52));
      answer = door.handle(Date.now(), 0, '{"e":"keys"}', NO_BODY);
    } catch (thrown) {
      // The door refuses bad options with its error as JSON text; anything else is a trap.
      throw typeof thrown === "string" ? toError(/** @type {DoorError} */ (JSON.parse(thrown))) : failedError(thrown);
    }
    // The door answers `keys` within the call: its `done` first.
    const [keyed, ...first] = /** @type {[{ do: "done", x: 0, value: DoneValues["keys"] }, ...DoorEffect[]]} */ (
      JSON.parse(answer)
    );
    const { prefix, previous, tabs, hint: hintKey, firstPage } = keyed.value;
    // The lock is asked for while the store opens (on a fresh page each takes tens of ms). Holding it
    // with a hint, this tab polls the hinted tasks before the store is read.
    const stepping = options.autoPoll === false;
    const trying = stepping ? undefined : tryLock(tabs);
    const hint = trying && Page.online() ? Page.stored(hintKey) : undefined;
    let held = hint ? await /** @type {NonNullable<typeof trying>} */ (trying).decided : false;
    // Made before its store opens, so the early polls go out meanwhile; nothing is written until
    // the records are read.
    const client = new TaskClient(door, Records.memory(), options, keyed.value);
    client.#perform(first);
    if (held) client.#feed({ e: "early", hint: /** @type {string} */ (hint) });
    let records, note;
    try {
      [records, note] = await openStore(options.store);
    } catch (thrown) {
      client.#feed({ e: "close" });
      trying?.release();
      throw thrown;
    }
    client.#records = records;
    records.skip = (why) =>
      client.#emitStorage(`${why} It is left in the store and skipped; the other records stay durable.`);
    if (note !== null) {
      client.#durable = false;
      client.#emitStorage(note);
    }
    if (trying) {
      held ||= await trying.decided;
      client.#joinTabs(tabs, trying, held);
    }
    client.#leading = held;
    // The door's refusal of a part (a hand-over whose door could not load): open() fails with it.
    /** @type {unknown} */
    let refused;
    // Each page goes in parts of at most RESTORE_PART records (a host store lists everything as its
    // first page); a closed client reads no more.
    const inParts = async (/** @type {string[]} */ listed) => {
      for (let at = 0; at < listed.length && !client.#closed; at += RESTORE_PART * 2) {
        const part = listed.slice(at, at + RESTORE_PART * 2);
        await client.#ask({ e: "restore", leader: held, more: true }, part).catch((/** @type {unknown} */ e) => {
          // biome-ignore lint/suspicious/noAssignInExpressions: the refusal is thrown and remembered as one.
          throw (refused = e);
        });
      }
    };
    /**
     * The key the first page ended at, when more may follow.
     * @type {string | undefined}
     */
    let after;
    try {
      // Records the previous release stored under its bare keys move to this release's first.
      // The door answers within the call (a door handed over meanwhile answers nothing: then this
      // throws, and the store is taken as failed).
      /** @typedef {DoneValues["migrate"]} Moves */
      for (const [from, to, text] of /** @type {Moves} */ (
        client.#query({ e: "migrate" }, await listAll(records, previous))
      )) {
        await records.putIf(to, undefined, text);
        await records.delete(from);
      }
      // The first page goes to the door at once, so its due tasks are polled while the rest is read.
      const page = await records.listPage(prefix, undefined, firstPage);
      await inParts(page);
      if (page.length === firstPage * 2) after = page[page.length - 2];
      // A stepping client reads every page before open() resolves (a host store's failure fails it).
      if (stepping && after !== undefined) {
        await eachPage(records, prefix, after, inParts);
        after = undefined;
      }
    } catch (thrown) {
      if (thrown === refused) throw thrown;
      // A host store that cannot list or move breaks its contract: open() says so rather than
      // claim durability for tasks it did not load. IndexedDB falls back to memory.
      if (typeof options.store === "object" && options.store !== null) {
        client.close();
        throw storage(textOf(thrown));
      }
      client.#storageFailed(thrown);
    }
    // The later pages are read once open() has resolved: the door tells the host of each record they
    // hold, and a call about a task waits for the restore's end (`#reading`). Should a page not be
    // read, the storage event says so and the door ends the restore with the parts it has.
    const rest = async () => {
      try {
        if (after !== undefined) await eachPage(records, prefix, after, inParts);
      } catch (thrown) {
        if (thrown !== refused && !client.#closed) client.#storageFailed(thrown);
      }
      // The last part: none left, the restore ends.
      if (!client.#closed) await client.#ask({ e: "restore", leader: held }, []);
    };
    if (after === undefined) await rest();
    else client.#reading = rest().catch(() => {});
    if (stepping) return client;
    client.#unwatch = Page.watch(
      () => client.#feed({ e: "online", online: Page.online() }),
      (hidden) => client.#feed({ e: "hidden", hidden }),
    );
    return client;
  }

  /**
   * Joins the namespace's other tabs: their channel, and this tab's place in line for the lock that
   * makes one of them the poller (`held`: the lock asked for at open was free).
   * @param {string} name
   * @param {{ release(): void }} trying
   * @param {boolean} held
   */
  #joinTabs(name, trying, held) {
    this.#channel = openChannel(name, (text) => this.#feed({ e: "message" }, UTF8.encode(text)));
    if (held) {
      this.#lock = trying;
      return;
    }
    trying.release();
    this.#lock = requestLock(name, () => this.#lead());
  }

  /** This tab now polls: it reads every record as the previous poller left them in the store. */
  async #lead() {
    if (this.#closed) return;
    this.#leading = true;
    this.#feed(...withListed({ e: "lead" }, (await this.#readAll()) ?? []));
  }

  /** Every record of this namespace, or null when the store failed (the host hears of it). */
  async #readAll() {
    try {
      return await listAll(this.#records, this.#prefix);
    } catch (thrown) {
      this.#storageFailed(thrown);
      return null;
    }
  }

  /**
   * Calls a tool: `{ kind: "result", result }` or, once its handle is stored, `{ kind: "task", task }`.
   * @param {string} name
   * @param {Record<string, unknown>} [args]
   * @param {CallToolOptions} [options]
   * @returns {Promise<CallToolOutcome>}
   */
  callTool(name, args, options = {}) {
    const onInput = options?.onInputRequired;
    const onProgress = options?.onProgress;
    const x = this.#next;
    if (typeof onInput === "function") this.#askers.set(x, onInput);
    if (typeof onProgress === "function") this.#progress.set(x, onProgress);
    if (options?.signal) this.#signals.set(x, options.signal);
    /** @type {Extract<AskEvent, { e: "call" }>} */
    const event = {
      e: "call",
      name: String(name),
      arguments: args ?? null,
      ask: typeof onInput === "function",
      inputSchema: options?.inputSchema ?? null,
      ui: options?.ui ?? null,
    };
    return this.#ask(event).finally(() => {
      this.#askers.delete(x);
      this.#progress.delete(x);
      this.#signals.delete(x);
    });
  }

  /**
   * One page of the server's tools, each exactly as sent. Tools with invalid `x-mcp-header`
   * annotations are left out and named in `rejectedTools`; the others' annotated arguments are sent as
   * `Mcp-Param-*` headers by `callTool`.
   * @param {ListToolsOptions} [options]
   * @returns {Promise<ListToolsResult>}
   */
  listTools(options = {}) {
    return this.#read({ e: "list_tools", cursor: options?.cursor ?? null }, options?.signal);
  }

  /**
   * One resource, `resources/read` (an MCP App's `ui://` document, say): its contents as sent.
   * @param {string} uri
   * @param {{ signal?: AbortSignal }} [options]
   * @returns {Promise<ReadResourceResult>}
   */
  readResource(uri, options = {}) {
    return this.#read({ e: "read_resource", uri }, options?.signal);
  }

  /**
   * A host call that only reads (`listTools`, `readResource`), ended by `signal`'s abort.
   * @template {AskEvent} E
   * @param {E} event
   * @param {AbortSignal} [signal]
   * @returns {Promise<DoneValues[E["e"]]>}
   */
  #read(event, signal) {
    const x = this.#next;
    if (signal) this.#signals.set(x, signal);
    return this.#ask(event).finally(() => this.#signals.delete(x));
  }

  /**
   * Step mode (`autoPoll: false`): re-reads the store, sends what is queued and polls what is due
   * (bounded), writes back compared with what it read, and says when the next step is due.
   * @returns {Promise<StepResult>}
   */
  async step() {
    // The first door, which a client that polls by itself may run on, has no step mode to refuse it.
    if (this.#options.autoPoll !== false) {
      throw usage("step() drives a client opened with autoPoll: false; this client polls by itself");
    }
    // `null` when the store failed: the door keeps the records it holds. A closed client reads
    // nothing (its store is closed): the door refuses the step.
    return this.#ask({ e: "step" }, this.#closed ? null : await this.#readAll());
  }

  /**
   * Answers some or all of a task's outstanding input requests (each key once).
   * @param {string} taskId
   * @param {InputResponses} responses
   * @returns {Promise<void>}
   */
  async respond(taskId, responses) {
    await this.#ask({ e: "respond", id: String(taskId), answers: responses });
  }

  /**
   * Asks the server to cancel a task: a request, not a guarantee.
   * @param {string} taskId
   * @returns {Promise<void>}
   */
  async cancel(taskId) {
    await this.#ask({ e: "cancel", id: String(taskId) });
  }

  /**
   * Resolves with the terminal snapshot; rejects when the task is forgotten or the client closed first.
   * @param {string} taskId
   * @returns {Promise<TaskSnapshot>}
   */
  wait(taskId) {
    return this.#ask({ e: "wait", id: String(taskId) });
  }

  /**
   * Snapshots of every task in this namespace and of calls whose outcome is unknown.
   * @returns {Array<TaskSnapshot | UnknownCallSnapshot>}
   */
  tasks() {
    // Page by page, synchronously (nothing changes in between): each page's text is written in wasm
    // memory, which never shrinks.
    /** @type {Array<TaskSnapshot | UnknownCallSnapshot>} */
    const all = [];
    for (let from = 0; ; from += TASKS_PAGE) {
      const page = this.#query({ e: "tasks", from, count: TASKS_PAGE }) ?? [];
      for (const snapshot of page) all.push(snapshot);
      if (page.length < TASKS_PAGE) return all;
    }
  }

  /**
   * Forgets a task (or a call of unknown outcome): removed from memory and the store.
   * @param {string} id
   * @returns {Promise<void>}
   */
  async forget(id) {
    await this.#ask({ e: "forget", id: String(id) });
  }

  /**
   * Forgets every task of this namespace and server, here, in the store and in every tab.
   * @returns {Promise<void>}
   */
  async clear() {
    /** @type {string[]} */
    let keys = [];
    let failure;
    try {
      keys = (await listAll(this.#records, this.#prefix)).filter((_, i) => i % 2 === 0);
    } catch (thrown) {
      failure = thrown;
    }
    await this.#ask({ e: "clear", keys });
    if (failure !== undefined) throw storage(textOf(failure));
  }

  /** Stops polling. Stored tasks stay for the next `open()`. */
  close() {
    this.#closed = true;
    this.#feed({ e: "close" });
    clearTimeout(this.#timer);
    this.#unwatch();
    this.#lock?.release();
    this.#channel?.close();
    this.#records.close();
  }

  #closed = false;
  /**
   * The store's later pages being read after `open()` resolved: until then `ABOUT_A_TASK` calls wait
   * (the first to go on clears it).
   * @type {Promise<unknown> | undefined}
   */
  #reading;

  /** The shipped client's `free()` (wasm-bindgen's): here the same as `close()`. */
  free() {
    this.close();
  }

  [Symbol.dispose]() {
    this.close();
  }

  /**
   * The element's queries: `card` (the URLs it shows are read by the platform's parser, which the
   * door asks for by name), `list`, and `respond` with the form's answers as JSON text.
   * @overload
   * @param {"respond"} kind
   * @param {{ id: string, answersText: string }} fields
   * @returns {Promise<unknown>}
   *
   * @overload
   * @param {"list"} kind
   * @param {{ words: unknown }} fields
   * @returns {DoneValues["list"]}
   *
   * @overload
   * @param {"card"} kind
   * @param {{ id: string, snapshot: unknown, drawn: string | null, words: unknown }} fields
   * @returns {Card | null}
   *
   * @param {"respond" | "list" | "card"} kind
   * @param {{ id?: string, answersText?: string, snapshot?: unknown, drawn?: string | null, words?: unknown }} fields
   * @returns {Promise<unknown> | DoneValues["list"] | Card | null}
   */
  [ELEMENT](kind, fields) {
    if (kind === "respond")
      return this.#ask({
        e: "respond",
        id: String(fields.id),
        answersText: /** @type {string} */ (fields.answersText),
      });
    if (kind === "list") return this.#query({ e: "list", words: fields.words }) ?? [];
    const base = globalThis.document?.baseURI;
    /** @type {Extract<QueryEvent, { e: "card" }>} */
    const event = {
      e: "card",
      id: String(fields.id),
      snapshot: null,
      drawn: fields.drawn ?? null,
      words: fields.words,
      server: urlParts(this.#url, base),
      urls: {},
    };
    for (let round = 0; ; round++) {
      let card = this.#query(event);
      // The element's last snapshot goes along only when the client no longer has the task (the door
      // answers null): sent with every draw, it cost a copy of the whole task each time.
      if (card === null && !event.snapshot && fields.snapshot != null) {
        event.snapshot = fields.snapshot;
        card = this.#query(event);
      }
      // `undefined` while the door is handed over (the element asks again on the next change).
      if (card == null || card.need === undefined || round > 1) return card?.need === undefined ? (card ?? null) : null;
      for (const raw of card.need) event.urls[raw] = urlParts(raw);
    }
  }

  /**
   * `false` when tasks are only kept in memory (a `storage` event says why).
   * @returns {boolean}
   */
  get durable() {
    return this.#durable;
  }

  /**
   * System notifications of tasks that need the person or ended while the page was hidden.
   * @returns {boolean}
   */
  get notify() {
    return this.#notify;
  }

  /** @param {boolean} on */
  set notify(on) {
    this.#notify = on === true;
    this.#feed({ e: "notify", on: this.#notify });
  }

  /**
   * @param {keyof TaskClientEventMap} type
   * @param {(event: CustomEvent) => void} listener
   * @param {boolean | AddEventListenerOptions} [options]
   */
  addEventListener(type, listener, options) {
    this.#events.listen(true, type, listener, options);
  }

  /**
   * @param {keyof TaskClientEventMap} type
   * @param {(event: CustomEvent) => void} listener
   * @param {boolean | EventListenerOptions} [options]
   */
  removeEventListener(type, listener, options) {
    this.#events.listen(false, type, listener, options);
  }

  /**
   * A host call the door answers within the call (`tasks`, `keys`, `migrate`): its value. `listed`:
   * the records it reads (`withListed`), if any; undefined while the door is handed over.
   * @template {QueryEvent} E
   * @param {E} event
   * @param {string[]} [listed]
   * @returns {DoneValues[E["e"]] | undefined}
   */
  #query(event, listed) {
    /** @type {DoneValues[E["e"]] | undefined} */
    let value;
    const x = this.#next++;
    this.#waiting.set(x, {
      resolve: (answer) => (value = /** @type {DoneValues[E["e"]]} */ (answer)),
      reject: () => {},
    });
    this.#feed(...withListed({ ...event, x }, listed));
    return value;
  }

  /**
   * Feeds a host call to the door (with `listed` as `#query`); resolves or rejects with its `done`.
   * @template {AskEvent} E
   * @param {E} event
   * @param {string[] | null} [listed]
   * @returns {Promise<DoneValues[E["e"]]>}
   */
  #ask(event, listed) {
    if (this.#reading && event.e in ABOUT_A_TASK)
      return this.#reading.then(() => {
        this.#reading = undefined;
        return this.#ask(event, listed);
      });
    const x = this.#next++;
    const [sent, body] = withListed(event, listed);
    return new Promise((resolve, reject) => {
      // The event is kept: a hand-over feeds it to the full door.
      this.#waiting.set(x, { resolve, reject, event: sent, body });
      this.#feed({ ...sent, x }, body);
    });
  }

  /**
   * Feeds one event to the door and carries out what it returns.
   * @param {DoorEvent} event
   * @param {Uint8Array} [body]
   */
  #feed(event, body = NO_BODY) {
    /** @typedef {{ x?: number }} Carries */
    if (this.#door === null) {
      // A client whose full door could not be loaded refuses every call, saying why.
      if (this.#dead !== undefined)
        return (
          /** @type {Carries} */ (event).x &&
          this.#settle(/** @type {number} */ (/** @type {Carries} */ (event).x), this.#dead)
        );
      // Answers and store replies belong to the door that was handed over; the rest waits.
      if (!(event.e in REPLIES)) this.#queued.push([event, body]);
      return;
    }
    const text = JSON.stringify(event);
    let answer;
    try {
      answer = this.#door.handle(Date.now(), /** @type {Carries} */ (event).x ?? 0, text, body);
    } catch (thrown) {
      return this.#stopped(failedError(thrown));
    }
    this.#perform(/** @type {DoorEffect[]} */ (JSON.parse(answer)));
  }

  /**
   * The client cannot go on (its door trapped, or the full door could not be loaded): every waiting
   * host call and every later one fails with `why`, the host hears it as an `error` event, and the
   * client closes. Nothing is deleted: the stored tasks are there for the next `open()`, and other
   * clients on the page keep their own doors. A door that trapped is not freed (its state is unknown).
   * @param {ClientError} why
   */
  #stopped(why) {
    this.#door = null;
    this.#dead = why;
    for (const x of [...this.#waiting.keys()]) this.#settle(x, why);
    this.#queued = [];
    this.#events.emit("error", { error: why });
    this.close();
  }

  /**
   * A store call whose end a hand-over waits for.
   * @template T
   * @param {Promise<T>} promise
   */
  #track(promise) {
    this.#storeOps.add(promise);
    promise.finally(() => this.#storeOps.delete(promise));
    return promise;
  }

  /**
   * The door met the 2025-11-25 generation, which it does not drive: the door that does is loaded,
   * restored from the store as it is now, and fed every host call still waiting (a pending restore
   * as that restore) and what came meanwhile. If it cannot be loaded, the client cannot drive this
   * server: every waiting call fails saying why, and the client closes (its tasks stay stored).
   */
  async #handOver() {
    const old = this.#door;
    this.#door = null;
    clearTimeout(this.#timer);
    this.#timerAt = null;
    for (const controller of this.#open.values()) controller.abort();
    this.#open.clear();
    const waiting = /** @type {Array<[number, Waiter & { event: AskEvent, body: Uint8Array }]>} */ (
      [...this.#waiting].filter(([, w]) => w.event !== undefined)
    );
    let Door, dead;
    try {
      Door = await fullDoor();
      dead = versionError(Door);
    } catch (thrown) {
      dead = clientError(
        `the 2025-11-25 flow this server needs could not be loaded (${textOf(thrown)})`,
        "NetworkError",
        null,
        true,
      );
    }
    if (dead) {
      /** @type {ClientDoor} */ (old).free();
      this.#stopped(dead);
      return;
    }
    /** @type {ClientDoor} */ (old).free();
    // This page's later loads fetch the full door alone (`start`).
    Page.store(FULL_DOOR_FIRST, "1");
    await Promise.allSettled([...this.#storeOps]);
    const door = new /** @type {typeof ClientDoor} */ (Door)(
      JSON.stringify(doorOptions({ ...this.#options, notify: this.#notify })),
      Math.floor(Math.random() * 2 ** 52),
    );
    const listed = this.#closed ? [] : ((await this.#readAll()) ?? []);
    const restore = waiting.find(([, w]) => w.event.e === "restore");
    this.#door = door;
    this.#feed(...withListed({ e: "restore", x: restore?.[0] ?? 0, leader: this.#leading }, listed));
    for (const [x, w] of waiting) if (w !== restore?.[1]) this.#feed({ ...w.event, x }, w.body);
    for (const [event, body] of this.#queued.splice(0)) this.#feed(event, body);
  }

  /**
   * Carries out the door's effects in order (after an `upgrade`, none more).
   * @param {DoorEffect[]} effects
   */
  #perform(effects) {
    for (const effect of effects) {
      switch (effect.do) {
        case "send":
          this.#exchange(effect);
          break;
        case "put":
          this.#track(this.#put(effect.entries));
          break;
        case "save":
          // Before the call's request goes out, so a page that dies meanwhile finds the call.
          this.#saving = this.#track(
            this.#records
              .put(effect.key, effect.text)
              .catch((/** @type {unknown} */ thrown) => this.#storageFailed(thrown)),
          );
          break;
        case "delete":
          this.#track(this.#records.delete(effect.key).catch(() => {}));
          break;
        case "upgrade":
          this.#handOver();
          return;
        case "deletes":
          this.#deleteAll(effect.x, effect.keys);
          break;
        case "emit":
          this.#events.emit(effect.type, effect.detail);
          break;
        case "storage":
          this.#emitStorage(effect.reason);
          break;
        case "done":
          this.#settle(
            effect.x,
            "error" in effect ? toError(effect.error) : undefined,
            /** @type {{ value?: unknown }} */ (effect).value,
          );
          break;
        case "close":
          this.#open.get(effect.n)?.abort();
          this.#open.delete(effect.n);
          break;
        case "notify": {
          // Shown only where the person already allowed this origin's notifications.
          const language = noticeLanguage();
          // The door answers `notice` within the call.
          const notice =
            language === undefined
              ? null
              : /** @type {DoneValues["notice"]} */ (this.#query({ e: "notice", id: effect.id, language }));
          if (notice !== null) showNotice(notice.title, notice.body, notice.lang, notice.tag, this.#events, effect.id);
          break;
        }
        case "put_if":
          this.#putIf(effect);
          break;
        case "get":
          this.#get(effect);
          break;
        case "post":
          this.#channel?.post(effect.text);
          break;
        case "hint":
          Page.store(effect.key, effect.text ?? undefined);
          break;
        case "ask":
          this.#askHost(effect.x, effect.requests);
          break;
        case "progress": {
          // Called after this batch, so a host that calls the client from it does not re-enter the door.
          const report = this.#progress.get(effect.x);
          if (report) queueMicrotask(() => report(effect.progress));
          break;
        }
        case "timer":
          // The door says when after every batch; the timer set for that moment stays.
          if (effect.at === this.#timerAt) break;
          clearTimeout(this.#timer);
          this.#timerAt = effect.at;
          if (effect.at !== null) {
            const delay = Math.min(Math.max(effect.at - Date.now(), 0), MAX_TIMER_MS);
            this.#timer = setTimeout(() => {
              this.#timerAt = null;
              this.#feed({ e: "tick" });
            }, delay);
          }
          break;
        default:
          // Every effect has its case: a new one in door-protocol.d.ts fails the type check here, and
          // one met at run time is an error, never skipped (docs/door.md, "Calling rules").
          throw protocolError(`no such effect: ${JSON.stringify(/** @satisfies {never} */ (effect))}`);
      }
    }
  }

  /**
   * Each exchange under way, by number: the controller that ends it when the door closes it.
   * @type {Map<number, AbortController>}
   */
  #open = new Map();
  /**
   * The latest pending call's write: its request waits for it.
   * @type {Promise<unknown>}
   */
  #saving = Promise.resolve();

  /**
   * One request: its answer goes back, a JSON body whole or an event stream chunk by chunk until the
   * door has read what it needs or ends the stream (`close`), or its failure. A stream (the listen)
   * has no timeout; the host's `signal`, if the call has one, ends it too.
   * @param {SendEffect} send
   */
  async #exchange({ n, x, body, headers, stream, ms }) {
    const controller = new AbortController();
    this.#open.set(n, controller);
    // The door may send exchange `n` again from the feed of its answer (a -32022 naming our version):
    // from then on `n` is that request's, not this one's.
    const open = () => this.#open.get(n) === controller;
    const signal = x === null ? undefined : this.#signals.get(x);
    const onAbort = () => controller.abort();
    if (signal?.aborted) onAbort();
    signal?.addEventListener("abort", onAbort);
    let reply;
    try {
      await this.#saving;
      // `ms`: how long the door reads a stream (a step's wait for a 2025-11-25 server's questions), a
      // deadline; else `requestTimeoutMs` limits silence (a listen stream has no limit).
      const timeout = ms ?? (stream ? undefined : this.#timeoutMs);
      const quiet = ms === null;
      reply = await send(this.#url, body, headers, this.#headers, timeout, controller, this.#limit, quiet);
      const sse = reply.bytes === undefined;
      if (!open()) return;
      const { status, retryAfter, session, wwwAuthenticate } = reply;
      /** @type {DoorEvent} */
      const head = { e: "answer", n, status, retryAfter, session, wwwAuthenticate, sse };
      this.#feed(head, reply.bytes ?? NO_BODY);
      while (sse && open()) {
        const chunk = await /** @type {Required<typeof reply>} */ (reply).next();
        if (!open()) break;
        this.#feed({ e: "chunk", n, end: chunk === undefined }, chunk ?? NO_BODY);
        if (chunk === undefined) break;
      }
    } catch (failure) {
      if (!open()) return;
      const known =
        typeof failure === "object" &&
        failure !== null &&
        typeof (/** @type {{ kind?: unknown }} */ (failure).kind) === "string";
      /** @type {Partial<Failure> & { kind: string }} */
      const { kind, message, status, to } = known
        ? /** @type {Failure} */ (failure)
        : { kind: "network", message: textOf(failure) };
      this.#feed({ e: "failed", n, kind, message: message ?? "", status: status ?? 0, to: to ?? null });
    } finally {
      if (open()) this.#open.delete(n);
      signal?.removeEventListener("abort", onAbort);
      reply?.close();
    }
  }

  /**
   * Writes a group of records in one go; the door hears when they are in the store, or which keys the
   * store refused. A refused group is written record by record, so one record the store will not take
   * keeps no other out; only when it takes none (or, for one record, is gone or blocked) is the store
   * taken as broken, and memory used from then on.
   * @param {Array<[string, string]>} entries
   */
  async #put(entries) {
    /** @type {string[]} */
    const refused = [];
    /** @type {unknown} */
    let failure;
    try {
      await this.#records.putAll(entries.flat());
    } catch (thrown) {
      failure = thrown;
      if (entries.length === 1) refused.push(entries[0][0]);
      for (const [key, text] of entries.length > 1 ? entries : []) {
        try {
          await this.#records.put(key, text);
        } catch (thrown) {
          failure = thrown;
          refused.push(key);
        }
      }
    }
    /** @typedef {{ kind?: unknown } | null | undefined} Kinded */
    const gone =
      entries.length > 1 ||
      /** @type {Kinded} */ (failure)?.kind === "unavailable" ||
      /** @type {Kinded} */ (failure)?.kind === "blocked";
    const broken = refused.length === entries.length && refused.length > 0 && gone;
    if (broken) this.#storageFailed(failure);
    this.#feed({ e: "written", refused, broken, message: failure === undefined ? "" : textOf(failure) });
  }

  /**
   * Deletes `keys`, then settles host call `x` (with the first failure as a StorageError).
   * @param {number} x
   * @param {string[]} keys
   */
  async #deleteAll(x, keys) {
    /** @type {unknown} */
    let failure;
    for (const key of keys) {
      try {
        await this.#records.delete(key);
      } catch (thrown) {
        failure ??= thrown;
      }
    }
    this.#settle(x, failure === undefined ? undefined : storage(textOf(failure)));
  }

  /**
   * Settles host call `x`: rejects with `error` when there is one, else resolves with `value`.
   * @param {number} x
   * @param {Error | undefined} error
   * @param {unknown} [value]
   */
  #settle(x, error, value) {
    const waiting = this.#waiting.get(x);
    this.#waiting.delete(x);
    if (error !== undefined) waiting?.reject(error);
    else waiting?.resolve(value);
  }

  /**
   * A write compared with the version last read (step mode): whether it was stored goes back.
   * @param {PutIfEffect} effect
   */
  async #putIf({ w, key, expected, text }) {
    /** @type {{ ok: boolean } | { failed: true }} */
    let outcome;
    try {
      outcome = { ok: await this.#records.putIf(key, expected ?? undefined, text) };
    } catch (thrown) {
      this.#storageFailed(thrown);
      outcome = { failed: true };
    }
    this.#feed({ e: "put_if", w, ...outcome });
  }

  /**
   * A record as the store holds it now (step mode), or null.
   * @param {GetEffect} effect
   */
  async #get({ w, key }) {
    let text = null;
    try {
      text = (await this.#records.get(key)) ?? null;
    } catch (thrown) {
      this.#storageFailed(thrown);
    }
    this.#feed({ e: "got", w, text });
  }

  /**
   * The host's `onInputRequired` for call `x`, awaited; its answers (or why there are none) go back.
   * @param {number} x
   * @param {InputRequests} requests
   */
  async #askHost(x, requests) {
    /** @type {{ answers: InputResponses } | { error: string }} */
    let outcome;
    try {
      // The door asks only for a call made with `onInputRequired`.
      outcome = {
        answers: /** @type {InputResponses} */ (await Host.ask(/** @type {Asker} */ (this.#askers.get(x)), requests)),
      };
    } catch (why) {
      outcome = { error: String(why) };
    }
    this.#feed({ e: "asked", x, ...outcome });
  }

  /** @param {string} reason */
  #emitStorage(reason) {
    this.#events.emit("storage", { durable: this.#durable, reason });
  }

  /**
   * The store failed: memory from now on, and the host hears why. In step mode the store is the truth
   * between isolates, so a failed call is a miss the next step retries, never a switch to memory
   * that would drop the tasks.
   * @param {unknown} thrown
   */
  #storageFailed(thrown) {
    if (!this.#durable) return;
    if (this.#options.autoPoll === false) {
      this.#events.emit("storage", {
        durable: true,
        reason: `a store call failed (${textOf(thrown)}); the next step tries again`,
      });
      return;
    }
    this.#durable = false;
    this.#records = Records.memory();
    this.#emitStorage(`storage failed (${textOf(thrown)}); tasks are kept in memory only from now on`);
  }
}
