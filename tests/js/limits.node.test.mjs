// Answers larger than the client reads (maxResponseBytes), from a small hostile HTTP server of this
// file's own on loopback: a 9 MiB JSON body, a gzip bomb (64 MiB of JSON text in ~64 KB on the wire),
// and an SSE stream whose one event never ends. Each request fails with a named error; the module
// does not trap, and the same client goes on working for the next call.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { gzipSync } from "node:zlib";
import { TaskClient } from "./support.mjs";

const ok = (id, text) => JSON.stringify({ jsonrpc: "2.0", id, result: { resultType: "complete", content: [{ type: "text", text }] } });

/** The JSON text of a result whose one text block is `size` bytes long. */
const big = (id, size) => ok(id, "x".repeat(size));

const bomb = gzipSync(Buffer.from(big(1, 64 << 20)));

const server = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => { body += chunk; });
  req.on("end", () => {
    const rpc = JSON.parse(body || "{}");
    const tool = rpc.params?.name;
    if (tool === "huge") {
      res.writeHead(200, { "content-type": "application/json" }).end(big(rpc.id, 9 << 20));
    } else if (tool === "bomb") {
      // The id in the compressed body is 1; the client fails on size before it could compare ids.
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" }).end(bomb);
    } else if (tool === "endless") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: ");
      const chunk = "y".repeat(64 << 10);
      let sent = 0;
      const pump = () => {
        while (sent < (16 << 20)) {
          sent += chunk.length;
          if (!res.write(chunk)) return res.once("drain", pump);
        }
        res.end("\n\n");
      };
      res.on("close", () => { sent = Infinity; });
      pump();
    } else {
      res.writeHead(200, { "content-type": "application/json" }).end(ok(rpc.id, "small"));
    }
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${server.address().port}/mcp`;
after(() => server.close());

for (const [tool, what] of [["huge", "a 9 MiB JSON answer"], ["bomb", "a gzip bomb"], ["endless", "an SSE event without end"]]) {
  test(`${what} fails that call with a named error, and the client goes on`, async () => {
    const client = await TaskClient.open({ url, store: "memory", maxResponseBytes: 8 << 20 });
    try {
      await assert.rejects(client.callTool(tool, {}), (e) => {
        assert.equal(e.name, "ProtocolError", `${e.name}: ${e.message}`);
        assert.match(e.message, /larger than this client accepts \(8388608 bytes\)/);
        return true;
      });
      const next = await client.callTool("small", {});
      assert.equal(next.kind, "result");
      assert.equal(next.result.content[0].text, "small", "the same client (and module) still works");
    } finally {
      client.close();
    }
  });
}

test("maxResponseBytes below 1 KiB reads as 1 KiB; a small answer passes a small limit", async () => {
  const client = await TaskClient.open({ url, store: "memory", maxResponseBytes: 1 });
  try {
    const out = await client.callTool("small", {});
    assert.equal(out.result.content[0].text, "small");
  } finally {
    client.close();
  }
});

// The door owns every numeric option's check and clamp: a value that is no finite number of at least 0
// (NaN, an infinity, a negative number, a string, a flag) makes open() reject with a TypeError naming
// the option, never a limit switched off or a default put in its place; a huge one is clamped.
const NUMERIC = [
  "minPollIntervalMs",
  "maxBackoffMs",
  "pushedBackstopMs",
  "maxResponseBytes",
  "maxInputRequests",
  "requestTimeoutMs",
  "retention",
];
for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -1, -0.5, "5", true, {}]) {
  test(`every numeric option refuses ${typeof bad === "string" ? JSON.stringify(bad) : String(bad)} with a TypeError naming it`, async () => {
    for (const option of NUMERIC) {
      await assert.rejects(TaskClient.open({ url, store: "memory", [option]: bad }), (e) => {
        assert.equal(e.name, "TypeError", `${option}: ${e.name}: ${e.message}`);
        assert.ok(e.message.includes(`options.${option}`), `${option}: ${e.message}`);
        return true;
      });
    }
  });
}

test("huge numeric options are clamped: the client opens, reads its answers and does not time out at once", async () => {
  for (const huge of [2 ** 32, 2 ** 53, 1e300]) {
    const options = Object.fromEntries(NUMERIC.map((option) => [option, huge]));
    const client = await TaskClient.open({ url, store: "memory", ...options });
    try {
      const out = await client.callTool("small", {});
      assert.equal(out.result.content[0].text, "small", `${huge}`);
      const large = await client.callTool("huge", {});
      assert.equal(large.result.content[0].text.length, 9 << 20, `${huge}: 9 MiB is under the largest limit`);
    } finally {
      client.close();
    }
  }
});
