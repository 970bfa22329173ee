// One mcp-tasks-web TaskClient in Node (pkg/node.mjs, default options) following N long tasks for a
// window, for `cargo xtask bench poll` (run.mjs starts it; it is not run by hand).
//
//   node ours-node.mjs URL N SECONDS WINDOW_MS listen|poll
//
// `poll`: globalThis.fetch is wrapped so `server/discover` and `subscriptions/listen` are answered with
// -32601 (as a server without them would), so the client covers its tasks by polling `tasks/get`;
// `listen`: the client runs as is (it listens when server/discover says the server offers it).
// Prints one JSON line `{"event":"started","taskIds":[…],"t0":ms}` once every task was created,
// then `{"event":"done","at":ms}` after the window, and exits.
import { fileURLToPath } from "node:url";

const [url, n, seconds, windowMs, mode] = process.argv.slice(2);
if (!url || !["listen", "poll"].includes(mode)) {
  console.error("usage: node ours-node.mjs URL N SECONDS WINDOW_MS listen|poll");
  process.exit(2);
}

if (mode === "poll") {
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    if (request.method === "POST") {
      let rpc = {};
      try { rpc = JSON.parse(await request.clone().text()); } catch { /* not JSON */ }
      if (rpc.method === "server/discover" || rpc.method === "subscriptions/listen") {
        const body = JSON.stringify({ jsonrpc: "2.0", id: rpc.id ?? null, error: { code: -32601, message: "Method not found" } });
        return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
      }
    }
    return realFetch(request);
  };
}

const pkg = fileURLToPath(new URL("../../../pkg/node.mjs", import.meta.url));
const { default: init, TaskClient } = await import(pkg);
await init();
const client = await TaskClient.open({ url, namespace: `bench-poll-${mode}` });
const taskIds = [];
for (let i = 0; i < Number(n); i += 1) {
  const outcome = await client.callTool("long_job", { seconds: Number(seconds) });
  if (outcome.kind !== "task") throw new Error(`long_job did not start a task: ${JSON.stringify(outcome)}`);
  taskIds.push(outcome.task.taskId);
}
console.log(JSON.stringify({ event: "started", taskIds, t0: Date.now() }));
await new Promise((resolve) => setTimeout(resolve, Number(windowMs)));
const live = client.tasks().filter((t) => t.status === "working").length;
client.close();
console.log(JSON.stringify({ event: "done", at: Date.now(), live }));
process.exit(0);
