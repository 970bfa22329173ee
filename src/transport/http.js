// The HTTP half of one exchange with the MCP server, in JS because it is all browser API: the request's
// headers (the protocol's and the host's, asked for per request and never kept), `fetch` with the
// timeout and the host's abort signal, redirects (same origin and method-keeping only), and the body,
// read whole up to a byte limit, or handed over chunk by chunk for an event stream. What the answer
// means is decided in Rust (src/transport/fetch.rs), which turns every failure thrown here,
// `{ kind, message, status, to }`, into a typed `TransportError`.
//
// Moved out of Rust to save size: a client-only host downloads 2.3 KB gzip less with this file (1.3 KB
// minified and gzipped) than with the same steps in Rust through web-sys and js-sys.

/** The most same-origin redirects one request follows. */
const MAX_HOPS = 5;

/** A failure for Rust: `kind` is network, timeout, aborted, headers, redirect or too_large. */
function failure(kind, message = "", status = 0, to = null) {
  return { kind, message, status, to };
}

/** A thrown value as text: an Error's message, anything else as `String(value)` would show it. */
function text(thrown) {
  if (thrown instanceof Error) return thrown.message;
  try {
    return String(thrown);
  } catch {
    return "(a value that cannot be shown as text)";
  }
}

/**
 * The request's headers: `pairs` (name, value, name, value…) then the host's, from `host` (an object
 * of name: value, or a function, sync or async, returning one).
 */
async function headersOf(pairs, host) {
  const all = new Headers();
  let value;
  try {
    for (let i = 0; i < pairs.length; i += 2) all.append(pairs[i], pairs[i + 1]);
    value = await (typeof host === "function" ? host() : host);
  } catch (thrown) {
    throw failure("headers", text(thrown));
  }
  if (value === undefined || value === null) return all;
  if (typeof value !== "object" && typeof value !== "function") {
    throw failure("headers", "headers must be an object of name: value");
  }
  for (const name of Object.keys(value)) {
    let header;
    try {
      header = value[name];
      if (typeof header === "string") all.append(name, header);
    } catch (thrown) {
      throw failure("headers", text(thrown));
    }
    if (typeof header !== "string") throw failure("headers", `header ${name} must be a string`);
  }
  return all;
}

/** A stream chunk as bytes (a runtime's stream may give an ArrayBuffer). */
const bytesOf = (chunk) => (chunk instanceof Uint8Array ? chunk : new Uint8Array(chunk));

/**
 * Where a redirect leads: `null` when `response` is none, the URL to send the request to again for a
 * same-origin 307 or 308; any other redirect is refused (a browser hides the target of a manual
 * redirect, status 0, so there every one is). Only the target's origin is named: its path or query
 * may carry anything.
 */
function nextHop(response, from) {
  const status = response.status;
  if (status !== 0 && (status < 300 || status >= 400)) return null;
  let target = null;
  let own = null;
  try {
    const location = response.headers.get("location");
    if (status !== 0 && location !== null) target = new URL(location, from);
    own = new URL(from);
  } catch {
    // An unreadable Location is refused below, like a missing one.
  }
  if (target === null) throw failure("redirect", "", status);
  if (own !== null && own.origin === target.origin && (status === 307 || status === 308)) return target.href;
  throw failure("redirect", "", status, target.origin);
}

// The fast path for a tasks/get answer (src/transport/task_answer.rs): Rust gives the status names by
// code and a bit per code this path takes; each request that may take it comes with the functions to
// hand the Task fields and then each part of the status detail to: `[task, part]`, where a part is
// (ticket, kind, key, message, url, a, b, c), kind 0–2 a result (isError absent, false, true; a, b, c
// its content, structuredContent and _meta), 3 a form (a its schema) and 4 a URL to open.
let statusNames = [];
let takenStatuses = 0;

/** Called by Rust (with the same values each time) before any request takes the fast path. */
export function useTaskStatuses(names, taken) {
  statusNames = names.split(" ");
  takenStatuses = taken;
}

// Non-fatal like Rust's lossy read of the bytes; a BOM is kept, so JSON.parse refuses it as Rust does.
const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });

/** A string, or undefined for an absent or null field; anything else: the answer is not regular. */
const IRREGULAR = Symbol("irregular");
const optionalText = (value) => (value === undefined || value === null ? undefined : typeof value === "string" ? value : IRREGULAR);
/** A count of milliseconds as JSON.parse gives it: a non-negative safe integer. */
const isMillis = (value) => Number.isSafeInteger(value) && value >= 0;
const isRecord = (value) => typeof value === "object" && value !== null && !Array.isArray(value);
const isPart = (value) => typeof value === "object" && value !== null;
/** An optional part: undefined when absent or null, the object or array, or IRREGULAR. */
const optionalPart = (value) => (value === undefined || value === null ? undefined : isPart(value) ? value : IRREGULAR);

