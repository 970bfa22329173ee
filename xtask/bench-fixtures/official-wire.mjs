// What the official requester's hosts in the bench share: the ext-tasks session over a connected
// client for a 2026-07-28 server (protocol version, the client's identity and capabilities, and a
// dispatcher that POSTs one JSON-RPC request, JSON or SSE answer). Imported by official-requester.mjs
// (the size figure's bundle) and scale/official-entry.mjs.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient } from "@modelcontextprotocol/ext-tasks/client";

const PROTOCOL_VERSION = "2026-07-28";
const CLIENT_INFO = { name: "bench-host", version: "1.0.0" };
const CLIENT_CAPABILITIES = {
  elicitation: { form: {} },
  extensions: { "io.modelcontextprotocol/tasks": {} },
};

/** POSTs one JSON-RPC request; reads a JSON body or the response event of an SSE stream. */
function rawDispatcher(url) {
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

/** Connects a client to `url` and opens ext-tasks' session over it; `onInputRequest` answers input. */
export async function openTaskSession(url, onInputRequest) {
  const client = new Client(CLIENT_INFO, {
    capabilities: CLIENT_CAPABILITIES,
    versionNegotiation: { mode: { pin: PROTOCOL_VERSION } },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return createTaskSessionFromClient(client, {
    endpointId: url,
    rawDispatch: rawDispatcher(url),
    v2RequestFraming: {
      protocolVersion: PROTOCOL_VERSION,
      clientInfo: CLIENT_INFO,
      clientCapabilities: CLIENT_CAPABILITIES,
    },
    onInputRequest,
  });
}
