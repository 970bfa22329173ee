// A host whose servers all speak the Tasks extension, written against the shipped .d.ts of
// mcp-tasks-web/extension; type-checked by `cargo xtask test` (tsc --strict), never run. The same
// API as the default entry: a snapshot or outcome type from one fits the other.
import init, { TaskClient, tasksExtensionId } from "../../pkg/extension.js";
import type { CallToolOutcome, TaskSnapshot } from "../../pkg/extension.js";
import type { TaskSnapshot as DefaultSnapshot } from "../../pkg/client.js";

export async function host(): Promise<DefaultSnapshot | null> {
  await init();
  const id: string = tasksExtensionId();
  const client = await TaskClient.open({ url: "/mcp", namespace: id, store: "indexeddb" });
  const out: CallToolOutcome = await client.callTool("build", { target: "web" });
  if (out.kind === "result") return null;
  const done: TaskSnapshot = await client.wait(out.task.taskId);
  client.close();
  return done;
}
