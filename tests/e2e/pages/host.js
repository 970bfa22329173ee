// The e2e test host: opens a TaskClient on this origin's /mcp and exposes it as `window.host` for
// Playwright. Loaded from a file (never inline) so the page runs under the server's strict CSP.
//
//   window.host = { ready, error, namespace, client, start(tool, args), respond(id, answers),
//                   cancel(id), wait(id), tasks(), events: [{ kind, at, detail }], calls: [...] }
//
// `?ns=NAME` picks the namespace (default "e2e"); `?minPoll=MS` the client's minPollIntervalMs.
const params = new URLSearchParams(location.search);
const namespace = params.get("ns") || "e2e";
const minPollIntervalMs = Number(params.get("minPoll") || 100);

const events = [];
const calls = [];
const host = { ready: false, error: null, namespace, client: null, events, calls, loadAttempts: 0 };
window.host = host;

const $ = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Others may rebuild /pkg while a test runs: a failed import or init is retried a few times, each time
// under a fresh URL (a failed module fetch stays cached under its URL).
async function loadPackage() {
  let lastError;
  for (let attempt = 0; attempt < 5; attempt += 1) {
    host.loadAttempts = attempt + 1;
    try {
      const pkg = await import(attempt === 0 ? "/pkg/mcp_tasks_web.js" : `/pkg/mcp_tasks_web.js?retry=${attempt}`);
      await pkg.default();
      return pkg;
    } catch (error) {
      lastError = error;
      await sleep(300 * (attempt + 1));
    }
  }
  throw lastError;
}

function line(s) {
  if (s.taskId === null) return `${s.callId}  ${s.toolName.padEnd(8)} ${s.status}  ${s.statusMessage}`;
  const asks = Object.keys(s.inputRequests || {});
  return [
    s.taskId,
    s.toolName.padEnd(8),
    s.status.padEnd(14),
    s.connectivity.padEnd(8),
    s.restored ? "restored" : "        ",
    s.statusMessage ?? "",
    asks.length ? `asks: ${asks.join(", ")}` : "",
    s.result?.structuredContent ? JSON.stringify(s.result.structuredContent) : "",
  ].join("  ").trimEnd();
}

function render() {
  const client = host.client;
  if (!client) return;
  const all = client.tasks();
  $("status").textContent = `namespace "${namespace}" · ${client.durable ? "durable (IndexedDB)" : "memory only"} · ${all.length} task(s) · ${events.length} event(s) · ${new Date().toISOString()}`;
  $("tasks").textContent = all.length ? all.map(line).join("\n") : "(no tasks)";
  $("events").textContent = events.slice(-8).map((e) => `${new Date(e.at).toISOString().slice(11, 23)} ${e.kind.padEnd(7)} ${e.detail.taskId ?? e.detail.callId ?? ""} ${e.detail.status ?? e.detail.reason ?? ""}`).join("\n");
}

try {
  const { TaskClient } = await loadPackage();
  const client = await TaskClient.open({ url: `${location.origin}/mcp`, namespace, store: "indexeddb", minPollIntervalMs });
  host.client = client;
  for (const kind of ["task", "call", "storage"]) {
    client.addEventListener(kind, (event) => {
      events.push({ kind, at: Date.now(), detail: event.detail });
      render();
    });
  }
  host.start = async (tool, args) => {
    const entry = { tool, args, at: Date.now(), outcome: null, error: null };
    calls.push(entry);
    try {
      entry.outcome = await client.callTool(tool, args);
      render();
      return entry.outcome;
    } catch (error) {
      entry.error = { name: error.name, message: error.message, code: error.code ?? null };
      throw error;
    }
  };
  host.respond = (id, answers) => client.respond(id, answers);
  host.cancel = (id) => client.cancel(id);
  host.wait = (id) => client.wait(id);
  host.tasks = () => client.tasks();
  host.ready = true;
  render();
  // Keep the timestamp line fresh so screenshots show when they were taken.
  setInterval(render, 500);
} catch (error) {
  host.error = `${error?.name ?? "Error"}: ${error?.message ?? error}`;
  $("status").textContent = `could not start: ${host.error}`;
}
