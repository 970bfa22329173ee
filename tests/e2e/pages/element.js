// The host page of the <mcp-task> element e2e tests (element.html). Loaded from a file (never inline)
// so the page runs under the reference server's strict CSP, as a real host would.
//
// Query parameters:
//   ns=NAME     the TaskClient namespace (default "element")
//   lang=TAG    sets <html lang> (the element picks its label set from the nearest lang)
//   tool=NAME   starts callTool(NAME, args) once the client is open, then drops tool/args from the URL
//   args=JSON   the arguments for `tool` (default {})
//   list=1      shows a <mcp-task-list> as well
//   second=URL  opens a second TaskClient on that MCP endpoint (another server): the list shows both
//   notify=1    the list gets the `notify` attribute (system notifications while the page is hidden)
//
// On load (and so on every reload) one <mcp-task> is created for each task the client restored, oldest
// first, so a reload shows the same tasks (and forms) again. Exposed for Playwright:
//   window.__client   the TaskClient
//   window.__client2  the second TaskClient (second=URL only)
//   window.__events   [{ type, at, taskId, detail }] for every mcp-task-change / -input / -settled event
//   window.__csp      securitypolicyviolation events seen by the page (also sent to window.__reportCsp)
//   window.__host     { ready, error, loadAttempts, start(tool, args), mount(id), showList(), started }
const params = new URLSearchParams(location.search);
const namespace = params.get("ns") || "element";
const lang = params.get("lang");
if (lang) document.documentElement.lang = lang;

const $ = (id) => document.getElementById(id);
const LOAD_KEY = "element-host-load-attempts";

const events = [];
const csp = [];
const host = { ready: false, error: null, loadAttempts: 0, namespace, started: [] };
window.__events = events;
window.__csp = csp;
window.__host = host;

// Capture phase on the document: the event is composed, so violations inside shadow roots arrive too.
// The tests also expose `window.__reportCsp` (a Playwright binding) to keep them across reloads.
document.addEventListener(
  "securitypolicyviolation",
  (e) => {
    const violation = { page: location.pathname, directive: e.violatedDirective, blockedURI: e.blockedURI, sourceFile: e.sourceFile, line: e.lineNumber, sample: e.sample };
    csp.push(violation);
    if (typeof window.__reportCsp === "function") window.__reportCsp(violation);
  },
  true,
);

/** A plain copy of an event detail (snapshots are plain data; anything else is summarized). */
function plain(value) {
  try {
    return JSON.parse(JSON.stringify(value ?? null));
  } catch {
    return String(value);
  }
}

for (const type of ["mcp-task-change", "mcp-task-input", "mcp-task-settled"]) {
  document.addEventListener(type, (e) => {
    events.push({ type, at: Date.now(), taskId: e.detail?.taskId ?? null, detail: plain(e.detail), defaultPrevented: e.defaultPrevented });
  });
}

// Others may rebuild pkg/ while a test runs. A failed module import stays failed under its URL and
// element.js must share the very module instance init() ran on, so a failed load is retried by
// reloading the page (at most 7 times, over about 14 s), counted in sessionStorage.
async function loadPackage() {
  const attempts = Number(sessionStorage.getItem(LOAD_KEY) || 0) + 1;
  sessionStorage.setItem(LOAD_KEY, String(attempts));
  host.loadAttempts = attempts;
  try {
    const pkg = await import("/pkg/mcp_tasks_web.js");
    await pkg.default();
    const element = await import("/pkg/element.js");
    sessionStorage.removeItem(LOAD_KEY);
    return { pkg, element };
  } catch (error) {
    if (attempts < 8) {
      setTimeout(() => location.reload(), 500 * attempts);
      return new Promise(() => {}); // the page goes away
    }
    sessionStorage.removeItem(LOAD_KEY);
    throw error;
  }
}

function setStatus(text) {
  $("status").textContent = text;
}

try {
  const { pkg, element } = await loadPackage();
  element.defineMcpTask();
  const client = await pkg.TaskClient.open({ url: `${location.origin}/mcp`, namespace, store: "indexeddb", minPollIntervalMs: 100 });
  window.__client = client;
  const second = params.get("second");
  const client2 = second ? await pkg.TaskClient.open({ url: second, namespace, store: "indexeddb", minPollIntervalMs: 100 }) : null;
  window.__client2 = client2;

  const mounted = new Map();
  /** The <mcp-task> for `taskId`, created (client first, then taskId) and appended if new. */
  const mount = (taskId) => {
    if (mounted.has(taskId)) return mounted.get(taskId);
    const el = document.createElement("mcp-task");
    el.dataset.task = taskId;
    el.client = client;
    el.taskId = taskId;
    $("tasks").append(el);
    mounted.set(taskId, el);
    return el;
  };

  const start = async (tool, args = {}) => {
    const entry = { tool, args, at: Date.now(), kind: null, taskId: null, error: null };
    host.started.push(entry);
    try {
      const outcome = await client.callTool(tool, args);
      entry.kind = outcome.kind;
      if (outcome.kind === "task") {
        entry.taskId = outcome.task.taskId;
        mount(entry.taskId);
      } else {
        entry.result = plain(outcome.result);
      }
      setStatus(`started ${tool}: ${entry.taskId ?? "synchronous result"}`);
      return { kind: entry.kind, taskId: entry.taskId };
    } catch (error) {
      entry.error = `${error?.name ?? "Error"}: ${error?.message ?? error}`;
      setStatus(`could not start ${tool}: ${entry.error}`);
      throw error;
    }
  };

  const showList = () => {
    const existing = $("list").querySelector("mcp-task-list");
    if (existing) return existing;
    const list = document.createElement("mcp-task-list");
    if (params.get("notify") === "1") list.setAttribute("notify", "");
    list.clients = client2 ? [client, client2] : [client];
    $("list").append(list);
    $("list-section").hidden = false;
    return list;
  };

  Object.assign(host, { start, mount, showList });

  // A reload shows every task the client restored again, oldest first.
  const restored = client.tasks().filter((t) => t.taskId).sort((a, b) => String(a.createdAt).localeCompare(String(b.createdAt)));
  for (const t of restored) mount(t.taskId);
  if (params.get("list") === "1") showList();

  $("start").addEventListener("submit", (event) => {
    event.preventDefault();
    let args;
    try {
      args = JSON.parse($("args").value || "{}");
    } catch (error) {
      setStatus(`arguments are not JSON: ${error.message}`);
      return;
    }
    start($("tool").value.trim(), args).catch(() => {});
  });

  host.ready = true;
  setStatus(`namespace "${namespace}" · ${client.durable ? "durable" : "memory only"} · ${restored.length} restored task(s)`);

  const tool = params.get("tool");
  if (tool) {
    const args = params.get("args") || "{}";
    $("tool").value = tool;
    $("args").value = args;
    // Started once: a reload restores the task instead of calling the tool again.
    const url = new URL(location.href);
    url.searchParams.delete("tool");
    url.searchParams.delete("args");
    history.replaceState(null, "", url);
    start(tool, JSON.parse(args)).catch(() => {});
  }
} catch (error) {
  host.error = `${error?.name ?? "Error"}: ${error?.message ?? error}`;
  setStatus(`could not start: ${host.error}`);
}
