// What the official requester's hosts in the bench share: the protocol version, the client's identity
// and capabilities, and a dispatcher that POSTs one JSON-RPC request (JSON or SSE answer) for ext-tasks'
// session. Imported by official-requester.mjs (the size figure's bundle) and scale/official-entry.mjs.
export const PROTOCOL_VERSION = "2026-07-28";
export const CLIENT_INFO = { name: "bench-host", version: "1.0.0" };
export const CLIENT_CAPABILITIES = {
  elicitation: { form: {} },
  extensions: { "io.modelcontextprotocol/tasks": {} },
};

/** POSTs one JSON-RPC request; reads a JSON body or the response event of an SSE stream. */
export function rawDispatcher(url) {
  let nextId = 0;
  return async (request, options = {}) => {
    const id = ++nextId;
    const params = request.params ?? {};
    const name = request.method === "tools/call" ? params.name : params.taskId;
    const response = await fetch(url, {
      method: "POST",
      headers: {
        ...options.context?.headers,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": PROTOCOL_VERSION,
        "Mcp-Method": request.method,
        ...(typeof name === "string" ? { "Mcp-Name": name } : {}),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id, ...request }),
      signal: options.signal,
    });
    let message;
    if ((response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
      const events = (await response.text()).split(/\r?\n\r?\n/);
      for (const event of events) {
        const data = event.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n");
        if (data === "") continue;
        const parsed = JSON.parse(data);
        if (parsed.id === id) message = parsed;
      }
    } else {
      message = await response.json();
    }
    return message?.error ? { kind: "error", error: message.error } : { kind: "result", result: message?.result };
  };
}

