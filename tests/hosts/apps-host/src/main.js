// A host that draws a task's MCP App itself, with the official SDK (@modelcontextprotocol/ext-apps):
// the <mcp-task> card shows the task (no app-sandbox: the card draws no app), and once the task
// settles the page reads the tool's ui:// document and hands it, with the task's result, to an
// AppBridge speaking to the package's sandbox.html on another origin.
import { AppBridge, PostMessageTransport, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/app-bridge";
import init, { TaskClient, defineMcpTask } from "mcp-tasks-web/element";

const params = new URLSearchParams(location.search);
// The MCP server (`cargo xtask demo` serves one here) and the sandbox proxy: the package's
// sandbox.html served on an origin that is not this page's (?mcp= and ?sandbox= pick others).
const url = params.get("mcp") ?? "http://127.0.0.1:8787/mcp";
const sandbox = params.get("sandbox") ?? "http://localhost:8001/sandbox.html";

await init();
defineMcpTask();
const client = await TaskClient.open({ url, namespace: "apps-host" });

/** Draws the MCP App of a settled task's tool below its card, fed with the task's result. */
async function drawApp(card, snapshot) {
  const uri = snapshot.ui?.resourceUri; // the tool's _meta.ui, kept with the task (after a reload too)
  if (!uri || !snapshot.result) return;
  const { contents } = await client.readResource(uri);
  const doc = contents.find((c) => c.uri === uri);
  if (doc?.mimeType !== RESOURCE_MIME_TYPE || typeof doc.text !== "string") return;

  const frame = document.createElement("iframe");
  frame.title = `${snapshot.toolName} app`;
  frame.style.cssText = "display:block;width:100%;border:0";
  card.after(frame);
  const bridge = new AppBridge(null, { name: "apps-host", version: "1.0.0" }, { serverTools: {} });
  bridge.onsandboxready = () => bridge.sendSandboxResourceReady({ html: doc.text, csp: doc._meta?.ui?.csp });
  bridge.oninitialized = () => {
    bridge.sendToolInput({ arguments: {} }); // a snapshot keeps the result, not the call's arguments
    bridge.sendToolResult(snapshot.result);
  };
  // The app's own calls go through the same client (its headers, its store).
  bridge.oncalltool = async ({ name, arguments: args }) => {
    const out = await client.callTool(name, args ?? {});
    return out.kind === "result" ? out.result : (await client.wait(out.task.taskId)).result;
  };
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) frame.style.height = `${Math.min(height, 4000)}px`;
  };
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  frame.src = sandbox; // once the bridge listens, so it hears the sandbox's first message
}

/** One card per task; its app once it settles (a restored task's card tells that on its first draw). */
function show(taskId) {
  const card = document.createElement("mcp-task");
  card.client = client;
  card.taskId = taskId;
  card.addEventListener("mcp-task-settled", (e) =>
    drawApp(card, e.detail).catch((error) => {
      const note = document.createElement("p");
      note.textContent = `The app is not shown: ${error.message}`; // the server's words, as text
      card.after(note);
    }),
  );
  document.getElementById("tasks").append(card);
}

// Tasks started before a reload come back from the client's store, `ui` and result included.
for (const task of client.tasks()) if (task.taskId !== null) show(task.taskId);
const button = document.getElementById("report");
button.addEventListener("click", async () => {
  // The tool's _meta.ui from tools/list, given to callTool so the task keeps it.
  const { tools } = await client.listTools();
  const ui = tools.find((t) => t.name === "report")?._meta?.ui;
  const out = await client.callTool("report", { title: "Release report", seconds: 1 }, { ui });
  if (out.kind === "task") show(out.task.taskId);
});
button.disabled = false;
