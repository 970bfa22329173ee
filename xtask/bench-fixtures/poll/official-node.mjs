// The official requester (@modelcontextprotocol/ext-tasks 0.2.2 + @modelcontextprotocol/client 2.4.0)
// following N long tasks for a window, for `cargo xtask bench poll` (run.mjs starts it).
//
//   node official-node.mjs URL N SECONDS WINDOW_MS INSTANCES
//
// Each instance is the host code of ../official-requester.mjs (the same file the size figure bundles):
// `connect()` an MCP Client + `createTaskSessionFromClient`, `run()` = `session.callTool(…, { task })`
// then `execution.settle()`, which polls `tasks/get` at the task's `pollIntervalMs`. The instances share
// one stand-in localStorage, as tabs of one origin share theirs: instance 1 starts the N tasks (its
// `follow()` stores each task's reference), instances 2…INSTANCES then `resumeAll()` those references,
// as a second tab would on load — so every instance follows (polls) every task, as the ext-tasks docs
// have a host do. Prints `{"event":"started","taskIds":[…],"t0":ms}` once all instances follow every
// task, then `{"event":"done","at":ms}` after the window, and exits.
const [url, n, seconds, windowMs, instances = "1"] = process.argv.slice(2);
if (!url) {
  console.error("usage: node official-node.mjs URL N SECONDS WINDOW_MS INSTANCES");
  process.exit(2);
}

// A Map-backed localStorage (Node 20 has none), shared by every instance in this process.
const items = new Map();
globalThis.localStorage = {
  getItem: (key) => (items.has(key) ? items.get(key) : null),
  setItem: (key, value) => void items.set(key, String(value)),
  removeItem: (key) => void items.delete(key),
  clear: () => items.clear(),
};

const { connect } = await import(new URL("../official-requester.mjs", import.meta.url).href);
const host = { askUser: async () => undefined, onStatus: () => {} };
const swallow = (promise) => promise.catch((error) => console.error(`official: ${error?.message ?? error}`));

const first = await connect(url, host);
const sessions = [first];
for (let i = 0; i < Number(n); i += 1) {
  // run() resolves with the result when the task ends (after the window); the reference is stored as
  // soon as the task exists.
  swallow(first.run("long_job", { seconds: Number(seconds) }));
}
const stored = () => JSON.parse(localStorage.getItem("mcp-tasks") ?? "[]");
const deadline = Date.now() + 15_000;
while (stored().length < Number(n)) {
  if (Date.now() > deadline) throw new Error(`only ${stored().length} of ${n} task references were stored`);
  await new Promise((resolve) => setTimeout(resolve, 20));
}
for (let i = 1; i < Number(instances); i += 1) {
  const tab = await connect(url, host);
  sessions.push(tab);
  for (const following of tab.resumeAll()) swallow(following);
}
const taskIds = stored().map((r) => r.taskId);
console.log(JSON.stringify({ event: "started", taskIds, t0: Date.now() }));
await new Promise((resolve) => setTimeout(resolve, Number(windowMs)));
console.log(JSON.stringify({ event: "done", at: Date.now() }));
process.exit(0);
