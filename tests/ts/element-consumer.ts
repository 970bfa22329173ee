// A host of <mcp-task> written against the shipped element.d.ts; type-checked by `cargo xtask test`
// (tsc --strict), never run. It fails compilation if the element's published types drift.
import init, { TaskClient } from "../../pkg/element.js";
import type { TaskSnapshot } from "../../pkg/element.js";
import { defineMcpTask } from "../../pkg/element.js";
import type { Labels, McpTaskElement, McpTaskInputDetail, McpTaskListElement } from "../../pkg/element.js";

export async function mount(parent: HTMLElement): Promise<void> {
  await init();
  const fr: Labels = { "action.accept": "Accepter", "status.working": "En cours" };
  defineMcpTask({ tagName: "mcp-task", labels: { fr } });
  const client = await TaskClient.open({ url: "/mcp", namespace: "me" });
  const out = await client.callTool("deploy", { service: "api", environment: "production" });
  if (out.kind !== "task") return;

  // The tag name map gives the element's own type.
  const el: McpTaskElement = document.createElement("mcp-task");
  el.client = client;
  el.taskId = out.task.taskId;
  el.labels = { "action.decline": "Non" };
  el.addEventListener("mcp-task-change", (e) => {
    const s: TaskSnapshot = e.detail;
    console.log(s.status);
  });
  el.addEventListener("mcp-task-input", (e) => {
    const d: McpTaskInputDetail = e.detail;
    if (Object.keys(d.responses).length > 0) e.preventDefault();
  });
  parent.addEventListener("mcp-task-settled", (e) => console.log(e.detail.result));
  const snapshot: TaskSnapshot | null = el.snapshot;
  console.log(snapshot?.toolName);
  parent.append(el);

  const list: McpTaskListElement = document.createElement("mcp-task-list");
  list.client = client;
  parent.append(list);

  // @ts-expect-error: snapshot is read-only.
  el.snapshot = null;
  // @ts-expect-error: not a label key.
  const bad: Labels = { "action.nope": "x" };
  console.log(bad);
}
