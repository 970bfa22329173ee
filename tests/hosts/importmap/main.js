// A host with no bundler: index.html maps the bare specifiers to the unpacked package files, and the
// glue fetches the .wasm beside itself (new URL("mcp_tasks_web_bg.wasm", import.meta.url)). A page with
// cards takes the whole API from "mcp-tasks-web/element" (the build with the element), init included.
import init, { TaskClient, defineMcpTask } from "mcp-tasks-web/element";

// The MCP server: `cargo xtask demo` serves one here (?mcp= picks another).
const url = new URLSearchParams(location.search).get("mcp") ?? "http://127.0.0.1:8787/mcp";

await init();
defineMcpTask();
const client = await TaskClient.open({ url, namespace: "importmap-host" });

/** One live card per task. */
function show(taskId) {
  const card = document.createElement("mcp-task");
  card.client = client;
  card.taskId = taskId;
  document.getElementById("tasks").append(card);
}

// Tasks started before a reload come back from the client's store.
for (const task of client.tasks()) if (task.taskId !== null) show(task.taskId);
const button = document.getElementById("deploy");
button.addEventListener("click", async () => {
  const out = await client.callTool("deploy", { service: "api", environment: "staging" });
  if (out.kind === "task") show(out.task.taskId);
});
button.disabled = false;
