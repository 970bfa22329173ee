// @ts-check
// The HTTP half of one exchange with the MCP server, in JS because it is all browser API: the request's
// headers (the protocol's and the host's, asked for per request and never kept), `fetch` with the
// timeout and the host's abort signal, redirects (same origin and method-keeping only), and the body,
// read whole up to a byte limit, or handed over chunk by chunk for an event stream. What the answer
// means is decided in Rust: the driver hands the door every answer and every failure thrown here,
// `{ kind, message, status, to }`, which the door turns into a typed `TransportError`.
//
// Moved out of Rust to save size: a client-only host downloads 2.3 KB gzip less with this file (1.3 KB
// minified and gzipped) than with the same steps in Rust through web-sys and js-sys.

/** The most same-origin redirects one request follows. */
const MAX_HOPS = 5;

/** @typedef {"network" | "timeout" | "aborted" | "headers" | "redirect" | "too_large"} FailureKind */
/** @typedef {{ kind: FailureKind, message: string, status: number, to: string | null }} Failure */
/** The host's headers: an object of name: value, or a function, sync or async, returning one. */
/** @typedef {(() => unknown) | object | null | undefined} HostHeaders */
/**
 * What `send` resolves with: `bytes` for a whole body, `next` for an event stream.
 * @typedef {{ status: number, retryAfter: string | null, session: string | null,
 *   wwwAuthenticate: string | null, close: () => void,
 *   bytes?: Uint8Array, next?: () => Promise<Uint8Array | undefined> }} Reply
 */

/**
 * A failure for Rust: `kind` is network, timeout, aborted, headers, redirect or too_large.
 * @param {FailureKind} kind
 * @param {string} [message]
 * @param {number} [status]
 * @param {string | null} [to]
 * @returns {Failure}
 */
function failure(kind, message = "", status = 0, to = null) {
  return { kind, message, status, to };
}

/**
 * A thrown value as text: an Error's message, anything else as `String(value)` would show it.
 * @param {unknown} thrown
 */
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
 * @param {string[]} pairs
 * @param {HostHeaders} host
 */
async function headersOf(pairs, host) {
  const all = new Headers();
  // The platform's refusal quotes the value (a bearer token, say): only the name is told, in our words.
  const append = (/** @type {string} */ name, /** @type {string} */ header) => {
    try {
      all.append(name, header);
    } catch {
      throw failure("headers", `header ${name} was refused: not a valid HTTP header (a line break?)`);
    }
  };
  for (let i = 0; i < pairs.length; i += 2) append(pairs[i], pairs[i + 1]);
  let value;
  try {
    value = await (typeof host === "function" ? host() : host);
  } catch (thrown) {
    throw failure("headers", text(thrown));
  }
  if (value === undefined || value === null) return all;
  if (typeof value !== "object" && typeof value !== "function") {
    throw failure("headers", "headers must be an object of name: value");
  }
  for (const name of Object.keys(value)) {
    /** @type {unknown} */
    let header;
    try {
      header = /** @type {Record<string, unknown>} */ (value)[name];
    } catch (thrown) {
      throw failure("headers", text(thrown));
    }
    if (typeof header !== "string") throw failure("headers", `header ${name} must be a string`);
    append(name, header);
  }
  return all;
}

/** A stream chunk as bytes (a runtime's stream may give an ArrayBuffer). */
const bytesOf = (/** @type {Uint8Array | ArrayBuffer} */ chunk) =>
  chunk instanceof Uint8Array ? chunk : new Uint8Array(chunk);

