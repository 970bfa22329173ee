// A dedicated worker that drives TaskClient from the client-only build (`/pkg/client.js`), for
// tests/e2e/worker.test.mjs: the page asks it to open a client, call a tool, wait for a task or list
// the tasks, and it answers with what the client gave, or the error's name and message.
import init, { TaskClient } from "/pkg/client.js";

let client = null;

const ops = {
  async open({ namespace }) {
    await init();
    client = await TaskClient.open({ url: new URL("/mcp", location.origin).href, namespace, minPollIntervalMs: 100 });
    return { durable: client.durable, tasks: client.tasks() };
  },
  callTool: ({ tool, args }) => client.callTool(tool, args),
  wait: ({ taskId }) => client.wait(taskId),
  tasks: () => client.tasks(),
};

self.addEventListener("message", async ({ data }) => {
  try {
    const value = await ops[data.op](data);
    self.postMessage({ id: data.id, ok: true, value });
  } catch (e) {
    self.postMessage({ id: data.id, ok: false, error: `${e?.name}: ${e?.message}` });
  }
});