/**
 * How deep a part handed over as the host's value may nest: Rust's parser refuses a body nested more
 * than 128 deep, and a detail's parts start three levels down; a deeper one goes to the bytes path,
 * which decides on it (and a stored record stays one Rust can read back).
 */
const PART_DEPTH = 124;

/** Whether `value`, an object or array, nests no deeper than `depth` levels of objects and arrays. */
function shallow(value, depth) {
  if (depth === 0) return false;
  const within = (item) => typeof item !== "object" || item === null || shallow(item, depth - 1);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!within(value[i])) return false;
  } else {
    for (const key in value) if (!within(value[key])) return false;
  }
  return true;
}

/**
 * The status detail's parts for Rust, when they have the regular shape, as a function that hands them
 * over; null when the answer must go to the bytes path. `completed`: a result of `resultType` complete
 * or none whose `content` is an array of objects or arrays, `structuredContent` and `_meta` objects,
 * arrays or absent, `isError` a boolean or absent. `input_required`: every request an
 * `elicitation/create` of a form (a message and a schema object) or a URL (a message and a URL).
 */
function detailOf(status, result, ticket, sink) {
  if (status === "working" || status === "cancelled") return () => {};
  if (status === "completed") {
    const detail = result.result;
    if (!isRecord(detail) || (detail.resultType !== undefined && detail.resultType !== "complete")) return null;
    const { content, isError } = detail;
    const structured = optionalPart(detail.structuredContent);
    const meta = optionalPart(detail._meta);
    if (!Array.isArray(content) || !content.every(isPart) || structured === IRREGULAR || meta === IRREGULAR) return null;
    if (isError !== undefined && typeof isError !== "boolean") return null;
    if (!shallow(detail, PART_DEPTH + 1)) return null;
    return () => sink[1](ticket, isError === undefined ? 0 : isError ? 2 : 1, undefined, undefined, undefined, content, structured, meta);
  }
  const requests = result.inputRequests;
  if (!isRecord(requests)) return null;
  const keys = Object.keys(requests);
  if (keys.length === 0) return null;
  for (const key of keys) {
    const request = requests[key];
    const params = isRecord(request) ? request.params : undefined;
    if (request?.method !== "elicitation/create" || !isRecord(params) || typeof params.message !== "string") return null;
    const { mode } = params;
    if (mode === "url" ? typeof params.url !== "string" : (mode !== undefined && mode !== "form") || !isRecord(params.requestedSchema)) return null;
    if (mode !== "url" && !shallow(params.requestedSchema, PART_DEPTH - 2)) return null;
  }
  return () => {
    for (const key of keys) {
      const { params } = requests[key];
      if (params.mode === "url") sink[1](ticket, 4, key, params.message, params.url);
      else sink[1](ticket, 3, key, params.message, undefined, params.requestedSchema);
    }
  };
}

/**
 * Hands the Task fields of `bytes`, a tasks/get answer, and its status detail's parts to Rust's `sink`
 * under `ticket` and returns true, when the answer has exactly the regular shape: a response with a
 * result and no error, whose fields all have their JSON types and whose detail is one `detailOf`
 * takes. Anything else returns false, and Rust reads the bytes with its own parser and reports what is
 * wrong. The regular shape is a subset of what Rust accepts, except where JSON.parse's doubles hide
 * the digits (an id or a count written `1.0` or `2000.0000000000001`), which pass here as the whole
 * numbers they read as, and where the parts passed on unread hold numbers beyond a double or lone
 * surrogates, which stay as JSON.parse made them.
 */
