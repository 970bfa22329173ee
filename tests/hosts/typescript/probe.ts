// Type-checked once per exports condition by tests/hosts/hosts.test.mjs (tsc --customConditions X):
// every subpath resolves to its types, and "." to the types of the condition's own entry.
import { TaskClient, type TaskSnapshot } from "mcp-tasks-web";
import { defineMcpTask, TaskClient as CardClient, type McpTaskElement } from "mcp-tasks-web/element";
import { mapStore } from "mcp-tasks-web/stores";
import { memory } from "mcp-tasks-web/mcp_tasks_web_bg.wasm";
import { memory as clientMemory } from "mcp-tasks-web/client_bg.wasm";

export async function probe(url: string): Promise<(TaskSnapshot["status"] | "outcome_unknown")[]> {
  const client = await TaskClient.open({ url, namespace: "probe", store: mapStore(new Map()), autoPoll: false });
  const card: McpTaskElement | undefined = undefined;
  defineMcpTask({ tagName: "probe-task" });
  void card;
  void (memory satisfies WebAssembly.Memory);
  void (clientMemory satisfies WebAssembly.Memory);
  // A page with cards opens its clients from the element's build, and gives them to the elements.
  const cards = await CardClient.open({ url, namespace: "probe-cards", store: mapStore(new Map()), autoPoll: false });
  if (card !== undefined) (card as McpTaskElement).client = cards;
  return client.tasks().map((task) => task.status);
}
