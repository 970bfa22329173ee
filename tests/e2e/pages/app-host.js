// The host page of the MCP App e2e test (app.html, element-app.test.mjs). Query parameters:
//   ns=NAME        the TaskClient namespace
//   token=TOKEN    sent as `Authorization: Bearer TOKEN` on every request (TaskClient's `headers`)
//   sandbox=URL    the sandbox.html the cards frame apps from (`app-sandbox`); none: plain cards
// On load (and on every reload) one <mcp-task> per task the client restored. Exposed for Playwright:
//   window.__host  { ready, error, start(tool, args) → taskId }
const params = new URLSearchParams(location.search);
const host = { ready: false, error: null };
window.__host = host;

try {
  const pkg = await import("/pkg/mcp_tasks_web.js");
  await pkg.default();
  const element = await import("/pkg/element.js");
  element.defineMcpTask();
  const token = params.get("token");
  const client = await pkg.TaskClient.open({
    url: `${location.origin}/mcp`,
    namespace: params.get("ns") || "app",
    store: "indexeddb",
    minPollIntervalMs: 100,
    headers: token ? { authorization: `Bearer ${token}` } : undefined,
  });
  const mount = (taskId) => {
    const card = document.createElement("mcp-task");
    card.dataset.task = taskId;
    const sandbox = params.get("sandbox");
    if (sandbox) card.setAttribute("app-sandbox", sandbox);
    card.client = client;
    card.taskId = taskId;
    document.getElementById("tasks").append(card);
  };
  host.start = async (name, args) => {
    // The tool's `_meta.ui` from tools/list, handed to callTool so the task keeps it.
    const { tools } = await client.listTools();
    const ui = tools.find((t) => t.name === name)?._meta?.ui;
    const outcome = await client.callTool(name, args, { ui });
    mount(outcome.task.taskId);
    return outcome.task.taskId;
  };
  for (const t of client.tasks()) if (t.taskId) mount(t.taskId);
  host.ready = true;
  document.getElementById("status").textContent = "ready";
} catch (error) {
  host.error = `${error?.name ?? "Error"}: ${error?.message ?? error}`;
  document.getElementById("status").textContent = host.error;
}
