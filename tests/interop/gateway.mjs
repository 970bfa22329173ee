// A small HTTP gateway in front of an MCP server, as a hosting provider or an API gateway puts one:
// it forwards every request to the upstream server and answers every third `tasks/get` itself with
// `503 Service Unavailable` and `Retry-After: 1`, without forwarding it. Real gateways send that 503
// with a plain-text body or with a JSON-RPC error; this one alternates (`--body text|jsonrpc|both`,
// default both: the first refusal plain text, the second a JSON-RPC error, and so on). With
// `--refuse-call K` it also refuses the K-th `tools/call` the same way (a request of no task yet).
//
// CORS as a well-configured gateway answers it for browser pages on loopback origins: preflights are
// answered here (never forwarded), and every answer, its own and the upstream's, exposes
// `Retry-After` (without `Access-Control-Expose-Headers` naming it, a cross-origin page cannot read it).
//
// Every request it forwards or refuses is logged on stdout as one JSON line, with the gateway's
// timestamps (Unix ms, fractional): `{ at, method, taskId, id, refused, body?, status, answeredAt }`:
// `at` when the request arrived, `answeredAt` when its answer's head was sent (for a refusal, the 503).
// Preflights are logged with `method: "OPTIONS"`. The first stdout line is `listening on URL`.
//
//   node gateway.mjs --upstream http://127.0.0.1:PORT/mcp [--port N] [--every 3] [--retry-after 1] [--body both]
//                    [--refuse-call K]
//
// Binds 127.0.0.1 only. Exits on SIGTERM / SIGINT.
import http from "node:http";
import { Readable } from "node:stream";

const LOOPBACK_ORIGIN = /^http:\/\/(127\.0\.0\.1|localhost)(:\d{1,5})?$/;
const EXPOSE = "Mcp-Session-Id, MCP-Protocol-Version, Retry-After, Content-Type, WWW-Authenticate";
/** Hop-by-hop headers a proxy does not pass on. */
const HOP = new Set(["connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection", "host", "content-length"]);

function options(argv) {
  const out = { upstream: null, port: 0, every: 3, retryAfter: "1", body: "both", refuseCall: 0 };
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i].split("=", 2);
    const value = inline ?? argv[++i];
    if (name === "--upstream") out.upstream = value;
    else if (name === "--port") out.port = Number(value);
    else if (name === "--every") out.every = Number(value);
    else if (name === "--retry-after") out.retryAfter = value;
    else if (name === "--body") out.body = value;
    else if (name === "--refuse-call") out.refuseCall = Number(value);
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  if (!out.upstream) throw new Error("--upstream URL is required");
  if (!["text", "jsonrpc", "both"].includes(out.body)) throw new Error(`--body text|jsonrpc|both, not ${out.body}`);
  return out;
}

const opts = options(process.argv.slice(2));
const upstream = new URL(opts.upstream);
/** Unix ms with sub-ms precision, monotonic within the process. */
const clock = () => performance.timeOrigin + performance.now();
const log = (entry) => process.stdout.write(`${JSON.stringify(entry)}\n`);

function cors(req) {
  const origin = req.headers.origin;
  if (typeof origin !== "string" || !LOOPBACK_ORIGIN.test(origin)) return {};
  return { "access-control-allow-origin": origin, "access-control-expose-headers": EXPOSE, vary: "Origin" };
}

let gets = 0;
let calls = 0;
let refusals = 0;

async function handle(req, res) {
  const at = clock();
  if (req.method === "OPTIONS") {
    res.writeHead(204, {
      ...cors(req),
      "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
      "access-control-allow-headers": req.headers["access-control-request-headers"] ?? "content-type",
      "access-control-max-age": "600",
    });
    res.end();
    log({ at, method: "OPTIONS", refused: false, status: 204, answeredAt: clock() });
    return;
  }
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = Buffer.concat(chunks);
  let rpc = {};
  try { rpc = JSON.parse(body.toString("utf8")); } catch { /* a GET, or not JSON */ }
  const entry = { at, method: rpc.method ?? req.method, taskId: rpc.params?.taskId, id: rpc.id, refused: false };
  const refuse =
    (rpc.method === "tasks/get" && ++gets % opts.every === 0) || (rpc.method === "tools/call" && ++calls === opts.refuseCall);
  if (refuse) {
    const kind = opts.body === "both" ? (refusals % 2 === 0 ? "text" : "jsonrpc") : opts.body;
    refusals += 1;
    const [type, text] = kind === "text"
      ? ["text/plain; charset=utf-8", "Service temporarily unavailable; retry later.\n"]
      : ["application/json", JSON.stringify({ jsonrpc: "2.0", id: rpc.id ?? null, error: { code: -32000, message: "Service temporarily unavailable; retry later" } })];
    res.writeHead(503, { ...cors(req), "content-type": type, "retry-after": opts.retryAfter, "cache-control": "no-store" });
    res.end(text);
    log({ ...entry, refused: true, body: kind, status: 503, answeredAt: clock() });
    return;
  }
  const headers = {};
  for (const [name, value] of Object.entries(req.headers)) if (!HOP.has(name) && value !== undefined) headers[name] = value;
  const aborted = new AbortController();
  res.on("close", () => aborted.abort());
  let response;
  try {
    response = await fetch(new URL(req.url ?? "/", upstream), {
      method: req.method,
      headers,
      body: body.length > 0 && req.method !== "GET" && req.method !== "HEAD" ? body : undefined,
      signal: aborted.signal,
      redirect: "manual",
    });
  } catch (error) {
    if (!res.headersSent) res.writeHead(502, { ...cors(req), "content-type": "text/plain" });
    res.end(`bad gateway: ${error?.message ?? error}\n`);
    log({ ...entry, status: 502, answeredAt: clock() });
    return;
  }
  const out = {};
  response.headers.forEach((value, name) => { if (!HOP.has(name) && name !== "content-encoding") out[name] = value; });
  res.writeHead(response.status, { ...out, ...cors(req) });
  log({ ...entry, status: response.status, answeredAt: clock() });
  if (!response.body) return res.end();
  const stream = Readable.fromWeb(response.body);
  stream.on("error", () => res.destroy());
  res.on("close", () => stream.destroy());
  stream.pipe(res);
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((error) => {
    process.stderr.write(`gateway: ${error?.stack ?? error}\n`);
    if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
    res.end();
  });
});
function shutdown() {
  server.closeAllConnections?.();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 1000).unref();
}
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
server.listen(opts.port, "127.0.0.1", () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}${upstream.pathname}\n`);
});
