// One JSON-RPC request to the reference server as a 2026-07-28 client sends it (Node fetch, loopback):
// the bench runners use it to set up tasks (`idle_job`, `idle_seed`, …) outside the subjects measured.

/**
 * POSTs `method` with `params` (and the client `_meta` the spec asks for) to `url`; `name` is the tool
 * or other name for the `Mcp-Name` header. Resolves with the result; throws on a JSON-RPC error.
 */
export async function serverRpc(url, method, params, name, clientName) {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: clientName, version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
  };
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(name ? { "mcp-name": name } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: meta } }),
  });
  const message = await response.json();
  if (message.error) throw new Error(`${method} ${name ?? ""}: ${message.error.code} ${message.error.message}`);
  return message.result;
}
