// A hostile server asking 10,000 inputRequests at once: the answer is refused as
// unreadable (the limit is 256), the task backs off with a named failure instead of holding 10,000
// questions, the module does not trap, and another task on the same client goes on polling to its end.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { TaskClient, nextTask } from "./support.mjs";

const now = () => new Date().toISOString();
const task = (taskId, status, extra = {}, resultType = "complete") =>
  ({ resultType, taskId, status, createdAt: now(), lastUpdatedAt: now(), ttlMs: 600_000, pollIntervalMs: 100, ...extra });
const flood = {};
for (let i = 0; i < 10_000; i++) {
  flood[`ask-${i}`] = { method: "elicitation/create", params: { mode: "form", message: `Question ${i}?`, requestedSchema: { type: "object", properties: {} } } };
}

const polls = { flood: 0, calm: 0 };
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => { body += chunk; });
  req.on("end", () => {
    const rpc = JSON.parse(body || "{}");
    const reply = (result) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: rpc.id, result }));
    if (rpc.method === "tools/call") return reply(task(rpc.params.name, "working", {}, "task"));
    if (rpc.method === "tasks/get") {
      const id = rpc.params.taskId;
      polls[id] = (polls[id] ?? 0) + 1;
      if (id === "flood") return reply(task(id, "input_required", { inputRequests: flood }));
      if (polls.calm >= 5) return reply(task(id, "completed", { result: { content: [{ type: "text", text: "done" }] } }));
      return reply(task(id, "working"));
    }
    return reply({});
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${server.address().port}/mcp`;
after(() => server.close());

test("10,000 inputRequests are refused with a named failure, and the other task still completes", async () => {
  const client = await TaskClient.open({ url, store: "memory", minPollIntervalMs: 50 });
  try {
    const refused = nextTask(client, (s) => s.taskId === "flood" && s.lastError !== null);
    await client.callTool("flood", {});
    const done = nextTask(client, (s) => s.taskId === "calm" && s.status === "completed");
    await client.callTool("calm", {});
    const flooded = await refused;
    assert.equal(flooded.lastError.failure.kind, "badResponse", JSON.stringify(flooded.lastError));
    assert.equal(flooded.status, "working", "the refused answer changed nothing");
    assert.deepEqual(Object.keys(flooded.inputRequests), [], "no question was taken from it");
    assert.equal((await done).result.content[0].text, "done", "the other task polled to its end");
    assert.ok(polls.flood >= 1);
  } finally {
    client.close();
  }
});
