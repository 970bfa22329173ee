// The resume figure's host page for mcp-tasks-web (served with /pkg/ by the reference server).
//
//   ours.html?mode=setup&n=N&ns=NS    opens a TaskClient (IndexedDB, step mode: no polling) and starts N
//                                     long_job tasks, so the store holds N live handles; then closes it.
//   ours.html?mode=template&ns=NS     (many handles) starts one idle_job task the same way and closes the
//                                     client; the runner then has the server create N − 1 more like it
//                                     (idle_seed) and calls window.cloneHandles(ids, templateId), which
//                                     stores one copy of the template's record per id in one transaction.
//   ours.html?mode=measure&ns=NS      loads and initialises the package (not timed), marks t0, calls
//                                     TaskClient.open() on the same store, and waits for the first
//                                     tasks/get of a restored handle (and for every handle's first poll).
//
// The result goes to `window.bench` (`{ done, error?, ... }`), which the runner reads.
import { probe, report, steadyWindow, until } from "./probe.js";

const params = new URLSearchParams(location.search);
const mode = params.get("mode");
const namespace = params.get("ns") || "bench";
const n = Number(params.get("n") || 0);
const waitMs = Number(params.get("wait") || 15000);
const status = (text) => (document.getElementById("status").textContent = text);
const options = { url: `${location.origin}/mcp`, namespace, store: "indexeddb" };

window.bench = { done: false };
probe.noListen = params.get("listen") !== "1";

async function setup(TaskClient) {
  // Step mode (autoPoll: false): calls are made and stored as usual, but nothing polls, so creating
  // 1,000 tasks does not also mean polling them all every interval meanwhile.
  const client = await TaskClient.open({ ...options, autoPoll: false });
  if (!client.durable) throw new Error("the client fell back to memory: no IndexedDB");
  const ids = [];
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next += 1;
      const outcome = await client.callTool("long_job", { seconds: 3600 });
      if (outcome.kind !== "task") throw new Error(`long_job answered ${outcome.kind}, not a task`);
      ids.push(outcome.task.taskId);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, 16) }, worker));
  client.close();
  return { created: ids.length, stored: ids.length };
}

async function template(TaskClient) {
  const client = await TaskClient.open({ ...options, autoPoll: false });
  if (!client.durable) throw new Error("the client fell back to memory: no IndexedDB");
  const outcome = await client.callTool("idle_job", {});
  if (outcome.kind !== "task") throw new Error(`idle_job answered ${outcome.kind}, not a task`);
  client.close();
  return { templateId: outcome.task.taskId };
}

const request = (req) =>
  new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });

// The client's database and object store (js/store/idb.js).
window.cloneHandles = async (ids, templateId) => {
  const db = await request(indexedDB.open("mcp-tasks-web"));
  try {
    const taskKeys = async () =>
      (await request(db.transaction("records").objectStore("records").getAllKeys())).filter(
        (k) => typeof k === "string" && k.includes(`/${namespace}/`) && k.includes("/task/"),
      );
    const key = (await taskKeys()).find((k) => k.endsWith(`/task/${templateId}`));
    if (!key) throw new Error(`no stored record of the template ${templateId}`);
    const text = await request(db.transaction("records").objectStore("records").get(key));
    const tx = db.transaction("records", "readwrite");
    for (const id of ids) tx.objectStore("records").put(text.replaceAll(templateId, id), key.replace(templateId, id));
    await new Promise((resolve, reject) => {
      tx.oncomplete = resolve;
      tx.onabort = () => reject(tx.error ?? new Error("transaction aborted"));
    });
    return { stored: (await taskKeys()).length };
  } finally {
    db.close();
  }
};

async function measure(TaskClient) {
  probe.mark();
  const client = await TaskClient.open(options);
  const openMs = performance.now() - probe.t0;
  // open() resolves once the first page of the store is in; each later record comes as a task event.
  const restored = new Set();
  const take = (t) => t.taskId !== null && t.restored && restored.add(t.taskId);
  client.addEventListener("task", (event) => take(event.detail));
  for (const t of client.tasks()) take(t);
  await until(() => probe.firstGetMs !== null && restored.size >= n && [...restored].every((id) => probe.polled.has(id)), waitMs);
  const ids = [...restored];
  await steadyWindow();
  client.close();
  return report(ids, { openMs, durable: client.durable });
}

try {
  const pkg = await import("/pkg/mcp_tasks_web.js");
  await pkg.default();
  status(`${mode}…`);
  const run = { setup, template, measure }[mode];
  window.bench = mode === "measure" ? await measure(pkg.TaskClient) : { done: true, ...(await run(pkg.TaskClient)) };
  status("done");
} catch (error) {
  window.bench = { done: true, error: `${error?.name ?? "Error"}: ${error?.message ?? error}` };
  status(window.bench.error);
}
