// A server that refuses a request's protocol version (-32022) while naming ours among those it
// supports, as the official conformance suite's request-metadata scenario does with an HTTP 400: the
// request goes once more under a new id, and that answer settles the call. From a small HTTP server
// of this file's own on loopback, which refuses the first request of each tool it is asked to.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { TaskClient } from "./support.mjs";

/** Per tool: the JSON-RPC ids its tools/call requests came with, in order. */
const calls = new Map();

const server = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => { body += chunk; });
  req.on("end", () => {
    const rpc = JSON.parse(body || "{}");
    const tool = rpc.params?.name ?? "";
    const ids = calls.get(tool) ?? [];
    calls.set(tool, [...ids, rpc.id]);
    const json = (status, message) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: rpc.id, ...message }));
    if (ids.length === 0) {
      const status = tool === "refused-with-200" ? 200 : 400;
      return json(status, { error: { code: -32022, message: "Unsupported protocol version", data: { supported: ["2026-07-28"], requested: "" } } });
    }
    json(200, { result: { resultType: "complete", content: [{ type: "text", text: `${tool} ok` }] } });
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
after(() => server.close());
const url = `http://127.0.0.1:${server.address().port}/mcp`;

for (const tool of ["refused-with-400", "refused-with-200"]) {
  test(`a -32022 naming our version (${tool.slice(13)}): sent once more under a new id, and its answer settles the call`, async () => {
    const client = await TaskClient.open({ url, store: "memory", namespace: tool });
    try {
      const out = await Promise.race([
        client.callTool(tool, {}),
        new Promise((_, reject) => setTimeout(() => reject(new Error("the call did not settle in 5 s")), 5_000)),
      ]);
      assert.deepEqual(out, { kind: "result", result: { resultType: "complete", content: [{ type: "text", text: `${tool} ok` }] } });
      const ids = calls.get(tool);
      assert.equal(ids.length, 2, "refused once, sent once more");
      assert.notEqual(ids[0], ids[1], "under a new id");
    } finally {
      client.close();
    }
  });
}
