// The resume figure's host page for the official requester (@modelcontextprotocol/ext-tasks 0.2.2 with
// @modelcontextprotocol/client 2.4.0). `cargo xtask bench resume` bundles this file with esbuild
// (platform browser, ESM, minified) into official.js next to official.html. The host code is the size
// figure's (../official-requester.mjs): it keeps task references in localStorage and, after a reload,
// `resumeAll()` resumes every stored reference and follows it.
//
//   official.html?mode=setup&n=N     connects, starts N long_job tasks with `run()` (each reference is
//                                    stored in localStorage as soon as its task exists) and waits until N
//                                    references are stored. The session is left open (closing it settles
//                                    every follow, which drops the references); the runner closes the page.
//   official.html?mode=template      (many handles) connects and starts one idle_job task the same way;
//                                    the runner then has the server create N − 1 more like it (idle_seed)
//                                    and calls window.cloneHandles(ids, templateId), which stores one copy
//                                    of its reference per id.
//   official.html?mode=measure       marks t0, connects (the official client's `connect()` is its open:
//                                    it probes the server), and calls `resumeAll()`; waits for the first
//                                    tasks/get of a stored handle (and for every handle's first poll).
//
// The result goes to `window.bench` (`{ done, error?, ... }`), which the runner reads.
import { probe, report, steadyWindow, until } from "./probe.js";
import { connect } from "../official-requester.mjs";

const STORE_KEY = "mcp-tasks"; // official-requester.mjs's localStorage key
const params = new URLSearchParams(location.search);
const mode = params.get("mode");
const n = Number(params.get("n") || 0);
const waitMs = Number(params.get("wait") || 15000);
const url = `${location.origin}/mcp`;
const status = (text) => (document.getElementById("status").textContent = text);
const storedIds = () => {
  try {
    return JSON.parse(localStorage.getItem(STORE_KEY) ?? "[]").map((r) => r.taskId);
  } catch {
    return [];
  }
};
// The jobs never ask for input; nothing to show.
const hooks = { askUser: async () => undefined, onStatus: () => {} };

window.bench = { done: false };

async function setup() {
  localStorage.removeItem(STORE_KEY);
  const host = await connect(url, hooks);
  const failures = [];
  // run() follows a task to its end, so it is not awaited: a reference is stored once its task exists.
  // Started in batches of 50 to keep the page from opening N calls at once.
  for (let started = 0; started < n; ) {
    const batch = Math.min(50, n - started);
    for (let i = 0; i < batch; i += 1) host.run("long_job", { seconds: 3600 }).catch((e) => failures.push(String(e)));
    started += batch;
    await until(() => storedIds().length >= started || failures.length > 0, 30000, 50);
    if (failures.length > 0) throw new Error(`long_job failed: ${failures[0]}`);
    if (storedIds().length < started) throw new Error(`only ${storedIds().length} of ${started} references stored`);
  }
  // Not closed: closing settles every follow, which drops its reference. The runner closes the page,
  // as a reload would.
  return { created: n, stored: storedIds().length };
}

async function template() {
  localStorage.removeItem(STORE_KEY);
  const host = await connect(url, hooks);
  let failure = null;
  host.run("idle_job", {}).catch((e) => (failure = String(e)));
  await until(() => storedIds().length >= 1 || failure !== null, 30000, 20);
  if (storedIds().length < 1) throw new Error(`idle_job was not stored: ${failure}`);
  return { templateId: storedIds()[0] };
}

window.cloneHandles = (ids, templateId) => {
  const references = JSON.parse(localStorage.getItem(STORE_KEY));
  const text = JSON.stringify(references.find((r) => r.taskId === templateId));
  localStorage.setItem(STORE_KEY, JSON.stringify([...references, ...ids.map((id) => JSON.parse(text.replaceAll(templateId, id)))]));
  return { stored: storedIds().length };
};

async function measure() {
  const ids = storedIds();
  probe.mark();
  const host = await connect(url, hooks);
  const connectMs = performance.now() - probe.t0;
  const resumed = host.resumeAll();
  for (const follow of resumed) follow.catch(() => {});
  await until(() => probe.firstGetMs !== null && ids.every((id) => probe.polled.has(id)), waitMs);
  await steadyWindow();
  // Not closed (that would drop the stored references): the runner closes the page, as a reload would.
  return report(ids, { openMs: connectMs });
}

try {
  status(`${mode}…`);
  const run = { setup, template, measure }[mode];
  window.bench = mode === "measure" ? await measure() : { done: true, ...(await run()) };
  status("done");
} catch (error) {
  window.bench = { done: true, error: `${error?.name ?? "Error"}: ${error?.message ?? error}` };
  status(window.bench.error);
}
