// A trap in the WebAssembly module fails the client closed. Node runs fixtures/trap.mjs with the wasm
// memory capped (`--wasm-max-mem-pages`), so an answer of 8 MB of text cannot be read: the module's
// allocation fails and it traps (`unreachable`), as a page out of memory does. Client A's call must
// reject with ClientFailedError, its `error` event fire, its later calls reject at once and its
// pending call stay in the store; client B, on the same module, must go on.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

const entry = new URL(process.env.MCP_TASKS_PKG ?? "../../pkg/node.mjs", import.meta.url).href;
const fixture = fileURLToPath(new URL("./fixtures/trap.mjs", import.meta.url));

test("a trap rejects what waits with ClientFailedError, keeps the store, and the page's other client goes on", async () => {
  // 200 pages of 64 KiB: 12.5 MiB, room for the clients but not for an 8 MB answer read in.
  const args = ["--wasm-max-mem-pages=200", fixture, entry, String(8_000_000)];
  const { stdout } = await new Promise((resolve, reject) =>
    execFile(process.execPath, args, { timeout: 30_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve({ stdout }),
    ),
  );
  const seen = JSON.parse(stdout.trim().split("\n").at(-1));
  assert.equal(seen.outcome.rejected, "ClientFailedError", JSON.stringify(seen));
  assert.match(seen.outcome.message, /WebAssembly module failed \(RuntimeError: unreachable\)/);
  assert.deepEqual(seen.errors, ["ClientFailedError"], "one error event");
  assert.equal(seen.later, "ClientFailedError", "a later call fails at once");
  assert.equal(seen.kept, 1, "the pending call is still stored");
  assert.equal(seen.other, "still here", "the other client on the module still works");
});

test("an 8 MiB answer of small numbers grows the module's memory by tens of MiB at most, and is refused", async () => {
  const http = await import("node:http");
  const pkg = await import(entry);
  const exports = await pkg.default();
  const memory = Object.values(exports).find((value) => value instanceof WebAssembly.Memory);
  assert.ok(memory, "the module exports its memory");
  const zeros = `[${"0,".repeat(4_000_000)}0]`;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      const { id } = JSON.parse(body);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"resultType":"complete","content":[],"structuredContent":{"n":${zeros}}}}`);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const url = `http://127.0.0.1:${server.address().port}/mcp`;
    const client = await pkg.TaskClient.open({ url, store: "memory" });
    const before = memory.buffer.byteLength;
    const started = performance.now();
    await assert.rejects(client.callTool("numbers", {}), (e) => {
      assert.equal(e.name, "ProtocolError", e.message);
      assert.match(e.message, /more than 262144 JSON values/);
      return true;
    });
    const grown = (memory.buffer.byteLength - before) / 2 ** 20;
    console.log(`an 8 MiB flood of zeros: memory grew ${grown.toFixed(1)} MiB in ${(performance.now() - started).toFixed(0)} ms`);
    assert.ok(grown <= 32, `grew ${grown.toFixed(1)} MiB (it was 375 MiB when every value was built)`);
    client.close();
  } finally {
    server.close();
  }
});