export function readTaskAnswer(bytes, ticket, sink) {
  let message;
  try {
    message = JSON.parse(utf8.decode(bytes));
  } catch {
    return false;
  }
  if (!isRecord(message) || message.jsonrpc !== "2.0" || message.method !== undefined || message.error !== undefined) return false;
  const { id, result } = message;
  if ((typeof id !== "string" && !Number.isSafeInteger(id)) || !isRecord(result)) return false;
  const { resultType, taskId, status, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs } = result;
  const statusMessage = optionalText(result.statusMessage);
  const code = statusNames.indexOf(status);
  if (
    (resultType !== undefined && resultType !== null && resultType !== "complete") ||
    code < 0 ||
    ((takenStatuses >> code) & 1) === 0 ||
    typeof taskId !== "string" ||
    typeof createdAt !== "string" ||
    typeof lastUpdatedAt !== "string" ||
    statusMessage === IRREGULAR ||
    (ttlMs !== null && !isMillis(ttlMs)) ||
    (pollIntervalMs !== undefined && pollIntervalMs !== null && !isMillis(pollIntervalMs))
  ) {
    return false;
  }
  const handDetail = detailOf(status, result, ticket, sink);
  if (handDetail === null) return false;
  try {
    sink[0](ticket, taskId, code, statusMessage, createdAt, lastUpdatedAt, ttlMs ?? undefined, pollIntervalMs ?? undefined);
    handDetail();
  } catch {
    // The sink's transport was dropped while this answer was on the way (today a request keeps its
    // transport alive, so this is a guard): nobody waits for the answer, so nothing is thrown.
    return false;
  }
  return true;
}

/**
 * Sends `body` (a POST; empty: a GET) to `url` and resolves with the answer: `status`, `retryAfter`,
 * `session` (`Mcp-Session-Id`), and, when `read`, either `bytes` (the whole body, at most `limit`
 * bytes) or, for `text/event-stream`, `next()` giving each chunk (`undefined` at the end). With a
 * `ticket`, a regular tasks/get answer also goes to Rust's `sink` by `readTaskAnswer` (the bytes stay for
 * the text of the parts it hands over as parsed objects).
 * `close()` ends it: the timeout and the abort listener go, an unread stream is cancelled. Rejects
 * with a failure (see `failure`).
 */
export async function send(url, body, pairs, host, timeoutMs, signal, limit, read, ticket, sink) {
  if (signal?.aborted) throw failure("aborted");
  const controller = new AbortController();
  let timedOut = false;
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          controller.abort();
        }, timeoutMs);
  const onAbort = () => controller.abort();
  signal?.addEventListener("abort", onAbort);
  let reader;
  const end = () => {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  };
  const close = () => {
    end();
    reader?.cancel().catch(() => {});
  };
  // Why a fetch or a read failed: the timeout, the host's signal, or the network.
  const why = (thrown) => (timedOut ? failure("timeout") : signal?.aborted ? failure("aborted") : failure("network", text(thrown)));
  try {
    let response;
    for (let hops = 0; ; hops++) {
      const init = { method: body ? "POST" : "GET", headers: await headersOf(pairs, host), signal: controller.signal, redirect: "manual" };
      if (body) init.body = body;
      if (typeof globalThis.fetch !== "function") throw failure("network", "this runtime has no global fetch()");
      try {
        response = await globalThis.fetch(url, init);
      } catch (thrown) {
        throw why(thrown);
      }
      if (typeof response?.status !== "number" || typeof response.headers?.get !== "function") {
        throw failure("network", "fetch did not resolve to a Response");
      }
      const next = nextHop(response, url);
      if (next === null) break;
      if (hops >= MAX_HOPS) throw failure("redirect", "", response.status);
      url = next;
    }
    const header = (name) => response.headers.get(name);
    const reply = { status: response.status, retryAfter: header("retry-after"), session: header("mcp-session-id"), close };
    if (!read) {
      end();
      return reply;
    }
    reader = response.body?.getReader();
    if ((header("content-type") ?? "").includes("text/event-stream")) {
      reply.next = async () => {
        try {
          const { done, value } = reader ? await reader.read() : { done: true };
          if (done) end();
          return done ? undefined : bytesOf(value);
        } catch (thrown) {
          end();
          throw why(thrown);
        }
      };
      return reply;
    }
    // Counted as the bytes arrive, after the browser's content decoding: a compression bomb stops at
    // the limit instead of filling memory.
    const chunks = [];
    let size = 0;
    for (;;) {
      let chunk;
      try {
        chunk = reader ? await reader.read() : { done: true };
      } catch (thrown) {
        throw why(thrown);
      }
      if (chunk.done) break;
      const value = bytesOf(chunk.value);
      size += value.length;
      if (size > limit) {
        reader.cancel().catch(() => {});
        throw failure("too_large");
      }
      chunks.push(value);
    }
    end();
    const bytes = new Uint8Array(size);
    let at = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
    reply.bytes = bytes;
    if (ticket !== undefined) readTaskAnswer(bytes, ticket, sink);
    return reply;
  } catch (thrown) {
    end();
    throw thrown;
  }
}
