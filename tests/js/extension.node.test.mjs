// `mcp-tasks-web/extension` (pkg/extension.js) in Node against the reference server. It was a build
// without the 2025-11-25 generation; the default entry's first door is that build now, and loads the
// generation only when a server or record needs it (tests/js/handover.node.test.mjs), so the entry
// is the default one under its old name, kept for the hosts that import it.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { TaskClient as DefaultClient, startServer, mapStore, nextTask } from "./support.mjs";

// support.mjs loaded and initialised the Node entry, which is the same module graph.
const extension = await import(new URL("../../pkg/extension.js", import.meta.url));
const { TaskClient } = extension;

const server = await startServer(["--poll-interval-ms", "100"]);
after(() => server.stop());

const options = (extra = {}) => ({ url: server.url, store: mapStore(), minPollIntervalMs: 50, namespace: "extension-tests", ...extra });

test("the extension entry is the default entry under its old name", () => {
  assert.equal(TaskClient, DefaultClient);
  assert.equal(extension.tasksExtensionId(), "io.modelcontextprotocol/tasks");
  assert.equal(extension.protocolVersion(), "2026-07-28");
});

test("a task runs to completion and an approval is answered once", async () => {
  const client = await TaskClient.open(options());
  const build = await client.callTool("build", { seconds: 0.5, target: "extension" });
  assert.equal(build.kind, "task");
  const built = await client.wait(build.task.taskId);
  assert.equal(built.status, "completed");
  assert.equal(built.protocol, "2026-07-28");
  assert.equal(built.result.structuredContent.target, "extension");

  const { task } = await client.callTool("deploy", { service: "api", environment: "staging" });
  await nextTask(client, (s) => s.taskId === task.taskId && s.status === "input_required");
  await client.respond(task.taskId, { "approval-1": { action: "accept", content: { confirm: true, strategy: "canary", replicas: 2 } } });
  const deployed = await client.wait(task.taskId);
  assert.equal(deployed.status, "completed");
  assert.equal(deployed.result.structuredContent.replicas, 2);
  client.close();
});
