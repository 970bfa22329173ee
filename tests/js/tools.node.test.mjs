// listTools, readResource, callTool's x-mcp-header bindings (Mcp-Param-* headers) and its abort signal, in Node
// against the reference server.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { TaskClient, startServer, mapStore, admin } from "./support.mjs";

const server = await startServer(["--faults"]);
after(() => server.stop());

const open = () => TaskClient.open({ url: server.url, store: mapStore(), namespace: "tools-tests" });

/** Runs `body` with every request's headers recorded (name lowercased → value), by JSON-RPC method. */
async function recording(body) {
  const seen = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const sent = request.method === "POST" ? await request.clone().json().catch(() => null) : null;
    seen.push({ method: sent?.method, headers: Object.fromEntries(request.headers) });
    return realFetch(request);
  };
  try {
    await body();
  } finally {
    globalThis.fetch = realFetch;
  }
  return seen;
}

test("listTools gives the server's tools as sent", async () => {
  const client = await open();
  try {
    const page = await client.listTools();
    const echo = page.tools.find((tool) => tool.name === "echo");
    assert.ok(echo, JSON.stringify(page.tools.map((tool) => tool.name)));
    assert.equal(typeof echo.inputSchema, "object");
    assert.equal(page.rejectedTools, undefined, "the reference server's tools carry no invalid annotation");
    assert.equal(page.resultType, undefined);
  } finally {
    client.close();
  }
});

test("callTool sends the Mcp-Param-* headers its inputSchema binds, and refuses an invalid annotation", async () => {
  const client = await open();
  try {
    const inputSchema = { type: "object", properties: { text: { type: "string", "x-mcp-header": "Text" } } };
    const seen = await recording(() => client.callTool("echo", { text: "plain" }, { inputSchema }));
    const call = seen.find((request) => request.method === "tools/call");
    assert.equal(call.headers["mcp-param-text"], "plain", JSON.stringify(call.headers));
    const bad = { type: "object", properties: { text: { type: "string", "x-mcp-header": "not a token" } } };
    await assert.rejects(client.callTool("echo", { text: "x" }, { inputSchema: bad }), (e) => e.name === "TypeError");
  } finally {
    client.close();
  }
});

test("a call's signal aborts it with AbortError, and the client goes on", async () => {
  const client = await open();
  try {
    await admin(server, "/admin/faults", { latencyMs: 1500 });
    const controller = new AbortController();
    const call = client.callTool("echo", { text: "slow" }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(call, (e) => e.name === "AbortError");
    await admin(server, "/admin/faults", {});
    const out = await client.callTool("echo", { text: "after" });
    assert.equal(out.result.content[0].text, "after");
  } finally {
    await admin(server, "/admin/faults", {});
    client.close();
  }
});

test("readResource reads a tool's app document with Mcp-Name set to its URI, and an unknown URI is a typed error", async () => {
  const client = await open();
  try {
    const page = await client.listTools();
    const report = page.tools.find((tool) => tool.name === "report");
    const uri = /** @type {any} */ (report)?._meta?.ui?.resourceUri;
    assert.equal(uri, "ui://mcp-tasks-server/report.html", JSON.stringify(report));
    /** @type {any} */
    let read;
    const seen = await recording(async () => {
      read = await client.readResource(uri);
    });
    const sent = seen.find((request) => request.method === "resources/read");
    assert.equal(sent.headers["mcp-name"], uri, JSON.stringify(sent.headers));
    assert.equal(read.contents.length, 1);
    assert.equal(read.contents[0].mimeType, "text/html;profile=mcp-app");
    assert.match(read.contents[0].text, /ui\/notifications\/tool-result/);
    assert.equal(read.resultType, "complete", "the result as the server sent it");
    await assert.rejects(client.readResource("ui://nowhere/x.html"), (e) => {
      assert.match(e.message, /Resource not found: ui:\/\/nowhere\/x\.html/);
      return typeof e.name === "string" && e.name.endsWith("Error");
    });
  } finally {
    client.close();
  }
});

test("callTool's ui option goes with the task: in its snapshots, its settled wait and, after a reopen, tasks() without a new tools/call", async () => {
  const store = mapStore();
  const namespace = "tools-ui-tests";
  const client = await TaskClient.open({ url: server.url, store, namespace });
  const page = await client.listTools();
  const ui = /** @type {any} */ (page.tools.find((tool) => tool.name === "report"))?._meta?.ui;
  assert.deepEqual(ui, { resourceUri: "ui://mcp-tasks-server/report.html" });
  /** @type {string} */
  let id = "";
  try {
    const out = await client.callTool("report", { seconds: 0, title: "Q3" }, { ui });
    assert.equal(out.kind, "task");
    if (out.kind !== "task") return;
    id = out.task.taskId;
    assert.deepEqual(out.task.ui, ui);
    const done = await client.wait(id);
    assert.equal(done.status, "completed");
    assert.deepEqual(done.ui, ui);
    assert.deepEqual(done.result?.structuredContent, { title: "Q3", done: 3, open: 1 });
  } finally {
    client.close();
  }
  const seen = await recording(async () => {
    const again = await TaskClient.open({ url: server.url, store, namespace });
    try {
      const task = again.tasks().find((t) => t.taskId === id);
      assert.ok(task && task.status === "completed", JSON.stringify(task));
      assert.deepEqual(task.ui, ui, "the stored record kept the tool's app");
      assert.deepEqual(task.result?.structuredContent, { title: "Q3", done: 3, open: 1 });
    } finally {
      again.close();
    }
  });
  assert.equal(seen.filter((request) => request.method === "tools/call").length, 0, "no new tools/call");
});
