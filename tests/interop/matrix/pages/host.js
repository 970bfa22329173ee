// The interop matrix's browser host: opens a TaskClient (IndexedDB store) on the MCP server named by
// `?mcp=URL` (another loopback origin, so every request is cross-origin and needs the server's CORS),
// and exposes it as `window.host` for Playwright:
//
//   window.host = { ready, error, client, start(tool, args), respond(id, answers), cancel(id),
//                   wait(id), tasks(), mount(id), events: [{ kind, at, detail }] }
//
// `mount(id)` shows the task as an `<mcp-task>` card (element.js from the same package).
//
// `?ns=NAME` picks the namespace, `?minPoll=MS` the client's minPollIntervalMs, `?entry=client` loads
// the client alone (`client.js`, no element, no `mount`), as a host without cards does.
const params = new URLSearchParams(location.search);
const url = params.get("mcp");
const namespace = params.get("ns") || "matrix";
const minPollIntervalMs = Number(params.get("minPoll") || 100);
const events = [];
const host = { ready: false, error: null, client: null, events };
window.host = host;

const show = () => {
  if (!host.client) return;
  document.getElementById("status").textContent = `${url} · ns ${namespace} · ${host.client.durable ? "IndexedDB" : "memory"}`;
  document.getElementById("tasks").textContent = host.client
    .tasks()
    .map((t) => `${t.taskId ?? t.callId} ${t.toolName} ${t.status} ${t.connectivity ?? ""} ${t.restored ? "restored" : ""} ${t.statusMessage ?? ""}`)
    .join("\n");
};

try {
  if (!url) throw new TypeError("no ?mcp= URL");
  const base = new URLSearchParams(location.search).get("pkg") ?? "/pkg-0/";
  const clientOnly = params.get("entry") === "client";
  const pkg = await import(`${base}${clientOnly ? "client.js" : "mcp_tasks_web.js"}`);
  await pkg.default();
  const client = await pkg.TaskClient.open({ url, namespace, store: "indexeddb", minPollIntervalMs });
  host.client = client;
  for (const kind of ["task", "call", "storage"]) {
    client.addEventListener(kind, (event) => {
      events.push({ kind, at: Date.now(), online: navigator.onLine, detail: event.detail });
      show();
    });
  }
  host.start = (tool, args) => client.callTool(tool, args);
  host.respond = (id, answers) => client.respond(id, answers);
  host.cancel = (id) => client.cancel(id);
  host.wait = (id) => client.wait(id);
  host.tasks = () => client.tasks();
  const { defineMcpTask } = clientOnly ? { defineMcpTask: () => {} } : await import(`${base}element.js`);
  defineMcpTask();
  host.mount = (id) => {
    const card = document.createElement("mcp-task");
    card.client = client;
    card.taskId = id;
    card.dataset.task = id;
    document.getElementById("cards").append(card);
  };
  host.ready = true;
  show();
} catch (error) {
  host.error = `${error?.name ?? "Error"}: ${error?.message ?? error}`;
  document.getElementById("status").textContent = `could not start: ${host.error}`;
}