/**
 * Where a redirect leads: `null` when `response` is none, the URL to send the request to again for a
 * same-origin 307 or 308; any other redirect is refused (a browser hides the target of a manual
 * redirect, status 0, so there every one is). Only the target's origin is named: its path or query
 * may carry anything.
 * @param {Response} response
 * @param {string} from
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

/**
 * Sends `body` (a POST; empty: a GET) to `url` and resolves with the answer: `status`, `retryAfter`,
 * `session` (`Mcp-Session-Id`), `wwwAuthenticate`, and either `bytes` (the whole body, at most `limit` bytes) or, for
 * `text/event-stream`, `next()` giving each chunk (`undefined` at the end). `close()` ends it: the
 * timeout and the abort listener go, an unread stream is cancelled. Rejects with a failure (see
 * `failure`). With `quiet`, `timeoutMs` limits silence: the answer's head and every chunk of its body
 * start it again, so a tool that reports as it works may run for as long as it keeps reporting;
 * without, it limits the whole exchange. `controller` is the caller's: aborting it ends the exchange,
 * and a timeout aborts it (one controller per request, not one here and one in the caller).
 * @param {string} url
 * @param {string} body
 * @param {string[]} pairs
 * @param {HostHeaders} host
 * @param {number | undefined} timeoutMs
 * @param {AbortController} controller
 * @param {number} limit
 * @param {boolean} [quiet]
 * @returns {Promise<Reply>}
 */
export async function send(url, body, pairs, host, timeoutMs, controller, limit, quiet = false) {
  const signal = controller.signal;
  if (signal.aborted) throw failure("aborted");
  let timedOut = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  // When bytes last arrived: a silence limit counts from there.
  let heardAt = Date.now();
  // One timer per request: when it fires after bytes arrived, a silence limit waits out the rest.
  const arm = (/** @type {number} */ ms) => {
    timer = setTimeout(() => {
      const left = heardAt + /** @type {number} */ (timeoutMs) - Date.now();
      if (quiet && left > 0) return arm(left);
      timedOut = true;
      controller.abort();
    }, ms);
  };
  if (timeoutMs !== undefined) arm(timeoutMs);
  /** @type {ReadableStreamDefaultReader<Uint8Array> | undefined} */
  let reader;
  const end = () => clearTimeout(timer);
  const close = () => {
    end();
    reader?.cancel().catch(() => {});
  };
  // Why a fetch or a read failed: the timeout, the host's signal, or the network.
  const why = (/** @type {unknown} */ thrown) =>
    timedOut ? failure("timeout") : signal.aborted ? failure("aborted") : failure("network", text(thrown));
  try {
    /** @type {Response | undefined} */
    let response;
    for (let hops = 0; ; hops++) {
      /** @type {RequestInit} */
      const init = {
        method: body ? "POST" : "GET",
        headers: await headersOf(pairs, host),
        signal,
        redirect: "manual",
      };
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
    heardAt = Date.now();
    const header = (/** @type {string} */ name) => /** @type {Response} */ (response).headers.get(name);
    /** @type {Reply} */
    const reply = {
      status: response.status,
      retryAfter: header("retry-after"),
      session: header("mcp-session-id"),
      wwwAuthenticate: header("www-authenticate"),
      close,
    };
    reader = response.body?.getReader();
    if ((header("content-type") ?? "").includes("text/event-stream")) {
      reply.next = async () => {
        try {
          const { done, value } = reader
            ? await reader.read()
            : /** @type {ReadableStreamReadDoneResult<Uint8Array>} */ ({ done: true });
          if (done) end();
          else heardAt = Date.now();
          return done ? undefined : bytesOf(/** @type {Uint8Array} */ (value));
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
      /** @type {ReadableStreamReadResult<Uint8Array>} */
      let chunk;
      try {
        chunk = reader ? await reader.read() : /** @type {ReadableStreamReadDoneResult<Uint8Array>} */ ({ done: true });
      } catch (thrown) {
        throw why(thrown);
      }
      if (chunk.done) break;
      heardAt = Date.now();
      const value = bytesOf(chunk.value);
      size += value.length;
      if (size > limit) {
        /** @type {ReadableStreamDefaultReader<Uint8Array>} */ (reader).cancel().catch(() => {});
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
    return reply;
  } catch (thrown) {
    end();
    throw thrown;
  }
}
