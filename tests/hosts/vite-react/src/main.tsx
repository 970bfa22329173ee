// A React 19 host: calls a tool and shows its task as a live <mcp-task> card, which asks for input,
// survives a reload and completes (the repository README's Quick start).
import init, { TaskClient, defineMcpTask } from "mcp-tasks-web/element"; // the build with the element
import type {} from "mcp-tasks-web/react"; // <mcp-task> in JSX: typed props and events
import { useState } from "react";
import { createRoot } from "react-dom/client";

// The MCP server: `cargo xtask demo` serves one here (?mcp= picks another).
const url = new URLSearchParams(location.search).get("mcp") ?? "http://127.0.0.1:8787/mcp";

await init(); // loads mcp_tasks_web_bg.wasm, which the bundler emits beside the JS
defineMcpTask(); // before the first render, so React sets client and taskId as properties
const client = await TaskClient.open({ url, namespace: "quickstart" }); // tasks survive reloads

function App() {
  // Tasks started before a reload come back from the client's store.
  const [taskIds, setTaskIds] = useState(() => client.tasks().flatMap((t) => (t.taskId === null ? [] : [t.taskId])));
  async function deploy() {
    const out = await client.callTool("deploy", { service: "api", environment: "staging" });
    if (out.kind === "task") setTaskIds((ids) => [...ids, out.task.taskId]);
  }
  return (
    <main>
      <button onClick={deploy}>Deploy api to staging</button>
      {taskIds.map((id) => (
        <mcp-task key={id} client={client} taskId={id} onmcp-task-settled={(e) => (document.title = `${e.detail.toolName}: ${e.detail.status}`)} />
      ))}
    </main>
  );
}

createRoot(document.getElementById("root")!).render(<App />);
