// Redirects: a 307/308 followed blindly re-POSTs the request body — tool arguments, a
// person's answers — to wherever the server points. Two small HTTP servers of this file's own on
// loopback: the "server" redirects, the "elsewhere" (another port, so another origin) counts what
// reaches it. A cross-origin redirect fails with RedirectError and sends nothing elsewhere; a
// same-origin 307 (Starlette's `/mcp` → `/mcp/`) is followed with the body kept; a 303 (POST turned
// into GET) is refused.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { TaskClient } from "./support.mjs";

const ok = (id, text) => JSON.stringify({ jsonrpc: "2.0", id, result: { resultType: "complete", content: [{ type: "text", text }] } });

/** Collects a request's body, then calls `answer(req, res, rpc)`. */
const serve = (answer) => createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => { body += chunk; });
  req.on("end", () => answer(req, res, body ? JSON.parse(body) : {}));
});

const reachedElsewhere = [];
const elsewhere = serve((req, res, rpc) => {
  reachedElsewhere.push(rpc);
  res.writeHead(200, { "content-type": "application/json" }).end(ok(rpc.id, "elsewhere"));
});

const server = serve((req, res, rpc) => {
  const tool = rpc.params?.name;
  if (req.url === "/mcp/") {
    res.writeHead(200, { "content-type": "application/json" }).end(ok(rpc.id, `arrived with ${rpc.params?.arguments?.answer}`));
  } else if (tool === "away") {
    res.writeHead(307, { location: `http://127.0.0.1:${elsewhere.address().port}/mcp` }).end();
  } else if (tool === "away-permanently") {
    res.writeHead(308, { location: `http://localhost:${server.address().port}/mcp` }).end();
  } else if (tool === "slash") {
    res.writeHead(307, { location: "/mcp/" }).end();
  } else if (tool === "see-other") {
    res.writeHead(303, { location: "/mcp/" }).end();
  } else if (tool === "loop") {
    res.writeHead(307, { location: "/mcp" }).end();
  } else {
    res.writeHead(200, { "content-type": "application/json" }).end(ok(rpc.id, "small"));
  }
});
await new Promise((resolve) => elsewhere.listen(0, "127.0.0.1", resolve));
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${server.address().port}/mcp`;
after(() => { server.close(); elsewhere.close(); });

const redirectError = (pattern) => (e) => {
  assert.equal(e.name, "RedirectError", `${e.name}: ${e.message}`);
  assert.equal(e.retryable, false);
  assert.match(e.message, pattern);
  return true;
};

test("a redirect to another origin is refused, and nothing reaches that origin", async () => {
  const client = await TaskClient.open({ url, store: "memory" });
  try {
    await assert.rejects(client.callTool("away", { answer: "secret" }),
      redirectError(new RegExp(`HTTP 307\\) to http://127\\.0\\.0\\.1:${elsewhere.address().port}`)));
    // Another host name for the same address is another origin too.
    await assert.rejects(client.callTool("away-permanently", { answer: "secret" }), redirectError(/HTTP 308\) to http:\/\/localhost:/));
    assert.deepEqual(reachedElsewhere, [], "the body was never sent to the other origin");
    const next = await client.callTool("small", {});
    assert.equal(next.result.content[0].text, "small", "the same client goes on");
  } finally {
    client.close();
  }
});

test("a same-origin 307 is followed with the method and body kept; a 303 and a loop are refused", async () => {
  const client = await TaskClient.open({ url, store: "memory" });
  try {
    const out = await client.callTool("slash", { answer: 42 });
    assert.equal(out.result.content[0].text, "arrived with 42");
    await assert.rejects(client.callTool("see-other", {}), redirectError(/HTTP 303\) to http:\/\/127\.0\.0\.1:/));
    await assert.rejects(client.callTool("loop", {}), redirectError(/HTTP 307\)/));
  } finally {
    client.close();
  }
});
