// What the page probes of the resume and scale figures share: telling which MCP request a `fetch` call
// is, and answering one in the page as a server without that method would. Pages import it as
// "../page-wire.js": from the served root that is "/page-wire.js" (`runner::stage_pages` copies it
// there), and from the fixture directories esbuild finds this file.

/** The methods a probe with `noListen` answers in the page with -32601. */
export const UNSUPPORTED = new Set(["server/discover", "subscriptions/listen"]);

function headerOf(headers, name) {
  if (!headers) return null;
  if (typeof headers.get === "function") return headers.get(name);
  if (Array.isArray(headers)) return headers.find(([k]) => k.toLowerCase() === name)?.[1] ?? null;
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return null;
}

/** The JSON-RPC message in `text`, or `{}`. */
export function rpcOfText(text) {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

/**
 * A `fetch(input, init)` call as an MCP request: `null` unless it is a POST to /mcp; else its JSON-RPC
 * `method` and `name` (the tool or task id) from the `Mcp-Method` / `Mcp-Name` headers, falling back to a
 * string body, and that `body` (`null` when it is not a string; `method` is then `null` when the
 * headers did not say).
 */
export function mcpRequest(input, init) {
  const isRequest = typeof Request !== "undefined" && input instanceof Request;
  const url = isRequest ? input.url : String(input);
  const httpMethod = (init?.method ?? (isRequest ? input.method : "GET")).toUpperCase();
  if (httpMethod !== "POST" || !url.endsWith("/mcp")) return null;
  const headers = init?.headers ?? (isRequest ? input.headers : null);
  let method = headerOf(headers, "mcp-method");
  let name = headerOf(headers, "mcp-name");
  const body = typeof init?.body === "string" ? init.body : null;
  if ((method === null || (method === "tasks/get" && name === null)) && body !== null) {
    const rpc = rpcOfText(body);
    method ??= rpc.method ?? null;
    name ??= rpc.params?.taskId ?? null;
  }
  return { method, name, body, isRequest };
}

/** The JSON-RPC -32601 answer to the MCP request `input` was, its string `body` as `mcpRequest` gave it. */
export function methodNotFound(input, body) {
  const text = body !== null ? Promise.resolve(body) : input instanceof Request ? input.clone().text() : Promise.resolve("{}");
  return text.then((t) => {
    const id = rpcOfText(t).id ?? null;
    const answer = { jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } };
    return new Response(JSON.stringify(answer), { status: 200, headers: { "content-type": "application/json" } });
  });
}
